// The prebuilt bundle of a Node program (scripts/build-node.mjs: build/node/NAME.mjs), built first when
// missing or older than its sources, and the arguments that start it. Tests that start a server or a
// cluster as a process, many times over, start it from the bundle: node loads one file instead of tsx
// transforming several hundred modules on each start (0.4 s a server start instead of 1.1 s).
import { execFileSync } from "node:child_process";
import { fileURLToPath } from "node:url";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));
let checked = false;

export type NodeBundle = "persistent-server" | "server" | "cluster";

/** `node` arguments that run bundle `name` (source-mapped stack traces); builds it first if stale. */
export function nodeBundleArgs(name: NodeBundle): string[] {
  if (!checked) {
    // Once per process: vitest's global setup has built them already, so this is a cheap stat of the inputs.
    execFileSync(process.execPath, [`${ROOT}scripts/build-node.mjs`, "--if-missing"], { stdio: "inherit" });
    checked = true;
  }
  return ["--enable-source-maps", `${ROOT}build/node/${name}.mjs`];
}
