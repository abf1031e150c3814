// Makes build/core.wasm translatable by wasm2c 1.0.32 (Debian's wabt), which
// aborts on SIMD instructions: every function whose body or signature uses
// v128 is replaced by a stub of the same name and type whose body is
// `unreachable`, the SIMD feature is turned off, and the module is validated
// and written out. Every other function is the release build's code, byte for
// byte in behaviour; the stubbed exports trap if called.
//
// usage: node hosts/c/strip-simd.mjs IN.wasm OUT.wasm STUBBED.txt
// STUBBED.txt receives the stubbed export names, one per line (the C host
// skips vectors that call them and says so).
import { readFileSync, writeFileSync } from "node:fs";
import binaryen from "binaryen";

const [input, output, stubbedList] = process.argv.slice(2);
if (!input || !output || !stubbedList) {
  process.stderr.write("usage: node hosts/c/strip-simd.mjs IN.wasm OUT.wasm STUBBED.txt\n");
  process.exit(2);
}

const SIMD_TEXT = /\bv128\b|\b[if](8x16|16x8|32x4|64x2)\./;
const module = binaryen.readBinaryWithFeatures(readFileSync(input), binaryen.Features.All);
const simdFunctions = [];
for (let i = 0; i < module.getNumFunctions(); i++) {
  const info = binaryen.getFunctionInfo(module.getFunctionByIndex(i));
  if (info.body === 0) continue; // an import has no body
  const signature = [info.params, info.results, ...info.vars];
  const usesVectorType = signature.some((type) => binaryen.expandType(type).includes(binaryen.v128));
  if (usesVectorType || SIMD_TEXT.test(binaryen.emitText(info.body))) simdFunctions.push(info);
}
for (const info of simdFunctions) {
  module.removeFunction(info.name);
  module.addFunction(info.name, info.params, info.results, [], module.unreachable());
}
// Exports that reach a stub through calls trap too (chunk_encode calls palette_build and pack6).
const traps = new Set(simdFunctions.map((info) => info.name));
const callees = new Map();
for (let i = 0; i < module.getNumFunctions(); i++) {
  const info = binaryen.getFunctionInfo(module.getFunctionByIndex(i));
  if (info.body === 0 || traps.has(info.name)) continue;
  const text = binaryen.emitText(info.body);
  callees.set(
    info.name,
    [...text.matchAll(/\(call \$([^\s)]+)/g)].map((match) => match[1]),
  );
}
for (let grew = true; grew;) {
  grew = false;
  for (const [name, calls] of callees) {
    if (!traps.has(name) && calls.some((callee) => traps.has(callee))) {
      traps.add(name);
      grew = true;
    }
  }
}
const stubbed = traps;
const stubbedExports = [];
for (let i = 0; i < module.getNumExports(); i++) {
  const info = binaryen.getExportInfo(module.getExportByIndex(i));
  if (info.kind === binaryen.ExternalFunction && stubbed.has(info.value)) stubbedExports.push(info.name);
}
// Stubs with v128 in their signature are internal helpers whose callers were stubbed too: drop them.
module.runPasses(["remove-unused-module-elements"]);
module.setFeatures(module.getFeatures() & ~binaryen.Features.SIMD128 & ~binaryen.Features.RelaxedSIMD);
if (!module.validate()) {
  process.stderr.write("strip-simd: the stubbed module does not validate (a v128 use survived?)\n");
  process.exit(1);
}
writeFileSync(output, module.emitBinary());
writeFileSync(stubbedList, stubbedExports.sort().join("\n") + "\n");
process.stderr.write(
  `strip-simd: ${simdFunctions.length} SIMD functions stubbed; exports that now trap (directly or via calls): ${stubbedExports.join(", ") || "none"}\n`,
);
