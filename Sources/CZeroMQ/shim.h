#ifndef C_ZEROMQ_SHIM_H
#define C_ZEROMQ_SHIM_H
#include <zmq.h>
#include <sys/eventfd.h>
#endif
