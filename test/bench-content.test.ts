// The content suite's parts that need no load (bench/suites/content.ts, docs/benchmarks.md § content): the
// scripted bench world it writes (bench/server/world.ts `scripted`) and that the content tool passes, the
// --content rows, the window's script figures from two /api/status ends, and the row arithmetic, the
// targets and the table from given rows. The rows themselves are measured only by `npm run bench`.
import { execFile } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { NPCS_PER_AREA, TALKER_KIND, writeWorld } from "../bench/server/world.js";
import {
  CONTENT_BOTS,
  CONTENT_COLUMNS,
  type ContentRow,
  contentFigures,
  contentStopNotes,
  contentTableRow,
  contentTargets,
  parseContentRows,
} from "../bench/suites/content.js";
import { type ScaleRow, type ScriptsRow, type ScriptsStatus, scriptsRowOf } from "../bench/suites/server.js";

const ROOT = fileURLToPath(new URL("..", import.meta.url));
const TSX = fileURLToPath(new URL("../node_modules/.bin/tsx", import.meta.url));
const dir = mkdtempSync(join(tmpdir(), "fc-bench-content-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

interface SpawnObject {
  type: string;
  x: number;
  y: number;
  properties: { name: string; value: string | number }[];
}

/** The npc_spawn objects of a written map: kind, count and where. */
function spawnsOf(mapPath: string): { kind: string; count: number; x: number; y: number }[] {
  const map = JSON.parse(readFileSync(mapPath, "utf8")) as { layers: { objects?: SpawnObject[] }[] };
  return map.layers
    .flatMap((layer) => layer.objects ?? [])
    .filter((object) => object.type === "npc_spawn")
    .map((object) => {
      const property = (name: string) => object.properties.find((p) => p.name === name)!.value;
      return { kind: property("kind") as string, count: property("count") as number, x: object.x, y: object.y };
    });
}

function runContentCheck(mapPath: string): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((done, fail) => {
    execFile(
      TSX,
      ["ts/tools/content.ts", "check", mapPath],
      { cwd: ROOT, timeout: 60_000 },
      (error, stdout, stderr) => {
        if (error && typeof error.code !== "number") fail(error);
        else done({ code: error ? (error.code as number) : 0, stdout, stderr });
      },
    );
  });
}

describe("the scripted bench world", () => {
  it("gives an even share of the talkers to every NPC area, keeps each area's count, and carries the scripts", () => {
    const mapPath = writeWorld(join(dir, "realistic"), { npcs: 200, scripted: { talkers: 30, scripts: "realistic" } });
    const spawns = spawnsOf(mapPath);
    const total = (kind?: string) =>
      spawns.filter((spawn) => kind === undefined || spawn.kind === kind).reduce((sum, spawn) => sum + spawn.count, 0);
    expect(total()).toBe(200);
    expect(total(TALKER_KIND.name)).toBe(30);
    // 20 areas of 10: each area's spawns over one square add up to 10, one or two of them talkers.
    const areas = new Map<string, { count: number; talkers: number }>();
    for (const spawn of spawns) {
      const area = areas.get(`${spawn.x},${spawn.y}`) ?? { count: 0, talkers: 0 };
      area.count += spawn.count;
      if (spawn.kind === TALKER_KIND.name) area.talkers += spawn.count;
      areas.set(`${spawn.x},${spawn.y}`, area);
    }
    expect(areas.size).toBe(200 / NPCS_PER_AREA);
    for (const area of areas.values()) {
      expect(area.count).toBe(NPCS_PER_AREA);
      expect([1, 2]).toContain(area.talkers);
    }
    const kinds = JSON.parse(readFileSync(join(dir, "realistic", "map.npcs.json"), "utf8")) as {
      kinds: { name: string; behaviour: string }[];
    };
    expect(kinds.kinds.find((kind) => kind.name === TALKER_KIND.name)?.behaviour).toBe("guard");
    expect(existsSync(join(dir, "realistic", "map.items.json"))).toBe(true);
    expect(readdirSync(join(dir, "realistic", "map.content"))).toEqual(["talker.lua"]);
  });

  it("without talkers places the same creatures as a world without the option; 'none' writes no scripts", () => {
    const plain = writeWorld(join(dir, "plain"), { npcs: 200 });
    const none = writeWorld(join(dir, "none"), { npcs: 200, scripted: { talkers: 0, scripts: "none" } });
    expect(readFileSync(none, "utf8")).toBe(readFileSync(plain, "utf8"));
    expect(existsSync(join(dir, "none", "map.content"))).toBe(false);
    expect(existsSync(join(dir, "plain", "map.items.json"))).toBe(false);
    expect(() => writeWorld(join(dir, "over"), { npcs: 10, scripted: { talkers: 11, scripts: "none" } })).toThrow(
      "11 talkers among 10 NPCs",
    );
  });

  it("passes npm run -s content -- check with each script set, as the suite writes it", async () => {
    const realistic = writeWorld(join(dir, "check-realistic"), {
      npcs: 20_000,
      scripted: { talkers: 2_000, scripts: "realistic" },
    });
    const hostile = writeWorld(join(dir, "check-hostile"), {
      npcs: 20_000,
      scripted: { talkers: 2_000, scripts: "hostile" },
    });
    const [a, b] = await Promise.all([runContentCheck(realistic), runContentCheck(hostile)]);
    expect(a.stdout).toContain("content: 1 scripts, no problem (talker.lua)");
    expect(a.code).toBe(0);
    expect(b.stdout).toContain("content: 2 scripts, no problem (hoard.lua, loop.lua)");
    expect(b.code).toBe(0);
  }, 60_000);
});

/** /api/status scripts at one end of a window. */
function scriptsStatus(fields: Partial<ScriptsStatus> = {}): ScriptsStatus {
  return {
    events: 0,
    eventsDropped: 0,
    errors: 0,
    budgetStops: 0,
    memoryStops: 0,
    steps: 0,
    busyMs: 0,
    files: [],
    ...fields,
  };
}

function scriptsRow(fields: Partial<ScriptsRow> = {}): ScriptsRow {
  return {
    eventsPerSecond: 0,
    errorsPerSecond: 0,
    budgetStopsPerSecond: 0,
    memoryStopsPerSecond: 0,
    eventsDropped: 0,
    stepsPerSecond: 0,
    stepsPerEvent: NaN,
    busyMsPerSecond: 0,
    busyUsPerEvent: NaN,
    files: [],
    dialogsOpenedPerSecond: 0,
    dialogRepliesPerSecond: 0,
    ...fields,
  };
}

/** A row as runScale returns it: 2000 bots that held both rates, changed by `fields`. */
function scaleRow(fields: Partial<ScaleRow> = {}, talks = 0): ScaleRow {
  return {
    bots: CONTENT_BOTS,
    idle: false,
    udpBackend: "mmsg",
    seconds: 30,
    serverCpuPercent: 40,
    cpuUsPerClientSecond: 200,
    rssMiB: 300,
    eventLoopDelayMs: { p50: 1, p99: 4, source: "preload" },
    tickMs: { p50: 5, p99: 15, max: 18 },
    broadcastMs: { p50: 1, p99: 2 },
    tickRateHz: 24,
    bot: {
      bots: CONTENT_BOTS,
      seconds: 30,
      botProcessCpuPercent: 60,
      botProcessUserPercent: 45,
      botProcessSystemPercent: 15,
      perBot: {
        datagramsInPerSecond: 14,
        ipBytesInPerSecond: 2000,
        statePerSecond: 12,
        entityPerSecond: 0,
        chunkPerSecond: 0.2,
        datagramsOutPerSecond: 8,
        ipBytesOutPerSecond: 700,
      },
      checksumMismatches: 0,
      datagramsInPerBotSecondByType: {},
      talks: { talks, queries: talks, details: talks, dialogs: talks, replies: talks, replyResends: 0, closes: talks },
    },
    server: { ipBytesOutPerClientSecond: 2000, ipBytesInPerClientSecond: 700, datagramsOutPerClientSecond: 14 },
    drops: {},
    keepsUp: true,
    load: { before: [1.2, 1, 1], after: [1.5, 1, 1] },
    deltas: true,
    npcsInWorld: 20_000,
    tickLateMs: { p50: 0.5, p99: 3, max: 6 },
    talk: true,
    ...fields,
  };
}

describe("the content suite's figures", () => {
  it("reads --content as the rows, in the order given, and refuses another name", () => {
    expect(parseContentRows("none,realistic,hostile")).toEqual(["none", "realistic", "hostile"]);
    expect(parseContentRows(" hostile ")).toEqual(["hostile"]);
    expect(() => parseContentRows("realistic,evil")).toThrow('--content takes none, realistic, hostile, got "evil"');
  });

  it("turns two /api/status ends into the window's rates, each file's errors the window's own", () => {
    const start = {
      scripts: scriptsStatus({
        events: 100,
        errors: 10,
        budgetStops: 10,
        steps: 1_000_000,
        busyMs: 50,
        files: [
          {
            name: "hoard.lua",
            running: true,
            memoryBytes: 4 << 20,
            errors: 4,
            lastError: "instruction budget exceeded",
          },
          { name: "loop.lua", running: true, memoryBytes: 20_000, errors: 6, lastError: "instruction budget exceeded" },
        ],
      }),
      dialogs: { opened: 7, replies: 5 },
    };
    const end = {
      scripts: scriptsStatus({
        events: 400,
        errors: 310,
        budgetStops: 160,
        memoryStops: 150,
        steps: 76_000_000,
        busyMs: 1250,
        files: [
          { name: "hoard.lua", running: true, memoryBytes: 8 << 20, errors: 154, lastError: "not enough memory" },
          {
            name: "loop.lua",
            running: true,
            memoryBytes: 20_000,
            errors: 156,
            lastError: "instruction budget exceeded",
          },
        ],
      }),
      dialogs: { opened: 67, replies: 65 },
    };
    expect(scriptsRowOf(start, end, 30)).toEqual({
      eventsPerSecond: 10,
      errorsPerSecond: 10,
      budgetStopsPerSecond: 5,
      memoryStopsPerSecond: 5,
      eventsDropped: 0,
      stepsPerSecond: 2_500_000,
      stepsPerEvent: 250_000,
      busyMsPerSecond: 40,
      busyUsPerEvent: 4000,
      files: [
        { name: "hoard.lua", memoryBytes: 8 << 20, errors: 150, lastError: "not enough memory" },
        { name: "loop.lua", memoryBytes: 20_000, errors: 150, lastError: "instruction budget exceeded" },
      ],
      dialogsOpenedPerSecond: 2,
      dialogRepliesPerSecond: 2,
    });
    // No event in the window: nothing to divide by; a file loaded during it counts all its errors.
    const quiet = scriptsRowOf(
      { scripts: scriptsStatus() },
      {
        scripts: scriptsStatus({
          busyMs: 3,
          files: [{ name: "new.lua", running: true, memoryBytes: 1, errors: 2, lastError: "x" }],
        }),
      },
      10,
    );
    expect(quiet.busyUsPerEvent).toBeNaN();
    expect(quiet.stepsPerEvent).toBeNaN();
    expect(quiet.files[0].errors).toBe(2);
  });

  it("gives the scripts' share of a core and of the server, and the all-included µs per event against the row without scripts", () => {
    const baseline = scaleRow({ serverCpuPercent: 40 }, 0);
    // 12 events/s, 6 ms/s in the scripts, the server at 43 % of a core: 3 % more than without scripts.
    const realistic = scaleRow(
      { serverCpuPercent: 43, scripts: scriptsRow({ eventsPerSecond: 12, busyMsPerSecond: 6, busyUsPerEvent: 500 }) },
      180,
    );
    const figures = contentFigures(realistic, baseline);
    expect(figures.talksPerSecond).toBe(6);
    expect(figures.coreSharePercent).toBeCloseTo(0.6, 12);
    expect(figures.serverCpuSharePercent).toBeCloseTo((6 / 430) * 100, 12);
    expect(figures.allIncludedUsPerEvent).toBeCloseTo(2500, 9); // 30,000 µs/s more ÷ 12 events/s
    // The row without scripts, or a row with no baseline or no events, has nothing to compare.
    expect(contentFigures(baseline, baseline).allIncludedUsPerEvent).toBeNaN();
    expect(contentFigures(baseline, baseline).coreSharePercent).toBeNaN();
    expect(contentFigures(realistic, undefined).allIncludedUsPerEvent).toBeNaN();
    expect(contentFigures(scaleRow({ scripts: scriptsRow() }), baseline).allIncludedUsPerEvent).toBeNaN();
  });

  it("judges the targets only at 2000 bots with the row run, and by p99 tick and both rates", () => {
    const holding = scaleRow({ scripts: scriptsRow({ eventsPerSecond: 10, busyMsPerSecond: 4 }) }, 150);
    const rows: ContentRow[] = [
      { set: "none", row: scaleRow() },
      { set: "realistic", row: holding },
      { set: "hostile", row: scaleRow({ tickMs: { p50: 8, p99: 21, max: 40 } }) },
    ];
    const [realistic, hostile] = contentTargets(rows, CONTENT_BOTS);
    expect(realistic.met).toBe(true);
    expect(realistic.measured).toContain("p99 tick 15.0 ms, 24.0 ticks/s, 12.0 States/s per bot");
    expect(realistic.measured).toContain("without scripts in the same session");
    expect(hostile.met).toBe(false); // p99 21 ms
    // Either rate below 95 % misses too.
    const slow = contentTargets([{ set: "realistic", row: scaleRow({ tickRateHz: 22.7 }) }], CONTENT_BOTS);
    expect(slow[0].met).toBe(false);
    const sparse = contentTargets(
      [
        {
          set: "realistic",
          row: scaleRow({ bot: { ...scaleRow().bot, perBot: { ...scaleRow().bot.perBot, statePerSecond: 11.3 } } }),
        },
      ],
      CONTENT_BOTS,
    );
    expect(sparse[0].met).toBe(false);
    // A --quick run (100 bots), or a row left out with --content, is not judged.
    const quick = contentTargets(rows, 100);
    expect(quick.map((target) => target.met)).toEqual([null, null]);
    expect(quick[0].measured).toBe("not run (bots 100; rows: none, realistic, hostile)");
    const one = contentTargets([{ set: "realistic", row: holding }], CONTENT_BOTS);
    expect(one[0].met).toBe(true);
    expect(one[1]).toMatchObject({ met: null, measured: "not run (bots 2000; rows: realistic; no hostile row)" });
  });

  it("writes a table row per content row, a cell per column, and a note per file that stopped", () => {
    const baseline = scaleRow();
    const hostile: ContentRow = {
      set: "hostile",
      row: scaleRow(
        {
          serverCpuPercent: 50,
          scripts: scriptsRow({
            eventsPerSecond: 10,
            budgetStopsPerSecond: 5,
            memoryStopsPerSecond: 5,
            errorsPerSecond: 10,
            busyMsPerSecond: 40,
            busyUsPerEvent: 4000,
            stepsPerEvent: 250_000,
            files: [
              { name: "hoard.lua", memoryBytes: 8 << 20, errors: 150, lastError: "not enough memory" },
              { name: "loop.lua", memoryBytes: 20_480, errors: 150, lastError: "instruction budget exceeded" },
            ],
          }),
        },
        150,
      ),
    };
    const cells = contentTableRow(hostile, baseline);
    expect(cells).toHaveLength(CONTENT_COLUMNS.length);
    const cell = (column: (typeof CONTENT_COLUMNS)[number]) => cells[CONTENT_COLUMNS.indexOf(column)];
    expect(cell("row")).toBe("2000 bots, hostile scripts (budget and memory cap every talk)");
    expect(cell("load 1-min before / after")).toBe("1.20 / 1.50");
    expect(cell("talks / dialogs / replies per s (bots)")).toBe("5.00 / 5.00 / 5.00");
    expect(cell("script ms per s (% of a core)")).toBe("40.0 (4.00 %)");
    expect(cell("% of server CPU")).toBe("8.00");
    expect(cell("all-included server µs per event")).toBe("10 000");
    expect(cell("budget / memory stops / errors per s")).toBe("5.00 / 5.00 / 10.0");
    expect(cell("state memory (end of window)")).toBe("hoard.lua 8 192 KiB, loop.lua 20.0 KiB");
    expect(cell("holds")).toBe("yes");
    const none = contentTableRow({ set: "none", row: scaleRow({ tickRateHz: 20 }) }, baseline);
    expect(none[CONTENT_COLUMNS.indexOf("script events/s")]).toBe("—");
    expect(none[CONTENT_COLUMNS.indexOf("holds")]).toBe("**no**");
    expect(contentStopNotes([{ set: "none", row: baseline }, hostile])).toEqual([
      'hostile row: hoard.lua stopped 150 times in the window; the last: "not enough memory".',
      'hostile row: loop.lua stopped 150 times in the window; the last: "instruction budget exceeded".',
    ]);
  });
});
