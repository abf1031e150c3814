/// <reference lib="dom" />
// The player's device (issue 44, "The player's device"): the built browser client in Debian's Chromium
// against the real server on loopback. How long from pressing Play to the first frame of the world, and
// how many bytes came before it (the page, its scripts, the wasm and the world's first datagrams); then,
// with the CPU throttled 6× (the DevTools protocol's Emulation.setCPUThrottlingRate, a weak phone), the
// frames per second and the longest frame standing in the great hall at noon, at midnight by torchlight,
// and walking among 30 creatures. The page leaves User Timing marks at Play and at its first frame
// (ts/client/browser/timing-marks.ts); frames are counted by a requestAnimationFrame loop of the bench's
// own beside the game's, and frames the browser itself calls long (long-animation-frame entries, over
// 50 ms) are counted too.
import { copyFileSync, cpSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { execFileSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { type Browser, type Page, chromium } from "playwright-core";
import { Logger } from "../../ts/server/ops/log.js";
import { type RunningServer, startServer } from "../../ts/server/server.js";
import { FIRST_FRAME_MARK, type FirstFrameDetail, PLAY_MARK } from "../../ts/client/browser/timing-marks.js";
import { type RunOptions, fmt, log, loadNow, runHeader } from "../lib/harness.js";
import type { SuiteResult, Target } from "../lib/results.js";

const REPO = fileURLToPath(new URL("../../", import.meta.url));
const CHROMIUM = "/usr/bin/chromium";
const CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking"];
/** The window the desktop suites use. */
const VIEWPORT = { width: 1000, height: 760 };
/** Issue 44's goals. */
const FIRST_FRAME_GOAL_MS = 500;
const FPS_GOAL = 55;
const LONGEST_FRAME_GOAL_MS = 50;
const THROTTLE = 6;
/** Creatures added to the great hall for the walk (the hall has ten of its own: rats, beetles, guards, Mira, Tom). */
const CROWD = 24;

interface FirstFrame {
  throttle: number;
  playToFrameMs: number;
  navigationToFrameMs: number;
  httpBytes: number;
  datagramBytes: number;
  chunks: number;
}

interface FrameWindow {
  scene: string;
  seconds: number;
  frames: number;
  fps: number;
  longestMs: number;
  p99Ms: number;
  over50: number;
  longFrames: number;
  longestLongFrameMs: number;
  entities: number;
}

/** The bundled world with CROWD more wandering creatures in the great hall, in a folder of its own. */
function crowdedWorld(dir: string): string {
  const maps = join(REPO, "maps");
  const map = JSON.parse(readFileSync(join(maps, "caves.tmj"), "utf8")) as {
    tilesets: { image?: string }[];
    layers: { type: string; name: string; objects?: Record<string, unknown>[] }[];
    nextobjectid: number;
  };
  for (const tileset of map.tilesets) if (tileset.image) tileset.image = resolve(maps, tileset.image);
  const npcs = map.layers.find((layer) => layer.type === "objectgroup" && layer.name === "npcs");
  if (!npcs?.objects) throw new Error("maps/caves.tmj has no npcs layer");
  // The hall's floor between its walls (tiles 104–118 across, 104–117 down), half rats, half beetles.
  for (const [kind, count] of [
    ["cave rat", CROWD / 2],
    ["glow beetle", CROWD / 2],
  ] as const) {
    npcs.objects.push({
      id: map.nextobjectid++,
      name: "",
      type: "npc_spawn",
      x: 104 * 8,
      y: 106 * 8,
      width: 14 * 8,
      height: 10 * 8,
      rotation: 0,
      visible: true,
      properties: [
        { name: "kind", type: "string", value: kind },
        { name: "count", type: "int", value: count },
      ],
    });
  }
  const path = join(dir, "crowd.tmj");
  writeFileSync(path, JSON.stringify(map));
  for (const sidecar of ["npcs.json", "items.json", "tiles.json"]) {
    if (existsSync(join(maps, `caves.${sidecar}`)))
      copyFileSync(join(maps, `caves.${sidecar}`), join(dir, `crowd.${sidecar}`));
  }
  cpSync(join(maps, "caves.content"), join(dir, "crowd.content"), { recursive: true });
  return path;
}

/** A page of a fresh context (an empty cache: every byte of the page is fetched), throttled `rate`×. */
async function openThrottled(browser: Browser, baseUrl: string, rate: number): Promise<Page> {
  const context = await browser.newContext({ viewport: VIEWPORT });
  const page = await context.newPage();
  const cdp = await context.newCDPSession(page);
  await cdp.send("Emulation.setCPUThrottlingRate", { rate });
  await page.goto(`${baseUrl}/?debug=1`);
  await page.getByTestId("play").waitFor({ state: "visible" });
  await page.waitForFunction(() => !(document.querySelector('[data-testid="play"]') as HTMLButtonElement).disabled, {
    timeout: 60_000,
  });
  return page;
}

/** Presses Play as guest `nick` and waits for the page's first-frame mark; what it took. */
async function playToFirstFrame(page: Page, nick: string, throttle: number): Promise<FirstFrame> {
  await page.getByTestId("nick").fill(nick);
  await page.getByTestId("play").click();
  await page.waitForFunction((name) => performance.getEntriesByName(name).length > 0, FIRST_FRAME_MARK, {
    timeout: 60_000,
  });
  const read = await page.evaluate(
    ([play, first]) => {
      const frame = performance.getEntriesByName(first)[0] as PerformanceMark;
      const pressed = performance.getEntriesByName(play)[0];
      const navigation = performance.getEntriesByType("navigation")[0] as PerformanceNavigationTiming;
      let httpBytes = navigation.transferSize;
      for (const entry of performance.getEntriesByType("resource") as PerformanceResourceTiming[]) {
        if (entry.responseEnd <= frame.startTime) httpBytes += entry.transferSize;
      }
      return {
        playToFrameMs: frame.startTime - pressed.startTime,
        navigationToFrameMs: frame.startTime,
        httpBytes,
        detail: frame.detail as FirstFrameDetail,
      };
    },
    [PLAY_MARK, FIRST_FRAME_MARK] as const,
  );
  return {
    throttle,
    playToFrameMs: read.playToFrameMs,
    navigationToFrameMs: read.navigationToFrameMs,
    httpBytes: read.httpBytes,
    datagramBytes: read.detail.datagramBytesIn,
    chunks: read.detail.chunks,
  };
}

/**
 * Frames over `seconds`: a requestAnimationFrame loop of the bench's own (each callback is a frame the
 * browser produced; the gap between two is that frame's length), and the browser's own long-animation-frame
 * entries. `during` runs meanwhile (a walk).
 */
async function frameWindow(
  page: Page,
  scene: string,
  seconds: number,
  during?: () => Promise<void>,
): Promise<FrameWindow> {
  // Passed as text: the bench runs under tsx, whose esbuild would name the inner functions through a helper
  // (__name) the page does not have.
  const measured = page.evaluate(`(async () => {
    const ms = ${seconds * 1000};
    const stamps = [];
    const long = [];
    let observer = null;
    if (PerformanceObserver.supportedEntryTypes.includes("long-animation-frame")) {
      observer = new PerformanceObserver((list) => list.getEntries().forEach((entry) => long.push(entry.duration)));
      observer.observe({ type: "long-animation-frame" });
    }
    await new Promise((done) => {
      const end = performance.now() + ms;
      const tick = (at) => {
        stamps.push(at);
        if (at < end) requestAnimationFrame(tick);
        else done();
      };
      requestAnimationFrame(tick);
    });
    if (observer) observer.disconnect();
    const debug = document.querySelector('[data-testid="debug"]')?.textContent ?? "";
    return { stamps, long, entities: Number(/entities (\\d+)/.exec(debug)?.[1] ?? NaN) };
  })()`) as Promise<{ stamps: number[]; long: number[]; entities: number }>;
  await during?.();
  const { stamps, long, entities } = await measured;
  const gaps = stamps.slice(1).map((at, index) => at - stamps[index]);
  const sorted = [...gaps].sort((a, b) => a - b);
  const span = (stamps[stamps.length - 1] - stamps[0]) / 1000;
  return {
    scene,
    seconds: span,
    frames: gaps.length,
    fps: gaps.length / span,
    longestMs: sorted[sorted.length - 1] ?? NaN,
    p99Ms: sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * 0.99))] ?? NaN,
    over50: gaps.filter((gap) => gap > LONGEST_FRAME_GOAL_MS).length,
    longFrames: long.length,
    longestLongFrameMs: long.length > 0 ? Math.max(...long) : 0,
    entities,
  };
}

/** Walks left and right along the hall for `seconds`, a key held a second at a time. */
async function walk(page: Page, seconds: number): Promise<void> {
  const end = Date.now() + seconds * 1000;
  for (let turn = 0; Date.now() < end; turn++) {
    const key = turn % 2 === 0 ? "ArrowLeft" : "ArrowRight";
    await page.keyboard.down(key);
    await new Promise((done) => setTimeout(done, Math.min(1000, Math.max(0, end - Date.now()))));
    await page.keyboard.up(key);
  }
}

export async function runClient(options: RunOptions): Promise<SuiteResult> {
  if (!existsSync(CHROMIUM)) throw new Error(`the client suite needs Chromium at ${CHROMIUM} (apt install chromium)`);
  const loadStart = loadNow();
  const runs = options.quick ? 1 : 3;
  const windowS = options.quick ? 4 : 10;
  execFileSync(process.execPath, [join(REPO, "scripts/build-client.mjs"), "--if-missing"], { stdio: "inherit" });
  const dir = mkdtempSync(join(tmpdir(), "fc-client-bench-"));
  let server: RunningServer | null = null;
  let browser: Browser | null = null;
  const firstFrames: FirstFrame[] = [];
  const windows: FrameWindow[] = [];
  const loads: string[] = [];
  try {
    server = await startServer({
      host: "127.0.0.1",
      httpPort: 0,
      udpPort: 0,
      mapPath: crowdedWorld(dir),
      logger: new Logger("silent"),
      clientDir: join(REPO, "dist/client"),
      startTimeOfDay: 0.5,
    });
    const game = server.game;
    game.worldClock.setWeather("clear", game.tick);
    const baseUrl = `http://127.0.0.1:${server.httpPort}`;
    browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: CHROMIUM_ARGS });
    for (const throttle of [1, THROTTLE]) {
      for (let run = 0; run < runs; run++) {
        log(`client: Play to first frame at ${throttle}× (${run + 1}/${runs})`);
        const page = await openThrottled(browser, baseUrl, throttle);
        firstFrames.push(await playToFirstFrame(page, `First${throttle}x${run}`, throttle));
        await page.context().close();
      }
    }
    const page = await openThrottled(browser, baseUrl, 1);
    await playToFirstFrame(page, "Weak", 1);
    // Settled in the hall, the chunks around it held, before the CPU is slowed.
    await page.waitForFunction(
      () => /^chunks 9$/m.test(document.querySelector('[data-testid="debug"]')?.textContent ?? ""),
      undefined,
      {
        timeout: 30_000,
      },
    );
    const cdp = await page.context().newCDPSession(page);
    await cdp.send("Emulation.setCPUThrottlingRate", { rate: THROTTLE });
    const scenes: { scene: string; timeOfDay: number; walking: boolean }[] = [
      { scene: "the great hall at noon, standing", timeOfDay: 0.5, walking: false },
      { scene: "the great hall at midnight by torchlight, standing", timeOfDay: 0, walking: false },
      { scene: `walking in the great hall among its creatures (${CROWD} added)`, timeOfDay: 0.5, walking: true },
    ];
    for (const { scene, timeOfDay, walking } of scenes) {
      game.worldClock.setTimeOfDay(timeOfDay, game.tick);
      await new Promise((done) => setTimeout(done, 1000));
      log(`client: ${scene} at ${THROTTLE}×, ${windowS} s`);
      const before = loadNow();
      windows.push(await frameWindow(page, scene, windowS, walking ? () => walk(page, windowS) : undefined));
      loads.push(`${fmt(before)} / ${fmt(loadNow())}`);
    }
    await page.context().close();
  } finally {
    await browser?.close();
    await server?.close();
    rmSync(dir, { recursive: true, force: true });
  }

  const median = (values: number[]): number => {
    const sorted = [...values].sort((a, b) => a - b);
    return sorted[Math.floor(sorted.length / 2)];
  };
  const at = (throttle: number) => firstFrames.filter((row) => row.throttle === throttle);
  const unthrottled = at(1);
  const firstMs = median(unthrottled.map((row) => row.playToFrameMs));
  const worstFps = Math.min(...windows.map((row) => row.fps));
  const worstFrame = Math.max(...windows.map((row) => row.longestMs));
  const targets: Target[] = [
    {
      target: `Play to the first drawn frame on loopback ≤ ${FIRST_FRAME_GOAL_MS} ms`,
      measured: `median ${fmt(firstMs)} ms of ${unthrottled.length} (${unthrottled.map((row) => fmt(row.playToFrameMs)).join(", ")} ms); at ${THROTTLE}× CPU throttling ${fmt(median(at(THROTTLE).map((row) => row.playToFrameMs)))} ms`,
      met: firstMs <= FIRST_FRAME_GOAL_MS,
    },
    {
      target: `≥ ${FPS_GOAL} frames per second with the CPU throttled ${THROTTLE}×, in each scene`,
      measured: windows.map((row) => `${row.scene}: ${fmt(row.fps)} fps`).join("; "),
      met: worstFps >= FPS_GOAL,
    },
    {
      target: `no frame over ${LONGEST_FRAME_GOAL_MS} ms with the CPU throttled ${THROTTLE}×`,
      measured: windows
        .map((row) => `${row.scene}: longest ${fmt(row.longestMs)} ms, ${row.over50} over ${LONGEST_FRAME_GOAL_MS} ms`)
        .join("; "),
      met: worstFrame <= LONGEST_FRAME_GOAL_MS,
    },
  ];
  return {
    suite: "client",
    title: `The player's device: the browser client in Chromium, first frame and frames with the CPU throttled ${THROTTLE}×`,
    ...runHeader(options.quick, loadStart),
    timing: `the page's User Timing marks (Play pressed, first frame of the world: ts/client/browser/timing-marks.ts) and its resource timings, a fresh browser context per first-frame run (empty cache); frames from a requestAnimationFrame loop of the bench's own over a ${windowS} s window and the browser's long-animation-frame entries; the server in the bench's process, Chromium ${chromiumVersion()} headless (--disable-gpu: the canvas is drawn in software)`,
    tables: [
      {
        title: "Play to the first frame of the world (the bundled world, a 1000 × 760 window, loopback)",
        columns: [
          "CPU",
          "Play → first frame ms",
          "page load → first frame ms",
          "HTTP bytes before it",
          "datagram bytes before it",
          "chunks held",
        ],
        rows: firstFrames.map((row) => [
          row.throttle === 1 ? "unthrottled" : `throttled ${row.throttle}×`,
          fmt(row.playToFrameMs),
          fmt(row.navigationToFrameMs),
          fmt(row.httpBytes),
          fmt(row.datagramBytes),
          row.chunks,
        ]),
        note: "HTTP bytes: the page, its scripts and styles, the wasm module, the world's description and art, as transferred (compressed where the server compresses). Datagram bytes: the game's own payloads over the data channel (the client's count).",
      },
      {
        title: `Frames with the CPU throttled ${THROTTLE}× (one page, joined unthrottled, then slowed)`,
        columns: [
          "scene",
          "load 1-min before / after",
          "entities in view",
          "frames",
          "fps",
          "frame ms p99",
          "longest frame ms",
          `frames over ${LONGEST_FRAME_GOAL_MS} ms`,
          "long animation frames (browser) / longest ms",
        ],
        rows: windows.map((row, index) => [
          row.scene,
          loads[index],
          Number.isFinite(row.entities) ? row.entities : "—",
          row.frames,
          fmt(row.fps),
          fmt(row.p99Ms),
          fmt(row.longestMs),
          row.over50,
          `${row.longFrames} / ${fmt(row.longestLongFrameMs)}`,
        ]),
        note: "A frame's length is the gap between two requestAnimationFrame callbacks of the bench's own loop (what a player sees as a frame); long animation frames are the browser's own measure of frames that took over 50 ms from their first task to their paint.",
      },
    ],
    charts: [],
    targets,
    notes: [
      "The server runs in the bench's own process on the same 2 cores as Chromium: at 6× throttling the page's main thread is the bottleneck, but a busy machine slows both — read the load beside each row.",
    ],
    raw: { firstFrames, windows },
  };
}

function chromiumVersion(): string {
  try {
    return execFileSync(CHROMIUM, ["--version"], { encoding: "utf8", stdio: ["ignore", "pipe", "ignore"] })
      .trim()
      .replace(/^Chromium\s+/, "")
      .split(" ")[0];
  } catch {
    return "unknown";
  }
}
