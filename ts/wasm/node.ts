// Node-only: loads build/core.wasm (or the debug build) from disk.
import { readFileSync, existsSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { instantiateCore, type Core, CoreError } from "./core.js";

export const RELEASE_WASM = fileURLToPath(new URL("../../build/core.wasm", import.meta.url));
export const DEBUG_WASM = fileURLToPath(new URL("../../build/core.debug.wasm", import.meta.url));

let cachedModule: WebAssembly.Module | null = null;

/** A fresh core instance (own memory) from build/core.wasm; compiles the file once per process. */
export async function loadCore(options: { debug?: boolean } = {}): Promise<Core> {
  // CORE_WASM points tests at another build (e.g. one compiled from a subset of assembly/).
  const path = options.debug ? DEBUG_WASM : (process.env.CORE_WASM ?? RELEASE_WASM);
  if (!existsSync(path)) throw new CoreError(`${path} is missing: run \`npm run asbuild\` first`);
  if (options.debug) return instantiateCore(readFileSync(path));
  cachedModule ??= await WebAssembly.compile(readFileSync(path));
  return instantiateCore(cachedModule);
}
