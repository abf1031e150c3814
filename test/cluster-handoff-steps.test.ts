// Steps in flight at a handoff (docs/scaling.md § Handoff with hysteresis): the steps the old region had
// scheduled travel in the handoff state, and the datagrams it received after letting the session go come
// back (REROUTE) and follow. On a busy machine both reach the new region after their windows: the late-step
// rule of one process (a late step fills the next empty window, and the client's own step for that window
// replaces it) then dropped two or three steps of a walk across a border, none counted lost. Two real Games
// in one process, the handoff arriving two windows late and a rerouted step after the client's next ones:
// the delays are set, not waited for.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { arrivalOf, handoffStateOf, restoreSession } from "../ts/cluster/handoff.js";
import { FRAME_HANDOFF } from "../ts/cluster/link-frames.js";
import { ACTION_BYTES, createActionPacket, encodeAction } from "../ts/protocol/action.js";
import { Game } from "../ts/server/game-server.js";
import { Logger } from "../ts/server/ops/log.js";
import type { Session } from "../ts/server/sessions/session.js";
import type { Core } from "../ts/wasm/core.js";
import { loadCore } from "../ts/wasm/node.js";
import { tickOfWindow, windowOfTick } from "../ts/window.js";
import { boundGuest, floorMap } from "./support/game-without-network.js";
import { jsonBytes, regionRoomOn } from "./support/region-room.js";
import { writeTestMap } from "./support/test-map.js";

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

describe("a handoff to a region whose clock is a tick or two behind", () => {
  it.each([1, 2])(
    "keeps the step carried for the old region's farthest window when the new one is %i tick(s) behind",
    (behind) => {
      const quiet = new Logger("silent");
      const old = new Game(core, floorMap("open", 64, { x: 40, y: 32 }), { firstEntityId: 1 }, quiet);
      const next = new Game(core, floorMap("open", 64, { x: 40, y: 32 }), { firstEntityId: 1 << 24 }, quiet);
      const { session, peer } = boundGuest(old, "Edge", "gw:g0:1");
      // The old region has just run a window's tick (a handoff follows the window that carried the player
      // past the margin), with the client's steps scheduled up to its horizon.
      old.tick = 4000;
      old.step();
      while (old.tick % 4 !== 0) old.step();
      const start = { x: session.entity.x, y: session.entity.y };
      const first = old.nextWindow;
      for (let window = first; window <= first + 3; window++) old.receive(stepDatagram(session, window), peer);
      const state = JSON.parse(
        JSON.stringify(handoffStateOf(session, 0, 1, old.nextWindow, old.items.carrying(session), old.tick)),
      ) as ReturnType<typeof handoffStateOf>;
      expect(state.steps.map(([window]) => window)).toEqual([first, first + 1, first + 2, first + 3]);
      old.releaseSession(session);
      // The new region has not run that window's tick yet: its timer fires a few ms after the old one's.
      next.tick = old.tick - behind;
      const adopted = next.adoptSession(arrivalOf(state), peer, performance.now());
      const restored = restoreSession(adopted, state, next.nextWindow);
      expect(restored).toEqual({ steps: 4, moved: 0, lost: 0, doubled: 0, lostOwedFull: 0 });
      runThrough(next, first + 8);
      // Four steps west, each once, at their windows.
      expect({ x: adopted.entity.x, y: adopted.entity.y }).toEqual({ x: start.x - 4, y: start.y });
      old.shutdown();
      next.shutdown();
    },
  );
});

describe("a handoff taken by a region back from a stall", () => {
  const map = writeTestMap();
  afterAll(() => map.dispose());

  it("jumps to the world's timeline before it applies the handoff: the steps carried for the world's next windows run", () => {
    const quiet = new Logger("silent");
    // Region 0 of the test map cut in two, as region.ts makes it, with its room.
    const { game, room, link, open } = regionRoomOn(core, map.path, 0);
    let worldTick = 4000;
    room.startAt(worldTick - 1);
    room.followTimeline(() => worldTick);
    game.step();
    open(7);

    // Region 0 stalls 1.5 s (36 ticks). Meanwhile region 1, on time, runs the window that takes a player past
    // the margin onto region 0's ground and hands it on with its steps for the next three windows.
    worldTick += 36;
    const old = new Game(core, floorMap("open", 64, { x: 28, y: 20 }), { firstEntityId: 1 << 25 }, quiet);
    const { session, peer } = boundGuest(old, "Stalled", "gw:g0:7");
    old.tick = worldTick - 1;
    old.step();
    const first = old.nextWindow;
    for (let window = first; window < first + 3; window++) old.receive(stepDatagram(session, window), peer);
    const state = handoffStateOf(session, 1, 0, old.nextWindow, old.items.carrying(session), old.tick);
    expect(state.steps).toHaveLength(3);
    old.shutdown();

    // Back from the stall, the region reads its link before its overdue tick runs: the handoff comes first.
    room.gatewayFrame(link, FRAME_HANDOFF, 7, jsonBytes(state), 0);
    expect(room.stats.stepsCarried).toBe(3);
    expect(room.stats.stepsLost).toBe(0);
    expect(room.stats.ticksRejoined).toBeGreaterThan(30);
    const adopted = game.sessions.byEntityId(state.entity.id)!;
    while (game.tick < tickOfWindow(first + 6)) {
      room.keepUp();
      game.step();
      worldTick = game.tick + 1;
    }
    // Three steps west, at the world's windows they were sent for (before: none, the three beyond the horizon).
    expect({ x: adopted.entity.x, y: adopted.entity.y }).toEqual({ x: state.entity.x - 3, y: state.entity.y });
    game.shutdown();
  });
});

describe("a handoff of a player whose owed queue a stall filled", () => {
  it("owes the late steps it carries on top of that queue: none lost", () => {
    const quiet = new Logger("silent");
    const old = new Game(core, floorMap("open", 64, { x: 50, y: 32 }), { firstEntityId: 1 }, quiet);
    const next = new Game(core, floorMap("open", 64, { x: 50, y: 32 }), { firstEntityId: 1 << 24 }, quiet);
    const { session, peer } = boundGuest(old, "Stalled", "gw:g0:1");
    old.tick = 4000;
    old.step();
    const start = { x: session.entity.x, y: session.entity.y };
    // The client walks west, a step per window, sent for the windows up to the horizon.
    let sent = 0;
    let sentThrough = old.nextWindow - 1;
    const sendAhead = () => {
      for (let window = sentThrough + 1; window <= old.nextWindow + 3; window++, sent++)
        old.receive(stepDatagram(session, window), peer);
      sentThrough = old.nextWindow + 3;
    };
    sendAhead();
    // Its region stalls 1.5 s (36 ticks), twice (a loaded machine's stalls add up the same way, a window at a
    // time): the windows it jumps over owe their steps, and the client's steps of those 1.5 s come late behind
    // them — they take the next windows, and join the queue as those run. It walks on meanwhile: the queue stays.
    for (let stall = 0; stall < 2; stall++) {
      const stalledAt = old.nextWindow;
      old.jumpClock(old.tick + 36);
      expect(old.nextWindow - stalledAt).toBeGreaterThan(8);
      for (let window = sentThrough + 1; window < old.nextWindow; window++, sent++)
        old.receive(stepDatagram(session, window), peer);
      sentThrough = old.nextWindow - 1;
      for (let i = 0; i < 6; i++) {
        sendAhead();
        runThrough(old, old.nextWindow);
      }
    }
    // Then it is handed on; the handoff reaches the new region two windows late.
    sendAhead();
    const state = JSON.parse(
      JSON.stringify(handoffStateOf(session, 0, 1, old.nextWindow, old.items.carrying(session), old.tick)),
    ) as ReturnType<typeof handoffStateOf>;
    expect(state.owed!.length + state.steps.length).toBeGreaterThan(8);
    const ranAtOld = start.x - session.entity.x;
    old.releaseSession(session);
    next.tick = old.tick;
    runThrough(next, windowOfTick(old.tick) + 2);
    const adopted = next.adoptSession(arrivalOf(state), peer, performance.now());
    const restored = restoreSession(adopted, state, next.nextWindow);
    // Before (8 owed at most): the steps past the eighth were dropped and counted lost.
    expect(restored.lost).toBe(0);
    runThrough(next, next.nextWindow + 40);
    // Every step it carried ran, once: the walk ends where its steps at the old region and those carried take it.
    expect(start.x - adopted.entity.x).toBe(ranAtOld + state.owed!.length + state.steps.length);
    old.shutdown();
    next.shutdown();
  });
});
