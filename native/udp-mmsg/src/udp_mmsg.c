// Batched UDP for the game server (Linux): one sendmmsg call for a whole
// broadcast and one recvmmsg call for everything waiting, on a non-blocking
// socket that libuv polls.
//
// Why: node:dgram makes one system call per datagram and one JS callback (with
// a new Buffer and address object) per received datagram. On the machines this
// project is measured on, a system call costs about 3 µs of its own, more than
// the kernel's UDP work for a 72-byte StatePacket, so batching is the largest
// single saving the server has (docs/server.md, "Performance").
//
// The JS side (ts/server/transports/udp-mmsg.ts) owns every buffer: datagrams to send are
// staged in one Uint8Array with a table of (offset, length, address length)
// and a table of 28-byte socket addresses; received datagrams land in fixed
// 1500-byte slots of another Uint8Array, with their lengths, flags and source
// addresses in tables beside it. This file only moves bytes between those
// buffers and the kernel; it never allocates per datagram.
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <node_api.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>
#include <uv.h>

#include "napi_util.h"
#include "socket_set.h"

// recvmmsg rounds per readable event, so a flood cannot starve timers (the tick loop).
#define RECV_ROUNDS 16
#define SOCKET_BUFFER_BYTES (4 * 1024 * 1024)
// Bytes a send thread may hold queued; a batch beyond it is dropped and counted
// (a second of 5000 players' broadcasts is about 10 MiB).
#define SENDER_QUEUE_BYTES (16 * 1024 * 1024)
// How long the send thread waits for room in a full send buffer before looking again.
#define SENDER_POLL_MS 20
// How long a hand-over waits at most for the thread to take the previous burst (see sender_queue).
#define SENDER_WAIT_US 5000

// One flushed burst, copied out of JavaScript's staging area for the send
// thread: the entry table, the socket addresses and the data, in one block.
typedef struct Batch {
  struct Batch *next;
  int32_t count;
  size_t size;      // bytes of the whole block, for the queue's bound
  int32_t *meta;    // 3 per entry: offset into data, length, address length
  uint8_t *addresses;
  uint8_t *data;
} Batch;

// The send thread (startSender): the tick's thread stages and copies; this one
// makes the sendmmsg calls, so the kernel's work (on loopback, the receivers'
// half too) runs beside the simulation instead of inside its tick.
typedef struct {
  pthread_t thread;
  pthread_mutex_t lock;
  pthread_cond_t wake;
  pthread_cond_t taken;  // signalled each time the thread takes a batch off the queue
  int started;
  int stopping;   // under lock; read by the thread between calls
  int sending;    // under lock: the thread has taken a batch and not finished it
  int nice;
  Batch *head, *tail;
  size_t queued;  // bytes of the batches in the queue
  // Counters since the last read (under lock), reported through send()'s stats.
  int32_t calls, errors, last_errno, dropped, waited_us;
} Sender;

typedef struct {
  int fd;
  int events;
  int closing;
  int finalized;  // the JS handle was garbage-collected: free once closed
  int env_gone;   // the environment is being torn down: never touch JS again
  napi_async_cleanup_hook_handle cleanup_hook;
  uv_poll_t poll;
  // Receiving at most once per receive_interval_ms (setReceiveInterval): after a drain the socket is not
  // polled for reading until this timer fires. 0: every readable event is read at once.
  uv_timer_t resume;
  int receive_interval_ms;
  uint32_t receive_busy_per_s;  // the rate from which the interval applies (udp-mmsg.ts RECEIVE_BUSY_PER_SECOND)
  uint64_t rate_since_ms;       // the current second's start (the loop's clock) and its datagrams so far
  uint32_t rate_count;
  int busy;                     // the last full second reached receive_busy_per_s
  int handles_open;  // poll and resume: on_close runs when libuv has let go of both
  napi_env env;
  napi_async_context async_context;
  napi_ref self;          // the JS object the callbacks are called on
  napi_ref on_readable;   // (count) => void
  napi_ref on_writable;   // () => void
  napi_ref on_closed;     // () => void, once the descriptor is closed
  napi_ref recv_data_ref; // keep the receive buffers alive while C holds their pointers
  napi_ref recv_meta_ref;
  napi_ref recv_addr_ref;
  uint8_t *recv_data;
  int32_t *recv_meta;   // per slot: length, msg_flags
  uint8_t *recv_addr;   // per slot: ADDR_BYTES
  Sender sender;
} Socket;

static void finalize(napi_env env, void *data, void *hint);
static void on_env_cleanup(napi_async_cleanup_hook_handle hook, void *arg);

// Marks handles made by open(), so an external from another addon is refused, not misread.
static const napi_type_tag SOCKET_TAG = {0x8f3c0d2a6b5e4f17ULL, 0xa1d94c7e20b36f58ULL};

static Socket *unwrap(napi_env env, napi_value value) {
  Socket *socket = NULL;
  bool tagged = false;
  if (napi_check_object_type_tag(env, value, &SOCKET_TAG, &tagged) != napi_ok || !tagged ||
      napi_get_value_external(env, value, (void **)&socket) != napi_ok || socket == NULL) {
    napi_throw_type_error(env, NULL, "udp-mmsg: not a socket handle");
    return NULL;
  }
  if (socket->closing) {
    napi_throw_error(env, NULL, "udp-mmsg: socket is closed");
    return NULL;
  }
  return socket;
}


// open(family 4|6, host, port) -> [handle, boundPort]
static napi_value Open(napi_env env, napi_callback_info info) {
  size_t argc = 3;
  napi_value argv[3];
  CHECK(napi_get_cb_info(env, info, &argc, argv, NULL, NULL));
  int32_t family, port;
  char host[64];
  size_t host_length;
  CHECK(napi_get_value_int32(env, argv[0], &family));
  CHECK(napi_get_value_string_utf8(env, argv[1], host, sizeof host, &host_length));
  CHECK(napi_get_value_int32(env, argv[2], &port));
  struct sockaddr_storage address;
  socklen_t address_length;
  if (parse_address(env, family, host, port, &address, &address_length) != 0) return NULL;

  int fd = socket(family == 4 ? AF_INET : AF_INET6, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
  if (fd < 0) return throw_errno(env, "socket", errno);
  // Bigger buffers absorb a whole broadcast burst; the kernel caps them at
  // net.core.[rw]mem_max, and a smaller buffer still works.
  int size = SOCKET_BUFFER_BYTES;
  setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &size, sizeof size);
  setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &size, sizeof size);
  if (bind(fd, (struct sockaddr *)&address, address_length) != 0) {
    int code = errno;
    close(fd);
    return throw_errno(env, "bind", code);
  }
  int port_bound = bound_port(fd);

  Socket *socket_state = calloc(1, sizeof *socket_state);
  if (socket_state == NULL) {
    close(fd);
    return throw_errno(env, "calloc", ENOMEM);
  }
  socket_state->fd = fd;
  socket_state->env = env;
  pthread_mutex_init(&socket_state->sender.lock, NULL);
  pthread_cond_init(&socket_state->sender.wake, NULL);
  pthread_condattr_t taken_attributes;
  pthread_condattr_init(&taken_attributes);
  pthread_condattr_setclock(&taken_attributes, CLOCK_MONOTONIC);
  pthread_cond_init(&socket_state->sender.taken, &taken_attributes);
  pthread_condattr_destroy(&taken_attributes);
  uv_loop_t *loop;
  if (napi_get_uv_event_loop(env, &loop) != napi_ok || uv_poll_init(loop, &socket_state->poll, fd) != 0) {
    close(fd);
    pthread_mutex_destroy(&socket_state->sender.lock);
    pthread_cond_destroy(&socket_state->sender.wake);
    pthread_cond_destroy(&socket_state->sender.taken);
    free(socket_state);
    napi_throw_error(env, NULL, "udp-mmsg: cannot poll the socket");
    return NULL;
  }
  socket_state->poll.data = socket_state;
  uv_timer_init(loop, &socket_state->resume);
  socket_state->resume.data = socket_state;
  socket_state->handles_open = 2;
  socket_state->rate_since_ms = uv_now(loop);
  napi_value resource_name;
  CHECK(napi_create_string_utf8(env, "UDPMMSG", NAPI_AUTO_LENGTH, &resource_name));
  CHECK(napi_async_init(env, NULL, resource_name, &socket_state->async_context));

  napi_value handle, port_value, result;
  CHECK(napi_create_external(env, socket_state, finalize, NULL, &handle));
  CHECK(napi_type_tag_object(env, handle, &SOCKET_TAG));
  CHECK(napi_add_async_cleanup_hook(env, on_env_cleanup, socket_state, &socket_state->cleanup_hook));
  CHECK(napi_create_int32(env, port_bound, &port_value));
  CHECK(napi_create_array_with_length(env, 2, &result));
  CHECK(napi_set_element(env, result, 0, handle));
  CHECK(napi_set_element(env, result, 1, port_value));
  return result;
}

static void call_js(Socket *socket, napi_ref function_ref, int argc, int32_t arg) {
  if (socket->env_gone) return;
  call_back(socket->env, socket->async_context, socket->self, function_ref, argc, arg);
}

// Re-reads the receive buffers' addresses: the pointers stored at startReceive
// would dangle if JS detached a buffer (transferred it, say). Returns 0 when a
// buffer is gone or too small, and receiving stops instead of writing into it.
static int refresh_receive_buffers(Socket *socket) {
  napi_env env = socket->env;
  napi_handle_scope scope;
  if (napi_open_handle_scope(env, &scope) != napi_ok) return 0;
  napi_ref refs[3] = {socket->recv_data_ref, socket->recv_meta_ref, socket->recv_addr_ref};
  size_t minimum[3] = {(size_t)BATCH * RECV_SLOT, 2 * BATCH, (size_t)BATCH * ADDR_BYTES};
  void *data[3] = {NULL, NULL, NULL};
  int ok = 1;
  for (int i = 0; i < 3 && ok; i++) {
    napi_value value;
    napi_typedarray_type type;
    size_t length = 0;
    if (napi_get_reference_value(env, refs[i], &value) != napi_ok || value == NULL ||
        napi_get_typedarray_info(env, value, &type, &length, &data[i], NULL, NULL) != napi_ok || data[i] == NULL ||
        length < minimum[i]) {
      ok = 0;
    }
  }
  napi_close_handle_scope(env, scope);
  if (!ok) return 0;
  socket->recv_data = data[0];
  socket->recv_meta = data[1];
  socket->recv_addr = data[2];
  return 1;
}

static void receive(Socket *socket) {
  struct mmsghdr messages[BATCH];
  struct iovec vectors[BATCH];
  for (int round = 0; round < RECV_ROUNDS && !socket->closing && !socket->env_gone; round++) {
    if (!refresh_receive_buffers(socket)) {
      uv_poll_stop(&socket->poll);
      socket->events = 0;
      return;
    }
    for (int i = 0; i < BATCH; i++) {
      vectors[i].iov_base = socket->recv_data + (size_t)i * RECV_SLOT;
      vectors[i].iov_len = RECV_SLOT;
      memset(&messages[i].msg_hdr, 0, sizeof messages[i].msg_hdr);
      messages[i].msg_hdr.msg_iov = &vectors[i];
      messages[i].msg_hdr.msg_iovlen = 1;
      messages[i].msg_hdr.msg_name = socket->recv_addr + (size_t)i * ADDR_BYTES;
      messages[i].msg_hdr.msg_namelen = ADDR_BYTES;
    }
    int count = recvmmsg(socket->fd, messages, BATCH, MSG_DONTWAIT, NULL);
    if (count < 0) {
      if (errno == EINTR) continue;
      return; // EAGAIN: drained. Anything else (an ICMP error on the socket) was consumed by the call.
    }
    if (count == 0) return;
    socket->rate_count += (uint32_t)count;
    for (int i = 0; i < count; i++) {
      socket->recv_meta[2 * i] = (int32_t)messages[i].msg_len;
      socket->recv_meta[2 * i + 1] = messages[i].msg_hdr.msg_flags;
    }
    call_js(socket, socket->on_readable, 1, count);
    if (count < BATCH) return;
  }
}

static void on_resume(uv_timer_t *timer);

static void on_poll(uv_poll_t *poll, int status, int events) {
  Socket *socket = poll->data;
  if (socket->closing || socket->env_gone) return;
  if (status < 0) {
    // A poll error (the descriptor went bad) is not recoverable by reading:
    // stop polling rather than spin; close() still releases everything.
    uv_poll_stop(poll);
    return;
  }
  if (events & UV_READABLE) {
    receive(socket);
    uint64_t now = uv_now(poll->loop);
    if (now - socket->rate_since_ms >= 1000) {
      socket->busy = (uint64_t)socket->rate_count * 1000 >= (uint64_t)socket->receive_busy_per_s * (now - socket->rate_since_ms);
      socket->rate_since_ms = now;
      socket->rate_count = 0;
    }
    // Rate-limited receiving: nothing more is read until the interval has passed. Datagrams that arrive in
    // it wait (at most the interval) and are read together, in one wake-up of the loop instead of one each.
    if (socket->receive_interval_ms > 0 && socket->busy && !socket->closing && !socket->env_gone &&
        (socket->events & UV_READABLE)) {
      int rest = socket->events & ~UV_READABLE;
      if (rest == 0) uv_poll_stop(&socket->poll);
      else uv_poll_start(&socket->poll, rest, on_poll);
      uv_timer_start(&socket->resume, on_resume, (uint64_t)socket->receive_interval_ms, 0);
    }
  }
  if (!socket->closing && (events & UV_WRITABLE) && (socket->events & UV_WRITABLE)) {
    call_js(socket, socket->on_writable, 0, 0);
  }
}

static int set_events(Socket *socket, int events) {
  socket->events = events;
  if (events == 0) return uv_poll_stop(&socket->poll);
  return uv_poll_start(&socket->poll, events, on_poll);
}

// The interval is over: poll for reading again (at once readable if datagrams came meanwhile).
static void on_resume(uv_timer_t *timer) {
  Socket *socket = timer->data;
  if (socket->closing || socket->env_gone) return;
  set_events(socket, socket->events);
}

// setReceiveInterval(handle, ms, busyPerSecond): while at least busyPerSecond datagrams a second arrive, read
// at most once per ms milliseconds (0-1000; 0, the default: every readable event at once).
static napi_value SetReceiveInterval(napi_env env, napi_callback_info info) {
  size_t argc = 3;
  napi_value argv[3];
  CHECK(napi_get_cb_info(env, info, &argc, argv, NULL, NULL));
  if (argc < 3) {
    napi_throw_type_error(env, NULL, "udp-mmsg: setReceiveInterval takes 3 arguments");
    return NULL;
  }
  Socket *socket = unwrap(env, argv[0]);
  if (socket == NULL) return NULL;
  int32_t ms;
  CHECK(napi_get_value_int32(env, argv[1], &ms));
  if (ms < 0 || ms > 1000) {
    napi_throw_range_error(env, NULL, "udp-mmsg: a receive interval is 0-1000 ms");
    return NULL;
  }
  int32_t busy_per_s;
  CHECK(napi_get_value_int32(env, argv[2], &busy_per_s));
  if (busy_per_s < 0) {
    napi_throw_range_error(env, NULL, "udp-mmsg: a busy rate is at least 0 datagrams a second");
    return NULL;
  }
  socket->receive_interval_ms = ms;
  socket->receive_busy_per_s = (uint32_t)busy_per_s;
  // 0: busy from the start (the first second's rate is not waited for).
  if (busy_per_s == 0) socket->busy = 1;
  if (ms == 0 && uv_is_active((uv_handle_t *)&socket->resume)) {
    uv_timer_stop(&socket->resume);
    set_events(socket, socket->events);
  }
  return NULL;
}

// startReceive(handle, self, data: Uint8Array, meta: Int32Array, addresses: Uint8Array, onReadable, onWritable)
static napi_value StartReceive(napi_env env, napi_callback_info info) {
  size_t argc = 7;
  napi_value argv[7];
  CHECK(napi_get_cb_info(env, info, &argc, argv, NULL, NULL));
  if (argc < 7) {
    napi_throw_type_error(env, NULL, "udp-mmsg: startReceive takes 7 arguments");
    return NULL;
  }
  Socket *socket = unwrap(env, argv[0]);
  if (socket == NULL) return NULL;
  if (socket->self != NULL) {
    napi_throw_error(env, NULL, "udp-mmsg: already receiving");
    return NULL;
  }
  size_t data_length, meta_length, addr_length;
  uint8_t *data = typed_array(env, argv[2], napi_uint8_array, &data_length);
  if (data == NULL) return NULL;
  int32_t *meta = typed_array(env, argv[3], napi_int32_array, &meta_length);
  if (meta == NULL) return NULL;
  uint8_t *addresses = typed_array(env, argv[4], napi_uint8_array, &addr_length);
  if (addresses == NULL) return NULL;
  if (data_length < (size_t)BATCH * RECV_SLOT || meta_length < 2 * BATCH || addr_length < (size_t)BATCH * ADDR_BYTES) {
    napi_throw_range_error(env, NULL, "udp-mmsg: receive buffers are smaller than one batch");
    return NULL;
  }
  socket->recv_data = data;
  socket->recv_meta = meta;
  socket->recv_addr = addresses;
  CHECK(napi_create_reference(env, argv[1], 1, &socket->self));
  CHECK(napi_create_reference(env, argv[2], 1, &socket->recv_data_ref));
  CHECK(napi_create_reference(env, argv[3], 1, &socket->recv_meta_ref));
  CHECK(napi_create_reference(env, argv[4], 1, &socket->recv_addr_ref));
  CHECK(napi_create_reference(env, argv[5], 1, &socket->on_readable));
  CHECK(napi_create_reference(env, argv[6], 1, &socket->on_writable));
  if (set_events(socket, UV_READABLE) != 0) {
    napi_throw_error(env, NULL, "udp-mmsg: cannot start polling");
    return NULL;
  }
  return NULL;
}

// wantWritable(handle, on): also call onWritable when the send buffer has room again.
static napi_value WantWritable(napi_env env, napi_callback_info info) {
  size_t argc = 2;
  napi_value argv[2];
  CHECK(napi_get_cb_info(env, info, &argc, argv, NULL, NULL));
  Socket *socket = unwrap(env, argv[0]);
  if (socket == NULL) return NULL;
  bool on;
  CHECK(napi_get_value_bool(env, argv[1], &on));
  int events = on ? (socket->events | UV_WRITABLE) : (socket->events & ~UV_WRITABLE);
  if (events != socket->events) set_events(socket, events);
  return NULL;
}

// Per call: datagrams refused, the last errno, whether a full buffer stopped it, sendmmsg calls made,
// datagrams dropped (a send thread's full queue, or its close). With a send thread the counts are the
// thread's since the previous call: its sends happen later.
// STAT_WAITED_US: how long the calling thread waited for the send thread to take the previous burst.
enum {
  STAT_ERRORS = 0,
  STAT_LAST_ERRNO = 1,
  STAT_WOULD_BLOCK = 2,
  STAT_CALLS = 3,
  STAT_DROPPED = 4,
  STAT_WAITED_US = 5,
  STAT_SIZE = 6
};

// What one run of send_entries did: sendmmsg calls made, datagrams the kernel refused on their own (and
// the last errno), and whether a full send buffer stopped it.
typedef struct {
  int32_t calls, errors, last_errno;
  int would_block;
} SendOutcome;

// Sends entries first .. count - 1 of a send table (entry i: data[meta[3i] .. +meta[3i+1]] to the socket
// address at addresses[28i], meta[3i+2] bytes long) in calls of up to BATCH, in order, and returns the
// entry it stopped at: count, or the first one a full send buffer would not take. A datagram the kernel
// refuses on its own (unreachable, too large) is counted and skipped. The one send loop of the addon:
// send() runs it on the caller's thread, the send thread on its own.
static int32_t send_entries(int fd, uint8_t *data, const int32_t *meta, uint8_t *addresses, int32_t first,
                            int32_t count, SendOutcome *outcome) {
  struct mmsghdr messages[BATCH];
  struct iovec vectors[BATCH];
  int32_t done = first;
  while (done < count) {
    int n = count - done < BATCH ? count - done : BATCH;
    for (int i = 0; i < n; i++) {
      int32_t entry = done + i;
      vectors[i].iov_base = data + meta[3 * entry];
      vectors[i].iov_len = (size_t)meta[3 * entry + 1];
      memset(&messages[i].msg_hdr, 0, sizeof messages[i].msg_hdr);
      messages[i].msg_hdr.msg_iov = &vectors[i];
      messages[i].msg_hdr.msg_iovlen = 1;
      messages[i].msg_hdr.msg_name = addresses + (size_t)entry * ADDR_BYTES;
      messages[i].msg_hdr.msg_namelen = (socklen_t)meta[3 * entry + 2];
    }
    int sent = sendmmsg(fd, messages, (unsigned)n, MSG_DONTWAIT);
    outcome->calls++;
    if (sent > 0) {
      done += sent;
      continue;
    }
    if (errno == EINTR) continue;
    if (errno == EAGAIN || errno == EWOULDBLOCK) {
      outcome->would_block = 1;
      break;
    }
    // sendmmsg reports an error only for the first datagram of a call.
    outcome->errors++;
    outcome->last_errno = errno;
    done++;
  }
  return done;
}

// Writes the thread's counters since the last report into stats (`dropped`: more dropped by the caller) and
// starts them again. The caller holds the lock, or the thread is joined.
static void report_sender(Sender *sender, int32_t *stats, int32_t dropped) {
  stats[STAT_CALLS] = sender->calls;
  stats[STAT_ERRORS] = sender->errors;
  stats[STAT_LAST_ERRNO] = sender->last_errno;
  stats[STAT_DROPPED] = sender->dropped + dropped;
  stats[STAT_WAITED_US] = sender->waited_us;
  stats[STAT_WOULD_BLOCK] = 0;
  sender->calls = sender->errors = sender->dropped = sender->waited_us = 0;
}

static int sender_stopping(Sender *sender) {
  pthread_mutex_lock(&sender->lock);
  int stopping = sender->stopping;
  pthread_mutex_unlock(&sender->lock);
  return stopping;
}

// Sends one batch, in order. A full send buffer is waited out (poll, then again),
// except once the thread is stopping: then the rest is dropped and counted.
static void sender_send(Socket *socket, Batch *batch) {
  Sender *sender = &socket->sender;
  SendOutcome outcome = {0, 0, 0, 0};
  int32_t dropped = 0;
  int32_t done = 0;
  while (done < batch->count) {
    outcome.would_block = 0;
    done = send_entries(socket->fd, batch->data, batch->meta, batch->addresses, done, batch->count, &outcome);
    if (!outcome.would_block) break;
    if (sender_stopping(sender)) {
      dropped += batch->count - done;
      break;
    }
    struct pollfd writable = {.fd = socket->fd, .events = POLLOUT, .revents = 0};
    poll(&writable, 1, SENDER_POLL_MS);
  }
  pthread_mutex_lock(&sender->lock);
  sender->calls += outcome.calls;
  sender->errors += outcome.errors;
  if (outcome.errors > 0) sender->last_errno = outcome.last_errno;
  sender->dropped += dropped;
  sender->queued -= batch->size;
  pthread_mutex_unlock(&sender->lock);
}

static void *sender_main(void *arg) {
  Socket *socket = arg;
  Sender *sender = &socket->sender;
  // At the niceness asked for (default 0, the tick's own: docs/udp-batching.md § The send thread says why not
  // lower). Raising one's own nice value needs no privilege; where it fails the thread runs at the same level.
  if (sender->nice != 0) setpriority(PRIO_PROCESS, (id_t)gettid(), sender->nice);
  pthread_mutex_lock(&sender->lock);
  for (;;) {
    while (sender->head == NULL && !sender->stopping) pthread_cond_wait(&sender->wake, &sender->lock);
    Batch *batch = sender->head;
    if (batch == NULL) break;  // stopping, and everything queued is sent
    sender->head = batch->next;
    if (sender->head == NULL) sender->tail = NULL;
    sender->sending = 1;
    pthread_cond_signal(&sender->taken);
    pthread_mutex_unlock(&sender->lock);
    sender_send(socket, batch);
    free(batch);
    pthread_mutex_lock(&sender->lock);
    sender->sending = 0;
  }
  pthread_mutex_unlock(&sender->lock);
  return NULL;
}

// Sends what is queued (what a full send buffer will not take is dropped and counted) and joins the
// thread. Called before the descriptor is closed, on every path that closes it.
static void stop_sender(Socket *socket) {
  Sender *sender = &socket->sender;
  if (!sender->started) return;
  pthread_mutex_lock(&sender->lock);
  sender->stopping = 1;
  pthread_cond_signal(&sender->wake);
  pthread_mutex_unlock(&sender->lock);
  pthread_join(sender->thread, NULL);
  sender->started = 0;
}

// Queues a copy of the staged entries for the send thread; a queue over its bound drops the batch.
static void sender_queue(Socket *socket, const uint8_t *data, const int32_t *meta, const uint8_t *addresses,
                         int32_t count, int32_t *stats) {
  Sender *sender = &socket->sender;
  size_t data_bytes = 0;
  for (int32_t i = 0; i < count; i++) {
    size_t end = (size_t)meta[3 * i] + (size_t)meta[3 * i + 1];
    if (end > data_bytes) data_bytes = end;
  }
  size_t meta_bytes = (size_t)count * 3 * sizeof(int32_t);
  size_t address_bytes = (size_t)count * ADDR_BYTES;
  size_t size = sizeof(Batch) + meta_bytes + address_bytes + data_bytes;
  int32_t dropped = 0;
  pthread_mutex_lock(&sender->lock);
  int full = sender->queued + size > SENDER_QUEUE_BYTES;
  if (!full) sender->queued += size;
  pthread_mutex_unlock(&sender->lock);
  Batch *batch = full ? NULL : malloc(size);
  if (batch == NULL) {
    dropped = count;
    if (!full) {
      pthread_mutex_lock(&sender->lock);
      sender->queued -= size;
      pthread_mutex_unlock(&sender->lock);
    }
  } else {
    batch->next = NULL;
    batch->count = count;
    batch->size = size;
    batch->meta = (int32_t *)(batch + 1);
    batch->addresses = (uint8_t *)batch->meta + meta_bytes;
    batch->data = batch->addresses + address_bytes;
    memcpy(batch->meta, meta, meta_bytes);
    memcpy(batch->addresses, addresses, address_bytes);
    memcpy(batch->data, data, data_bytes);
  }
  pthread_mutex_lock(&sender->lock);
  // Back-pressure: a burst waits (up to SENDER_WAIT_US) until the thread has taken the one before. Where the
  // two share a core and the caller keeps it busy, the thread could otherwise fall behind without bound —
  // datagrams late by many ticks, then dropped at the queue's bound (at nice 10, 5000 players with entity
  // deltas at 97 % of a core: a million checksum mismatches in 30 s). The caller's wait gives the thread the
  // core; the bound keeps a stuck socket (a full send buffer) from stalling the caller for longer.
  if (sender->head != NULL && !sender->stopping) {
    struct timespec start, deadline, now;
    clock_gettime(CLOCK_MONOTONIC, &start);
    deadline = start;
    deadline.tv_nsec += (long)SENDER_WAIT_US * 1000;
    if (deadline.tv_nsec >= 1000000000L) {
      deadline.tv_sec += 1;
      deadline.tv_nsec -= 1000000000L;
    }
    while (sender->head != NULL && !sender->stopping) {
      if (pthread_cond_timedwait(&sender->taken, &sender->lock, &deadline) == ETIMEDOUT) break;
    }
    clock_gettime(CLOCK_MONOTONIC, &now);
    sender->waited_us += (int32_t)((now.tv_sec - start.tv_sec) * 1000000L + (now.tv_nsec - start.tv_nsec) / 1000);
  }
  if (batch != NULL) {
    if (sender->tail != NULL) sender->tail->next = batch;
    else sender->head = batch;
    sender->tail = batch;
    pthread_cond_signal(&sender->wake);
  }
  report_sender(sender, stats, dropped);
  pthread_mutex_unlock(&sender->lock);
}

// startSender(handle, nice): from now on send() queues its datagrams for a thread of the socket's own,
// which makes the system calls; nice (0-19) is that thread's scheduling niceness.
static napi_value StartSender(napi_env env, napi_callback_info info) {
  size_t argc = 2;
  napi_value argv[2];
  CHECK(napi_get_cb_info(env, info, &argc, argv, NULL, NULL));
  if (argc < 2) {
    napi_throw_type_error(env, NULL, "udp-mmsg: startSender takes 2 arguments");
    return NULL;
  }
  Socket *socket = unwrap(env, argv[0]);
  if (socket == NULL) return NULL;
  int32_t nice;
  CHECK(napi_get_value_int32(env, argv[1], &nice));
  if (nice < 0 || nice > 19) {
    napi_throw_range_error(env, NULL, "udp-mmsg: a send thread's nice value is 0-19");
    return NULL;
  }
  Sender *sender = &socket->sender;
  if (sender->started) {
    napi_throw_error(env, NULL, "udp-mmsg: the send thread is already running");
    return NULL;
  }
  sender->nice = nice;
  sender->stopping = 0;
  int code = pthread_create(&sender->thread, NULL, sender_main, socket);
  if (code != 0) return throw_errno(env, "pthread_create", code);
  sender->started = 1;
  return NULL;
}

// stopSender(handle, stats: Int32Array): sends what is queued, joins the thread, and reports its
// counters since the last send() in stats; later sends are made on the calling thread again.
static napi_value StopSender(napi_env env, napi_callback_info info) {
  size_t argc = 2;
  napi_value argv[2];
  CHECK(napi_get_cb_info(env, info, &argc, argv, NULL, NULL));
  Socket *socket = unwrap(env, argv[0]);
  if (socket == NULL) return NULL;
  size_t stats_length;
  int32_t *stats = typed_array(env, argv[1], napi_int32_array, &stats_length);
  if (stats == NULL) return NULL;
  if (stats_length < STAT_SIZE) {
    napi_throw_range_error(env, NULL, "udp-mmsg: stats is shorter than its fields");
    return NULL;
  }
  stop_sender(socket);
  report_sender(&socket->sender, stats, 0);
  return NULL;
}

// send(handle, data: Uint8Array, meta: Int32Array, addresses: Uint8Array, count, stats: Int32Array) -> consumed
// Entry i is data[meta[3i] .. +meta[3i+1]] to the socket address addresses[28i .. +meta[3i+2]].
// Consumed counts datagrams sent or given up on: a datagram the kernel refuses
// on its own (unreachable, too large) is counted in stats and skipped; a full
// send buffer stops the call (stats[WOULD_BLOCK] = 1) and the rest stays with the caller.
static napi_value Send(napi_env env, napi_callback_info info) {
  size_t argc = 6;
  napi_value argv[6];
  CHECK(napi_get_cb_info(env, info, &argc, argv, NULL, NULL));
  if (argc < 6) {
    napi_throw_type_error(env, NULL, "udp-mmsg: send takes 6 arguments");
    return NULL;
  }
  Socket *socket = unwrap(env, argv[0]);
  if (socket == NULL) return NULL;
  size_t data_length, meta_length, addr_length, stats_length;
  uint8_t *data = typed_array(env, argv[1], napi_uint8_array, &data_length);
  if (data == NULL) return NULL;
  int32_t *meta = typed_array(env, argv[2], napi_int32_array, &meta_length);
  if (meta == NULL) return NULL;
  uint8_t *addresses = typed_array(env, argv[3], napi_uint8_array, &addr_length);
  if (addresses == NULL) return NULL;
  int32_t count;
  CHECK(napi_get_value_int32(env, argv[4], &count));
  int32_t *stats = typed_array(env, argv[5], napi_int32_array, &stats_length);
  if (stats == NULL) return NULL;
  if (stats_length < STAT_SIZE || count < 0 || (size_t)count * 3 > meta_length ||
      (size_t)count * ADDR_BYTES > addr_length) {
    napi_throw_range_error(env, NULL, "udp-mmsg: send tables are shorter than count");
    return NULL;
  }
  // Every entry is checked before any is sent, so a bad table sends nothing.
  for (int32_t i = 0; i < count; i++) {
    int64_t offset = meta[3 * i], length = meta[3 * i + 1], name_length = meta[3 * i + 2];
    if (offset < 0 || length < 0 || offset + length > (int64_t)data_length ||
        (name_length != sizeof(struct sockaddr_in) && name_length != sizeof(struct sockaddr_in6))) {
      napi_throw_range_error(env, NULL, "udp-mmsg: send entry outside its buffer");
      return NULL;
    }
  }

  if (socket->sender.started) {
    // A small flush (the replies to one received batch: Pongs, a chunk) while the thread has nothing queued or
    // in hand is sent here: one sendmmsg call costs less than waking the thread for it, and with nothing in
    // flight the order is kept.
    Sender *sender = &socket->sender;
    pthread_mutex_lock(&sender->lock);
    int idle = sender->head == NULL && !sender->sending;
    pthread_mutex_unlock(&sender->lock);
    if (!idle || count > BATCH) {
      sender_queue(socket, data, meta, addresses, count, stats);
      napi_value all;
      CHECK(napi_create_int32(env, count, &all));
      return all;
    }
  }
  SendOutcome outcome = {0, 0, 0, 0};
  int32_t done = send_entries(socket->fd, data, meta, addresses, 0, count, &outcome);
  stats[STAT_CALLS] = outcome.calls;
  stats[STAT_ERRORS] = outcome.errors;
  if (outcome.errors > 0) stats[STAT_LAST_ERRNO] = outcome.last_errno;
  stats[STAT_WOULD_BLOCK] = outcome.would_block;
  stats[STAT_DROPPED] = 0;
  stats[STAT_WAITED_US] = 0;
  napi_value result;
  CHECK(napi_create_int32(env, done, &result));
  return result;
}

static void on_close(uv_handle_t *handle) {
  Socket *socket = handle->data;
  close(socket->fd);
  pthread_mutex_destroy(&socket->sender.lock);
  pthread_cond_destroy(&socket->sender.wake);
  pthread_cond_destroy(&socket->sender.taken);
  socket->fd = -1;
  if (socket->env_gone) {
    // Torn down with the socket open (a Worker ending, say): the environment's
    // references die with it. The struct is left allocated: the env's own
    // teardown may still run finalize(), which reads it (a few hundred bytes,
    // once per socket, only when an environment ends with its socket open).
    napi_remove_async_cleanup_hook(socket->cleanup_hook);
    return;
  }
  if (socket->cleanup_hook != NULL) {
    napi_remove_async_cleanup_hook(socket->cleanup_hook);
    socket->cleanup_hook = NULL;
  }
  napi_env env = socket->env;
  if (socket->on_closed != NULL) call_js(socket, socket->on_closed, 0, 0);
  napi_ref refs[] = {socket->self,          socket->on_readable,   socket->on_writable,  socket->on_closed,
                     socket->recv_data_ref, socket->recv_meta_ref, socket->recv_addr_ref};
  for (size_t i = 0; i < sizeof refs / sizeof refs[0]; i++)
    if (refs[i] != NULL) napi_delete_reference(env, refs[i]);
  if (socket->async_context != NULL) napi_async_destroy(env, socket->async_context);
  socket->self = socket->on_readable = socket->on_writable = socket->on_closed = NULL;
  socket->recv_data_ref = socket->recv_meta_ref = socket->recv_addr_ref = NULL;
  socket->async_context = NULL;
  if (socket->finalized) free(socket);
}

// Stops polling and the receive timer and closes both handles; on_close runs once libuv has let go of both.
static void on_handle_closed(uv_handle_t *handle) {
  Socket *socket = handle->data;
  if (--socket->handles_open == 0) on_close(handle);
}

static void close_handles(Socket *socket) {
  uv_timer_stop(&socket->resume);
  uv_close((uv_handle_t *)&socket->resume, on_handle_closed);
  uv_poll_stop(&socket->poll);
  uv_close((uv_handle_t *)&socket->poll, on_handle_closed);
}

// The environment is going away with the socket still open (a Worker that
// ends, a process that exits without closing it): close the descriptor and
// free the memory without calling into JS, whose references die with the env.
static void on_env_cleanup(napi_async_cleanup_hook_handle hook, void *arg) {
  Socket *socket = arg;
  socket->env_gone = 1;
  if (socket->closing) return;  // close() already queued on_close, which sees env_gone
  socket->closing = 1;
  stop_sender(socket);
  close_handles(socket);
}

// The handle's memory outlives close() so that a late call on a closed handle
// is an error, not a use after free; it goes when the JS handle is collected.
// A handle collected while still open (never closed by its owner) is closed here.
static void finalize(napi_env env, void *data, void *hint) {
  Socket *socket = data;
  if (socket->env_gone) return;  // the cleanup hook's close frees it
  socket->finalized = 1;
  if (!socket->closing) {
    socket->closing = 1;
    stop_sender(socket);
    close_handles(socket);
  } else if (socket->fd < 0) {
    free(socket);
  }
}

// close(handle, onClosed): stops polling; the descriptor is closed (and onClosed
// called) once libuv lets go of it, so the port is free when onClosed runs.
static napi_value Close(napi_env env, napi_callback_info info) {
  size_t argc = 2;
  napi_value argv[2];
  CHECK(napi_get_cb_info(env, info, &argc, argv, NULL, NULL));
  Socket *socket = NULL;
  bool tagged = false;
  if (napi_check_object_type_tag(env, argv[0], &SOCKET_TAG, &tagged) != napi_ok || !tagged ||
      napi_get_value_external(env, argv[0], (void **)&socket) != napi_ok || socket == NULL) {
    napi_throw_type_error(env, NULL, "udp-mmsg: not a socket handle");
    return NULL;
  }
  if (socket->closing) return NULL;
  if (argc >= 2) {
    napi_valuetype type;
    CHECK(napi_typeof(env, argv[1], &type));
    if (type == napi_function) CHECK(napi_create_reference(env, argv[1], 1, &socket->on_closed));
  }
  socket->closing = 1;
  stop_sender(socket);
  close_handles(socket);
  return NULL;
}

static napi_value Init(napi_env env, napi_value exports) {
  napi_property_descriptor properties[] = {
      {"open", NULL, Open, NULL, NULL, NULL, napi_default, NULL},
      {"startReceive", NULL, StartReceive, NULL, NULL, NULL, napi_default, NULL},
      {"wantWritable", NULL, WantWritable, NULL, NULL, NULL, napi_default, NULL},
      {"send", NULL, Send, NULL, NULL, NULL, napi_default, NULL},
      {"startSender", NULL, StartSender, NULL, NULL, NULL, napi_default, NULL},
      {"setReceiveInterval", NULL, SetReceiveInterval, NULL, NULL, NULL, napi_default, NULL},
      {"stopSender", NULL, StopSender, NULL, NULL, NULL, napi_default, NULL},
      {"close", NULL, Close, NULL, NULL, NULL, napi_default, NULL},
  };
  napi_define_properties(env, exports, sizeof properties / sizeof properties[0], properties);
  napi_value constants;
  napi_create_object(env, &constants);
  const struct {
    const char *name;
    int value;
  } values[] = {{"BATCH", BATCH},         {"ADDR_BYTES", ADDR_BYTES}, {"RECV_SLOT", RECV_SLOT},
                {"MSG_TRUNC", MSG_TRUNC}, {"AF_INET", AF_INET},       {"AF_INET6", AF_INET6}};
  for (size_t i = 0; i < sizeof values / sizeof values[0]; i++) {
    napi_value value;
    napi_create_int32(env, values[i].value, &value);
    napi_set_named_property(env, constants, values[i].name, value);
  }
  socket_set_init(env, exports, constants);
  napi_set_named_property(env, exports, "constants", constants);
  return exports;
}

NAPI_MODULE(NODE_GYP_MODULE_NAME, Init)
