#define _GNU_SOURCE
#include <errno.h>
#include <poll.h>
#include <sys/syscall.h>
#include <unistd.h>
#include "CTesseraSystem.h"

int tessera_pidfd_open(int pid) {
#ifdef SYS_pidfd_open
    long fd = syscall(SYS_pidfd_open, pid, 0);
    return fd < 0 ? -errno : (int)fd;
#else
    (void)pid;
    return -ENOSYS;
#endif
}

int tessera_wait_readable(int fd, int milliseconds) {
    struct pollfd entry = {.fd = fd, .events = POLLIN};
    int rc;
    do { rc = poll(&entry, 1, milliseconds); } while (rc < 0 && errno == EINTR);
    return rc < 0 ? -errno : rc;
}
