// Bundles the game server (ts/server/main.ts) and its dungeon-level worker into ES modules with esbuild,
// for the single file (docs/packaging.md). The bundles are written into a folder laid out like the
// repository (the "tree": build/core.wasm, dist/client, maps/, the migrations, the native addons), which
// the single file unpacks at start. So that every path the code finds relative to its own source file
// still points at the right file, each `import.meta.url` is rewritten to the URL of where that source
// file would sit in the tree, relative to the bundle: `new URL("../../build/core.wasm", import.meta.url)`
// in ts/wasm/node.ts keeps meaning <tree>/build/core.wasm, with no change to the server's code.
import { readFile } from "node:fs/promises";
import { dirname, join, relative, sep } from "node:path";
import { build } from "esbuild";

/** The text in ts/server/dungeon/level-generator.ts that starts its worker through tsx, replaced below. */
const TSX_WORKER = /const TSX_API = [\s\S]*?(?=\nexport class LevelGenerator)/;

/**
 * `contents` (the source of file `path` inside the repository `root`) with each `import.meta.url` made the
 * URL of where that file sits in `tree`, as seen from the bundle `outfile`: relative to the bundle's own
 * URL, so the tree may move as a whole. scripts/build-node.mjs uses it with the repository as the tree.
 */
export function withTreeUrls(contents, root, tree, path, outfile) {
  const fromBundle = relative(dirname(outfile), join(tree, relative(root, path)));
  const url = `new URL(${JSON.stringify(fromBundle.split(sep).join("/"))}, import.meta.url).href`;
  return contents.replaceAll("import.meta.url", url);
}

/** A plugin that rewrites import.meta.url in every file of `root` bundled into `outfile` inside `tree`. */
function treePaths(root, tree, outfile) {
  return {
    name: "tree-paths",
    setup(pluginBuild) {
      // better-sqlite3 finds its addon with the `bindings` package, which searches upwards from the
      // caller's file as named in a stack trace: in a bundle that is the bundle. The tree holds the
      // addon where its package keeps it; load it from there.
      pluginBuild.onResolve({ filter: /^bindings$/ }, (args) =>
        args.importer.includes(`${sep}better-sqlite3${sep}`) ? { path: "bindings", namespace: "tree-bindings" } : null,
      );
      pluginBuild.onLoad({ filter: /.*/, namespace: "tree-bindings" }, () => ({
        // __treeRequire is the server bundle's own require (the banner below); the bundle is the tree's root.
        contents: "module.exports = (name) => __treeRequire('./node_modules/better-sqlite3/build/Release/' + name);\n",
        loader: "js",
      }));
      pluginBuild.onLoad({ filter: /\.(ts|mts|js|mjs|cjs)$/ }, async (args) => {
        let contents = await readFile(args.path, "utf8");
        const isLevelGenerator = args.path.endsWith(join("ts", "server", "dungeon", "level-generator.ts"));
        if (isLevelGenerator) {
          // The worker runs the bundled level-worker.mjs beside level-generator's place in the tree
          // instead of registering tsx and importing the TypeScript.
          if (!TSX_WORKER.test(contents)) {
            throw new Error("level-generator.ts no longer starts its worker as bundle-server.mjs expects");
          }
          contents = contents.replace(
            TSX_WORKER,
            'const WORKER_SOURCE = `await import(${JSON.stringify(new URL("./level-worker.mjs", import.meta.url).href)});`;',
          );
        }
        if (!isLevelGenerator && !contents.includes("import.meta.url")) return null;
        const loader = /\.m?ts$/.test(args.path) ? "ts" : "js";
        return { contents: withTreeUrls(contents, root, tree, args.path, outfile), loader };
      });
    },
  };
}

/**
 * Bundles `entry` (a path inside the repository `root`) into `outfile`, a path inside `tree`. A bundle
 * is an ES module; the CommonJS packages in it get a `require` made for the bundle's own place (the
 * banner), which also loads the tree's addons as `__treeRequire`, and the `__filename` / `__dirname` such
 * packages read (wasmoon's Emscripten glue names its own place with them; the Lua module itself is
 * passed by path, ts/server/scripting/lua-sandbox.ts).
 */
export async function bundleInto(root, tree, entry, outfile) {
  await build({
    entryPoints: [entry],
    outfile,
    bundle: true,
    platform: "node",
    format: "esm",
    target: "node24",
    logLevel: "warning",
    legalComments: "none",
    banner: {
      js:
        'import { createRequire as __treeCreateRequire } from "node:module";\n' +
        'import { fileURLToPath as __treeFileURLToPath } from "node:url";\n' +
        "const require = __treeCreateRequire(import.meta.url);\nconst __treeRequire = require;\n" +
        "const __treeFilename = __treeFileURLToPath(import.meta.url);\n" +
        'const __treeDirname = __treeFilename.slice(0, __treeFilename.lastIndexOf("/"));',
    },
    // Only where no module declares its own (esbuild replaces free names alone).
    define: { __filename: "__treeFilename", __dirname: "__treeDirname" },
    plugins: [treePaths(root, tree, outfile)],
  });
}
