// See napi_util.h.
#define _GNU_SOURCE
#include "napi_util.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdio.h>
#include <string.h>
#include <uv.h>

napi_value throw_errno(napi_env env, const char *what, int code) {
  char message[160];
  snprintf(message, sizeof message, "%s: %s", what, strerror(code));
  napi_value error, code_value, message_value, errno_value, syscall_value;
  napi_create_string_utf8(env, message, NAPI_AUTO_LENGTH, &message_value);
  napi_create_string_utf8(env, uv_err_name(-code), NAPI_AUTO_LENGTH, &code_value);
  napi_create_error(env, code_value, message_value, &error);
  napi_create_int32(env, -code, &errno_value);
  napi_set_named_property(env, error, "errno", errno_value);
  napi_create_string_utf8(env, what, NAPI_AUTO_LENGTH, &syscall_value);
  napi_set_named_property(env, error, "syscall", syscall_value);
  napi_throw(env, error);
  return NULL;
}

void *typed_array(napi_env env, napi_value value, napi_typedarray_type want, size_t *length) {
  bool is_typed = false;
  napi_is_typedarray(env, value, &is_typed);
  if (!is_typed) {
    napi_throw_type_error(env, NULL, "udp-mmsg: expected a typed array");
    return NULL;
  }
  napi_typedarray_type type;
  void *data = NULL;
  if (napi_get_typedarray_info(env, value, &type, length, &data, NULL, NULL) != napi_ok || type != want) {
    napi_throw_type_error(env, NULL, "udp-mmsg: typed array of the wrong element type");
    return NULL;
  }
  return data;
}

int parse_address(napi_env env, int family, const char *host, int port, struct sockaddr_storage *address,
                  socklen_t *length) {
  if ((family != 4 && family != 6) || port < 0 || port > 65535) {
    napi_throw_range_error(env, NULL, "udp-mmsg: family must be 4 or 6 and port 0-65535");
    return -1;
  }
  memset(address, 0, sizeof *address);
  if (family == 4) {
    struct sockaddr_in *v4 = (struct sockaddr_in *)address;
    v4->sin_family = AF_INET;
    v4->sin_port = htons((uint16_t)port);
    if (inet_pton(AF_INET, host, &v4->sin_addr) != 1) {
      napi_throw_type_error(env, NULL, "udp-mmsg: host is not an IPv4 address");
      return -1;
    }
    *length = sizeof *v4;
  } else {
    struct sockaddr_in6 *v6 = (struct sockaddr_in6 *)address;
    v6->sin6_family = AF_INET6;
    v6->sin6_port = htons((uint16_t)port);
    if (inet_pton(AF_INET6, host, &v6->sin6_addr) != 1) {
      napi_throw_type_error(env, NULL, "udp-mmsg: host is not an IPv6 address");
      return -1;
    }
    *length = sizeof *v6;
  }
  return 0;
}

int bound_port(int fd) {
  struct sockaddr_storage bound;
  socklen_t bound_length = sizeof bound;
  if (getsockname(fd, (struct sockaddr *)&bound, &bound_length) != 0) return -1;
  return ntohs(bound.ss_family == AF_INET ? ((struct sockaddr_in *)&bound)->sin_port
                                          : ((struct sockaddr_in6 *)&bound)->sin6_port);
}

void call_back(napi_env env, napi_async_context context, napi_ref self_ref, napi_ref function_ref, int argc,
               int32_t arg) {
  if (function_ref == NULL) return;
  napi_handle_scope scope;
  if (napi_open_handle_scope(env, &scope) != napi_ok) return;
  napi_value self, function, argv[1], result;
  // make_callback needs an object to call on: the owner, or (closed before receiving) the global.
  if (self_ref != NULL) napi_get_reference_value(env, self_ref, &self);
  else napi_get_global(env, &self);
  napi_get_reference_value(env, function_ref, &function);
  napi_create_int32(env, arg, &argv[0]);
  if (napi_make_callback(env, context, self, function, (size_t)argc, argv, &result) != napi_ok) {
    bool pending = false;
    napi_is_exception_pending(env, &pending);
    if (pending) {
      napi_value error;
      napi_get_and_clear_last_exception(env, &error);
      napi_fatal_exception(env, error);
    }
  }
  napi_close_handle_scope(env, scope);
}
