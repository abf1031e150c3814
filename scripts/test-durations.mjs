// Keeps the test files' times of the last whole run in the repository (test/durations.json), so a clean
// clone starts the slowest files first too (test/support/slowest-first.ts says why). Run it after a whole
// `npm test`; it reads Vitest's cache of that run (node_modules/.vite/vitest/*/results.json).
//
//   node scripts/test-durations.mjs
import { existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("..", import.meta.url));
const out = join(root, "test/durations.json");
const args = new Set(process.argv.slice(2));
if (args.has("--help") || args.has("-h")) {
  console.log("usage: node scripts/test-durations.mjs   (after a whole `npm test`)");
  process.exit(0);
}

const cacheRoot = join(root, "node_modules/.vite/vitest");
const caches = existsSync(cacheRoot)
  ? readdirSync(cacheRoot)
      .map((dir) => join(cacheRoot, dir, "results.json"))
      .filter((path) => existsSync(path))
  : [];
if (caches.length === 0) {
  console.error(`error: no Vitest cache under ${cacheRoot}: run \`npm test\` first`);
  process.exit(1);
}
/** @type {Record<string, number>} */
const durations = {};
for (const path of caches) {
  const { results } = JSON.parse(readFileSync(path, "utf8"));
  for (const [key, result] of results) {
    const file = key.slice(key.indexOf(":") + 1);
    // Only files that still exist, in whole milliseconds.
    if (typeof result?.duration === "number" && existsSync(join(root, file)))
      durations[key] = Math.round(result.duration);
  }
}
const sorted = Object.fromEntries(Object.entries(durations).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
writeFileSync(out, `${JSON.stringify(sorted, null, 2)}\n`);
const total = Object.values(sorted).reduce((sum, ms) => sum + ms, 0);
console.log(`test/durations.json: ${Object.keys(sorted).length} files, ${(total / 1000).toFixed(0)} s in all`);
