// Bundles the Node programs that tests and scripts start as processes, again and again, into
// build/node/*.mjs (esbuild, one file each, with a source map): `node --enable-source-maps
// build/node/persistent-server.mjs` starts in about a third of the time `node --import tsx
// test/support/persistent-server.ts` takes (0.3 s against 0.95 s of loading on the 2-core development
// machine), because tsx resolves and transforms several hundred modules one by one on every start. The
// crash tests start a server 50 times a file; the cluster starts a process per region and gateway.
//
// What a module finds beside itself (`new URL("../../build/core.wasm", import.meta.url)`, the
// migrations, the tile sheet) is found beside its source: each module's `import.meta.url` becomes its
// source file's URL in the bundle (withTreeUrls, the rewrite the single file's bundler makes, with the
// repository as the tree), so paths resolve exactly as they do under tsx. Packages stay imports from
// node_modules (they are not transformed, and native addons cannot be bundled).
//
// --if-missing: build only when an output is absent or older than one of its inputs (the esbuild
// metafile beside it lists them) or than the scripts that make it, so every start can ask cheaply.
import { existsSync, mkdirSync, readFileSync, renameSync, statSync, utimesSync, writeFileSync } from "node:fs";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { withTreeUrls } from "./package/bundle-server.mjs";

const root = fileURLToPath(new URL("..", import.meta.url));
const OUT_DIR = join(root, "build/node");

/** Output name (build/node/NAME.mjs) → entry point. */
const NODE_BUNDLES = {
  // The crash and restart tests' server on a SQLite file (test/support/server-process.ts).
  "persistent-server": "test/support/persistent-server.ts",
  // `npm start`.
  server: "ts/server/main.ts",
  // `npm run cluster` and the cluster tests; it starts its regions and gateways from the same file.
  cluster: "ts/cluster/main.ts",
  // A replay viewer the console starts, a process of its own (ts/server/replay-viewer/viewer-pool.ts).
  "replay-viewer": "ts/server/replay-viewer/viewer-process.ts",
};

const args = new Set(process.argv.slice(2));
if (args.has("--help")) {
  console.log("usage: node scripts/build-node.mjs [--if-missing]");
  process.exit(0);
}

const metaPath = (name) => join(OUT_DIR, `${name}.meta.json`);
const outPath = (name) => join(OUT_DIR, `${name}.mjs`);

/** Whether build/node/NAME.mjs is at least as new as every file it was made from. */
function upToDate(name) {
  if (!existsSync(outPath(name)) || !existsSync(metaPath(name))) return false;
  const builtMs = statSync(outPath(name)).mtimeMs;
  let inputs;
  try {
    inputs = Object.keys(JSON.parse(readFileSync(metaPath(name), "utf8")).inputs);
  } catch {
    return false; // unreadable: built again
  }
  const scripts = [import.meta.url, new URL("./package/bundle-server.mjs", import.meta.url)].map((url) =>
    fileURLToPath(url),
  );
  const sources = [...scripts, ...inputs.map((input) => join(root, input))];
  return sources.every((source) => existsSync(source) && statSync(source).mtimeMs <= builtMs);
}

/** esbuild plugin: a module's `import.meta.url` is its source file's URL (see the head of this file). */
const sourceUrls = (outfile) => ({
  name: "source-import-meta-url",
  setup(builder) {
    builder.onLoad({ filter: /\.ts$/ }, (loaded) => {
      const source = readFileSync(loaded.path, "utf8");
      // The repository is the tree: the single file's bundler (scripts/package) makes the same rewrite.
      return { contents: withTreeUrls(source, root, root, loaded.path, outfile), loader: "ts" };
    });
  },
});

for (const [name, entry] of Object.entries(NODE_BUNDLES)) {
  if (args.has("--if-missing") && upToDate(name)) continue;
  // The bundle is dated from before esbuild read its sources: a source saved during the build is newer.
  const startedS = Date.now() / 1000;
  process.stderr.write(`building ${relative(root, outPath(name))} (esbuild, from ${entry})\n`);
  // Loaded only when something is to be built: the up-to-date check is most of what a start runs.
  const { build } = await import("esbuild");
  const result = await build({
    absWorkingDir: root,
    entryPoints: [entry],
    outfile: outPath(name),
    bundle: true,
    platform: "node",
    format: "esm",
    target: "node20",
    packages: "external",
    sourcemap: true,
    metafile: true,
    write: false,
    logLevel: "warning",
    plugins: [sourceUrls(outPath(name))],
  });
  mkdirSync(OUT_DIR, { recursive: true });
  // Each file written beside (under this process's name: two test workers may build at once) and
  // renamed into place, so a process starting meanwhile reads the old file or the new one, never half
  // of one. The bundle itself goes last: until it is in place, its inputs are newer than the old one.
  const place = (path, contents) => {
    writeFileSync(`${path}.${process.pid}.part`, contents);
    renameSync(`${path}.${process.pid}.part`, path);
  };
  place(metaPath(name), JSON.stringify(result.metafile));
  const outputs = [...result.outputFiles].sort(
    (a, b) => Number(a.path === outPath(name)) - Number(b.path === outPath(name)),
  );
  for (const file of outputs) place(file.path, file.contents);
  utimesSync(outPath(name), startedS, startedS);
}
