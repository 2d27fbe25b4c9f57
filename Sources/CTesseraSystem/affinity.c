// sched_{get,set}affinity and the CPU_* macros need _GNU_SOURCE, which Swift's Glibc
// module does not define: hence this shim.
#define _GNU_SOURCE
#include <errno.h>
#include <sched.h>
#include "CTesseraSystem.h"

int tessera_allowed_cpus(int *cpus, int max) {
    cpu_set_t set;
    if (sched_getaffinity(0, sizeof set, &set) != 0) return -1;
    int n = 0;
    for (int cpu = 0; cpu < CPU_SETSIZE && n < max; cpu++) {
        if (CPU_ISSET(cpu, &set)) cpus[n++] = cpu;
    }
    return n;
}

int tessera_allowed_cpu_count(void) {
    cpu_set_t set;
    if (sched_getaffinity(0, sizeof set, &set) != 0) return -1;
    return CPU_COUNT(&set);
}

int tessera_pin_thread(int tid, int cpu) {
    if (cpu < 0 || cpu >= CPU_SETSIZE) return EINVAL;
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET(cpu, &set);
    return sched_setaffinity(tid, sizeof set, &set) == 0 ? 0 : errno;
}
