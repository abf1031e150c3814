// The server suite's bots end to end at a small N, on each of their socket paths (bench/server/bot-sockets.ts):
// a real server process on the bench world, a real bot process, and the harness's measurement (runScale).
// The batched path (native/udp-mmsg, its sockets read through one epoll set) is the one the bench takes where
// the addon is built; a socket read at a time and node:dgram are the others. Each must still play the
// client's part: States read, entity checksums matched, chunks requested and received, moves and pings sent.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { runScale } from "../bench/suites/server.js";
import { writeWorld } from "../bench/server/world.js";
import { udpMmsgBinding } from "../ts/server/transports/udp-mmsg.js";

const batched = udpMmsgBinding();
if (batched.binding === null) {
  process.stderr.write(`bench-bots.test.ts: the batched path is skipped — ${batched.reason}\n`);
}

describe("the bench's bots", () => {
  const dir = mkdtempSync(join(tmpdir(), "fc-bench-bots-test-"));
  const mapPath = writeWorld(dir);
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  // The addon's sockets read through one epoll set (the default), or each on its own (--socket-set off).
  const paths = [
    { backend: "mmsg", socketSet: true, name: "mmsg, one epoll set" },
    { backend: "mmsg", socketSet: false, name: "mmsg, a socket at a time" },
    { backend: "dgram", socketSet: false, name: "dgram" },
  ] as const;
  for (const { backend, socketSet, name } of paths) {
    it.skipIf(backend === "mmsg" && batched.binding === null)(
      `play the client's part over ${name}`,
      async () => {
        const row = await runScale(mapPath, 6, false, 1, 3, "auto", {
          sampleNpcs: false,
          botUdpBackend: backend,
          botArgs: backend === "mmsg" && !socketSet ? ["--socket-set", "off"] : [],
        });
        const bot = row.bot;
        expect(bot.bots).toBe(6);
        expect(bot.udpBackend).toBe(backend);
        expect(bot.socketSet).toBe(socketSet);
        expect(bot.sendFailures).toBe(0);
        // States (read in place, bench/server/bots.ts) and the entity packets after them, whose checksum matched.
        expect(bot.datagramsInPerBotSecondByType.state).toBeGreaterThan(0);
        expect(bot.datagramsInPerBotSecondByType.entity).toBeGreaterThan(0);
        expect(bot.datagramsInPerBotSecondByType.undecodable).toBeUndefined();
        expect(bot.checksumMismatches).toBe(0);
        // Each asked for the chunks its manifest lists and holds them: at least four (a corner of the map's
        // 32×32 chunks; nine away from its edges — a bot that just crossed may still wait for its new row).
        expect(bot.chunksHeldPerBot).toBeGreaterThanOrEqual(4);
        // Pongs answer their pings, and more goes out than pings alone: their moves.
        expect(bot.datagramsInPerBotSecondByType.pong).toBeGreaterThan(0);
        expect(bot.perBot.datagramsOutPerSecond).toBeGreaterThan(1);
        // The server saw the same: bytes from each client, and its States went out to each.
        expect(row.server.ipBytesInPerClientSecond).toBeGreaterThan(0);
        expect(row.server.ipBytesOutPerClientSecond).toBeGreaterThan(0);
      },
      120_000,
    );
  }
});
