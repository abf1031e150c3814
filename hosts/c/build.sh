#!/bin/sh
# Builds hosts/c/build/run-vectors: build/core.wasm with its SIMD functions
# stubbed (wasm2c 1.0.32 aborts on SIMD), translated to C by Debian's wasm2c,
# compiled with gcc against the wasm-rt runtime that the wabt package ships in
# /usr/share/wabt/wasm2c (wasm-rt-impl.c, wasm-rt-impl.h) and /usr/include (wasm-rt.h).
# Needs: node (for the stubbing step, via node_modules/binaryen), wasm2c, gcc.
set -eu
cd "$(dirname "$0")/../.."
OUT=hosts/c/build
RT=/usr/share/wabt/wasm2c
[ -f "$RT/wasm-rt-impl.c" ] || RT=/usr/src/wasm2c
for tool in wasm2c gcc node; do
  command -v "$tool" >/dev/null || { echo "build.sh: $tool not found" >&2; exit 3; }
done
[ -f "$RT/wasm-rt-impl.c" ] || { echo "build.sh: wasm-rt-impl.c not found (Debian package wabt)" >&2; exit 3; }
[ -f build/core.wasm ] || node scripts/build-wasm.mjs --if-missing
mkdir -p "$OUT"
node hosts/c/strip-simd.mjs build/core.wasm "$OUT/core-nosimd.wasm" "$OUT/stubbed.txt"
wasm2c "$OUT/core-nosimd.wasm" -n core -o "$OUT/core.c"
node hosts/c/gen-dispatch.mjs "$OUT/core.h" > "$OUT/exports.inc"
# Generated and runtime code compile without warnings switched on; the runner with them.
gcc -O2 -w -I"$OUT" -I"$RT" -c "$OUT/core.c" -o "$OUT/core.o"
gcc -O2 -w -I"$RT" -c "$RT/wasm-rt-impl.c" -o "$OUT/wasm-rt-impl.o"
gcc -O2 -Wall -Wextra -Wno-unused-function -I"$OUT" -I"$RT" -o "$OUT/run-vectors" \
  hosts/c/run_vectors.c "$OUT/core.o" "$OUT/wasm-rt-impl.o" -lm
echo "built $OUT/run-vectors" >&2
