// A party shares its kills (issue 39, docs/social.md § Parties): the experience of a kill by a member goes
// to every member near it, grown by the party bonus and split evenly (progression.ts partyXpShare); its
// loot goes into the bag of the member whose turn it is, round-robin in the party's order among those near
// it; a member far away gets neither; a killer alone gets it all. On the real Game and its combat room.
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { PARTY_XP_BONUS, partyXpShare } from "../ts/progression.js";
import { Game } from "../ts/server/game-server.js";
import { Logger } from "../ts/server/ops/log.js";
import { readWorldMap } from "../ts/server/server.js";
import type { Session } from "../ts/server/sessions/session.js";
import { SHARE_RADIUS } from "../ts/server/social/parties.js";
import type { Core } from "../ts/wasm/core.js";
import { loadCore } from "../ts/wasm/node.js";
import { boundGuest } from "./support/game-without-network.js";
import { itemDef } from "./support/item-client.js";
import { type NpcMap, testKind, writeNpcMap } from "./support/npc-map.js";

const COIN = itemDef({ id: 1, name: "coin", kind: "treasure", stack: 99 });
const SACK = 16;

let core: Core;
beforeAll(async () => {
  core = await loadCore();
});
let map: NpcMap | undefined;
let game: Game | undefined;
afterEach(() => {
  game?.shutdown();
  map?.dispose();
  game = undefined;
  map = undefined;
});

/** A game with a row of sacks (one blow each, 60 experience, 2 coins of loot) at y = 4, x = 5 … 9. */
function sackField(): Game {
  map = writeNpcMap({
    width: 48,
    height: 10,
    spawn: { x: 4, y: 4 },
    items: [COIN],
    kinds: [
      testKind({
        name: "sack",
        typeId: SACK,
        hp: 1,
        wander: 0,
        xp: 60,
        respawnSeconds: 600,
        loot: [{ item: "coin", chance: 1, min: 2, max: 2 }],
      }),
    ],
    spawns: [5, 6, 7, 8, 9].map((x) => ({ kind: "sack", x, y: 4 })),
  });
  game = new Game(core, readWorldMap(map.path), {}, new Logger("silent"));
  return game;
}

/** `leader` invites `member`, who joins (the dialog's Join pressed as the client would). */
function join(game: Game, leader: Session, member: Session): void {
  game.social.run(leader, `/invite ${member.nick}`);
  const dialog = [...member.dialogs.open.values()].find((open) => open.key === "party-invite")!;
  game.dialogs.onReply(member, {
    type: "dialog_reply",
    clientType: 0,
    authToken: member.token,
    dialogId: dialog.id,
    returnCode: 1,
    values: [],
  });
}

function killSackAt(game: Game, killer: Session, x: number): void {
  const sack = [...game.entities.values()].find((entity) => entity.typeId === SACK && entity.x === x)!;
  for (let blow = 0; blow < 50 && sack.hp > 0; blow++) game.combat.bump(killer.entity, sack.x, sack.y);
  expect(sack.hp).toBe(0);
}

const coins = (game: Game, session: Session) => game.items.countOf(session, COIN.id);

describe("a party's kills", () => {
  it("the documented share: a fifth more per other member, split evenly, rounded up", () => {
    expect(PARTY_XP_BONUS).toBe(0.2);
    expect(partyXpShare(60, 1)).toBe(60);
    expect(partyXpShare(60, 2)).toBe(36);
    expect(partyXpShare(60, 3)).toBe(28);
    expect(partyXpShare(3, 4)).toBe(2);
    // The group never gains less than the kill is worth.
    for (let members = 1; members <= 5; members++) expect(partyXpShare(7, members) * members).toBeGreaterThanOrEqual(7);
  });

  it("shares experience with the members near the kill and deals its loot by turns; a member far away gets neither", () => {
    const game = sackField();
    const ann = boundGuest(game, "Ann").session;
    const bob = boundGuest(game, "Bob").session;
    const cyd = boundGuest(game, "Cyd").session;
    join(game, ann, bob);
    join(game, ann, cyd);
    expect(game.parties.count).toBe(1);
    game.entities.move(ann.entity, 5, 5);
    game.entities.move(bob.entity, 6, 5);
    game.entities.move(cyd.entity, 5 + SHARE_RADIUS + 20, 5);

    // Ann's kill: Ann and Bob share 60 × 1.2 / 2 = 36 each; Cyd, far away, none. The loot is Ann's turn.
    killSackAt(game, ann, 5);
    expect([ann.entity.xp, bob.entity.xp, cyd.entity.xp]).toEqual([36, 36, 0]);
    expect([coins(game, ann), coins(game, bob), coins(game, cyd)]).toEqual([2, 0, 0]);
    // Bob's kill: the next turn is Bob's.
    killSackAt(game, bob, 6);
    expect([coins(game, ann), coins(game, bob), coins(game, cyd)]).toEqual([2, 2, 0]);
    // Ann's again: Cyd's turn, but Cyd is not near — the turn passes to Ann.
    killSackAt(game, ann, 7);
    expect([coins(game, ann), coins(game, bob), coins(game, cyd)]).toEqual([4, 2, 0]);
    expect([ann.entity.xp, bob.entity.xp, cyd.entity.xp]).toEqual([108, 108, 0]);
    // Nothing lay on the ground: the loot went into bags.
    expect(game.items.census().get(COIN.id)).toBe(6);

    // Alone again: the killer gets the whole kill, and its loot falls where the sack fell.
    game.social.run(bob, "/leave");
    game.social.run(cyd, "/leave");
    expect(game.parties.count).toBe(0);
    killSackAt(game, ann, 8);
    expect(ann.entity.xp).toBe(108 + 60);
    expect(coins(game, ann)).toBe(4);
    expect(game.items.census().get(COIN.id)).toBe(8);
  });

  it("away from the party's home (a cluster's region), a kill is shared by the members playing here, the loot by turns", () => {
    const game = sackField();
    // This game is region 1 of a cluster; the party lives in region 0. What region 1 sends is kept, not sent:
    // the rule under test is this region's, and its messages to the home are not needed for it.
    const moved: string[] = [];
    const ignore = () => {};
    game.parties.elsewhere = {
      region: 1,
      tell: ignore,
      line: ignore,
      detail: ignore,
      over: ignore,
      verb: ignore,
      moved: (home, key) => moved.push(`${home} ${key}`),
      gone: ignore,
      back: ignore,
      askInvite: ignore,
      invitation: ignore,
      invited: ignore,
    };
    const ann = boundGuest(game, "Ann").session;
    const bob = boundGuest(game, "Bob").session;
    const cyd = boundGuest(game, "Cyd").session;
    const key = (session: Session) => `s${session.tokenHex}`;
    // Handed here from region 0, members of its party 7 (the home's detail makes them see it).
    for (const session of [ann, bob, cyd]) {
      game.parties.adopted(session, 0);
      game.parties.fromHome(0, key(session), { kind: "detail", partyId: 7, members: [] });
    }
    expect(moved).toEqual([ann, bob, cyd].map((session) => `0 ${key(session)}`));
    game.entities.move(ann.entity, 5, 5);
    game.entities.move(bob.entity, 6, 5);
    game.entities.move(cyd.entity, 5 + SHARE_RADIUS + 20, 5);

    // Ann's kill: shared with Bob, not with Cyd far away; the loot by this region's turn, then Bob's.
    killSackAt(game, ann, 5);
    expect([ann.entity.xp, bob.entity.xp, cyd.entity.xp]).toEqual([36, 36, 0]);
    expect([coins(game, ann), coins(game, bob), coins(game, cyd)]).toEqual([2, 0, 0]);
    killSackAt(game, ann, 6);
    expect([coins(game, ann), coins(game, bob), coins(game, cyd)]).toEqual([2, 2, 0]);
    // Cyd, out of the party (the home said so), shares nothing though standing near.
    game.parties.fromHome(0, key(cyd), { kind: "over" });
    game.entities.move(cyd.entity, 7, 5);
    killSackAt(game, ann, 7);
    expect(cyd.entity.xp).toBe(0);
  });
});
