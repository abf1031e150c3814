// Builds build/core.wasm (release), build/core-scalar.wasm (the same without
// SIMD, for hosts whose wasm engine or translator lacks it, such as Debian's
// wasm2c) and, with --debug, build/core.debug.wasm.
// --if-missing: only build when the output is absent or older than a source
// file, so `npm start` and `npm test` on a fresh clone build it themselves.
import { readdirSync, statSync, existsSync } from "node:fs";
import { join } from "node:path";
import asc from "assemblyscript/asc";

const args = new Set(process.argv.slice(2));
if (args.has("--help")) {
  console.log("usage: node scripts/build-wasm.mjs [--debug] [--if-missing]");
  process.exit(0);
}
const targets = args.has("--debug") ? ["release", "scalar", "debug"] : ["release", "scalar"];
const outFiles = { release: "build/core.wasm", scalar: "build/core-scalar.wasm", debug: "build/core.debug.wasm" };

function newestSource(dir) {
  let newest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    const mtime = entry.isDirectory() ? newestSource(path) : statSync(path).mtimeMs;
    newest = Math.max(newest, mtime);
  }
  return newest;
}

// asc's "converge" repeats binaryen's optimisation until the module stops shrinking; when the last
// round comes out a few bytes larger than the one before it says "Last converge was suboptimal."
// and keeps that module. Harmless (the module is valid and slightly bigger; the loader's
// checks and the tests run on it), but on a first `npm start` it reads like a failure, so that one
// line is dropped and everything else asc writes goes to stderr as before.
const CONVERGE_NOTE = /^Last converge was suboptimal\.\r?\n?$/;
const stderr = asc.createMemoryStream((text) => {
  if (typeof text === "string" && CONVERGE_NOTE.test(text)) return;
  process.stderr.write(text);
});

const sourceTime = Math.max(newestSource("assembly"), statSync("asconfig.json").mtimeMs);
for (const target of targets) {
  const out = outFiles[target];
  if (args.has("--if-missing") && existsSync(out) && statSync(out).mtimeMs >= sourceTime) continue;
  process.stderr.write(`building ${out} (asc, target ${target})\n`);
  const { error } = await asc.main(["--config", "asconfig.json", "--target", target], {
    stdout: process.stdout,
    stderr,
  });
  if (error) {
    process.stderr.write(`wasm build failed: ${error.message}\n`);
    process.exit(1);
  }
}
