// A small run executes some 1.6 MiB of the binary's code, yet held 9 MiB: on a page
// fault in a file mapping, Linux maps every page of the 64 KiB around it that the page
// cache holds ("fault-around"), so a run that touches one page in each 64 KiB of code is
// charged all sixteen, and the same goes for the binary's data and for libc. Linux skips
// fault-around in a mapping registered with a userfaultfd for write-protection
// (uffd_disable_fault_around), and since 6.7 (UFFD_FEATURE_WP_ASYNC) the kernel itself
// resolves such a mapping's write-protect faults, so registering is all it takes: nothing
// here is ever write-protected, no thread waits on the descriptor, and every fault is
// handled as before, one page at a time. Where the kernel is older or a sandbox refuses
// userfaultfd, nothing changes. docs/performance.md, "Process start and resident
// memory", has the figures and how to reproduce them.
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <link.h>
#include <linux/userfaultfd.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "CTesseraSystem.h"

#ifndef UFFD_USER_MODE_ONLY
#define UFFD_USER_MODE_ONLY 1
#endif
#ifndef UFFD_FEATURE_WP_ASYNC
#define UFFD_FEATURE_WP_ASYNC (1 << 15)
#endif

// Open for the life of the process: closing it would undo every registration.
static int registrar = -1;

static int open_registrar(void) {
    if (registrar >= 0) return 0;
    // User-mode faults only: what an unprivileged process may ask for (vm.unprivileged_userfaultfd=0).
    int fd = (int)syscall(SYS_userfaultfd, O_CLOEXEC | O_NONBLOCK | UFFD_USER_MODE_ONLY);
    if (fd < 0) return -errno;
    struct uffdio_api api = {.api = UFFD_API, .features = UFFD_FEATURE_WP_ASYNC};
    if (ioctl(fd, UFFDIO_API, &api) != 0) {
        int error = errno;
        close(fd);
        return -error;
    }
    registrar = fd;
    return 0;
}

int tessera_map_touched_pages_only(void *start, size_t length) {
    int opened = open_registrar();
    if (opened != 0) return opened;
    // The pages it spans: a segment's first and last pages are mapped with it, and
    // leaving them out would split its mapping in three.
    uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE);
    uintptr_t from = (uintptr_t)start & ~(page - 1);
    uintptr_t to = ((uintptr_t)start + length + page - 1) & ~(page - 1);
    if (to <= from) return 0;
    struct uffdio_register range = {.range = {.start = from, .len = to - from}, .mode = UFFDIO_REGISTER_MODE_WP};
    return ioctl(registrar, UFFDIO_REGISTER, &range) == 0 ? 0 : -errno;
}

static int register_object(struct dl_phdr_info *info, size_t size, void *data) {
    (void)size;
    int *registered = data;
    if (info->dlpi_name != NULL && strstr(info->dlpi_name, "linux-vdso")) return 0;  // not a file
    for (int i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *segment = &info->dlpi_phdr[i];
        if (segment->p_type != PT_LOAD) continue;
        // The file's part: past it a segment is zeroes (.bss), anonymous memory.
        int result = tessera_map_touched_pages_only((void *)(info->dlpi_addr + segment->p_vaddr), segment->p_filesz);
        if (result == -EINVAL || result == -ENOMEM) continue;  // a segment the kernel will not take; the rest may
        if (result < 0) {
            *registered = result;
            return 1;  // dl_iterate_phdr stops here
        }
        *registered += 1;
    }
    return 0;
}

int tessera_map_touched_pages_only_of_loaded_files(void) {
    int registered = open_registrar();
    if (registered != 0) return registered;
    dl_iterate_phdr(register_object, &registered);
    return registered;
}

// Before the Swift runtime's and the libraries' initialisers (priority 101 runs first),
// so that nearly every page is first touched after it.
__attribute__((constructor(101))) static void register_at_start(void) { (void)tessera_map_touched_pages_only_of_loaded_files(); }
