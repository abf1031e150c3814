// Many UDP sockets read through one epoll set: the bench's bots (bench/server/bot-sockets.ts), one socket
// per bot because the server tells its clients apart by source address and port.
//
// Why: with a socket of udp_mmsg.c per bot, each readable socket costs the event loop a wake-up of its own
// and a call into JavaScript (napi_make_callback, with its microtask checkpoint) for the one or two
// datagrams a broadcast brings it: at 5000 bots about 60,000 a second. Here the sockets sit in an epoll
// set of their own, and libuv polls only the set's descriptor. When it is readable, epoll_wait says which
// sockets have data, each is read with one recvmmsg into the next free slots of buffers JavaScript owns,
// every slot tagged with the socket's id, and JavaScript is called once for up to SET_SLOTS datagrams.
// With an interval the set is read at most once per interval: fewer wake-ups of the loop, and more
// datagrams per call into JavaScript.
//
// The sockets are connected to their one peer (the server): a send names no address, the kernel keeps
// the route, and only the peer's datagrams are let in, so a received slot carries no source address.
#define _GNU_SOURCE
#include "socket_set.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <unistd.h>
#include <uv.h>

#include "napi_util.h"

// Datagrams per call into JavaScript: the receive buffers hold this many slots.
#define SET_SLOTS 256
// Ready sockets asked of one epoll_wait.
#define SET_EVENTS 256
// Datagrams read from one socket per visit; a socket with more is visited again (epoll is level-triggered).
#define SET_PER_SOCKET 16
// epoll_wait rounds per wake-up, so a flood cannot starve the loop's timers.
#define SET_ROUNDS 8
// Fields per received slot in meta: socket id, length, msg_flags.
#define SET_META 3

typedef struct {
  int epfd;
  int closing;
  int finalized;  // the JS handle was garbage-collected: free once closed
  int env_gone;   // the environment is being torn down: never touch JS again
  napi_async_cleanup_hook_handle cleanup_hook;
  uv_poll_t poll;    // on epfd: readable while any socket of the set is
  uv_timer_t resume; // the interval's end: epfd is polled again
  int handles_open;  // poll and resume: on_close runs when libuv has let go of both
  int interval_ms;
  napi_env env;
  napi_async_context async_context;
  napi_ref self, on_readable, on_closed, data_ref, meta_ref;
  uint8_t *data;  // SET_SLOTS × RECV_SLOT
  int32_t *meta;  // SET_SLOTS × SET_META
  // The recvmmsg headers, one per slot, pointing into data: rebuilt when data moves.
  struct mmsghdr messages[SET_SLOTS];
  struct iovec vectors[SET_SLOTS];
  uint8_t *messages_for;
  // Descriptors by socket id (-1: free), and the ids closed and free to reuse.
  int *fds;
  int32_t *free_ids;
  int32_t free_count;
  int32_t used;      // ids handed out so far (fds[0 .. used))
  int32_t capacity;  // entries of fds and free_ids
} SocketSet;

static const napi_type_tag SET_TAG = {0x5d1e7a9c3b2f4e60ULL, 0x9e4b2c81d07a6f35ULL};

static SocketSet *unwrap_set(napi_env env, napi_value value) {
  SocketSet *set = NULL;
  bool tagged = false;
  if (napi_check_object_type_tag(env, value, &SET_TAG, &tagged) != napi_ok || !tagged ||
      napi_get_value_external(env, value, (void **)&set) != napi_ok || set == NULL) {
    napi_throw_type_error(env, NULL, "udp-mmsg: not a socket set");
    return NULL;
  }
  if (set->closing) {
    napi_throw_error(env, NULL, "udp-mmsg: socket set is closed");
    return NULL;
  }
  return set;
}

// Re-reads the receive buffers' addresses (JS could have detached one since the last call); 0 when a
// buffer is gone or too small, and reading stops instead of writing into it.
static int refresh_buffers(SocketSet *set) {
  napi_env env = set->env;
  napi_handle_scope scope;
  if (napi_open_handle_scope(env, &scope) != napi_ok) return 0;
  napi_ref refs[2] = {set->data_ref, set->meta_ref};
  size_t minimum[2] = {(size_t)SET_SLOTS * RECV_SLOT, (size_t)SET_SLOTS * SET_META};
  void *data[2] = {NULL, NULL};
  int ok = 1;
  for (int i = 0; i < 2 && ok; i++) {
    napi_value value;
    napi_typedarray_type type;
    size_t length = 0;
    if (napi_get_reference_value(env, refs[i], &value) != napi_ok || value == NULL ||
        napi_get_typedarray_info(env, value, &type, &length, &data[i], NULL, NULL) != napi_ok || data[i] == NULL ||
        length < minimum[i])
      ok = 0;
  }
  napi_close_handle_scope(env, scope);
  if (!ok) return 0;
  set->data = data[0];
  set->meta = data[1];
  if (set->messages_for != set->data) {
    for (int i = 0; i < SET_SLOTS; i++) {
      set->vectors[i].iov_base = set->data + (size_t)i * RECV_SLOT;
      set->vectors[i].iov_len = RECV_SLOT;
      memset(&set->messages[i].msg_hdr, 0, sizeof set->messages[i].msg_hdr);
      set->messages[i].msg_hdr.msg_iov = &set->vectors[i];
      set->messages[i].msg_hdr.msg_iovlen = 1;
    }
    set->messages_for = set->data;
  }
  return 1;
}

static int usable(SocketSet *set) { return !set->closing && !set->env_gone; }

// Hands `count` filled slots to JavaScript; 0 when reading must stop (closed, or the buffers gone).
static int deliver(SocketSet *set, int count) {
  call_back(set->env, set->async_context, set->self, set->on_readable, 1, count);
  return usable(set) && refresh_buffers(set);
}

// Reads every socket epoll reports readable, SET_PER_SOCKET datagrams at most per visit, into the slots,
// and calls JavaScript each time they are full and once at the end.
static void drain(SocketSet *set) {
  if (!refresh_buffers(set)) {
    uv_poll_stop(&set->poll);
    return;
  }
  struct epoll_event events[SET_EVENTS];
  int count = 0;
  for (int round = 0; round < SET_ROUNDS && usable(set); round++) {
    int ready = epoll_wait(set->epfd, events, SET_EVENTS, 0);
    if (ready < 0 && errno == EINTR) continue;
    if (ready <= 0) break;
    for (int i = 0; i < ready && usable(set); i++) {
      int32_t id = (int32_t)events[i].data.u32;
      // A socket JavaScript closed since epoll_wait (in a call just made) has no descriptor.
      if (id >= set->used || set->fds[id] < 0) continue;
      if (count == SET_SLOTS) {
        if (!deliver(set, count)) return;
        count = 0;
        if (set->fds[id] < 0) continue;
      }
      int room = SET_SLOTS - count < SET_PER_SOCKET ? SET_SLOTS - count : SET_PER_SOCKET;
      int got;
      do got = recvmmsg(set->fds[id], &set->messages[count], (unsigned)room, MSG_DONTWAIT, NULL);
      while (got < 0 && errno == EINTR);
      // EAGAIN: nothing after all; anything else (an ICMP error on the socket) was consumed by the call.
      if (got <= 0) continue;
      for (int j = 0; j < got; j++) {
        int32_t *slot = set->meta + (size_t)(count + j) * SET_META;
        slot[0] = id;
        slot[1] = (int32_t)set->messages[count + j].msg_len;
        slot[2] = set->messages[count + j].msg_hdr.msg_flags;
      }
      count += got;
    }
    if (ready < SET_EVENTS) break;  // every ready socket was visited
  }
  if (count > 0 && usable(set)) deliver(set, count);
}

static void on_resume(uv_timer_t *timer);

static void on_poll(uv_poll_t *poll, int status, int events) {
  SocketSet *set = poll->data;
  if (!usable(set)) return;
  if (status < 0) {
    uv_poll_stop(poll);  // the descriptor went bad: reading cannot fix it; closeSet still frees everything
    return;
  }
  drain(set);
  // With an interval, nothing more is read until it has passed: what arrives meanwhile is read together.
  if (set->interval_ms > 0 && usable(set) && uv_is_active((uv_handle_t *)&set->poll)) {
    uv_poll_stop(&set->poll);
    uv_timer_start(&set->resume, on_resume, (uint64_t)set->interval_ms, 0);
  }
}

static void on_resume(uv_timer_t *timer) {
  SocketSet *set = timer->data;
  if (usable(set)) uv_poll_start(&set->poll, UV_READABLE, on_poll);
}

static void close_sockets(SocketSet *set) {
  for (int32_t id = 0; id < set->used; id++) {
    if (set->fds[id] >= 0) close(set->fds[id]);
    set->fds[id] = -1;
  }
}

static void on_close(SocketSet *set) {
  close(set->epfd);
  set->epfd = -1;
  free(set->fds);
  free(set->free_ids);
  set->fds = NULL;
  set->free_ids = NULL;
  set->used = set->capacity = set->free_count = 0;
  if (set->env_gone) {
    // Torn down while open: the environment's references die with it, and its teardown may still run
    // finalize(), which reads the struct, so the struct stays (once per set, only at such an exit).
    napi_remove_async_cleanup_hook(set->cleanup_hook);
    return;
  }
  if (set->cleanup_hook != NULL) {
    napi_remove_async_cleanup_hook(set->cleanup_hook);
    set->cleanup_hook = NULL;
  }
  napi_env env = set->env;
  if (set->on_closed != NULL) call_back(env, set->async_context, set->self, set->on_closed, 0, 0);
  napi_ref refs[] = {set->self, set->on_readable, set->on_closed, set->data_ref, set->meta_ref};
  for (size_t i = 0; i < sizeof refs / sizeof refs[0]; i++)
    if (refs[i] != NULL) napi_delete_reference(env, refs[i]);
  if (set->async_context != NULL) napi_async_destroy(env, set->async_context);
  set->self = set->on_readable = set->on_closed = set->data_ref = set->meta_ref = NULL;
  set->async_context = NULL;
  if (set->finalized) free(set);
}

static void on_handle_closed(uv_handle_t *handle) {
  SocketSet *set = handle->data;
  if (--set->handles_open == 0) on_close(set);
}

// Closes every socket now and both handles; on_close runs once libuv has let go of them.
static void close_set(SocketSet *set) {
  set->closing = 1;
  close_sockets(set);
  uv_timer_stop(&set->resume);
  uv_close((uv_handle_t *)&set->resume, on_handle_closed);
  uv_poll_stop(&set->poll);
  uv_close((uv_handle_t *)&set->poll, on_handle_closed);
}

static void on_env_cleanup(napi_async_cleanup_hook_handle hook, void *arg) {
  SocketSet *set = arg;
  set->env_gone = 1;
  if (!set->closing) close_set(set);
}

static void finalize(napi_env env, void *data, void *hint) {
  SocketSet *set = data;
  if (set->env_gone) return;  // the cleanup hook's close frees it
  set->finalized = 1;
  if (!set->closing) close_set(set);
  else if (set->epfd < 0) free(set);
}

// openSet(self, data: Uint8Array, meta: Int32Array, onReadable(count), intervalMs) -> set
// Received datagram i (i < count) is data[i × RECV_SLOT ..] of length meta[3i + 1], from the socket
// meta[3i], with msg_flags meta[3i + 2] (MSG_TRUNC: cut at the slot's size). Both buffers are reused by
// the next call. intervalMs (0-1000): read at most once per that many milliseconds; 0: at once.
static napi_value OpenSet(napi_env env, napi_callback_info info) {
  size_t argc = 5;
  napi_value argv[5];
  CHECK(napi_get_cb_info(env, info, &argc, argv, NULL, NULL));
  if (argc < 5) {
    napi_throw_type_error(env, NULL, "udp-mmsg: openSet takes 5 arguments");
    return NULL;
  }
  size_t data_length, meta_length;
  if (typed_array(env, argv[1], napi_uint8_array, &data_length) == NULL) return NULL;
  if (typed_array(env, argv[2], napi_int32_array, &meta_length) == NULL) return NULL;
  if (data_length < (size_t)SET_SLOTS * RECV_SLOT || meta_length < (size_t)SET_SLOTS * SET_META) {
    napi_throw_range_error(env, NULL, "udp-mmsg: a set's receive buffers are smaller than SET_SLOTS slots");
    return NULL;
  }
  napi_valuetype type;
  CHECK(napi_typeof(env, argv[3], &type));
  if (type != napi_function) {
    napi_throw_type_error(env, NULL, "udp-mmsg: onReadable is not a function");
    return NULL;
  }
  int32_t interval_ms;
  CHECK(napi_get_value_int32(env, argv[4], &interval_ms));
  if (interval_ms < 0 || interval_ms > 1000) {
    napi_throw_range_error(env, NULL, "udp-mmsg: a receive interval is 0-1000 ms");
    return NULL;
  }
  uv_loop_t *loop;
  CHECK(napi_get_uv_event_loop(env, &loop));
  int epfd = epoll_create1(EPOLL_CLOEXEC);
  if (epfd < 0) return throw_errno(env, "epoll_create1", errno);
  SocketSet *set = calloc(1, sizeof *set);
  if (set == NULL || uv_poll_init(loop, &set->poll, epfd) != 0) {
    close(epfd);
    free(set);
    napi_throw_error(env, NULL, "udp-mmsg: cannot poll the socket set");
    return NULL;
  }
  set->epfd = epfd;
  set->env = env;
  set->interval_ms = interval_ms;
  set->poll.data = set;
  uv_timer_init(loop, &set->resume);
  set->resume.data = set;
  set->handles_open = 2;
  napi_value resource_name, handle;
  CHECK(napi_create_string_utf8(env, "UDPMMSGSET", NAPI_AUTO_LENGTH, &resource_name));
  CHECK(napi_async_init(env, NULL, resource_name, &set->async_context));
  CHECK(napi_create_reference(env, argv[0], 1, &set->self));
  CHECK(napi_create_reference(env, argv[1], 1, &set->data_ref));
  CHECK(napi_create_reference(env, argv[2], 1, &set->meta_ref));
  CHECK(napi_create_reference(env, argv[3], 1, &set->on_readable));
  CHECK(napi_create_external(env, set, finalize, NULL, &handle));
  CHECK(napi_type_tag_object(env, handle, &SET_TAG));
  CHECK(napi_add_async_cleanup_hook(env, on_env_cleanup, set, &set->cleanup_hook));
  if (uv_poll_start(&set->poll, UV_READABLE, on_poll) != 0) {
    napi_throw_error(env, NULL, "udp-mmsg: cannot start polling the socket set");
    return NULL;
  }
  return handle;
}

// A free id, the arrays grown as needed; -1 when memory runs out.
static int32_t take_id(SocketSet *set) {
  if (set->free_count > 0) return set->free_ids[--set->free_count];
  if (set->used == set->capacity) {
    int32_t capacity = set->capacity == 0 ? 64 : set->capacity * 2;
    int *fds = realloc(set->fds, (size_t)capacity * sizeof *fds);
    if (fds == NULL) return -1;
    set->fds = fds;
    int32_t *free_ids = realloc(set->free_ids, (size_t)capacity * sizeof *free_ids);
    if (free_ids == NULL) return -1;
    set->free_ids = free_ids;
    set->capacity = capacity;
  }
  set->fds[set->used] = -1;
  return set->used++;
}

// setOpen(set, host, peerHost, peerPort) -> [id, boundPort]: a socket bound to host (an IP literal) on a
// port of its own, connected to the peer, read with the set. Its datagrams carry `id` in meta.
static napi_value SetOpen(napi_env env, napi_callback_info info) {
  size_t argc = 4;
  napi_value argv[4];
  CHECK(napi_get_cb_info(env, info, &argc, argv, NULL, NULL));
  if (argc < 4) {
    napi_throw_type_error(env, NULL, "udp-mmsg: setOpen takes 4 arguments");
    return NULL;
  }
  SocketSet *set = unwrap_set(env, argv[0]);
  if (set == NULL) return NULL;
  char host[64], peer_host[64];
  size_t length;
  int32_t peer_port;
  CHECK(napi_get_value_string_utf8(env, argv[1], host, sizeof host, &length));
  CHECK(napi_get_value_string_utf8(env, argv[2], peer_host, sizeof peer_host, &length));
  CHECK(napi_get_value_int32(env, argv[3], &peer_port));
  int family = strchr(host, ':') != NULL ? 6 : 4;
  struct sockaddr_storage local, peer;
  socklen_t local_length, peer_length;
  if (parse_address(env, family, host, 0, &local, &local_length) != 0) return NULL;
  if (parse_address(env, family, peer_host, peer_port, &peer, &peer_length) != 0) return NULL;
  int fd = socket(family == 4 ? AF_INET : AF_INET6, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
  if (fd < 0) return throw_errno(env, "socket", errno);
  const char *failed = NULL;
  if (bind(fd, (struct sockaddr *)&local, local_length) != 0) failed = "bind";
  else if (connect(fd, (struct sockaddr *)&peer, peer_length) != 0) failed = "connect";
  int32_t id = failed == NULL ? take_id(set) : -1;
  if (failed == NULL && id < 0) {
    failed = "realloc";
    errno = ENOMEM;
  }
  if (failed == NULL) {
    struct epoll_event event = {.events = EPOLLIN, .data = {.u32 = (uint32_t)id}};
    if (epoll_ctl(set->epfd, EPOLL_CTL_ADD, fd, &event) != 0) {
      failed = "epoll_ctl";
      set->free_ids[set->free_count++] = id;
    }
  }
  if (failed != NULL) {
    int code = errno;
    close(fd);
    return throw_errno(env, failed, code);
  }
  set->fds[id] = fd;
  napi_value result, id_value, port_value;
  CHECK(napi_create_int32(env, id, &id_value));
  CHECK(napi_create_int32(env, bound_port(fd), &port_value));
  CHECK(napi_create_array_with_length(env, 2, &result));
  CHECK(napi_set_element(env, result, 0, id_value));
  CHECK(napi_set_element(env, result, 1, port_value));
  return result;
}

// The descriptor of an open socket of the set, or -1 (thrown).
static int socket_fd(napi_env env, SocketSet *set, napi_value id_value) {
  int32_t id;
  if (napi_get_value_int32(env, id_value, &id) != napi_ok || id < 0 || id >= set->used || set->fds[id] < 0) {
    napi_throw_range_error(env, NULL, "udp-mmsg: no such socket in the set");
    return -1;
  }
  return set->fds[id];
}

// setSend(set, id, data: Uint8Array) -> 0, or the errno of a datagram the kernel did not take (EAGAIN:
// the send buffer is full; ECONNREFUSED: an earlier datagram found no one at the peer's port).
static napi_value SetSend(napi_env env, napi_callback_info info) {
  size_t argc = 3;
  napi_value argv[3];
  CHECK(napi_get_cb_info(env, info, &argc, argv, NULL, NULL));
  if (argc < 3) {
    napi_throw_type_error(env, NULL, "udp-mmsg: setSend takes 3 arguments");
    return NULL;
  }
  SocketSet *set = unwrap_set(env, argv[0]);
  if (set == NULL) return NULL;
  int fd = socket_fd(env, set, argv[1]);
  if (fd < 0) return NULL;
  size_t length;
  void *data = typed_array(env, argv[2], napi_uint8_array, &length);
  if (data == NULL) return NULL;
  ssize_t sent;
  do sent = send(fd, data, length, MSG_DONTWAIT);
  while (sent < 0 && errno == EINTR);
  napi_value result;
  CHECK(napi_create_int32(env, sent < 0 ? errno : 0, &result));
  return result;
}

// setCloseSocket(set, id): closes one socket of the set; its id may be handed out again.
static napi_value SetCloseSocket(napi_env env, napi_callback_info info) {
  size_t argc = 2;
  napi_value argv[2];
  CHECK(napi_get_cb_info(env, info, &argc, argv, NULL, NULL));
  if (argc < 2) {
    napi_throw_type_error(env, NULL, "udp-mmsg: setCloseSocket takes 2 arguments");
    return NULL;
  }
  SocketSet *set = unwrap_set(env, argv[0]);
  if (set == NULL) return NULL;
  int fd = socket_fd(env, set, argv[1]);
  if (fd < 0) return NULL;
  int32_t id;
  CHECK(napi_get_value_int32(env, argv[1], &id));
  close(fd);  // closing the last reference leaves the epoll set too
  set->fds[id] = -1;
  set->free_ids[set->free_count++] = id;
  return NULL;
}

// closeSet(set, onClosed): closes every socket of the set at once and stops reading; onClosed is called
// once libuv has let go of the set's descriptor. A second call does nothing.
static napi_value CloseSet(napi_env env, napi_callback_info info) {
  size_t argc = 2;
  napi_value argv[2];
  CHECK(napi_get_cb_info(env, info, &argc, argv, NULL, NULL));
  SocketSet *set = NULL;
  bool tagged = false;
  if (argc < 1 || napi_check_object_type_tag(env, argv[0], &SET_TAG, &tagged) != napi_ok || !tagged ||
      napi_get_value_external(env, argv[0], (void **)&set) != napi_ok || set == NULL) {
    napi_throw_type_error(env, NULL, "udp-mmsg: not a socket set");
    return NULL;
  }
  if (set->closing) return NULL;
  if (argc >= 2) {
    napi_valuetype type;
    CHECK(napi_typeof(env, argv[1], &type));
    if (type == napi_function) CHECK(napi_create_reference(env, argv[1], 1, &set->on_closed));
  }
  close_set(set);
  return NULL;
}

void socket_set_init(napi_env env, napi_value exports, napi_value constants) {
  napi_property_descriptor properties[] = {
      {"openSet", NULL, OpenSet, NULL, NULL, NULL, napi_default, NULL},
      {"setOpen", NULL, SetOpen, NULL, NULL, NULL, napi_default, NULL},
      {"setSend", NULL, SetSend, NULL, NULL, NULL, napi_default, NULL},
      {"setCloseSocket", NULL, SetCloseSocket, NULL, NULL, NULL, napi_default, NULL},
      {"closeSet", NULL, CloseSet, NULL, NULL, NULL, napi_default, NULL},
  };
  napi_define_properties(env, exports, sizeof properties / sizeof properties[0], properties);
  napi_value value;
  napi_create_int32(env, SET_SLOTS, &value);
  napi_set_named_property(env, constants, "SET_SLOTS", value);
  napi_create_int32(env, SET_META, &value);
  napi_set_named_property(env, constants, "SET_META", value);
}
