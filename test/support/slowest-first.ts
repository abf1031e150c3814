// The order Vitest starts test files in: the slowest first, so that no long file starts last and runs alone
// while the other workers sit idle. Vitest's own order does that from its cache of the last run's times — which
// a clean clone (CI) does not have: it then starts the largest files first, and a short file that runs long
// (the chaos run: 4 KB, 85 s, 192nd of 232 by size) started near the end. So the times of a whole run are kept
// in the repository (test/durations.json, written by `node scripts/test-durations.mjs` after `npm test`),
// and a file's time is the cache's when this checkout has one, else the kept one, else 0 (new files last).
import { readFileSync } from "node:fs";
import { relative } from "node:path";
import { BaseSequencer, type TestSpecification } from "vitest/node";

/** Where the kept times are: `{ "<project>:<file>": ms }`. */
export const DURATIONS_FILE = new URL("../durations.json", import.meta.url);

/** What the order is decided on, for one file. */
export interface FileToOrder {
  /** The project's sequence.groupOrder: groups run one after the other, whatever their files' times. */
  groupOrder: number;
  project: string;
  /** `<project>:<path from the root>`, the cache's key and the kept times' key. */
  key: string;
  /** This checkout's last time for it (Vitest's cache), if any. */
  cachedMs: number | undefined;
}

/** Files by group, then project, then expected time, slowest first (ties by key, so the order is stable). */
export function slowestFirst<T extends FileToOrder>(files: readonly T[], keptMs: ReadonlyMap<string, number>): T[] {
  const expected = (file: T) => file.cachedMs ?? keptMs.get(file.key) ?? 0;
  return [...files].sort(
    (a, b) =>
      a.groupOrder - b.groupOrder ||
      (a.project < b.project ? -1 : a.project > b.project ? 1 : 0) ||
      expected(b) - expected(a) ||
      (a.key < b.key ? -1 : a.key > b.key ? 1 : 0),
  );
}

/** The kept times; empty (and said once) when the file is missing or unreadable. */
export function readKeptDurations(url: URL = DURATIONS_FILE): Map<string, number> {
  try {
    const parsed = JSON.parse(readFileSync(url, "utf8")) as Record<string, unknown>;
    return new Map(Object.entries(parsed).filter((entry): entry is [string, number] => typeof entry[1] === "number"));
  } catch (error) {
    process.stderr.write(`test order: no kept durations (${(error as Error).message}); largest files first\n`);
    return new Map();
  }
}

export class SlowestFirstSequencer extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const kept = readKeptDurations();
    if (kept.size === 0) return super.sort(files);
    const root = this.ctx.config.root;
    const described = files.map((spec) => {
      const key = `${spec.project.name}:${relative(root, spec.moduleId)}`;
      return {
        spec,
        key,
        groupOrder: spec.project.config.sequence.groupOrder,
        project: spec.project.name,
        cachedMs: this.ctx.cache.getFileTestResults(key)?.duration,
      };
    });
    return slowestFirst(described, kept).map(({ spec }) => spec);
  }
}
