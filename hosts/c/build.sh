#!/bin/sh
# Builds hosts/c/build/run-vectors: the core module compiled without SIMD
# (build/core-scalar.wasm, asconfig.json's "scalar" target: the release flags
# plus --disable simd, so every kernel takes its scalar path — wasm2c 1.0.32
# aborts on v128), translated to C by Debian's wasm2c, compiled with gcc against the
# wasm-rt runtime that the wabt package ships in /usr/share/wabt/wasm2c
# (wasm-rt-impl.c, wasm-rt-impl.h) and /usr/include (wasm-rt.h).
# Needs: node with node_modules/assemblyscript, wasm2c, gcc.
set -eu
cd "$(dirname "$0")/../.."
OUT=hosts/c/build
RT=/usr/share/wabt/wasm2c
[ -f "$RT/wasm-rt-impl.c" ] || RT=/usr/src/wasm2c
for tool in wasm2c gcc node; do
  command -v "$tool" >/dev/null || { echo "build.sh: $tool not found" >&2; exit 3; }
done
[ -f "$RT/wasm-rt-impl.c" ] || { echo "build.sh: wasm-rt-impl.c not found (Debian package wabt)" >&2; exit 3; }
[ -f node_modules/assemblyscript/bin/asc.js ] || { echo "build.sh: node_modules/assemblyscript missing (npm install)" >&2; exit 3; }
mkdir -p "$OUT"
WASM=build/core-scalar.wasm
# Rebuilt when missing or older than any AssemblyScript source or the config.
node scripts/build-wasm.mjs --if-missing
wasm2c "$WASM" -n core -o "$OUT/core.c"
node hosts/c/gen-dispatch.mjs "$OUT/core.h" > "$OUT/exports.inc"
# Generated and runtime code compile without warnings switched on; the runner with them.
gcc -O2 -w -I"$OUT" -I"$RT" -c "$OUT/core.c" -o "$OUT/core.o"
gcc -O2 -w -I"$RT" -c "$RT/wasm-rt-impl.c" -o "$OUT/wasm-rt-impl.o"
gcc -O2 -Wall -Wextra -Wno-unused-function -I"$OUT" -I"$RT" -o "$OUT/run-vectors" \
  hosts/c/run_vectors.c "$OUT/core.o" "$OUT/wasm-rt-impl.o" -lm
echo "built $OUT/run-vectors" >&2
