// A cluster's region that fell behind the world's timeline after a stall rejoins it by moving its clock on
// (ts/cluster/region.ts, Game.jumpClock). The windows it passes over never run: the steps scheduled in them
// are owed, run at the next windows in their order, so a walk ends where it was sent — before, they
// vanished, and walks across a stalled region's ground ended a step short (test/cluster.test.ts's random
// walk and test/cluster-doors.test.ts at load 10–12).
import { beforeAll, describe, expect, it } from "vitest";
import { ACTION_BYTES, ACTION_E, createActionPacket, encodeAction } from "../ts/protocol/index.js";
import { Game } from "../ts/server/game-server.js";
import { Logger } from "../ts/server/ops/log.js";
import type { Core } from "../ts/wasm/core.js";
import { loadCore } from "../ts/wasm/node.js";
import { tickOfWindow } from "../ts/window.js";
import { boundGuest, floorMap } from "./support/game-without-network.js";

let core: Core;
beforeAll(async () => {
  core = await loadCore();
});

describe("a clock moved on past windows", () => {
  it("owes the steps of the windows it passes over, so a walk loses none", () => {
    const game = new Game(core, floorMap("open", 64, { x: 20, y: 20 }), {}, new Logger("silent"));
    const { session, peer } = boundGuest(game, "walker");
    const startX = session.entity.x;
    const first = game.nextWindow;
    // Three steps east, one a window, as a client sends them.
    for (let index = 0; index < 3; index++) {
      const action = createActionPacket();
      action.authToken = session.token;
      action.targetTick = tickOfWindow(first + index);
      action.action = ACTION_E;
      const bytes = new Uint8Array(ACTION_BYTES);
      encodeAction(action, bytes);
      game.receive(bytes, peer);
    }
    // The clock jumps over the first two windows: their steps are owed, none lost.
    expect(game.jumpClock(tickOfWindow(first + 2) - 1)).toEqual({ owed: 2, lost: 0 });
    expect(game.nextWindow).toBe(first + 2);
    // Three windows later every step has run, in order.
    while (game.tick < tickOfWindow(first + 4)) game.step();
    expect(session.entity.x).toBe(startX + 3);
    // A jump within a window passes over none.
    expect(game.jumpClock(game.tick + 1)).toEqual({ owed: 0, lost: 0 });
  });
});
