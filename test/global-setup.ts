// Builds the wasm module before any test file runs, if it is missing or stale.
import { execFileSync } from "node:child_process";

export default function setup(): void {
  execFileSync(process.execPath, ["scripts/build-wasm.mjs", "--if-missing"], { stdio: "inherit" });
}
