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
// --if-missing: build only when an output is absent or was made from other sources than those there now: the
// digest of every input (the esbuild metafile beside the bundle lists them) and of the scripts that make it,
// written beside the bundle (NAME.sources.json), must match. Not their times: a source whose content changed
// while its time did not pass the bundle's (a file restored with its old time by cp -p, tar or rsync, a
// build folder copied in from another checkout) left a stale bundle that looked current. Hashing the inputs
// costs about 20 ms a bundle (300 files; 70 ms for all four at load 13), so every start can still ask.
// --only NAME[,NAME]: those bundles alone (the chaos run and the cluster need `cluster` only).
// --root DIR: the repository the bundles are made from and written into (DIR/build/node); a test's own.
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { withTreeUrls } from "./package/bundle-server.mjs";

/** Output name (build/node/NAME.mjs) → entry point. */
const NODE_BUNDLES = {
  // The crash and restart tests' server on a SQLite file (test/support/server-process.ts).
  "persistent-server": "test/support/persistent-server.ts",
  // `npm start`.
  server: "ts/server/main.ts",
  // `npm run cluster` and the cluster tests; it starts its regions and gateways from the same file.
  cluster: "ts/cluster/main.ts",
  // A replay viewer the console starts, a process of its own (ts/server/replay-viewer/viewer-pool.ts).
  "replay-viewer": "ts/tools/replay-viewer.ts",
};

const { values: args } = parseArgs({
  options: {
    "if-missing": { type: "boolean", default: false },
    only: { type: "string" },
    root: { type: "string" },
    help: { type: "boolean", default: false },
  },
});
if (args.help) {
  console.log("usage: node scripts/build-node.mjs [--if-missing] [--only NAME[,NAME]] [--root DIR]");
  console.log(`bundles: ${Object.keys(NODE_BUNDLES).join(", ")}`);
  process.exit(0);
}
const root = args.root === undefined ? fileURLToPath(new URL("..", import.meta.url)) : resolve(args.root);
const OUT_DIR = join(root, "build/node");
const only = args.only === undefined ? Object.keys(NODE_BUNDLES) : args.only.split(",");
for (const name of only) {
  if (!(name in NODE_BUNDLES)) {
    console.error(`no bundle "${name}" (${Object.keys(NODE_BUNDLES).join(", ")})`);
    process.exit(2);
  }
}

const metaPath = (name) => join(OUT_DIR, `${name}.meta.json`);
const outPath = (name) => join(OUT_DIR, `${name}.mjs`);
const sourcesPath = (name) => join(OUT_DIR, `${name}.sources.json`);
/** The scripts that make a bundle: a change to them makes every bundle again. */
const SCRIPTS = [import.meta.url, new URL("./package/bundle-server.mjs", import.meta.url)].map((url) =>
  fileURLToPath(url),
);

const sha256 = (bytes) => createHash("sha256").update(bytes).digest();

/**
 * One digest of the files `inputs` (paths in `root`) and the scripts: their contents as `read` holds them (what
 * a build read, by absolute path), else as they are now; null when one is gone.
 */
function digestOf(inputs, read = new Map()) {
  const hash = createHash("sha256");
  for (const path of [...SCRIPTS, ...[...inputs].sort().map((input) => join(root, input))]) {
    const content = read.get(path) ?? (existsSync(path) ? sha256(readFileSync(path)) : null);
    if (content === null) return null;
    hash.update(path).update("\0").update(content).update("\0");
  }
  return hash.digest("hex");
}

/** Whether build/node/NAME.mjs was made from the files that are there now (the digest written beside it). */
function upToDate(name) {
  if (!existsSync(outPath(name))) return false;
  try {
    const inputs = Object.keys(JSON.parse(readFileSync(metaPath(name), "utf8")).inputs);
    const { digest } = JSON.parse(readFileSync(sourcesPath(name), "utf8"));
    return typeof digest === "string" && digestOf(inputs) === digest;
  } catch {
    return false; // no metafile or digest (a bundle from before digests), or an unreadable one: built again
  }
}

/** esbuild plugin: a module's `import.meta.url` is its source file's URL (see the head of this file). */
const sourceUrls = (outfile, read) => ({
  name: "source-import-meta-url",
  setup(builder) {
    builder.onLoad({ filter: /\.ts$/ }, (loaded) => {
      const bytes = readFileSync(loaded.path);
      read.set(loaded.path, sha256(bytes));
      const source = bytes.toString("utf8");
      // The repository is the tree: the single file's bundler (scripts/package) makes the same rewrite.
      return { contents: withTreeUrls(source, root, root, loaded.path, outfile), loader: "ts" };
    });
  },
});

for (const name of only) {
  const entry = NODE_BUNDLES[name];
  if (args["if-missing"] && upToDate(name)) continue;
  /** Each source's digest as esbuild read it, by path. */
  const read = new Map();
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
    plugins: [sourceUrls(outPath(name), read)],
  });
  mkdirSync(OUT_DIR, { recursive: true });
  // Each file written beside (under this process's name: two test workers may build at once) and
  // renamed into place, so a process starting meanwhile reads the old file or the new one, never half
  // of one. The digest goes last: until it is in place, the bundle does not pass for up to date.
  const place = (path, contents) => {
    writeFileSync(`${path}.${process.pid}.part`, contents);
    renameSync(`${path}.${process.pid}.part`, path);
  };
  place(metaPath(name), JSON.stringify(result.metafile));
  const outputs = [...result.outputFiles].sort(
    (a, b) => Number(a.path === outPath(name)) - Number(b.path === outPath(name)),
  );
  for (const file of outputs) place(file.path, file.contents);
  // The digest of what it was made from, as esbuild read it: a source saved during the build differs from it.
  const digest = digestOf(Object.keys(result.metafile.inputs), read);
  if (digest !== null) place(sourcesPath(name), JSON.stringify({ digest }));
}
