// Trades conserve items whatever the two players do (issue 39), a property test with fast-check over the
// real Game (its item room on a real SQLite database, in memory) driven datagram-free: two account players
// ask, accept and decline, offer and take back, confirm and cancel in any order, walk apart and back, and
// use up items of their own while a trade is open (an item gone underneath, a bag filled behind it). After
// every step the world holds exactly what it held at the start less what the players used up — nothing
// made, nothing lost — and every trade that completed moved exactly the offers both had confirmed.
import fc from "fast-check";
import { afterAll, describe, expect, it } from "vitest";
import { ACTION_BYTES, createActionPacket, encodeAction } from "../ts/protocol/action.js";
import { DIALOG_RETURN_DISMISSED } from "../ts/protocol/dialog.js";
import { Game } from "../ts/server/game-server.js";
import { Logger } from "../ts/server/ops/log.js";
import { NEW_CHARACTER } from "../ts/server/persistence/character-store.js";
import type { Session } from "../ts/server/sessions/session.js";
import { loadCore } from "../ts/wasm/node.js";
import { CapturingPeer, floorMap } from "./support/game-without-network.js";
import { itemDef } from "./support/item-client.js";

const COIN = itemDef({ id: 1, name: "gold coin", kind: "treasure", stack: 50 });
const POTION = itemDef({ id: 2, name: "healing potion", kind: "consumable", stack: 5, heal: 10 });
const DAGGER = itemDef({ id: 3, name: "dagger", kind: "weapon", damage: 9 });
const ITEMS = [COIN, POTION, DAGGER];

const games: Game[] = [];
afterAll(() => {
  for (const game of games) game.shutdown();
});

/** An account's player joined to `game` and bound to a capturing peer by an idle ActionPacket. */
function accountPlayer(game: Game, name: string, nick: string): Session {
  const account = game.accountStore.create(name, nick, "scrypt$unused", NEW_CHARACTER, 1);
  const session = game.joinAccount(account);
  const peer = new CapturingPeer(`test:${name}`, "10.0.0.1");
  session.joinSource = peer.address;
  const action = createActionPacket();
  action.authToken = session.token;
  const bytes = new Uint8Array(ACTION_BYTES);
  encodeAction(action, bytes);
  game.receive(bytes, peer);
  return session;
}

function give(game: Game, session: Session, itemId: number, count: number): void {
  let outcome = "";
  game.items.exchange(session, [], [{ itemId, count }], (result) => (outcome = result));
  expect(outcome).toBe("ok");
}

/** Presses `returnCode` on the dialog open on `session` under `key`, as the client's reply would. */
function press(game: Game, session: Session, key: string, returnCode: number): void {
  const dialog = [...session.dialogs.open.values()].find((open) => open.key === key);
  if (dialog === undefined) return;
  game.dialogs.onReply(session, {
    type: "dialog_reply",
    clientType: 0,
    authToken: session.token,
    dialogId: dialog.id,
    returnCode,
    values: [],
  });
}

/** The offers a "Trade done" line names: what was given and what was got, by item name. */
function parseDone(line: string): [Map<string, number>, Map<string, number>] {
  const match = /^Trade done: you gave (.+) and got (.+) from \S+\.$/u.exec(line);
  if (match === null) throw new Error(`not a trade line: ${line}`);
  const list = (words: string) =>
    new Map(
      words === "nothing"
        ? []
        : words.split(", ").map((part) => {
            const [, count, name] = /^(\d+) (.+)$/u.exec(part)!;
            return [name, Number(count)] as const;
          }),
    );
  return [list(match[1]), list(match[2])];
}

type Op =
  | { kind: "ask"; by: 0 | 1 }
  | { kind: "open"; by: 0 | 1 }
  | { kind: "answer"; by: 0 | 1; join: boolean }
  | { kind: "offer"; by: 0 | 1; item: number; count: number }
  | { kind: "unoffer"; by: 0 | 1; item: number }
  | { kind: "confirm"; by: 0 | 1; how: "command" | "button" }
  | { kind: "cancel"; by: 0 | 1 }
  | { kind: "apart" }
  | { kind: "together" }
  | { kind: "use_up"; by: 0 | 1; item: number; count: number }
  | { kind: "ticks"; count: number };

const side = fc.constantFrom<0 | 1>(0, 1);
const item = fc.integer({ min: 0, max: ITEMS.length - 1 });
const op: fc.Arbitrary<Op> = fc.oneof(
  fc.record({ kind: fc.constant("ask" as const), by: side }),
  { weight: 3, arbitrary: fc.record({ kind: fc.constant("open" as const), by: side }) },
  fc.record({ kind: fc.constant("answer" as const), by: side, join: fc.boolean() }),
  {
    weight: 4,
    arbitrary: fc.record({
      kind: fc.constant("offer" as const),
      by: side,
      item,
      count: fc.integer({ min: 0, max: 40 }),
    }),
  },
  fc.record({ kind: fc.constant("unoffer" as const), by: side, item }),
  {
    weight: 3,
    arbitrary: fc.record({
      kind: fc.constant("confirm" as const),
      by: side,
      how: fc.constantFrom<"command" | "button">("command", "button"),
    }),
  },
  fc.record({ kind: fc.constant("cancel" as const), by: side }),
  fc.record({ kind: fc.constant("apart" as const) }),
  fc.record({ kind: fc.constant("together" as const) }),
  {
    weight: 3,
    arbitrary: fc.record({
      kind: fc.constant("use_up" as const),
      by: side,
      item,
      count: fc.integer({ min: 1, max: 40 }),
    }),
  },
  fc.record({ kind: fc.constant("ticks" as const), count: fc.integer({ min: 1, max: 30 }) }),
);

describe("trade conservation", () => {
  it("no sequence of trade moves makes, loses or moves an item that was not confirmed", async () => {
    const core = await loadCore();
    let run = 0;
    const totals = { done: 0, refused: 0, cancelled: 0 };
    await fc.assert(
      fc.asyncProperty(fc.array(op, { minLength: 5, maxLength: 60 }), async (ops) => {
        run++;
        const game = new Game(
          core,
          { ...floorMap(`trade${run}`, 24, { x: 5, y: 5 }), items: ITEMS },
          {},
          new Logger("silent"),
        );
        games.push(game);
        const players = [accountPlayer(game, `ann${run}`, "Ann"), accountPlayer(game, `bob${run}`, "Bob")];
        const [ann, bob] = players;
        game.warps.teleport(bob.entity, 6, 5);
        give(game, ann, COIN.id, 60);
        give(game, ann, POTION.id, 4);
        give(game, bob, POTION.id, 7);
        give(game, bob, DAGGER.id, 1);
        give(game, bob, COIN.id, 5);
        const expected = new Map(game.items.census());
        // What Ann is told when a trade completes: "Trade done: you gave 3 gold coin and got 1 dagger from Bob."
        const doneLines: string[] = [];
        const tell = game.chat.tell.bind(game.chat);
        game.chat.tell = (session, text, speaker) => {
          if (session === ann && text.startsWith("Trade done:")) doneLines.push(text);
          tell(session, text, speaker);
        };
        const bags = () => players.map((session) => ITEMS.map((def) => game.items.countOf(session, def.id, true)));
        let done = game.trades.stats.done;
        for (const step of ops) {
          const before = bags();
          const by = players[step.kind === "apart" || step.kind === "together" || step.kind === "ticks" ? 0 : step.by];
          const other = by === ann ? bob : ann;
          switch (step.kind) {
            case "ask":
              game.social.run(by, `/trade ${other.nick}`);
              break;
            case "open":
              // Asked and accepted at once: the common way in.
              game.social.run(by, `/trade ${other.nick}`);
              press(game, other, "trade-ask", 1);
              break;
            case "answer":
              press(game, by, "trade-ask", step.join ? 1 : 2);
              break;
            case "offer":
              game.social.run(by, `/offer ${step.count} ${ITEMS[step.item].name}`);
              break;
            case "unoffer":
              game.social.run(by, `/unoffer ${ITEMS[step.item].name}`);
              break;
            case "confirm":
              if (step.how === "command") game.social.run(by, "/confirm");
              else press(game, by, "trade", 1);
              break;
            case "cancel":
              if (step.by === 0) game.social.run(by, "/cancel");
              else press(game, by, "trade", DIALOG_RETURN_DISMISSED); // closing the window leaves the trade
              break;
            case "apart":
              game.warps.teleport(bob.entity, 15, 15);
              break;
            case "together":
              game.warps.teleport(bob.entity, 6, 5);
              break;
            case "use_up": {
              const def = ITEMS[step.item];
              const have = game.items.countOf(by, def.id, true);
              const count = Math.min(have, step.count);
              if (count > 0) {
                let outcome = "";
                game.items.exchange(by, [{ itemId: def.id, count }], [], (result) => (outcome = result));
                expect(outcome).toBe("ok");
                expected.set(def.id, expected.get(def.id)! - count);
              }
              break;
            }
            case "ticks":
              for (let tick = 0; tick < step.count * game.options.tickHz; tick++) game.step();
              break;
          }
          // Nothing made, nothing lost: the world holds what it held, less what was used up.
          const census = game.items.census();
          for (const def of ITEMS) expect(census.get(def.id) ?? 0).toBe(expected.get(def.id));
          // A completed trade moved between the two bags only: each item's sum over both is unchanged.
          const after = bags();
          if (game.trades.stats.done !== done) {
            done = game.trades.stats.done;
            const [gave, got] = parseDone(doneLines[doneLines.length - 1]);
            for (let index = 0; index < ITEMS.length; index++) {
              expect(after[0][index] + after[1][index]).toBe(before[0][index] + before[1][index]);
              // Exactly the confirmed offers moved: Ann's bag changed by what she got less what she gave.
              const name = ITEMS[index].name;
              expect(after[0][index] - before[0][index]).toBe((got.get(name) ?? 0) - (gave.get(name) ?? 0));
            }
          } else
            expect(after).toEqual(
              before.map((bag, who) =>
                step.kind === "use_up" && players[step.by] === players[who] ? after[who] : bag,
              ),
            );
        }
        // The database holds what memory holds: every bag as written.
        totals.done += game.trades.stats.done;
        totals.refused += game.trades.stats.refused;
        totals.cancelled += game.trades.stats.cancelled;
        game.saveCharacters();
        const stored = game.database.db
          .prepare("SELECT item_id AS id, sum(count) AS n FROM item_stacks GROUP BY item_id ORDER BY item_id")
          .all() as { id: number; n: number }[];
        for (const row of stored) expect(row.n).toBe(expected.get(row.id));
        game.shutdown();
      }),
      { numRuns: 200, seed: 39 },
    );
    // The runs reached both endings: trades done and called off (a refusal at the last moment: below).
    expect(totals.done).toBeGreaterThan(0);
    expect(totals.cancelled).toBeGreaterThan(0);
  }, 120_000);

  it("an item gone or a bag full at the last moment: nothing moves, both are told which, and the trade stays open", async () => {
    const game = new Game(
      await loadCore(),
      { ...floorMap("refused", 24, { x: 5, y: 5 }), items: ITEMS },
      {},
      new Logger("silent"),
    );
    games.push(game);
    const ann = accountPlayer(game, "ann_refused", "Ann");
    const bob = accountPlayer(game, "bob_refused", "Bob");
    game.warps.teleport(bob.entity, 6, 5);
    give(game, ann, COIN.id, 30);
    give(game, bob, POTION.id, 2);
    const told: string[] = [];
    const tell = game.chat.tell.bind(game.chat);
    game.chat.tell = (session, text, speaker) => {
      told.push(`${session.nick}: ${text}`);
      tell(session, text, speaker);
    };
    game.social.run(ann, "/trade Bob");
    press(game, bob, "trade-ask", 1);
    game.social.run(ann, "/offer 30 gold");
    game.social.run(bob, "/offer 2 potions");
    game.social.run(ann, "/confirm");
    // Ann spends some of what she offered before Bob confirms.
    game.items.exchange(ann, [{ itemId: COIN.id, count: 1 }], [], () => {});
    game.social.run(bob, "/confirm");
    expect(game.trades.stats).toMatchObject({ done: 0, refused: 1 });
    expect(told).toContain("Bob: Ann no longer has everything offered: nothing was exchanged.");
    expect([game.items.countOf(ann, COIN.id), game.items.countOf(bob, POTION.id)]).toEqual([29, 2]);
    // Still open, confirmations cleared: a fitting offer and two confirmations complete it.
    game.social.run(ann, "/offer 29 gold");
    game.social.run(ann, "/confirm");
    game.social.run(bob, "/confirm");
    expect(game.trades.stats.done).toBe(1);
    expect([game.items.countOf(ann, POTION.id), game.items.countOf(bob, COIN.id)]).toEqual([2, 29]);

    // A bag that cannot hold what it gets: Bob's free slots filled with daggers (one to a slot).
    give(game, ann, DAGGER.id, 1);
    for (let outcome = "ok"; outcome === "ok";)
      game.items.exchange(bob, [], [{ itemId: DAGGER.id, count: 1 }], (result) => (outcome = result));
    game.social.run(ann, "/trade Bob");
    press(game, bob, "trade-ask", 1);
    game.social.run(ann, "/offer dagger");
    game.social.run(ann, "/confirm");
    game.social.run(bob, "/confirm");
    expect(game.trades.stats).toMatchObject({ done: 1, refused: 2 });
    expect(told).toContain("Ann: Bob's bag cannot hold it all: nothing was exchanged.");
    expect(game.items.countOf(ann, DAGGER.id)).toBe(1);
  });
});
