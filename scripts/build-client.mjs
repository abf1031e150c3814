// Builds the browser client (Vite, vite.config.ts) into dist/client, which the
// game server serves at /. --if-missing: only build when dist/client is absent
// or older than anything the bundle is made from (the TypeScript under ts/,
// build/core.wasm, the Vite config), so `npm start` on a fresh clone or after
// an edit serves the current client without a manual step; the browser tests
// (test/e2e/browser-support.ts) ask for it the same way and serve the same client.
import { existsSync, readdirSync, renameSync, rmSync, statSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("..", import.meta.url));
const args = new Set(process.argv.slice(2));
if (args.has("--help")) {
  console.log("usage: node scripts/build-client.mjs [--if-missing]");
  process.exit(0);
}

const output = join(root, "dist/client/index.html");
const inputs = ["ts", "build/core.wasm", "vite.config.ts"].map((path) => join(root, path));

function newest(path) {
  if (!existsSync(path)) return 0;
  const stats = statSync(path);
  if (!stats.isDirectory()) return stats.mtimeMs;
  let latest = stats.mtimeMs;
  for (const entry of readdirSync(path)) latest = Math.max(latest, newest(join(path, entry)));
  return latest;
}

if (args.has("--if-missing") && existsSync(output) && statSync(output).mtimeMs >= Math.max(...inputs.map(newest))) {
  process.exit(0);
}
if (!existsSync(join(root, "build/core.wasm"))) {
  process.stderr.write("build/core.wasm is missing: run `node scripts/build-wasm.mjs` first\n");
  process.exit(1);
}
process.stderr.write("building dist/client (vite)\n");
// Built beside and swapped into place, so a server (or a browser test) reading dist/client meanwhile
// finds the old client or the new one, never a half-written one.
const finalDir = join(root, "dist/client");
const partDir = `${finalDir}.part-${process.pid}`;
const staleDir = `${finalDir}.stale-${process.pid}`;
// Loaded only when there is something to build: the up-to-date check is what most runs do.
const { build } = await import("vite");
try {
  await build({ configFile: join(root, "vite.config.ts"), logLevel: "warn", build: { outDir: partDir } });
} catch (error) {
  rmSync(partDir, { recursive: true, force: true });
  process.stderr.write(`client build failed: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
}
if (existsSync(finalDir)) renameSync(finalDir, staleDir);
try {
  renameSync(partDir, finalDir);
} catch (error) {
  // Another build put its client in place between the two renames: that one is as new as this one.
  if (error.code !== "ENOTEMPTY" && error.code !== "EEXIST") throw error;
  rmSync(partDir, { recursive: true, force: true });
}
rmSync(staleDir, { recursive: true, force: true });
