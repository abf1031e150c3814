// What both halves of the addon share: the slot sizes JavaScript lays its buffers out by, and the few
// Node-API helpers every entry point uses (udp_mmsg.c: one socket of the server's; socket_set.c: many
// sockets read through one epoll set, for the bench's bots).
#ifndef UDP_MMSG_NAPI_UTIL_H
#define UDP_MMSG_NAPI_UTIL_H

#include <node_api.h>
#include <sys/socket.h>

// Datagrams per sendmmsg/recvmmsg call (the kernel caps a call at UIO_MAXIOV, 1024).
#define BATCH 64
// Bytes per socket-address slot: a sockaddr_in6, the larger of the two families.
#define ADDR_BYTES 28
// Bytes per receive slot. Valid datagrams are at most 1200 bytes; a larger one
// still arrives whole up to this size, so the protocol layer rejects it with
// its own reason, and beyond it MSG_TRUNC marks it.
#define RECV_SLOT 1500

#define CHECK(call)                                                        \
  do {                                                                     \
    if ((call) != napi_ok) {                                               \
      const napi_extended_error_info *info_;                               \
      napi_get_last_error_info(env, &info_);                               \
      bool pending_;                                                       \
      napi_is_exception_pending(env, &pending_);                           \
      if (!pending_)                                                       \
        napi_throw_error(env, NULL,                                        \
                         info_->error_message ? info_->error_message       \
                                              : "udp-mmsg: N-API failure"); \
      return NULL;                                                         \
    }                                                                      \
  } while (0)

// Throws an Error with node:dgram's fields (code "EADDRINUSE", errno -98, syscall "bind"); returns NULL.
napi_value throw_errno(napi_env env, const char *what, int code);

// A typed array's bytes, checked to be of the expected element type (else throws and returns NULL).
void *typed_array(napi_env env, napi_value value, napi_typedarray_type want, size_t *length);

// Fills `address` for an IP literal and port (family 4 or 6); returns 0, or throws and returns -1.
int parse_address(napi_env env, int family, const char *host, int port, struct sockaddr_storage *address,
                  socklen_t *length);

// Calls function_ref(arg) (argc 0 or 1) on self_ref's object (the global if NULL) through napi_make_callback,
// not napi_call_function: it runs the microtask queue afterwards and keeps async_hooks' view of where the
// work came from. An exception it throws is the process's uncaught exception.
void call_back(napi_env env, napi_async_context context, napi_ref self_ref, napi_ref function_ref, int argc,
               int32_t arg);

// The port a bound socket got (for a bind to port 0).
int bound_port(int fd);

#endif
