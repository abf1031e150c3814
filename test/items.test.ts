// Items over real UDP with the real wasm and a real SQLite (issue 14): a test
// map with a chest (and sometimes a creature) is written as a Tiled file with
// its item catalogue and read by the real loader; protocol clients join over
// HTTP and send ItemRequests, and read their bags and chests from
// EntityDetails, piles from EntityPackets.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import fc from "fast-check";
import { afterEach, describe, expect, it } from "vitest";
import { ACTION_E, ACTION_SE, ACTION_W } from "../ts/protocol/action.js";
import type { EntityEntry } from "../ts/protocol/entity.js";
import type { ItemOp } from "../ts/protocol/item-request.js";
import { ITEM_STATUSES } from "../ts/protocol/item-result.js";
import { SLOT_ARMOR, SLOT_WEAPON, type ItemStack } from "../ts/protocol/tlv.js";
import type { ItemDef } from "../ts/server/content/item-catalogue.js";
import { ENTITY_TYPE_ITEM } from "../ts/item-types.js";
import { openGameDatabase } from "../ts/server/persistence/database.js";
import { postJson, startHarness } from "./support/game-harness.js";
import { latestEntry, NpcGame } from "./support/npc-game.js";
import { testKind, writeNpcMap } from "./support/npc-map.js";
import { type Joined, UdpTestClient } from "./support/udp-client.js";
import {
  bagOf as bag,
  inventoryOf,
  itemRequest as request,
  itemResults as results,
  itemDef,
} from "./support/item-client.js";

const item = itemDef;
const KEY = item({ id: 1, name: "key", kind: "key" });
const DAGGER = item({ id: 2, name: "dagger", kind: "weapon", damage: 9 });
const JERKIN = item({ id: 3, name: "jerkin", kind: "armor", armor: 3 });
const POTION = item({ id: 4, name: "potion", kind: "consumable", stack: 5, heal: 30 });
const COIN = item({ id: 5, name: "coin", kind: "treasure", stack: 100 });
const ITEMS = [KEY, DAGGER, JERKIN, POTION, COIN];

const npcGame = new NpcGame();
afterEach(() => npcGame.cleanup());

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** A room with a chest east of the spawn (and `more` of the map spec). */
async function startWithChest(
  contents = "dagger, potion:3, coin:40, jerkin",
  more: Partial<Parameters<typeof writeNpcMap>[0]> = {},
) {
  return npcGame.start({
    width: 14,
    height: 8,
    spawn: { x: 4, y: 4 },
    kinds: [],
    spawns: [],
    items: ITEMS,
    chests: [{ name: "box", x: 5, y: 4, items: contents }],
    ...more,
  });
}

const stacks = (...list: [number, ItemDef, number][]): ItemStack[] =>
  list.map(([slot, def, count]) => ({ slot, itemId: def.id, count }));

function census(): Record<number, number> {
  return Object.fromEntries([...npcGame.harness.game.items.census()].sort((a, b) => a[0] - b[0]));
}

function piles(client: UdpTestClient): EntityEntry[] {
  return client.inView(ENTITY_TYPE_ITEM);
}

async function step(client: UdpTestClient, action: number, to: { x: number; y: number }): Promise<void> {
  for (let tries = 0; tries < 10; tries++) {
    client.action(client.lastState()!.tick + 4, action);
    const deadline = Date.now() + 400;
    while (Date.now() < deadline) {
      const at = client.position();
      if (at && at.x === to.x && at.y === to.y) return;
      await sleep(10);
    }
  }
  throw new Error(`never reached (${to.x}, ${to.y})`);
}

describe("items over UDP", () => {
  it("takes a stack from a chest within reach: bag and chest both change once, however often the request comes", async () => {
    await startWithChest();
    const client = await npcGame.connect("taker");
    const chest = npcGame.harness.game.items.chestNamed("box")!;
    const before = census();
    expect(await bag(client)).toEqual([]);
    client.query(chest.id);
    await client.waitFor("the chest's contents", () => inventoryOf(client, chest.id));
    expect(inventoryOf(client, chest.id)!.stacks).toEqual(
      stacks([0, DAGGER, 1], [1, POTION, 3], [2, COIN, 40], [3, JERKIN, 1]),
    );

    expect(await request(client, 1, "take", { container: chest.id, slot: 1, count: 2 })).toBe("ok");
    // The pushed details: the own bag, and the chest to who stands next to it.
    await client.waitFor("bag pushed", () => inventoryOf(client, client.joined.entityId)?.stacks.length === 1);
    expect(inventoryOf(client, client.joined.entityId)!.stacks).toEqual(stacks([0, POTION, 2]));
    await client.waitFor("chest pushed", () => inventoryOf(client, chest.id)?.stacks[1]?.count === 1);
    // The same request again, three times: the same answer, nothing more taken.
    const version = results(client)[0].version;
    for (let i = 0; i < 3; i++) client.itemRequest(1, "take", { container: chest.id, slot: 1, count: 2 });
    await client.waitFor("four answers", () => results(client).length === 4);
    expect(results(client).map((r) => [ITEM_STATUSES[r.status], r.version])).toEqual(
      Array.from({ length: 4 }, () => ["ok", version]),
    );
    expect(await bag(client)).toEqual(stacks([0, POTION, 2]));
    expect(census()).toEqual(before);

    // take_all moves the rest; an empty chest then has nothing to give.
    expect(await request(client, 2, "take_all", { container: chest.id })).toBe("ok");
    expect(await bag(client)).toEqual(stacks([0, POTION, 3], [1, DAGGER, 1], [2, COIN, 40], [3, JERKIN, 1]));
    expect(await request(client, 3, "take_all", { container: chest.id })).toBe("no_item");
    // put gives back; counts in range only.
    expect(await request(client, 4, "put", { container: chest.id, slot: 2, count: 15 })).toBe("ok");
    expect(await bag(client)).toEqual(stacks([0, POTION, 3], [1, DAGGER, 1], [2, COIN, 25], [3, JERKIN, 1]));
    expect(census()).toEqual(before);
  });

  it("refuses what cannot be done, in words the client can show, and changes nothing", async () => {
    await startWithChest("dagger", { chests: [{ name: "box", x: 9, y: 4, items: "dagger, potion" }] });
    const client = await npcGame.connect("refused");
    const chest = npcGame.harness.game.items.chestNamed("box")!;
    const before = census();
    expect(await request(client, 1, "take", { container: chest.id, slot: 0 })).toBe("too_far");
    // From too far, a query shows the chest's name but not its contents.
    client.query(chest.id);
    await client.waitFor("the chest's detail", () =>
      client.received.some((r) => r.packet?.type === "entity_detail" && r.packet.entityId === chest.id),
    );
    expect(inventoryOf(client, chest.id)).toBeUndefined();
    expect(await request(client, 2, "take_all", { container: 999_999 })).toBe("no_container");
    expect(await request(client, 3, "drop", { slot: 0 })).toBe("no_item");
    expect(await request(client, 4, "equip", { slot: 7 })).toBe("no_item");
    expect(await request(client, 5, "unequip", { slot: SLOT_WEAPON })).toBe("no_item");
    expect(census()).toEqual(before);
  });

  it("a dropped stack lies as a pile everyone sees; stepping back onto it picks it up", async () => {
    await startWithChest("dagger, coin:40");
    const dropper = await npcGame.connect("dropper");
    const watcher = await npcGame.connect("watcher");
    const chest = npcGame.harness.game.items.chestNamed("box")!;
    expect(await request(dropper, 1, "take_all", { container: chest.id })).toBe("ok");
    expect(await request(dropper, 2, "drop", { slot: 1, count: 15 })).toBe("ok");
    const pile = await watcher.waitFor("the pile", () => piles(watcher)[0]);
    expect(pile).toMatchObject({ x: 4, y: 4, meta: [{ kind: "item", itemId: COIN.id, count: 15 }] });
    expect(await bag(dropper)).toEqual(stacks([0, DAGGER, 1], [1, COIN, 25]));
    // A second drop of the same item on the same tile joins the pile.
    expect(await request(dropper, 3, "drop", { slot: 1, count: 5 })).toBe("ok");
    await watcher.waitFor("the pile grows", () => piles(watcher)[0]?.meta[0]?.kind === "item" && piles(watcher)[0]);
    await watcher.waitFor("20 coins", () => {
      const tlv = piles(watcher)[0]?.meta[0];
      return tlv?.kind === "item" && tlv.count === 20;
    });
    expect(piles(watcher)).toHaveLength(1);
    await step(dropper, ACTION_W, { x: 3, y: 4 });
    await step(dropper, ACTION_E, { x: 4, y: 4 });
    await watcher.waitFor("the pile gone", () => piles(watcher).length === 0 && watcher.latestEntities());
    expect(await bag(dropper)).toEqual(stacks([0, DAGGER, 1], [1, COIN, 40]));
    await dropper.waitFor("told", () =>
      dropper.received.some((r) => r.packet?.type === "chat" && r.packet.text === "You pick up 20 × coin."),
    );
  });

  it("equipping shows the weapon and armor to others; a consumable heals; kinds keep to their slots", async () => {
    await startWithChest("dagger, jerkin, potion:2, key");
    const fighter = await npcGame.connect("fighter");
    const watcher = await npcGame.connect("onlooker");
    const chest = npcGame.harness.game.items.chestNamed("box")!;
    expect(await request(fighter, 1, "take_all", { container: chest.id })).toBe("ok");
    expect(await request(fighter, 2, "equip", { slot: 2 })).toBe("wrong_kind"); // the potions
    expect(await request(fighter, 3, "move", { slot: 3, toSlot: SLOT_ARMOR })).toBe("wrong_kind"); // the key
    expect(await request(fighter, 4, "equip", { slot: 0 })).toBe("ok");
    expect(await request(fighter, 5, "move", { slot: 1, toSlot: SLOT_ARMOR })).toBe("ok");
    expect(await bag(fighter)).toEqual(
      stacks([2, POTION, 2], [3, KEY, 1], [SLOT_WEAPON, DAGGER, 1], [SLOT_ARMOR, JERKIN, 1]),
    );
    await watcher.waitFor("the fighter's weapon and armor", () => {
      const entry = latestEntry(watcher, fighter.joined.entityId);
      return entry?.meta.length === 4 && entry;
    });
    // The player's look (issue 18) and level (issue 39) stay beside what it wears.
    expect(latestEntry(watcher, fighter.joined.entityId)!.meta).toEqual([
      { kind: "appearance", value: expect.any(Number) },
      { kind: "level", value: 1 },
      { kind: "weapon", value: DAGGER.id },
      { kind: "armor", value: JERKIN.id },
    ]);
    // The combat formula reads the same: the dagger's damage, the jerkin's armor.
    const game = npcGame.harness.game;
    const entity = game.entities.get(fighter.joined.entityId)!;
    expect(game.items.weaponDamage(entity)).toBe(9);
    expect(game.items.armorValue(entity)).toBe(3);

    entity.hp = 40;
    game.entities.changed(entity);
    expect(await request(fighter, 6, "use", { slot: 2 })).toBe("ok");
    expect(entity.hp).toBe(70);
    expect(await request(fighter, 7, "use", { slot: 3 })).toBe("wrong_kind");
    expect(await request(fighter, 8, "unequip", { slot: SLOT_WEAPON })).toBe("ok");
    expect(await bag(fighter)).toEqual(stacks([0, DAGGER, 1], [2, POTION, 1], [3, KEY, 1], [SLOT_ARMOR, JERKIN, 1]));
    expect(game.items.weaponDamage(entity)).toBeNull();
    await watcher.waitFor(
      "the weapon put away",
      () => latestEntry(watcher, fighter.joined.entityId)?.meta.length === 3, // its look, its level and the armor
    );
  });

  it("a creature's loot falls where it dies", async () => {
    await startWithChest("", {
      kinds: [
        testKind({
          name: "piggy bank",
          typeId: 16,
          wander: 0,
          hp: 1,
          loot: [{ item: "coin", chance: 1, min: 3, max: 3 }],
          respawnSeconds: 600,
        }),
      ],
      spawns: [{ kind: "piggy bank", x: 5, y: 5 }],
    });
    const client = await npcGame.connect("looter");
    await client.waitFor("the piggy bank", () => client.inView(16).length > 0);
    const bumping = setInterval(() => {
      const state = client.lastState();
      if (state) client.action(state.tick + 4, ACTION_SE);
    }, 170);
    try {
      const pile = await client.waitFor("the loot", () => piles(client)[0], 25_000);
      expect(pile).toMatchObject({ x: 5, y: 5, meta: [{ kind: "item", itemId: COIN.id, count: 3 }] });
      // The next step after the killing bump takes the looter onto the loot: it is picked up. The steps go
      // on until then: on a loaded machine the pile can arrive before the next step was sent, and a
      // looter that stopped there would never step onto it.
      await client.waitFor("picked up", () => inventoryOf(client, client.joined.entityId)?.stacks.length === 1, 10_000);
    } finally {
      clearInterval(bumping);
    }
    expect(inventoryOf(client, client.joined.entityId)!.stacks).toEqual(stacks([0, COIN, 3]));
  });

  it("a guest's items drop where it stood when its session ends", async () => {
    await startWithChest("dagger, coin:7");
    const guest = await npcGame.connect("leaver");
    const watcher = await npcGame.connect("finder");
    const chest = npcGame.harness.game.items.chestNamed("box")!;
    const before = census();
    expect(await request(guest, 1, "take_all", { container: chest.id })).toBe("ok");
    const game = npcGame.harness.game;
    game.leave(game.sessions.byEntityId(guest.joined.entityId)!, "test");
    await watcher.waitFor("two piles", () => piles(watcher).length === 2);
    expect(piles(watcher).map((pile) => [pile.x, pile.y, pile.meta])).toEqual([
      [4, 4, [{ kind: "item", itemId: DAGGER.id, count: 1 }]],
      [4, 4, [{ kind: "item", itemId: COIN.id, count: 7 }]],
    ]);
    expect(census()).toEqual(before);
  });

  it("under 20 % loss and duplication both ways, every sequence of requests conserves every item", async () => {
    await startWithChest("dagger, jerkin, potion:4, coin:60, key");
    const client = await npcGame.connect("lossy");
    const chest = npcGame.harness.game.items.chestNamed("box")!;
    const before = census();
    let random = 0x2545f491;
    const chance = (p: number) => {
      random = (Math.imul(random, 1103515245) + 12345) >>> 0;
      return random / 2 ** 32 < p;
    };
    // Inbound: results and details lost one in five.
    client.dropInbound = (packet) => (packet.type === "item_result" || packet.type === "entity_detail") && chance(0.2);
    let nextId = 1;
    /** Sends with outbound loss and duplication until a result arrives. */
    const lossy = async (op: ItemOp, fields: Parameters<UdpTestClient["itemRequest"]>[2]): Promise<void> => {
      const id = nextId++;
      for (let tries = 0; tries < 40; tries++) {
        if (!chance(0.2)) client.itemRequest(id, op, fields);
        if (chance(0.2)) client.itemRequest(id, op, fields);
        await sleep(60);
        if (results(client).some((r) => r.requestId === id)) return;
      }
      throw new Error(`request ${id} never answered`);
    };
    const op = fc.oneof(
      fc.record({ op: fc.constant<ItemOp>("take"), slot: fc.nat(5), count: fc.nat(3) }),
      fc.record({ op: fc.constant<ItemOp>("take_all"), slot: fc.constant(0), count: fc.constant(0) }),
      fc.record({ op: fc.constant<ItemOp>("put"), slot: fc.nat(5), count: fc.nat(3) }),
      fc.record({ op: fc.constant<ItemOp>("drop"), slot: fc.nat(5), count: fc.nat(3) }),
      fc.record({ op: fc.constant<ItemOp>("equip"), slot: fc.nat(5), count: fc.constant(0) }),
      fc.record({ op: fc.constant<ItemOp>("move"), slot: fc.nat(5), count: fc.nat(5) }),
      fc.record({
        op: fc.constant<ItemOp>("unequip"),
        slot: fc.constantFrom(SLOT_WEAPON, SLOT_ARMOR),
        count: fc.constant(0),
      }),
    );
    await fc.assert(
      fc.asyncProperty(fc.array(op, { minLength: 6, maxLength: 12 }), async (ops) => {
        for (const { op: name, slot, count } of ops) {
          const toSlot = name === "move" ? count : 0;
          await lossy(name, { container: chest.id, slot, count: name === "move" ? 0 : count, toSlot });
          // No potion is used here: the sum over the bag, the chest and the ground never changes.
          expect(census()).toEqual(before);
        }
      }),
      { numRuns: 4 },
    );
    // The client's own view, once fresh, is the server's.
    client.dropInbound = null;
    const game = npcGame.harness.game;
    expect(game.items.stats.repeated).toBeGreaterThan(0);
    const server = game.items.detailTlv(
      game.sessions.byEntityId(client.joined.entityId)!,
      game.entities.get(client.joined.entityId)!,
    );
    expect(server?.kind).toBe("inventory");
    expect(await bag(client)).toEqual(server?.kind === "inventory" ? server.stacks : null);
  }, 90_000);
});

describe("items and the database", () => {
  it("an account's bag and a chest's contents are where they were after a restart", async () => {
    const dir = mkdtempSync(join(tmpdir(), "caves-items-db-"));
    const map = writeNpcMap({
      width: 14,
      height: 8,
      spawn: { x: 4, y: 4 },
      kinds: [],
      spawns: [],
      items: ITEMS,
      chests: [{ name: "box", x: 5, y: 4, items: "dagger, coin:40" }],
    });
    const dbPath = join(dir, "caves.sqlite");
    const clients: UdpTestClient[] = [];
    try {
      const first = await startHarness(map.map, { database: openGameDatabase(dbPath) });
      const registered = (
        await postJson(first.httpPort, "/api/register", { name: "Keeper", password: "keeper-pw", nick: "Keeper" })
      ).body as unknown as Joined;
      const client = await UdpTestClient.withSession(registered);
      clients.push(client);
      client.action(0, 0);
      await client.waitFor("own position", () => client.position());
      const chestId = first.game.items.chestNamed("box")!.id;
      expect(await request(client, 1, "take", { container: chestId, slot: 1, count: 15 })).toBe("ok");
      expect(await request(client, 2, "take", { container: chestId, slot: 0 })).toBe("ok");
      expect(await request(client, 3, "equip", { slot: 1 })).toBe("ok");
      await first.close();

      const second = await startHarness(map.map, { database: openGameDatabase(dbPath) });
      const login = await postJson(second.httpPort, "/api/login", { name: "Keeper", password: "keeper-pw" });
      const again = await UdpTestClient.withSession(login.body as unknown as Joined);
      clients.push(again);
      again.action(0, 0);
      await again.waitFor("own position", () => again.position());
      expect(await bag(again)).toEqual(stacks([0, COIN, 15], [SLOT_WEAPON, DAGGER, 1]));
      const chest = second.game.items.chestNamed("box")!;
      again.query(chest.id);
      await again.waitFor("the chest", () => inventoryOf(again, chest.id));
      expect(inventoryOf(again, chest.id)!.stacks).toEqual(stacks([1, COIN, 25]));
      await second.close();
    } finally {
      for (const client of clients) client.close();
      map.dispose();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
