// pthread_setname_np needs _GNU_SOURCE, which Swift's Glibc module does not define.
#define _GNU_SOURCE
#include <pthread.h>
#include <string.h>
#include "CTesseraSystem.h"

void tessera_name_thread(const char *name) {
    // Linux keeps 15 bytes of a thread's name and refuses a longer one.
    char kept[16];
    strncpy(kept, name, sizeof kept - 1);
    kept[sizeof kept - 1] = 0;
    pthread_setname_np(pthread_self(), kept);
}
