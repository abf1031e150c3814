// The map gallery (ts/tools/map-gallery.ts): run as a host runs it, on the bundled world, it writes a
// desktop and a phone picture of the map as a player sees it, and an index naming them. The pictures are
// decoded (the server's own PNG reader) and must show the map's art: hundreds of colours where the view is,
// not a blank or loading page. Bad input: a map that is not there is refused by name (exit 2). Needs
// /usr/bin/chromium; without it the suite says so and is skipped.
import { execFile } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, describe, expect, it } from "vitest";
import { readPng } from "../../ts/server/map/tileset-images.js";
import { HAVE_CHROMIUM, MAP_PATH, REPO, skipNotice } from "./browser-support.js";

skipNotice("map gallery test");

const run = promisify(execFile);
const TOOL = join(REPO, "ts/tools/map-gallery.ts");
const out = mkdtempSync(join(tmpdir(), "caves-gallery-"));

async function gallery(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await run(process.execPath, ["--import", "tsx", TOOL, ...args], {
      cwd: REPO,
      timeout: 120_000,
    });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failed = error as { code: number; stdout: string; stderr: string };
    return { code: failed.code, stdout: failed.stdout, stderr: failed.stderr };
  }
}

/** The rectangle of `image` (RGBA rows): how many colours, and the share of its pixels the commonest covers. */
function coloursIn(image: { width: number; data: Uint8Array }, x: number, y: number, w: number, h: number) {
  const counts = new Map<number, number>();
  for (let row = y; row < y + h; row++) {
    for (let column = x; column < x + w; column++) {
      const at = (row * image.width + column) * 4;
      const colour = (image.data[at] << 16) | (image.data[at + 1] << 8) | image.data[at + 2];
      counts.set(colour, (counts.get(colour) ?? 0) + 1);
    }
  }
  return { colours: counts.size, commonest: Math.max(...counts.values()) / (w * h) };
}

afterAll(() => rmSync(out, { recursive: true, force: true }));

describe.skipIf(!HAVE_CHROMIUM)("the map gallery", () => {
  it("pictures the bundled world at a desktop and a phone size, as a player sees it, and indexes them", async () => {
    const result = await gallery("--out", out, MAP_PATH);
    expect(result.code, result.stdout + result.stderr).toBe(0);
    expect(result.stdout).toContain("[1/1] ");
    const desktop = readPng(join(out, "caves-desktop.png"));
    const phone = readPng(join(out, "caves-phone.png"));
    expect([desktop.width, desktop.height]).toEqual([1280, 800]);
    expect([phone.width, phone.height]).toEqual([390 * 3, 844 * 3]); // a phone's pixel ratio of 3
    // The view is on the left of the desktop window and on top on the phone: the map's art (RGB332: walls,
    // floor, torches, creatures), not a page of one background colour.
    for (const shown of [coloursIn(desktop, 200, 100, 500, 500), coloursIn(phone, 100, 300, 900, 900)]) {
      expect(shown.colours).toBeGreaterThan(10);
      expect(shown.commonest).toBeLessThan(0.9);
    }
    const index = readFileSync(join(out, "index.md"), "utf8");
    expect(index).toContain("## Forgotten Caves");
    expect(index).toContain("maps/caves.tmj");
    expect(index).toContain("(caves-desktop.png)");
    expect(index).toContain("(caves-phone.png)");
  }, 150_000);

  it("refuses a map that is not there, by name, and bad usage", async () => {
    const missing = await gallery("--out", out, join(out, "no-such-map.tmx"));
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain("no-such-map.tmx");
    const both = await gallery("--noon", "--night");
    expect(both.code).toBe(2);
    expect(both.stderr).toContain("--noon or --night");
  }, 60_000);
});
