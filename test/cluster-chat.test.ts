// The region side of chat across regions (ts/cluster/chat-relay.ts), on a real Game: which lines go to
// the relay (the ones every session hears, never a private one), how a relayed line is delivered (to
// everyone, or near its spot; never relayed again), malformed ones refused and counted, and the
// speaker's rate limit carried by a handoff so crossing a border does not refill it. The line between
// real region processes is test/cluster.test.ts.
import { beforeAll, describe, expect, it } from "vitest";
import type { RelayedLine } from "../ts/server/talk/chat.js";
import { CHAT_BURST, ChatChannel } from "../ts/server/sessions/chat-channel.js";
import { Game } from "../ts/server/game-server.js";
import { Logger } from "../ts/server/ops/log.js";
import type { Session } from "../ts/server/sessions/session.js";
import type { Core } from "../ts/wasm/core.js";
import { loadCore } from "../ts/wasm/node.js";
import { boundGuest, floorMap } from "./support/game-without-network.js";

let core: Core;
beforeAll(async () => {
  core = await loadCore();
});

function bound(game: Game, nick: string, x: number, y: number): Session {
  const { session } = boundGuest(game, nick);
  game.entities.move(session.entity, x, y);
  return session;
}

const texts = (session: Session) => session.chat.snapshot().queue.map((line) => line.text);

describe("chat relayed between regions", () => {
  it("relays the lines everyone hears, delivers relayed ones as said here, and refuses malformed ones", () => {
    const game = new Game(core, floorMap("open", 128, { x: 64, y: 64 }), {}, new Logger("silent"));
    const near = bound(game, "near", 10, 10);
    const far = bound(game, "far", 100, 100);
    const relayed: RelayedLine[] = [];
    game.chat.relay = (line) => relayed.push(line);

    game.chat.system("the world ends at dawn", "notice board");
    game.chat.systemNear(10, 10, 5, "someone left", "presence");
    game.chat.tell(near, "only for you");
    expect(relayed).toEqual([
      { speakerEntityId: 0, speakerName: "notice board", text: "the world ends at dawn" },
      { speakerEntityId: 0, speakerName: "presence", text: "someone left", near: { x: 10, y: 10, radius: 5 } },
    ]);

    // Lines from another region: to everyone, or near their spot; not relayed back out.
    const before = relayed.length;
    expect(
      game.chat.deliverRelayed({ speakerEntityId: 2 ** 25 + 7, speakerName: "Eve", text: "hi from the east" }),
    ).toBe(true);
    expect(
      game.chat.deliverRelayed({
        speakerEntityId: 0,
        speakerName: "presence",
        text: "Eve left",
        near: { x: 98, y: 98, radius: 5 },
      }),
    ).toBe(true);
    expect(relayed).toHaveLength(before);
    expect(texts(near).slice(-1)).toEqual(["hi from the east"]);
    expect(texts(far).slice(-2)).toEqual(["hi from the east", "Eve left"]);
    expect(game.chat.stats.relayedIn).toBe(2);

    const posted = game.chat.stats.posted;
    const bad: unknown[] = [
      { speakerEntityId: -1, speakerName: "x", text: "negative speaker" },
      { speakerEntityId: 1.5, speakerName: "x", text: "fractional speaker" },
      { speakerEntityId: 1, speakerName: "x", text: "" },
      { speakerEntityId: 1, speakerName: "x", text: "a".repeat(5000) },
      { speakerEntityId: 1, speakerName: 42, text: "a name that is not text" },
      { speakerEntityId: 1, speakerName: "x", text: "bell \u0007" },
      { speakerEntityId: 0, speakerName: "x", text: "where?", near: { x: "10", y: 10, radius: 5 } },
    ];
    const queued = [texts(near).length, texts(far).length];
    for (const line of bad) expect(game.chat.deliverRelayed(line as RelayedLine)).toBe(false);
    expect(game.chat.stats.relayedBad).toBe(bad.length);
    expect([texts(near).length, texts(far).length]).toEqual(queued);
    // Relayed lines are the speaker region's to count as posted, not this one's.
    expect(game.chat.stats.posted).toBe(posted);
    game.shutdown();
  });

  it("carries the speaker's rate limit through a handoff: crossing a border refills nothing", () => {
    const old = new ChatChannel(1000);
    for (let line = 0; line < CHAT_BURST; line++) expect(old.limiter.take(1000)).toBe(true);
    expect(old.limiter.take(1000)).toBe(false);
    // Another process, another clock: the state as it left, 200 ms later by that clock.
    const state = JSON.parse(JSON.stringify(old.snapshot(1200))) as ReturnType<ChatChannel["snapshot"]>;
    const arrived = new ChatChannel(50_000_000);
    arrived.restore(state, 50_000_000);
    expect(arrived.limiter.take(50_000_000)).toBe(false);
    // And it refills at the same rate from there (1 line per second).
    expect(arrived.limiter.take(50_000_800)).toBe(true);
    expect(arrived.limiter.take(50_000_800)).toBe(false);
  });
});
