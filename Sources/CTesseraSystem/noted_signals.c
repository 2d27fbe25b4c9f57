#include <pthread.h>
#include <signal.h>
#include <string.h>
#include "CTesseraSystem.h"

// The handler may only touch a sig_atomic_t: it runs between any two instructions of
// the thread it interrupts.
static volatile sig_atomic_t noted;
static struct sigaction previous[8];
static int previous_numbers[8];
static int previous_count;
static sigset_t previous_mask;

static void note(int number) {
    if (!noted) noted = number;
}

int tessera_start_noting(const int *numbers, int count) {
    if (count > 8) return -1;
    noted = 0;
    struct sigaction action;
    memset(&action, 0, sizeof action);
    action.sa_handler = note;
    sigemptyset(&action.sa_mask);
    // Restarted system calls: a read or write in progress finishes instead of failing.
    action.sa_flags = SA_RESTART;
    sigset_t unblocked;
    sigemptyset(&unblocked);
    previous_count = 0;
    for (int i = 0; i < count; i++) {
        struct sigaction before;
        if (sigaction(numbers[i], NULL, &before) != 0) continue;
        // A signal ignored when the process started stays ignored, as shells expect
        // of what they start in the background (SIGINT there) or under nohup (SIGHUP).
        if (before.sa_handler == SIG_IGN) continue;
        if (sigaction(numbers[i], &action, NULL) != 0) continue;
        previous[previous_count] = before;
        previous_numbers[previous_count] = numbers[i];
        previous_count++;
        sigaddset(&unblocked, numbers[i]);
    }
    // A mask is inherited across exec: one that blocks these would keep them pending.
    pthread_sigmask(SIG_UNBLOCK, &unblocked, &previous_mask);
    return 0;
}

void tessera_stop_noting(void) {
    pthread_sigmask(SIG_SETMASK, &previous_mask, NULL);
    for (int i = 0; i < previous_count; i++) sigaction(previous_numbers[i], &previous[i], NULL);
    previous_count = 0;
}

int tessera_noted_signal(void) {
    return noted;
}
