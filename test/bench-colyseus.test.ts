// The server suite's Colyseus row end to end at a small N: the Colyseus 0.17 room on the bench world,
// SDK bots driving it, and the harness's measurements (CPU from /proc, the room's status, the kernel's
// TCP counters). Colyseus is installed only for the bench (bench/colyseus, npm ci on first use), so
// without bench/colyseus/node_modules this file reports itself skipped and says why.
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { runColyseusRow, tcpSockets } from "../bench/suites/colyseus.js";
import { writeWorld } from "../bench/server/world.js";

const installed = existsSync(join(import.meta.dirname, "../bench/colyseus/node_modules/@colyseus/core/package.json"));
if (!installed) {
  process.stderr.write(
    "bench-colyseus.test.ts: skipped — Colyseus is not installed (npm ci --prefix bench/colyseus, which the bench runs on first use)\n",
  );
}

describe.skipIf(!installed)("the Colyseus row of the server suite", () => {
  const dir = mkdtempSync(join(tmpdir(), "fc-colyseus-test-"));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it("runs the room with SDK bots and measures CPU, ticks, patches and the TCP bytes of every connection", async () => {
    const mapPath = writeWorld(dir);
    const row = await runColyseusRow(mapPath, 8, 1, 3);
    expect(row.bots).toBe(8);
    expect(row.bot.bots).toBe(8);
    // One WebSocket connection per bot over the whole window, counted by the kernel.
    expect(row.tcp.sockets).toBe(8);
    expect(row.tcp.headerBytesPerSegment === 40 || row.tcp.headerBytesPerSegment === 52).toBe(true);
    // Wandering bots change their views: patches and pongs arrive, chunks were pushed at join.
    expect(row.tickRateHz).toBeGreaterThan(5);
    expect(row.patchRateHz).toBeGreaterThan(2);
    expect(row.bot.perBot.patchesPerSecond).toBeGreaterThan(1);
    expect(row.bot.perBot.pongsPerSecond).toBeGreaterThan(0.5);
    // The IP level is the TCP payload plus a header per segment.
    // The TCP payload carries what the bots' WebSockets delivered, plus the frames' own bytes.
    expect(row.bot.perBot.wsPayloadBytesInPerSecond).toBeGreaterThan(0);
    expect(row.tcp.payloadBytesOutPerClientSecond).toBeGreaterThanOrEqual(
      row.bot.perBot.wsPayloadBytesInPerSecond * 0.9,
    );
    expect(row.tcp.ipBytesOutPerClientSecond).toBeCloseTo(
      row.tcp.payloadBytesOutPerClientSecond + row.tcp.segmentsOutPerClientSecond * row.tcp.headerBytesPerSegment,
      6,
    );
    expect(row.cpuUsPerClientSecond).toBeGreaterThan(0);
    expect(row.eventLoopDelayMs).not.toBeNull();
  }, 180_000);

  it("counts no connections on a port nobody listens on", () => {
    expect(tcpSockets(1).size).toBe(0);
  });
});
