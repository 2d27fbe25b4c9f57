#define _GNU_SOURCE
#include <errno.h>
#include <poll.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>
#include "CTesseraSystem.h"

// A worker's answer to `tessera worker --drain PID` travels in one datagram to an
// abstract Unix socket named for the worker's pid: no file to leave behind, and the
// kernel names the sender (SO_PASSCRED), so only the worker itself can answer.

static socklen_t drain_address(int pid, struct sockaddr_un *address) {
    memset(address, 0, sizeof *address);
    address->sun_family = AF_UNIX;
    // sun_path[0] stays 0: the abstract namespace.
    int length = snprintf(address->sun_path + 1, sizeof address->sun_path - 1, "tessera-drain-%d", pid);
    return (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 + length);
}

int tessera_drain_listen(int pid) {
    int fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
    if (fd < 0) return -errno;
    int on = 1;
    struct sockaddr_un address;
    socklen_t length = drain_address(pid, &address);
    if (setsockopt(fd, SOL_SOCKET, SO_PASSCRED, &on, sizeof on) != 0 || bind(fd, (struct sockaddr *)&address, length) != 0) {
        int error = errno;
        close(fd);
        return -error;
    }
    return fd;
}

int tessera_drain_answer(const char *text) {
    int fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    if (fd < 0) return -errno;
    struct sockaddr_un address;
    socklen_t length = drain_address(getpid(), &address);
    ssize_t sent = sendto(fd, text, strlen(text), 0, (struct sockaddr *)&address, length);
    int error = errno;
    close(fd);
    return sent < 0 ? -error : 0;
}

int tessera_drain_read(int fd, int pid, char *buffer, int size) {
    for (;;) {
        union {
            char bytes[CMSG_SPACE(sizeof(struct ucred))];
            struct cmsghdr align;
        } control;
        struct iovec part = {.iov_base = buffer, .iov_len = (size_t)size - 1};
        struct msghdr message = {.msg_iov = &part, .msg_iovlen = 1, .msg_control = control.bytes,
                                 .msg_controllen = sizeof control.bytes};
        ssize_t got = recvmsg(fd, &message, 0);
        if (got < 0) return errno == EAGAIN || errno == EWOULDBLOCK ? 0 : -errno;
        struct cmsghdr *header = CMSG_FIRSTHDR(&message);
        if (header == NULL || header->cmsg_level != SOL_SOCKET || header->cmsg_type != SCM_CREDENTIALS) continue;
        struct ucred sender;
        memcpy(&sender, CMSG_DATA(header), sizeof sender);
        // Anyone else's: dropped.
        if (sender.pid != pid) continue;
        buffer[got] = 0;
        return (int)got;
    }
}

int tessera_wait_either(int first, int second, int milliseconds) {
    struct pollfd entries[2] = {{.fd = first, .events = POLLIN}, {.fd = second, .events = POLLIN}};
    int rc;
    do { rc = poll(entries, 2, milliseconds); } while (rc < 0 && errno == EINTR);
    if (rc < 0) return -errno;
    return (entries[0].revents ? 1 : 0) | (entries[1].revents ? 2 : 0);
}
