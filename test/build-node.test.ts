// scripts/build-node.mjs --if-missing, which the chaos run, the cluster's npm script and the tests ask before
// each start (issue 41: a chaos run must never run a stale cluster): it builds a bundle again exactly when the
// sources it was made from changed — by content, not by time. A file whose content changed while its time did
// not pass the bundle's (restored by cp -p, tar or rsync; a build folder copied in from another checkout) left a
// stale bundle that looked current. A repository of two source files of its own (--root), built for real with
// esbuild and run with node.
import { execFileSync, spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, statSync, utimesSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";

const SCRIPT = fileURLToPath(new URL("../scripts/build-node.mjs", import.meta.url));

describe("build-node --if-missing", () => {
  const root = mkdtempSync(join(tmpdir(), "caves-build-node-"));
  afterAll(() => rmSync(root, { recursive: true, force: true }));
  const source = (path: string) => join(root, "ts/cluster", path);
  const bundle = join(root, "build/node/cluster.mjs");

  /** Runs the script as the chaos run does; whether it built the bundle (it says so on stderr). */
  const ifMissing = (): boolean => {
    const run = spawnSync(process.execPath, [SCRIPT, "--if-missing", "--only", "cluster", "--root", root], {
      encoding: "utf8",
      timeout: 30_000,
    });
    if (run.status !== 0) throw new Error(`build-node exited ${String(run.status)}: ${run.stderr}`);
    return run.stderr.includes("building build/node/cluster.mjs");
  };
  const bundleSays = () => execFileSync(process.execPath, [bundle], { encoding: "utf8" }).trim();
  /** Sets `path`'s time `secondsFromBundle` from the bundle's. */
  const dated = (path: string, secondsFromBundle: number) => {
    const atS = statSync(bundle).mtimeMs / 1000 + secondsFromBundle;
    utimesSync(path, atS, atS);
  };

  it("builds when missing or when a source's content changed, whatever its time; not for a time alone", () => {
    mkdirSync(join(root, "ts/cluster"), { recursive: true });
    writeFileSync(source("main.ts"), 'import { word } from "./word.js";\nconsole.log(word);\n');
    writeFileSync(source("word.ts"), 'export const word: string = "first";\n');
    expect(ifMissing()).toBe(true);
    expect(bundleSays()).toBe("first");
    expect(ifMissing()).toBe(false);

    // Changed, with a time an hour before the bundle's (before: taken for up to date, the bundle said "first").
    writeFileSync(source("word.ts"), 'export const word: string = "second";\n');
    dated(source("word.ts"), -3600);
    expect(ifMissing()).toBe(true);
    expect(bundleSays()).toBe("second");

    // Touched, not changed: nothing to build.
    dated(source("main.ts"), 3600);
    expect(ifMissing()).toBe(false);

    // Changed and newer, as an edit is: built.
    writeFileSync(source("word.ts"), 'export const word: string = "third";\n');
    dated(source("word.ts"), 60);
    expect(ifMissing()).toBe(true);
    expect(bundleSays()).toBe("third");

    // A source gone (its import with it): built from what is there.
    writeFileSync(source("main.ts"), 'console.log("alone");\n');
    rmSync(source("word.ts"));
    expect(ifMissing()).toBe(true);
    expect(bundleSays()).toBe("alone");
  }, 60_000);
});
