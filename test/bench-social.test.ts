// The social suite (bench/suites/social.ts, docs/benchmarks.md § social) at a tiny size, so its machinery
// cannot rot: the camps the world writes, what a social bot answers to each window and offers, and one
// real row — a server, 20 bots of which 8 play together in two camps over real UDP — whose parties talk,
// whose neighbours trade and whose census after the window is every camp's items exactly.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { loadMap } from "../ts/server/map/load-map.js";
import { conversation } from "../ts/server/scripting/dialog-layout.js";
import { GOLD_COIN, HEALING_POTION, campCensus, campRole, offerLine, windowAnswer } from "../bench/server/social.js";
import { CAMP_CHESTS, SOCIAL_CAMP, writeWorld } from "../bench/server/world.js";
import { censusConserved, socialBotsOf, socialRow, socialTableRow, SOCIAL_COLUMNS } from "../bench/suites/social.js";

const dir = mkdtempSync(join(tmpdir(), "fc-bench-social-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const chebyshev = (a: { x: number; y: number }, b: { x: number; y: number }) =>
  Math.max(Math.abs(a.x - b.x), Math.abs(a.y - b.y));

describe("the social bench world", () => {
  it("puts the first spawn points in camps of four, each member beside its own chest, near enough to trade", () => {
    const map = loadMap(writeWorld(join(dir, "world"), { social: { camps: 3 } }));
    expect(map.chests).toHaveLength(12);
    for (let camp = 0; camp < 3; camp++) {
      const members = map.spawns.slice(camp * 4, camp * 4 + 4);
      const chests = map.chests.slice(camp * 4, camp * 4 + 4);
      members.forEach((member, index) => {
        for (const other of members) expect(chebyshev(member, other)).toBeLessThanOrEqual(2);
        // Its own chest within an item's reach (1), every other chest beyond it.
        chests.forEach((chest, chestIndex) => expect(chebyshev(member, chest) <= 1).toBe(chestIndex === index));
        expect(chests[index].items.map(({ item, count }) => `${item.name}:${count}`).join(", ")).toBe(
          CAMP_CHESTS[index],
        );
      });
    }
    expect(SOCIAL_CAMP.members).toHaveLength(4);
  });

  it("is the plain world's without the option", () => {
    const plain = loadMap(writeWorld(join(dir, "plain")));
    expect(plain.chests).toEqual([]);
  });
});

describe("a social bot's choices", () => {
  it("pairs members 0–1 and 2–3, and counts what the camps' chests hold", () => {
    expect(campRole(4)).toEqual({ camp: 1, member: 0, asks: true, partner: 5 });
    expect(campRole(7)).toEqual({ camp: 1, member: 3, asks: false, partner: 6 });
    expect(campCensus(2)).toEqual(
      new Map([
        [GOLD_COIN.id, 200],
        [HEALING_POTION.id, 40],
      ]),
    );
  });

  it("offers what the bag holds more offers of, and nothing from an empty bag", () => {
    expect(offerLine(new Map([[GOLD_COIN.id, 50]]))).toBe("/offer 5 gold coin");
    expect(offerLine(new Map([[HEALING_POTION.id, 3]]))).toBe("/offer 1 healing potion");
    // 15 coins are 3 offers, 3 potions 3: a tie goes to the potions.
    expect(
      offerLine(
        new Map([
          [GOLD_COIN.id, 15],
          [HEALING_POTION.id, 3],
        ]),
      ),
    ).toBe("/offer 1 healing potion");
    expect(offerLine(new Map([[GOLD_COIN.id, 4]]))).toBeNull();
  });

  it("joins, accepts a trade, offers first, confirms only with both offers shown, and waits once confirmed", () => {
    const window = (text: string, buttons: string[]) => conversation("Trade with bot1", text, buttons).elements;
    expect(windowAnswer(conversation("Party", "bot0 invites you", ["Join", "Decline"]).elements)).toEqual({ press: 1 });
    expect(windowAnswer(conversation("Trade", "bot0 wants to trade with you.", ["Trade", "Decline"]).elements)).toEqual(
      { press: 1 },
    );
    expect(windowAnswer(window("You give: nothing. bot1 gives: nothing. Offer with …", ["Confirm", "Cancel"]))).toBe(
      "offer",
    );
    expect(
      windowAnswer(window("You give: 5 gold coin. bot1 gives: nothing. Offer with …", ["Confirm", "Cancel"])),
    ).toBe("wait");
    expect(
      windowAnswer(window("You give: 5 gold coin. bot1 gives: 1 healing potion. Offer with …", ["Confirm", "Cancel"])),
    ).toEqual({ press: 1 });
    expect(windowAnswer(window("You give: 5 gold coin. bot1 gives: 1 healing potion. You confirmed", ["Cancel"]))).toBe(
      "wait",
    );
    expect(windowAnswer(conversation("A sign", "Welcome", ["OK"]).elements)).toBe("wait");
  });
});

describe("the social row at a tiny size", () => {
  it("20 bots, two camps: parties talk, neighbours trade, lines keep chat's limit, the census is conserved", async () => {
    const row = await socialRow(20, 3, 10);
    const social = row.bot.social!;
    expect(socialBotsOf(20)).toBe(8);
    expect(social.bots).toBe(8);
    expect(social.answered).toBe(8);
    expect(social.expected).toEqual({ [HEALING_POTION.id]: 40, [GOLD_COIN.id]: 200 });
    expect(censusConserved(row)).toBe(true);
    // Party lines reach only members: heard at all, the camps formed their parties by /invite and Join.
    expect(social.partyHeard).toBeGreaterThan(0);
    expect(social.privateHeard).toBeGreaterThan(0);
    expect(social.said + social.tells + social.partyLines).toBeGreaterThan(0);
    expect(social.tradesDone).toBeGreaterThan(0);
    expect(social.rateLimited).toBe(0);
    expect(socialTableRow(row)).toHaveLength(SOCIAL_COLUMNS.length);
    // A census one coin short is not conserved.
    const short = {
      ...row,
      bot: { ...row.bot, social: { ...social, census: { ...social.census, [GOLD_COIN.id]: 199 } } },
    };
    expect(censusConserved(short)).toBe(false);
  }, 120_000);
});
