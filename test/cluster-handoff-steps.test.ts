// Steps in flight at a handoff (docs/scaling.md § Handoff with hysteresis): the steps the old region had
// scheduled travel in the handoff state, and the datagrams it received after letting the session go come
// back (REROUTE) and follow. On a busy machine both reach the new region after their windows: the late-step
// rule of one process (a late step fills the next empty window, and the client's own step for that window
// replaces it) then dropped two or three steps of a walk across a border, none counted lost. Two real Games
// in one process, the handoff arriving two windows late and a rerouted step after the client's next ones:
// the delays are set, not waited for.
import { beforeAll, describe, expect, it } from "vitest";
import { arrivalOf, handoffStateOf, restoreSession } from "../ts/cluster/handoff.js";
import { ACTION_BYTES, createActionPacket, encodeAction } from "../ts/protocol/action.js";
import { Game } from "../ts/server/game-server.js";
import { Logger } from "../ts/server/ops/log.js";
import type { Session } from "../ts/server/sessions/session.js";
import type { Core } from "../ts/wasm/core.js";
import { loadCore } from "../ts/wasm/node.js";
import { tickOfWindow } from "../ts/window.js";
import { boundGuest, floorMap } from "./support/game-without-network.js";

const WEST = 4;

let core: Core;
beforeAll(async () => {
  core = await loadCore();
});

/** A spec-only client's step for `window`, as its ActionPacket. */
function stepDatagram(session: Session, window: number, action = WEST): Uint8Array {
  const packet = createActionPacket();
  packet.authToken = session.token;
  packet.targetTick = tickOfWindow(window);
  packet.action = action;
  const bytes = new Uint8Array(ACTION_BYTES);
  encodeAction(packet, bytes);
  return bytes;
}

/** Runs `game` until window `window` has executed. */
function runThrough(game: Game, window: number): void {
  while (game.tick < tickOfWindow(window)) game.step();
}

describe("steps in flight at a handoff", () => {
  it("a walk whose handoff and rerouted step both come after their windows loses no step and runs none twice", () => {
    const quiet = new Logger("silent");
    const old = new Game(core, floorMap("open", 64, { x: 40, y: 32 }), { firstEntityId: 1 }, quiet);
    const next = new Game(core, floorMap("open", 64, { x: 40, y: 32 }), { firstEntityId: 1 << 24 }, quiet);
    const { session, peer } = boundGuest(old, "Walker", "gw:g0:1");
    old.tick = 4000;
    old.step();
    const start = { x: session.entity.x, y: session.entity.y };
    const first = old.nextWindow;
    // The client sent its steps for the next three windows; the old region lets it go before any ran.
    for (let window = first; window < first + 3; window++) old.receive(stepDatagram(session, window), peer);
    const state = JSON.parse(
      JSON.stringify(handoffStateOf(session, 0, 1, old.nextWindow, old.items.carrying(session), old.tick)),
    ) as ReturnType<typeof handoffStateOf>;
    expect(state.steps.map(([window]) => window)).toEqual([first, first + 1, first + 2]);
    old.releaseSession(session);
    // The HANDOFF reaches the new region two windows late: it has run `first` and `first + 1` already.
    next.tick = old.tick;
    runThrough(next, first + 1);
    const adopted = next.adoptSession(arrivalOf(state), peer, performance.now());
    const restored = restoreSession(adopted, state, next.nextWindow);
    expect(restored.lost).toBe(0);
    expect(restored.doubled).toBe(0);
    // The client's step for `first + 3` went to the old region after it let go (it comes back rerouted,
    // below); those for `first + 4` on come straight to the new one, the first two before it.
    next.receive(stepDatagram(adopted, first + 4), peer);
    runThrough(next, first + 3);
    next.receive(stepDatagram(adopted, first + 5), peer);
    next.receiveRerouted(stepDatagram(adopted, first + 3), peer);
    next.receive(stepDatagram(adopted, first + 6), peer);
    runThrough(next, first + 12);
    // Seven steps west, each once: where the same walk ends on one process.
    expect({ x: adopted.entity.x, y: adopted.entity.y }).toEqual({ x: start.x - 7, y: start.y });
    old.shutdown();
    next.shutdown();
  });
});
