/*
 * Runs hosts/vectors.json against the core module translated to C by wasm2c,
 * using only what docs/wasm-abi.md describes: region addresses from the
 * exported globals, i32 calls, bytes in the exported memory.
 *
 *   hosts/c/build/run-vectors [VECTORS.json]
 *
 * The module is build/core-scalar.wasm (asconfig.json target "scalar"; see build.sh): the release
 * build without SIMD, whose kernels take their scalar paths, so every case
 * runs; an export the module lacks fails its case. Prints one line per case
 * and "N passed, N failed"; exits 1 on failure.
 */
#include <ctype.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core.h"
#include "wasm-rt-impl.h"
#include "exports.inc"

/* ---- a small JSON reader: enough for the vector file (objects, arrays, strings, numbers) ---- */

typedef enum { J_NULL, J_BOOL, J_NUMBER, J_STRING, J_ARRAY, J_OBJECT } jtype;
typedef struct jvalue {
  jtype type;
  double number;
  char* string;
  struct jvalue** items; /* array items, or object values */
  char** keys;           /* object keys */
  int count;
} jvalue;

static const char* cursor;

static void fail_parse(const char* what) {
  fprintf(stderr, "vectors: bad JSON (%s) near: %.40s\n", what, cursor);
  exit(2);
}

static void skip_space(void) {
  while (isspace((unsigned char)*cursor)) cursor++;
}

static jvalue* new_value(jtype type) {
  jvalue* v = calloc(1, sizeof(jvalue));
  if (!v) fail_parse("out of memory");
  v->type = type;
  return v;
}

static void push(jvalue* v, char* key, jvalue* item) {
  v->items = realloc(v->items, sizeof(jvalue*) * (v->count + 1));
  v->keys = realloc(v->keys, sizeof(char*) * (v->count + 1));
  if (!v->items || !v->keys) fail_parse("out of memory");
  v->items[v->count] = item;
  v->keys[v->count] = key;
  v->count++;
}

static void put_utf8(char** out, unsigned code) {
  char* o = *out;
  if (code < 0x80) *o++ = (char)code;
  else if (code < 0x800) { *o++ = (char)(0xC0 | code >> 6); *o++ = (char)(0x80 | (code & 63)); }
  else { *o++ = (char)(0xE0 | code >> 12); *o++ = (char)(0x80 | ((code >> 6) & 63)); *o++ = (char)(0x80 | (code & 63)); }
  *out = o;
}

static char* parse_string(void) {
  if (*cursor != '"') fail_parse("expected a string");
  cursor++;
  const char* start = cursor;
  while (*cursor && *cursor != '"') cursor += (*cursor == '\\' && cursor[1]) ? 2 : 1;
  if (!*cursor) fail_parse("unterminated string");
  char* text = malloc((size_t)(cursor - start) * 3 + 1);
  char* o = text;
  for (const char* p = start; p < cursor; p++) {
    if (*p != '\\') { *o++ = *p; continue; }
    p++;
    switch (*p) {
      case 'n': *o++ = '\n'; break;
      case 't': *o++ = '\t'; break;
      case 'r': *o++ = '\r'; break;
      case 'b': *o++ = '\b'; break;
      case 'f': *o++ = '\f'; break;
      case 'u': {
        unsigned code = 0;
        for (int k = 1; k <= 4; k++) code = code * 16 + (unsigned)(isdigit((unsigned char)p[k]) ? p[k] - '0' : (tolower((unsigned char)p[k]) - 'a' + 10));
        put_utf8(&o, code);
        p += 4;
        break;
      }
      default: *o++ = *p; /* " \ / */
    }
  }
  *o = 0;
  cursor++;
  return text;
}

static jvalue* parse_value(void) {
  skip_space();
  jvalue* v;
  if (*cursor == '{') {
    v = new_value(J_OBJECT);
    cursor++;
    skip_space();
    if (*cursor == '}') { cursor++; return v; }
    for (;;) {
      skip_space();
      char* key = parse_string();
      skip_space();
      if (*cursor++ != ':') fail_parse("expected ':'");
      push(v, key, parse_value());
      skip_space();
      if (*cursor == ',') { cursor++; continue; }
      if (*cursor++ != '}') fail_parse("expected '}'");
      return v;
    }
  }
  if (*cursor == '[') {
    v = new_value(J_ARRAY);
    cursor++;
    skip_space();
    if (*cursor == ']') { cursor++; return v; }
    for (;;) {
      push(v, NULL, parse_value());
      skip_space();
      if (*cursor == ',') { cursor++; continue; }
      if (*cursor++ != ']') fail_parse("expected ']'");
      return v;
    }
  }
  if (*cursor == '"') { v = new_value(J_STRING); v->string = parse_string(); return v; }
  if (!strncmp(cursor, "true", 4) || !strncmp(cursor, "false", 5)) {
    v = new_value(J_BOOL);
    v->number = *cursor == 't';
    cursor += *cursor == 't' ? 4 : 5;
    return v;
  }
  if (!strncmp(cursor, "null", 4)) { cursor += 4; return new_value(J_NULL); }
  char* end;
  double number = strtod(cursor, &end);
  if (end == cursor) fail_parse("unexpected character");
  cursor = end;
  v = new_value(J_NUMBER);
  v->number = number;
  return v;
}

static jvalue* get(const jvalue* object, const char* key) {
  if (!object || object->type != J_OBJECT) return NULL;
  for (int i = 0; i < object->count; i++) if (!strcmp(object->keys[i], key)) return object->items[i];
  return NULL;
}

static char* read_file(const char* path) {
  FILE* file = fopen(path, "rb");
  if (!file) { fprintf(stderr, "cannot open %s\n", path); exit(2); }
  fseek(file, 0, SEEK_END);
  long size = ftell(file);
  fseek(file, 0, SEEK_SET);
  char* text = malloc((size_t)size + 1);
  if (fread(text, 1, (size_t)size, file) != (size_t)size) { fprintf(stderr, "cannot read %s\n", path); exit(2); }
  text[size] = 0;
  fclose(file);
  return text;
}

/* ---- the runner ---- */

static uint32_t fnv1a(const uint8_t* bytes, uint32_t length) {
  uint32_t hash = 0x811C9DC5u;
  for (uint32_t i = 0; i < length; i++) hash = (hash ^ bytes[i]) * 0x01000193u;
  return hash;
}

static int hex_digit(char c) { return isdigit((unsigned char)c) ? c - '0' : tolower((unsigned char)c) - 'a' + 10; }

static char message[512];

/* Address of global `name` plus the optional "offset" of `object`; 0 with a message when the global is missing. */
static int region(Z_core_instance_t* inst, const char* name, const jvalue* object, uint32_t* address) {
  u32* global = export_global(inst, name);
  if (!global) { snprintf(message, sizeof message, "the module exports no global %s", name); return 0; }
  const jvalue* offset = get(object, "offset");
  *address = *global + (offset ? (uint32_t)(int64_t)offset->number : 0);
  return 1;
}

/* 1 pass, 0 fail (message set). */
static int run_steps(Z_core_instance_t* inst, const jvalue* steps) {
  for (int s = 0; s < steps->count; s++) {
    const jvalue* step = steps->items[s];
    wasm_rt_memory_t* memory = export_memory(inst); /* re-read: grid_init may grow memory */
    const jvalue *write = get(step, "write"), *call = get(step, "call"), *check = get(step, "check");
    uint32_t address;
    if (write) {
      const char* hex = get(step, "hex")->string;
      size_t length = strlen(hex) / 2;
      if (!region(inst, write->string, step, &address)) return 0;
      if ((uint64_t)address + length > memory->size) { snprintf(message, sizeof message, "step %d: write past memory", s + 1); return 0; }
      for (size_t i = 0; i < length; i++) memory->data[address + i] = (uint8_t)(hex_digit(hex[2 * i]) * 16 + hex_digit(hex[2 * i + 1]));
    } else if (call) {
      const jvalue* args = get(step, "args");
      u32 values[16];
      if (args->count > 16) { snprintf(message, sizeof message, "step %d: too many arguments", s + 1); return 0; }
      for (int a = 0; a < args->count; a++) {
        const jvalue* arg = args->items[a];
        if (arg->type == J_NUMBER) values[a] = (u32)(int32_t)(int64_t)arg->number;
        else if (!region(inst, get(arg, "global")->string, arg, &values[a])) return 0;
      }
      u32 result = 0;
      int called = export_call(inst, call->string, values, args->count, &result);
      if (called <= 0) {
        snprintf(message, sizeof message, "step %d: %s %s", s + 1, called == 0 ? "no export named" : "wrong argument count for", call->string);
        return 0;
      }
      const jvalue* expect = get(step, "expect");
      if (expect && (int32_t)result != (int32_t)(int64_t)expect->number) {
        snprintf(message, sizeof message, "step %d: %s returned %d, expected %d", s + 1, call->string, (int32_t)result, (int32_t)(int64_t)expect->number);
        return 0;
      }
    } else if (check) {
      if (!region(inst, check->string, step, &address)) return 0;
      const jvalue* hex = get(step, "hex");
      if (hex) {
        size_t length = strlen(hex->string) / 2;
        if ((uint64_t)address + length > memory->size) { snprintf(message, sizeof message, "step %d: check past memory", s + 1); return 0; }
        for (size_t i = 0; i < length; i++) {
          uint8_t want = (uint8_t)(hex_digit(hex->string[2 * i]) * 16 + hex_digit(hex->string[2 * i + 1]));
          if (memory->data[address + i] != want) {
            snprintf(message, sizeof message, "step %d: %s differs at byte %zu (0x%02x, expected 0x%02x)", s + 1, check->string, i, memory->data[address + i], want);
            return 0;
          }
        }
      } else {
        uint32_t length = (uint32_t)get(step, "length")->number;
        uint32_t want = (uint32_t)(int32_t)(int64_t)get(step, "fnv1a")->number;
        if ((uint64_t)address + length > memory->size) { snprintf(message, sizeof message, "step %d: check past memory", s + 1); return 0; }
        uint32_t hash = fnv1a(memory->data + address, length);
        if (hash != want) {
          snprintf(message, sizeof message, "step %d: fnv1a of %u bytes at %s is 0x%08x, expected 0x%08x", s + 1, length, check->string, hash, want);
          return 0;
        }
      }
    } else {
      snprintf(message, sizeof message, "step %d: unknown step kind", s + 1);
      return 0;
    }
  }
  return 1;
}

/* 1 pass, 0 fail. A trap in any call fails the case with the trap's name. */
static int run_case(const jvalue* steps) {
  static Z_core_instance_t inst;
  Z_core_instantiate(&inst);
  volatile int ok = 0;
  wasm_rt_trap_t trap = wasm_rt_impl_try();
  if (trap == WASM_RT_TRAP_NONE) ok = run_steps(&inst, steps);
  else snprintf(message, sizeof message, "trapped: %s", wasm_rt_strerror(trap));
  Z_core_free(&inst);
  return ok;
}

int main(int argc, char** argv) {
  const char* vectors_path = argc > 1 ? argv[1] : "hosts/vectors.json";
  cursor = read_file(vectors_path);
  jvalue* root = parse_value();
  const jvalue* cases = get(root, "cases");
  if (!cases || cases->type != J_ARRAY) { fprintf(stderr, "vectors: no cases\n"); return 2; }

  wasm_rt_init();
  Z_core_init_module();
  printf("core-scalar.wasm vectors on C (wasm2c 1.0.32 + gcc; scalar kernels, no SIMD)\n");
  int passed = 0, failed = 0;
  for (int c = 0; c < cases->count; c++) {
    const jvalue* one = cases->items[c];
    const char* name = get(one, "name")->string;
    if (run_case(get(one, "steps"))) {
      passed++;
      printf("ok   %s\n", name);
    } else {
      failed++;
      printf("FAIL %s: %s\n", name, message);
    }
  }
  printf("%d passed, %d failed\n", passed, failed);
  wasm_rt_free();
  return failed > 0 ? 1 : 0;
}
