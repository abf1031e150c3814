// Runs hosts/vectors.json against build/core.wasm as a fresh host would: the
// plain WebAssembly API and docs/wasm-abi.md, nothing from ts/. Written for
// Bun (JavaScriptCore) and also runs under Node (V8):
//
//   node_modules/.bin/bun hosts/bun/run-vectors.ts [--wasm FILE] [--vectors FILE]
//   npx tsx hosts/bun/run-vectors.ts
//
// Prints one line per case and a closing "N passed, N failed, N skipped" line;
// exits 1 when any case failed.
import { readFileSync } from "node:fs";

type Arg = number | { global: string; offset?: number };
type Step =
  | { write: string; offset?: number; hex: string }
  | { call: string; args: Arg[]; expect?: number }
  | { check: string; offset?: number; hex?: string; length?: number; fnv1a?: number };
interface Case {
  name: string;
  exports: string[];
  steps: Step[];
}

function option(name: string, fallback: string): string {
  const index = process.argv.indexOf(name);
  return index >= 0 && process.argv[index + 1] ? process.argv[index + 1] : fallback;
}

const root = new URL("../../", import.meta.url);
const wasmPath = option("--wasm", new URL("build/core.wasm", root).pathname);
const vectorsPath = option("--vectors", new URL("hosts/vectors.json", root).pathname);
const runtime =
  typeof (globalThis as { Bun?: unknown }).Bun !== "undefined"
    ? "Bun (JavaScriptCore)"
    : `Node ${process.version} (V8)`;

function fromHex(hex: string): Uint8Array {
  const bytes = new Uint8Array(hex.length / 2);
  for (let i = 0; i < bytes.length; i++) bytes[i] = parseInt(hex.slice(2 * i, 2 * i + 2), 16);
  return bytes;
}

function toHex(bytes: Uint8Array): string {
  return Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
}

function fnv1a(bytes: Uint8Array): number {
  let hash = 0x811c9dc5 | 0;
  for (let i = 0; i < bytes.length; i++) hash = Math.imul(hash ^ bytes[i], 0x01000193);
  return hash | 0;
}

const module = new WebAssembly.Module(readFileSync(wasmPath));
const vectors = JSON.parse(readFileSync(vectorsPath, "utf8")) as { cases: Case[] };

/** Runs one case on a fresh instance; returns null when it passes, else what went wrong. */
function runCase(testCase: Case): string | null {
  const instance = new WebAssembly.Instance(module, {});
  const exports = instance.exports as Record<string, unknown>;
  const memory = exports.memory as WebAssembly.Memory;
  const address = (name: string, offset = 0): number => {
    const global = exports[name];
    if (!(global instanceof WebAssembly.Global)) throw new Error(`the module exports no global ${name}`);
    return (global.value as number) + offset;
  };
  for (let index = 0; index < testCase.steps.length; index++) {
    const step = testCase.steps[index];
    const where = `step ${index + 1}`;
    // Views are made per step: grid_init may grow memory and replace the buffer.
    const bytes = new Uint8Array(memory.buffer);
    if ("write" in step) {
      bytes.set(fromHex(step.hex), address(step.write, step.offset));
    } else if ("call" in step) {
      const fn = exports[step.call];
      if (typeof fn !== "function") return `${where}: the module exports no function ${step.call}`;
      const args = step.args.map((arg) => (typeof arg === "number" ? arg : address(arg.global, arg.offset)));
      const result = (fn as (...a: number[]) => number | undefined)(...args);
      if (step.expect !== undefined && (result ?? 0) !== step.expect) {
        return `${where}: ${step.call}(${args.join(", ")}) returned ${result}, expected ${step.expect}`;
      }
    } else {
      const start = address(step.check, step.offset);
      if (step.hex !== undefined) {
        const actual = toHex(bytes.subarray(start, start + step.hex.length / 2));
        if (actual !== step.hex) {
          let at = 0;
          while (actual[at] === step.hex[at]) at++;
          return `${where}: ${step.check}+${step.offset ?? 0} differs at byte ${at >> 1}`;
        }
      } else {
        const hash = fnv1a(bytes.subarray(start, start + (step.length ?? 0)));
        if (hash !== step.fnv1a)
          return `${where}: fnv1a of ${step.length} bytes at ${step.check} is ${hash}, expected ${step.fnv1a}`;
      }
    }
  }
  return null;
}

let passed = 0;
let failed = 0;
console.log(`core.wasm vectors on ${runtime}: ${wasmPath}`);
for (const testCase of vectors.cases) {
  let problem: string | null;
  try {
    problem = runCase(testCase);
  } catch (error) {
    problem = `threw ${(error as Error).message}`;
  }
  if (problem === null) {
    passed++;
    console.log(`ok   ${testCase.name}`);
  } else {
    failed++;
    console.log(`FAIL ${testCase.name}: ${problem}`);
  }
}
console.log(`${passed} passed, ${failed} failed, 0 skipped`);
process.exit(failed > 0 ? 1 : 0);
