// The console's world answer shared by every console (ts/server/http/console-world-answer.ts), on a real
// Game: however many consoles ask within WORLD_ANSWER_MAX_AGE_MS, it is built once, and all get the same
// bytes; once the world has run a tick and the answer is old enough, the next request gets a new one that
// says where everyone is now; a world that has not ticked keeps its answer. (Before, each request built its own:
// ten consoles cost ten builds a second.)
import { afterAll, describe, expect, it } from "vitest";
import { Game } from "../ts/server/game-server.js";
import { ConsoleWorldAnswer, WORLD_ANSWER_MAX_AGE_MS } from "../ts/server/http/console-world-answer.js";
import { Logger } from "../ts/server/ops/log.js";
import { loadCore } from "../ts/wasm/node.js";
import { boundGuest, floorMap } from "./support/game-without-network.js";

describe("the console's world answer", async () => {
  const game = new Game(await loadCore(), floorMap("open", 64, { x: 32, y: 32 }), {}, new Logger("silent"));
  afterAll(() => game.shutdown());

  it("is built once for many consoles, and again once the world has moved and the answer aged", () => {
    const { session } = boundGuest(game, "Ann");
    let nowMs = 1000;
    const answer = new ConsoleWorldAnswer(game, WORLD_ANSWER_MAX_AGE_MS, () => nowMs);
    const read = (bytes: Buffer) =>
      JSON.parse(bytes.toString("utf8")) as { tick: number; players: { nick: string; x: number }[] };

    // Ten consoles within the same moment: one build, the same bytes for all.
    const first = answer.current();
    for (let console = 1; console < 10; console++) {
      nowMs += 20;
      expect(answer.current()).toBe(first);
    }
    expect(answer.stats).toEqual({ built: 1, served: 10 });
    expect(read(first).players).toEqual([expect.objectContaining({ nick: "Ann", x: session.entity.x })]);

    // The world runs a tick and Ann is moved: still the answer built last, while it is young.
    game.admin.teleport({ entityId: session.entity.id }, { x: 40, y: 32 });
    game.step();
    expect(answer.current()).toBe(first);
    // Old enough: a new answer with the world as it is now.
    nowMs += WORLD_ANSWER_MAX_AGE_MS;
    const second = answer.current();
    expect(second).not.toBe(first);
    expect(read(second).tick).toBe(game.tick);
    expect(read(second).players[0].x).toBe(40);
    expect(answer.stats.built).toBe(2);

    // A world that has not ticked since (a paused replay) keeps its answer, however old.
    nowMs += 10 * WORLD_ANSWER_MAX_AGE_MS;
    expect(answer.current()).toBe(second);
    expect(answer.stats).toEqual({ built: 2, served: 13 });
  });
});
