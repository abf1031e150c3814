// A session handed between regions whose clocks are a tick or two apart (ts/cluster/handoff.ts): the
// new region sends it no broadcast under a tick the old one may have broadcast already. Two lists under
// one tick, from two processes, are mixed by the client into one that fails its checksum (the border
// bench counted them: bench/REPORT.md § One world on 4 regions). Two real Games, in one process.
import { beforeAll, describe, expect, it } from "vitest";
import { BROADCAST_EVERY_TICKS } from "../ts/constants.js";
import { arrivalOf, handoffStateOf, restoreSession } from "../ts/cluster/handoff.js";
import { decodePacketPlain } from "../ts/protocol/packet.js";
import { Game } from "../ts/server/game-server.js";
import { Logger } from "../ts/server/ops/log.js";
import type { Core } from "../ts/wasm/core.js";
import { loadCore } from "../ts/wasm/node.js";
import { boundGuest, type CapturingPeer, floorMap } from "./support/game-without-network.js";

let core: Core;
beforeAll(async () => {
  core = await loadCore();
});

/** Datagrams queued in a tick go out in a microtask (egress batching): let them. */
const flushed = () => new Promise((resolve) => setImmediate(resolve));

/** The ticks of the State packets `peer` was sent, in order. */
function stateTicks(peer: CapturingPeer): number[] {
  return peer.datagrams.flatMap((bytes) => {
    const decoded = decodePacketPlain(bytes);
    return decoded.ok && decoded.packet.type === "state" ? [decoded.packet.tick] : [];
  });
}

describe("a handoff between regions whose clocks differ", () => {
  it.each([0, 1, 2, 3])(
    "the new region, %i ticks behind, sends no State under a tick the old one may have used",
    async (behind) => {
      const quiet = new Logger("silent");
      const old = new Game(core, floorMap("open", 64, { x: 32, y: 32 }), { firstEntityId: 1 }, quiet);
      const next = new Game(core, floorMap("open", 64, { x: 32, y: 32 }), { firstEntityId: 1 << 24 }, quiet);
      const { session, peer } = boundGuest(old, "Walker", "gw:g0:1");
      old.tick = 1000;
      for (let i = 0; i < 2 * BROADCAST_EVERY_TICKS; i++) old.step();
      await flushed();
      const sentBefore = stateTicks(peer);
      expect(sentBefore.length).toBeGreaterThan(0);
      // The old region lets it go after its tick; the new one, a few ticks behind, adopts it.
      const state = JSON.parse(
        JSON.stringify(handoffStateOf(session, 0, 1, old.nextWindow, old.items.carrying(session), old.tick)),
      ) as ReturnType<typeof handoffStateOf>;
      old.releaseSession(session);
      next.tick = old.tick - behind;
      const adopted = next.adoptSession(arrivalOf(state), peer, performance.now());
      restoreSession(adopted, state, next.nextWindow);
      for (let i = 0; i < 4 * BROADCAST_EVERY_TICKS; i++) next.step();
      await flushed();
      const ticks = stateTicks(peer);
      expect(ticks.length).toBeGreaterThan(sentBefore.length);
      // Every State the client got, from either region, names a newer tick than the one before it.
      for (let i = 1; i < ticks.length; i++)
        expect(ticks[i], `State ${i} of ${ticks.join(", ")}`).toBeGreaterThan(ticks[i - 1]);
      old.shutdown();
      next.shutdown();
    },
  );
});
