{
  "targets": [
    {
      "target_name": "udp_mmsg",
      "sources": ["src/udp_mmsg.c", "src/napi_util.c", "src/socket_set.c"],
      "cflags": ["-O2", "-Wall", "-Wextra", "-Wno-unused-parameter", "-pthread"],
      "ldflags": ["-pthread"],
      "defines": ["NAPI_VERSION=8"]
    }
  ]
}
