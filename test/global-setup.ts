// Builds the wasm module before any test file runs, if it is missing or stale.
import { execFileSync } from "node:child_process";

export default function setup(): void {
  if (process.env.CORE_WASM) return; // the caller chose a prebuilt module
  execFileSync(process.execPath, ["scripts/build-wasm.mjs", "--if-missing"], { stdio: "inherit" });
}
