#ifndef C_ZEROMQ_H
#define C_ZEROMQ_H
// libzmq's API, loaded on first use (see lazy.c), and eventfd for waking the pump thread.
#include <zmq.h>
#include <sys/eventfd.h>
#endif
