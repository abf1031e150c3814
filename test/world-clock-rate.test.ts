// How often the server repeats the world clock (P-20 as P-25 left it,
// docs/protocol.md § 18.4): a session hears it when it binds and then once a
// second for its first 3 seconds, everyone every 4 seconds, and a change at once
// and four times more within 2 seconds — counted on the datagrams the real Game
// sends, tick by tick, with no sockets between.
import { beforeAll, describe, expect, it } from "vitest";
import { TICK_HZ } from "../ts/constants.js";
import { PACKET_WORLD_CLOCK, createActionPacket, encodeAction } from "../ts/protocol/index.js";
import { Game } from "../ts/server/game-server.js";
import { Logger } from "../ts/server/ops/log.js";
import type { Session } from "../ts/server/sessions/session.js";
import type { Core } from "../ts/wasm/core.js";
import { loadCore } from "../ts/wasm/node.js";
import { CapturingPeer, floorMap } from "./support/game-without-network.js";

let core: Core;
beforeAll(async () => {
  core = await loadCore();
});

function bind(game: Game, session: Session, peer: CapturingPeer): void {
  const action = createActionPacket();
  action.authToken = session.token;
  const bytes = new Uint8Array(74);
  encodeAction(action, bytes);
  session.joinSource = peer.address; // joined over HTTP from there: its address is proven
  game.receive(bytes, peer);
}

describe("the world clock's rate", () => {
  it("once a second for a session's first 3 s, every 4 s after; a change five times in 2 s", () => {
    const game = new Game(core, floorMap("clock", 64, { x: 32, y: 32 }), {}, new Logger("silent"));
    try {
      const old = new CapturingPeer("test:old", "10.0.0.1");
      bind(game, game.join("old"), old);
      clockTicks(game, [old], TICK_HZ * 8); // past its first seconds
      const fresh = new CapturingPeer("test:new", "10.0.0.2");
      const before = fresh.datagrams.length;
      bind(game, game.join("new"), fresh);
      // The bind itself brings one at once.
      expect(fresh.datagrams.slice(before).filter((d) => d[3] === PACKET_WORLD_CLOCK)).toHaveLength(1);

      const seconds = 12;
      const ticks = seconds * TICK_HZ;
      const freshAt = clockTicks(game, [old, fresh], ticks);
      // Never two in one tick; the old session every 4 s only (3 of 12 seconds); the new one also every second
      // for its first 3 s.
      for (const at of freshAt) expect(new Set(at).size).toBe(at.length);
      expect(freshAt[0]).toHaveLength(3);
      expect(freshAt[1].length).toBeGreaterThanOrEqual(5);
      expect(freshAt[1].length).toBeLessThanOrEqual(6);
      expect(freshAt[1].filter((tick) => tick > 4 * TICK_HZ).length).toBe(2);

      // A weather change: at once and at ¼, ½, 1 and 2 s, to everyone.
      const other = game.worldClock.weather === "fog" ? "rain" : "fog";
      game.worldClock.setWeather(other, game.tick);
      const changed = clockTicks(game, [old, fresh], 2 * TICK_HZ + 1);
      for (const at of changed) {
        expect(at.length).toBeGreaterThanOrEqual(5);
        expect(at.length).toBeLessThanOrEqual(6); // one more when the steady round falls in these 2 s
      }
    } finally {
      game.shutdown();
    }
  });
});

/** The ticks (since the first step) at which each peer received a WorldClockPacket during `ticks` steps. */
function clockTicks(game: Game, peers: CapturingPeer[], ticks: number): number[][] {
  const at: number[][] = peers.map(() => []);
  const from = game.tick;
  for (let step = 0; step < ticks; step++) {
    for (const peer of peers) peer.datagrams.length = 0;
    game.step();
    peers.forEach((peer, index) => {
      const clocks = peer.datagrams.filter((d) => d[3] === PACKET_WORLD_CLOCK).length;
      for (let i = 0; i < clocks; i++) at[index].push(game.tick - from);
    });
  }
  return at;
}
