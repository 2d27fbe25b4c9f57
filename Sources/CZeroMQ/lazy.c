// libzmq, loaded the first time a socket function is called rather than when the
// process starts. Linking it brings 19 shared libraries (sodium, pgm, norm, Kerberos…)
// that cost every process about 2.4 ms before main on a 2-core VM; a run stepped
// wholly in its own process (a head start) never opens a socket, and needs none of
// them. Each function here has libzmq's own name and signature (so <zmq.h> declares
// it) and forwards to libzmq's, found with dlsym once.
#include "CZeroMQ.h"
#include "CTesseraSystem.h"
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <unistd.h>

static void *library;
static pthread_once_t loading = PTHREAD_ONCE_INIT;

static void load(void) {
    library = dlopen("libzmq.so.5", RTLD_NOW | RTLD_LOCAL);
    if (!library) {
        // Every caller would fail on a null function: say so in one line, as any bad
        // set-up is answered, and leave before anything is half done.
        fprintf(stderr, "error: cannot load libzmq (%s): the cluster's sockets need it; "
                        "install it (Debian: apt-get install libzmq5, or deploy/install-deps.sh)\n", dlerror());
        _exit(2);
    }
    // libzmq and the libraries it brings map only the pages touched from here on, as the
    // binary does (fault_around.c): 2.5 MiB of a worker's pages where they held 3.4
    // (their initialisers have run by now).
    (void)tessera_map_touched_pages_only_of_loaded_files();
}

static void *resolve(const char *name) {
    pthread_once(&loading, load);
    void *function = dlsym(library, name);
    if (!function) {
        fprintf(stderr, "error: the libzmq loaded has no %s: install libzmq 4.3 or later (deploy/install-deps.sh)\n", name);
        _exit(2);
    }
    return function;
}

// One forwarder per function: resolved on its first call (threads that race there
// store the same address), then called straight through.
#define FORWARD(result, name, params, args)                               \
    result name params {                                                  \
        static result(*target) params;                                    \
        result(*function) params = __atomic_load_n(&target, __ATOMIC_ACQUIRE); \
        if (!function) {                                                  \
            function = (result(*) params)resolve(#name);                  \
            __atomic_store_n(&target, function, __ATOMIC_RELEASE);        \
        }                                                                 \
        return function args;                                             \
    }

FORWARD(int, zmq_errno, (void), ())
FORWARD(const char *, zmq_strerror, (int errnum), (errnum))
FORWARD(void *, zmq_ctx_new, (void), ())
FORWARD(int, zmq_ctx_term, (void *context), (context))
FORWARD(int, zmq_msg_init, (zmq_msg_t *msg), (msg))
FORWARD(int, zmq_msg_recv, (zmq_msg_t *msg, void *s, int flags), (msg, s, flags))
FORWARD(int, zmq_msg_close, (zmq_msg_t *msg), (msg))
FORWARD(void *, zmq_msg_data, (zmq_msg_t *msg), (msg))
FORWARD(size_t, zmq_msg_size, (const zmq_msg_t *msg), (msg))
FORWARD(int, zmq_msg_more, (const zmq_msg_t *msg), (msg))
FORWARD(void *, zmq_socket, (void *context, int type), (context, type))
FORWARD(int, zmq_close, (void *s), (s))
FORWARD(int, zmq_setsockopt, (void *s, int option, const void *value, size_t length), (s, option, value, length))
FORWARD(int, zmq_getsockopt, (void *s, int option, void *value, size_t *length), (s, option, value, length))
FORWARD(int, zmq_bind, (void *s, const char *address), (s, address))
FORWARD(int, zmq_connect, (void *s, const char *address), (s, address))
FORWARD(int, zmq_disconnect, (void *s, const char *address), (s, address))
FORWARD(int, zmq_send, (void *s, const void *buffer, size_t length, int flags), (s, buffer, length, flags))
FORWARD(int, zmq_socket_monitor, (void *s, const char *address, int events), (s, address, events))
FORWARD(int, zmq_poll, (zmq_pollitem_t * items, int count, long timeout), (items, count, timeout))
FORWARD(int, zmq_has, (const char *capability), (capability))
FORWARD(char *, zmq_z85_encode, (char *destination, const uint8_t *data, size_t size), (destination, data, size))
FORWARD(int, zmq_curve_keypair, (char *public_key, char *secret_key), (public_key, secret_key))
FORWARD(int, zmq_curve_public, (char *public_key, const char *secret_key), (public_key, secret_key))
