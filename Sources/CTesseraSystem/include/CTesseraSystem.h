#ifndef C_TESSERA_SYSTEM_H
#define C_TESSERA_SYSTEM_H

#include <spawn.h>
#include <stddef.h>

/// Writes up to `max` CPUs this process may run on into `cpus`; returns how many, or -1.
int tessera_allowed_cpus(int *cpus, int max);

/// How many CPUs this process may run on, or -1.
int tessera_allowed_cpu_count(void);

/// snprintf of one number: `spec` is one conversion, `%lld`-style for the integers.
int tessera_format_signed(char *buffer, size_t size, const char *spec, long long value);
int tessera_format_unsigned(char *buffer, size_t size, const char *spec, unsigned long long value);
int tessera_format_double(char *buffer, size_t size, const char *spec, double value);

/// Pins thread `tid` (0: the calling one) to `cpu`; returns 0, or an errno value.
int tessera_pin_thread(int tid, int cpu);

/// A file descriptor that becomes readable when process `pid` ends (Linux pidfd_open),
/// or a negative errno value (-ESRCH: no such process).
int tessera_pidfd_open(int pid);

/// Waits until `fd` is readable or `milliseconds` pass: 1, 0 on timeout, or -errno.
int tessera_wait_readable(int fd, int milliseconds);

/// Names the calling thread (its first 15 bytes), as tools such as top and perf show it.
void tessera_name_thread(const char *name);

/// Catches signals `numbers` (at most 8; those ignored stay so) with a handler that
/// notes the first to come, unblocked in the calling thread, keeping what each did
/// before; 0, or -1 with nothing changed.
int tessera_start_noting(const int *numbers, int count);

/// Gives the signals caught by `tessera_start_noting` back what they did before.
void tessera_stop_noting(void);

/// The first signal noted since `tessera_start_noting`, or 0.
int tessera_noted_signal(void);

/// Binds the abstract Unix socket worker `pid` answers `tessera worker --drain` on;
/// its descriptor (non-blocking), or a negative errno value (-EADDRINUSE: another
/// drain of that worker listens already).
int tessera_drain_listen(int pid);

/// Sends `text` as this process's answer to whoever drains it; 0, or a negative errno
/// value (-ECONNREFUSED: no one does).
int tessera_drain_answer(const char *text);

/// Reads one answer that process `pid` sent to `fd` (datagrams from any other are
/// dropped) into `buffer`, NUL-terminated: its length, 0 when none is waiting, or a
/// negative errno value.
int tessera_drain_read(int fd, int pid, char *buffer, int size);

/// Waits until `first` or `second` is readable or `milliseconds` pass (-1: no limit):
/// 1, 2 or 3 for which are, 0 on timeout, or -errno.
int tessera_wait_either(int first, int second, int milliseconds);

/// Asks Linux to map only the pages this process touches in the pages spanned by
/// `length` bytes of file mapping from `start`, not the 64 KiB around each
/// (fault_around.c): 0, or a negative errno value (-EINVAL: a kernel before 6.7; -EPERM or
/// -ENOSYS: userfaultfd refused).
int tessera_map_touched_pages_only(void *start, size_t length);

/// The same for every segment of the executable and the libraries loaded so far, as
/// each process does before anything else runs: how many it registered, or a negative
/// errno value.
int tessera_map_touched_pages_only_of_loaded_files(void);

/// Adds to `actions` the closing of every descriptor from `lowest` up, so that a child
/// holds only the descriptors it is given: 0, or an errno value.
int tessera_spawn_close_from(posix_spawn_file_actions_t *actions, int lowest);

/// Adds to `actions` a change of the child's working directory to `path`: 0, or an errno value.
int tessera_spawn_change_directory(posix_spawn_file_actions_t *actions, const char *path);

#endif
