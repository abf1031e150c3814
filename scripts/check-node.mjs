// Says in one plain line whether this Node is one the project supports (package.json "engines", the one
// place the range is written), before `npm start` or `npm test` does anything else: on an older Node the
// failure would otherwise come from deep inside a dependency as a stack trace. `npm install` is stopped
// earlier, by npm itself: .npmrc sets engine-strict, so npm refuses before it compiles anything.
// Written for old Nodes too (no import.meta.dirname, no newer syntax), since those are the ones it meets.
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";

const range = JSON.parse(readFileSync(new URL("../package.json", import.meta.url), "utf8")).engines.node;
let semver;
try {
  semver = createRequire(import.meta.url)("semver");
} catch {
  process.stderr.write("Forgotten Caves: run `npm install` first (semver, which this check uses, is missing).\n");
  process.exit(1);
}
const version = process.versions.node;
if (!semver.satisfies(version, range)) {
  const tested = "Node 20.19+, 22.12+ or 24";
  if (semver.gtr(version, range)) {
    // Newer than any tested line: say so, and let the host try (npm install needed --engine-strict=false).
    process.stderr.write(
      `Forgotten Caves is tested on ${tested} (${range}); Node ${version} is newer and not supported yet: going on anyway.\n`,
    );
  } else {
    process.stderr.write(
      `Forgotten Caves needs ${tested} (${range}); this is Node ${version}: install Node 24 (LTS).\n`,
    );
    process.exit(1);
  }
}
