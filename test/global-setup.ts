// Builds what the tests load before any test file runs, if it is missing or
// stale: the wasm modules (release, scalar and debug), the bundles of the Node
// programs the tests start as processes (scripts/build-node.mjs), and on Linux the
// batched-UDP addon (npm install builds it once; an edit to its C source would
// otherwise be tested against the old binary).
import { execFileSync } from "node:child_process";
import { existsSync, readdirSync, statSync } from "node:fs";

const ADDON = "native/udp-mmsg/build/Release/udp_mmsg.node";
/** Every file the addon is built from: its C sources and headers (src/), and binding.gyp. */
const ADDON_SOURCES = [
  "native/udp-mmsg/binding.gyp",
  ...readdirSync("native/udp-mmsg/src").map((name) => `native/udp-mmsg/src/${name}`),
];

export default function setup(): void {
  if (!process.env.CORE_WASM) {
    // Unless the caller chose a prebuilt module.
    // --debug: test/wasm-core.test.ts compares the debug build's layout with the release build's.
    execFileSync(process.execPath, ["scripts/build-wasm.mjs", "--if-missing", "--debug"], { stdio: "inherit" });
  }
  execFileSync(process.execPath, ["scripts/build-node.mjs", "--if-missing"], { stdio: "inherit" });
  if (process.platform !== "linux") return;
  const builtMs = existsSync(ADDON) ? statSync(ADDON).mtimeMs : 0;
  if (ADDON_SOURCES.every((source) => statSync(source).mtimeMs <= builtMs)) return;
  try {
    execFileSync("npm", ["rebuild", "@forgotten-caves/udp-mmsg"], { stdio: "inherit" });
  } catch (error) {
    // The transport tests then say the addon is missing; the rest run on node:dgram.
    process.stderr.write(`could not build native/udp-mmsg: ${(error as Error).message}\n`);
  }
}
