// The core module without SIMD: every kernel compiled on its scalar path
// (asc --disable simd; see the ASC_FEATURE_SIMD branches in assembly/codec and
// assembly/blit). Hosts whose wasm engine or translator lacks SIMD run this
// build — wasm2c 1.0.32 in hosts/c does. The test and the measurement script
// take build/core-scalar.wasm when the normal build made it and it is newer than
// every source, and otherwise compile their own copy into a temporary folder
// (never into build/, which the normal build owns).
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

export const ROOT = fileURLToPath(new URL("..", import.meta.url));
/** Where the normal build puts the scalar module (with its text next to it). */
export const BUILT_SCALAR_WASM = join(ROOT, "build/core-scalar.wasm");
export const BUILT_SCALAR_WAT = join(ROOT, "build/core-scalar.wat");
const ASC = join(ROOT, "node_modules/assemblyscript/bin/asc.js");
const BUILD_TIMEOUT_MS = 120_000;

/** The asc arguments of the scalar build: the release target's flags with SIMD disabled. */
export function scalarBuildArgs(wasmPath: string, watPath: string): string[] {
  const config = ["--config", "asconfig.json", "--target", "release"];
  return ["assembly/index.ts", ...config, "--disable", "simd", "-o", wasmPath, "-t", watPath];
}

function newestSourceMs(dir: string): number {
  let newest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    newest = Math.max(newest, entry.isDirectory() ? newestSourceMs(path) : statSync(path).mtimeMs);
  }
  return newest;
}

/** Whether the normal build's scalar module and its text exist and are newer than assembly/ and asconfig.json. */
export function builtScalarIsFresh(): boolean {
  if (!existsSync(BUILT_SCALAR_WASM) || !existsSync(BUILT_SCALAR_WAT)) return false;
  const sources = Math.max(newestSourceMs(join(ROOT, "assembly")), statSync(join(ROOT, "asconfig.json")).mtimeMs);
  return Math.min(statSync(BUILT_SCALAR_WASM).mtimeMs, statSync(BUILT_SCALAR_WAT).mtimeMs) >= sources;
}

/** Why the scalar module can be neither found nor built, or null when it can. */
export function scalarUnavailableReason(): string | null {
  if (builtScalarIsFresh() || existsSync(ASC)) return null;
  return "no fresh build/core-scalar.wasm and no AssemblyScript compiler (node_modules/assemblyscript) to build one";
}

export interface ScalarBuild {
  wasmPath: string;
  watPath: string;
}

/** A fresh scalar module: the normal build's, or one compiled now into a temporary folder. Throws if asc fails. */
export function findOrBuildScalar(): ScalarBuild {
  if (builtScalarIsFresh()) return { wasmPath: BUILT_SCALAR_WASM, watPath: BUILT_SCALAR_WAT };
  const dir = mkdtempSync(join(tmpdir(), "core-scalar-"));
  const build = { wasmPath: join(dir, "core-scalar.wasm"), watPath: join(dir, "core-scalar.wat") };
  const result = spawnSync(process.execPath, [ASC, ...scalarBuildArgs(build.wasmPath, build.watPath)], {
    cwd: ROOT,
    encoding: "utf8",
    timeout: BUILD_TIMEOUT_MS,
  });
  if (result.status !== 0 || !existsSync(build.wasmPath)) {
    const why = result.error ? result.error.message : `exit ${result.status}`;
    throw new Error(`scalar build failed (${why}):\n${result.stderr}`);
  }
  return build;
}

/** SIMD value types and instructions in the text format. */
export const SIMD_TEXT = /\bv128\b|\b[if](8x16|16x8|32x4|64x2)\./;
