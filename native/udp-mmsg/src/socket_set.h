// Many UDP sockets read through one epoll set (socket_set.c): the bench's bots, one socket each.
#ifndef UDP_MMSG_SOCKET_SET_H
#define UDP_MMSG_SOCKET_SET_H

#include <node_api.h>

// Adds openSet, setOpen, setSend, setCloseSocket and closeSet to exports, and SET_SLOTS to `constants`.
void socket_set_init(napi_env env, napi_value exports, napi_value constants);

#endif
