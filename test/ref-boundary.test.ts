// ts/ref holds the oracles and benchmark baselines (issue 11 part 5): nothing in
// production may import it, or a change to an oracle would change the product
// it is meant to check. Only test/ and bench/ (and ts/ref itself) may: not ts/,
// and not hosts/, the other hosts of the wasm core (its golden vectors are made
// from the oracle by test/support/make-vectors.ts, which lives with the tests).
import { readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative, resolve, sep } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const TS = join(ROOT, "ts");
const HOSTS = join(ROOT, "hosts");
const REF = join(TS, "ref");

/** Every .ts and .mjs file under `dir`. */
function tsFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return tsFiles(path);
    return /\.(ts|mjs)$/.test(entry.name) ? [path] : [];
  });
}

// Static imports and re-exports (`from "…"`), side-effect imports and dynamic import("…").
const SPECIFIER = /(?:\bfrom\s*|\bimport\s*\(?\s*)["']([^"']+)["']/g;

/** The relative module specifiers of `source`, resolved to absolute paths. */
function importedPaths(file: string, source: string): string[] {
  const paths: string[] = [];
  for (const match of source.matchAll(SPECIFIER)) {
    if (match[1].startsWith(".")) paths.push(resolve(dirname(file), match[1]));
  }
  return paths;
}

const insideRef = (path: string) => path === REF || path.startsWith(REF + sep);

describe("ts/ref boundary", () => {
  it("the scan sees imports, including ts/ref's own", () => {
    // Guards the check below against a scanner that finds nothing.
    const refBlit = join(REF, "blit.ts");
    expect(importedPaths(refBlit, readFileSync(refBlit, "utf8"))).toContain(join(TS, "blit-layout.js"));
    const probe = join(TS, "client", "probe.ts");
    expect(
      importedPaths(
        probe,
        'import { a } from "../ref/codec.js";\nexport * from "./x.js";\nawait import("../ref/sim.js");',
      ),
    ).toEqual([join(REF, "codec.js"), join(TS, "client", "x.js"), join(REF, "sim.js")]);
  });

  it("no production module imports ts/ref", () => {
    const offenders: string[] = [];
    const files = [...tsFiles(TS), ...tsFiles(HOSTS)].filter((file) => !insideRef(file));
    expect(files.length).toBeGreaterThan(100);
    expect(files.some((file) => file.startsWith(HOSTS + sep))).toBe(true);
    for (const file of files) {
      for (const path of importedPaths(file, readFileSync(file, "utf8"))) {
        if (insideRef(path)) offenders.push(`${relative(ROOT, file)} imports ${relative(ROOT, path)}`);
      }
    }
    expect(offenders).toEqual([]);
  });
});
