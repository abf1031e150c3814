// The single file's first code (Node's single executable application runs it as CommonJS): unpack the
// tree the file carries (the server bundle, the client, the wasm core, the map, the migrations and the
// native addons, laid out like the repository) into a cache folder named by the tree's hash, once per
// build, then import the server from there. Unpacked files, not assets read in memory, because the
// native addons can only be loaded from a file (dlopen), and the server finds everything else by path.
// docs/packaging.md says why this shape was chosen over Bun's --compile.
const sea = require("node:sea");
const { existsSync, mkdirSync, renameSync, rmSync, writeFileSync, chmodSync } = require("node:fs");
const { dirname, join } = require("node:path");
const { homedir, tmpdir } = require("node:os");
const { pathToFileURL } = require("node:url");

/** Where unpacked builds live: $XDG_CACHE_HOME or ~/.cache, else the temporary folder. */
function cacheFolders() {
  const folders = [];
  if (process.env.XDG_CACHE_HOME) folders.push(join(process.env.XDG_CACHE_HOME, "forgotten-caves"));
  try {
    folders.push(join(homedir(), ".cache", "forgotten-caves"));
  } catch {
    // No home folder (a service account without one): the temporary folder below.
  }
  folders.push(join(tmpdir(), `forgotten-caves-${process.getuid ? process.getuid() : "user"}`));
  return folders;
}

/** Writes every file of the tree into a fresh folder beside `finalFolder`, then renames it to that. */
function unpack(manifest, finalFolder) {
  const partial = `${finalFolder}.partial-${process.pid}`;
  rmSync(partial, { recursive: true, force: true });
  for (const file of manifest.files) {
    const path = join(partial, file.path);
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, new Uint8Array(sea.getRawAsset(file.path)));
    if (file.executable) chmodSync(path, 0o755);
  }
  try {
    renameSync(partial, finalFolder);
  } catch (error) {
    // Another copy of the file, started at the same moment, unpacked the same build first.
    rmSync(partial, { recursive: true, force: true });
    if (!existsSync(join(finalFolder, manifest.entry))) throw error;
  }
}

function unpacked() {
  const manifest = JSON.parse(sea.getAsset("manifest.json", "utf8"));
  const failures = [];
  for (const base of cacheFolders()) {
    const folder = join(base, manifest.id);
    if (existsSync(join(folder, manifest.entry))) return join(folder, manifest.entry);
    try {
      mkdirSync(base, { recursive: true });
      unpack(manifest, folder);
      return join(folder, manifest.entry);
    } catch (error) {
      failures.push(`${base}: ${error.message}`);
    }
  }
  throw new Error(`could not unpack the game files (${failures.join("; ")})`);
}

let entry;
try {
  entry = unpacked();
} catch (error) {
  process.stderr.write(`error: ${error.message}\n`);
  process.exit(1);
}
import(pathToFileURL(entry).href).catch((error) => {
  process.stderr.write(`error: could not start the server: ${error && error.stack ? error.stack : error}\n`);
  process.exit(1);
});
