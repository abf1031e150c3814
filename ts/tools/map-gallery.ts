// Screenshots of maps as a player sees them (issue 42: "screenshots of each at desktop and phone sizes look
// like a game, not a debug view"): for each map, the real server on it and the built client in Chromium at a
// desktop window and a phone held upright, a guest joined and standing at the spawn once the chunks in view
// have come, then a picture of the page. An index.md beside the pictures lists them with what each map is.
//
//   npm run -s gallery -- [--out DIR] [--noon | --night] [MAP ...]
//
// Without maps: the bundled world and every orthogonal map of ../shared/maps-real that is there. Needs
// Chromium at /usr/bin/chromium (Debian's `chromium`); says so and exits 2 without it.
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { basename, dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { execFileSync } from "node:child_process";
import { parseArgs } from "node:util";
import { chromium, type Page } from "playwright-core";
import { Logger } from "../server/ops/log.js";
import { startServer } from "../server/server.js";
import { readWorldMap } from "../server/world/world-map.js";

const REPO = fileURLToPath(new URL("../..", import.meta.url));
const CHROMIUM = "/usr/bin/chromium";
const CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking"];
/** Where the real maps are: beside the clone, or two levels up from a worktree kept beside it. */
const MAPS_REAL = [resolve(REPO, "../shared/maps-real"), resolve(REPO, "../../shared/maps-real")].find(existsSync);
/** The orthogonal maps of maps-real the gallery shows by default (the others are refused by design). */
const REAL_MAPS = [
  "mapeditor-tiled/rpg/island.tmx",
  "mapeditor-tiled/forest/forest.tmx",
  "workadventure-map-starter-kit/office.tmj",
  "sourceoftales/maps/goldenfields/main.tmx",
  "rs-tiled/tiled_base64.tmx",
  "rs-tiled/tiled_base64_zlib_infinite.tmx",
  "rs-tiled/tiled_flipped.tmx",
];
/** The screen sizes: a laptop's window and a phone held upright (CSS pixels, one image pixel each). */
const SCREENS = [
  { name: "desktop", width: 1280, height: 800, mobile: false, scale: 1 },
  { name: "phone", width: 390, height: 844, mobile: true, scale: 3 },
] as const;

const USAGE = `usage: npm run -s gallery -- [--out DIR] [--noon | --night] [MAP ...]

Screenshots of each map as a player sees it, at a 1280 × 800 desktop window and a 390 × 844 phone:
the real server on the map, the built client in Chromium, a guest standing at the spawn once the chunks in
view have come. Writes DIR/<map>-desktop.png, DIR/<map>-phone.png and DIR/index.md.

  --out DIR   where the pictures go (default: gallery/)
  --noon      at noon (the default)
  --night     at midnight, torches and night light as a player sees them
  MAP         a .tmx or .tmj file; without one, maps/caves.tmj and the orthogonal maps of
              ../shared/maps-real that are there
`;

class UsageError extends Error {}

interface Shot {
  readonly map: string;
  readonly slug: string;
  readonly title: string;
  readonly size: string;
  readonly files: string[];
  /** What the map's art could not draw (a tileset image left out, ...): shown as the magenta checker. */
  readonly problems: readonly string[];
}

async function main(argv: string[]): Promise<number> {
  let values;
  let positionals;
  try {
    ({ values, positionals } = parseArgs({
      args: argv,
      allowPositionals: true,
      options: {
        out: { type: "string", default: "gallery" },
        noon: { type: "boolean" },
        night: { type: "boolean" },
        help: { type: "boolean", short: "h" },
      },
    }));
    if (values.noon && values.night) throw new UsageError("say --noon or --night, not both");
  } catch (error) {
    process.stderr.write(`gallery: ${(error as Error).message}\n\n${USAGE}`);
    return 2;
  }
  if (values.help) {
    process.stdout.write(USAGE);
    return 0;
  }
  if (!existsSync(CHROMIUM)) {
    process.stderr.write(`gallery: no Chromium at ${CHROMIUM} (apt install chromium)\n`);
    return 2;
  }
  const maps =
    positionals.length > 0
      ? positionals.map((map) => resolve(map))
      : [
          join(REPO, "maps/caves.tmj"),
          ...(MAPS_REAL ? REAL_MAPS.map((map) => join(MAPS_REAL, map)).filter((map) => existsSync(map)) : []),
        ];
  for (const map of maps) {
    if (!existsSync(map)) {
      process.stderr.write(`gallery: no map at ${map}\n`);
      return 2;
    }
  }
  const out = resolve(values.out!);
  mkdirSync(out, { recursive: true });
  // The client as `npm start` serves it, built if stale.
  execFileSync(process.execPath, [join(REPO, "scripts/build-client.mjs"), "--if-missing"], { stdio: "inherit" });
  const timeOfDay = values.night ? 0 : 0.5;
  const browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: CHROMIUM_ARGS });
  const shots: Shot[] = [];
  let failures = 0;
  try {
    for (const [index, map] of maps.entries()) {
      const label = relative(process.cwd(), map);
      process.stdout.write(`[${index + 1}/${maps.length}] ${label} … `);
      try {
        const shot = await shoot(browser, map, out, timeOfDay);
        shots.push(shot);
        process.stdout.write(`${shot.files.join(", ")}\n`);
      } catch (error) {
        failures++;
        process.stdout.write(`FAILED: ${error instanceof Error ? error.message : String(error)}\n`);
      }
    }
  } finally {
    await browser.close();
  }
  writeFileSync(join(out, "index.md"), indexOf(shots, values.night ? "midnight" : "noon"));
  process.stdout.write(
    `wrote ${join(out, "index.md")} (${shots.length} maps${failures ? `, ${failures} failed` : ""})\n`,
  );
  return failures > 0 ? 1 : 0;
}

/** One map: its server, a guest at each screen size, a picture each. */
async function shoot(
  browser: Awaited<ReturnType<typeof chromium.launch>>,
  map: string,
  out: string,
  timeOfDay: number,
): Promise<Shot> {
  const world = readWorldMap(map); // a map that does not load fails here, with the loader's message
  const slug = slugOf(map);
  const server = await startServer({
    host: "127.0.0.1",
    httpPort: 0,
    udpPort: 0,
    mapPath: map,
    logger: new Logger("silent"),
    clientDir: join(REPO, "dist/client"),
    startTimeOfDay: timeOfDay,
  });
  try {
    server.game.worldClock.setWeather("clear", server.game.tick);
    const files: string[] = [];
    for (const screen of SCREENS) {
      const context = await browser.newContext({
        viewport: { width: screen.width, height: screen.height },
        deviceScaleFactor: screen.scale,
        isMobile: screen.mobile,
        hasTouch: screen.mobile,
      });
      try {
        const page = await context.newPage();
        await play(page, `http://127.0.0.1:${server.httpPort}/?debug=1`, screen.mobile);
        const file = `${slug}-${screen.name}.png`;
        await page.screenshot({ path: join(out, file), type: "png" });
        files.push(file);
      } finally {
        await context.close();
      }
    }
    return {
      map,
      slug,
      title: world.name,
      size: `${world.width} × ${world.height} tiles of ${world.art?.tileWidthPx ?? 8} px`,
      files,
      problems: world.art?.problems ?? [],
    };
  } finally {
    await server.close();
  }
}

/** Joins as a guest and waits until the chunks in view have all come (their count still for a second). */
async function play(page: Page, url: string, touch: boolean): Promise<void> {
  await page.goto(url);
  await page.getByTestId("play").waitFor({ state: "visible", timeout: 15_000 });
  await waitUntil(() => page.getByTestId("play").isEnabled(), "the join card", 15_000);
  await page.getByTestId("nick").fill("Gallery");
  if (touch) await page.getByTestId("play").tap();
  else await page.getByTestId("play").click();
  // The debug overlay (?debug=1) says when it plays and how many chunks it holds; hidden before the picture.
  const debug = () =>
    page
      .getByTestId("debug")
      .textContent()
      .then((text) => text ?? "");
  await waitUntil(async () => /^state playing$/m.test(await debug()), "playing", 15_000);
  let last = "";
  let stillSince = Date.now();
  await waitUntil(
    async () => {
      const chunks = /^chunks (\d+)$/m.exec(await debug())?.[1] ?? "";
      if (chunks !== last) {
        last = chunks;
        stillSince = Date.now();
      }
      return last !== "" && last !== "0" && Date.now() - stillSince > 1000;
    },
    "the chunks in view",
    20_000,
  );
  await page.getByTestId("debug").evaluate((element) => element.setAttribute("hidden", ""));
  await page.waitForTimeout(500); // the frame after the last chunk, drawn
}

async function waitUntil(check: () => Promise<boolean>, what: string, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`${what} did not come within ${timeoutMs / 1000} s`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** A file name for `map`: its path's last two parts, lower case, "-" between words. */
function slugOf(map: string): string {
  const stem = basename(map).replace(/\.(tmx|tmj|json)$/i, "");
  const folder = basename(dirname(map));
  const words = (folder === "maps" || folder === stem ? stem : `${folder}-${stem}`).toLowerCase();
  return words.replace(/[^a-z0-9]+/g, "-").replace(/^-|-$/g, "");
}

function indexOf(shots: readonly Shot[], when: string): string {
  const lines = [
    "# Map gallery",
    "",
    `Each map as a player sees it at ${when}, standing at the spawn: a 1280 × 800 desktop window and a 390 × 844`,
    "phone. Made by `npm run -s gallery` (ts/tools/map-gallery.ts).",
    "",
  ];
  for (const shot of shots) {
    const where = shot.map.includes("/maps-real/")
      ? shot.map.replace(/^.*\/maps-real\//, "maps-real/")
      : relative(REPO, shot.map);
    lines.push(`## ${shot.title}`, "", `\`${where}\`, ${shot.size}`, "");
    if (shot.problems.length > 0) {
      lines.push("What its art could not draw, shown as the magenta and black placeholder:", "");
      for (const problem of shot.problems) lines.push(`- ${problem}`);
      lines.push("");
    }
    lines.push(
      shot.files.map((file) => `![${shot.title}, ${file.replace(/^.*-(\w+)\.png$/, "$1")}](${file})`).join(" "),
      "",
    );
  }
  return `${lines.join("\n")}\n`;
}

main(process.argv.slice(2)).then(
  (status) => {
    process.exitCode = status;
  },
  (error: unknown) => {
    process.stderr.write(`gallery: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    process.exitCode = 1;
  },
);
