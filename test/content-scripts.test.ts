// Content scripts over real UDP with the real sandbox (issue 38): a host's Lua files give a creature
// words, a quest and a shop; a protocol client talks to it (an EntityQuery next to it), answers the
// dialog (a DialogReply), and the quest's state and the shop's exchange show in its own EntityDetail.
// Hostile scripts — a syntax error, an endless loop, a memory bomb, a wrong argument — are each stopped
// with their file and line while the world keeps its tick; a reload replaces a file in the running world.
import Database from "better-sqlite3";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import type { ItemDef } from "../ts/server/content/item-catalogue.js";
import type { ContentFile } from "../ts/server/content/content-files.js";
import type { EntityStore, StoredEntity } from "../ts/server/entities/entities.js";
import { LuaRuntime } from "../ts/server/scripting/lua-sandbox.js";
import { REST_TICKS } from "../ts/server/scripting/script-room.js";
import { openGameDatabase } from "../ts/server/persistence/database.js";
import { postJson } from "./support/game-harness.js";
import { NpcGame } from "./support/npc-game.js";
import { testKind } from "./support/npc-map.js";
import { dialogs, labels, ownTlv, reply } from "./support/script-dialogs.js";
import { type Joined, UdpTestClient } from "./support/udp-client.js";

const COIN: ItemDef = {
  id: 1,
  name: "gold coin",
  kind: "treasure",
  stack: 100,
  sprite: "coin",
  damage: 0,
  armor: 0,
  heal: 0,
};
const POTION: ItemDef = {
  id: 2,
  name: "healing potion",
  kind: "consumable",
  stack: 5,
  sprite: "potion",
  damage: 0,
  armor: 0,
  heal: 10,
};
const BAKER = testKind({
  name: "baker",
  typeId: 30,
  behaviour: "guard",
  wander: 0,
  speed: 20,
  hp: 40,
  perception: 4,
  leash: 6,
});
const RAT = testKind({ name: "cave rat", typeId: 31, wander: 2, hp: 1 });
const SPAWN = { x: 6, y: 6 };

/** A cave rat in a corner of the test world, for a kill the scripts hear of (ScriptRoom.onKill). */
function spawnRat(game: { readonly entities: EntityStore }): StoredEntity {
  return game.entities.spawn({
    typeId: RAT.typeId,
    x: 1,
    y: 1,
    hp: 1,
    hpMax: 1,
    elo: 1000,
    flags: 0,
    name: "cave rat",
    meta: [],
  });
}

const BAKER_LUA = `
quest.define{ id = "rats", title = "Rat cull", text = "Kill 2 cave rats.", goal = 2, giver = "baker",
              reward = { ["gold coin"] = 5 } }
shop.define{ id = "bakery", title = "Bakery", greeting = "Fresh today.",
             sells = { { item = "healing potion", price = 3, stock = 2 } }, buys = { { item = "healing potion", price = 1 } } }
on.talk("baker", function(npc, player)
  local rats = quest.state(player, "rats")
  if rats.state == "ready" then
    quest.complete(player, "rats", function(outcome) tell(player, "reward: " .. outcome, npc.name) end)
    return
  end
  ask(player, { title = npc.name, text = "What will it be?", choices = { "Shop", "A job", "Bye" } },
    function(choice)
      if choice == 1 then shop.open(player, "bakery", npc.name)
      elseif choice == 2 then quest.start(player, "rats") say(npc, "Mind the rats!") end
    end)
end)
on.kill("cave rat", function(player, rat) quest.progress(player, "rats", 1) end)
`;

/** The test world: the baker by the spawn, cave rats to hunt, coins and potions to trade. */
const BAKERY = {
  width: 16,
  height: 12,
  spawn: SPAWN,
  kinds: [BAKER, RAT],
  spawns: [{ kind: "baker", x: 7, y: 6 }],
  items: [COIN, POTION],
};

const npcGame = new NpcGame();
let runtime: LuaRuntime;
beforeAll(async () => {
  runtime = await LuaRuntime.load();
});
afterEach(() => npcGame.cleanup());

function files(entries: Record<string, string>): ContentFile[] {
  return Object.entries(entries).map(([name, source]) => ({ name, path: `/content/${name}`, source }));
}

async function start(content: Record<string, string>) {
  const harness = await npcGame.start(BAKERY, { content: { runtime, files: files(content) } });
  const client = await npcGame.connect("Ada");
  const baker = await client.waitFor("the baker in view", () => client.inView(BAKER.typeId)[0]);
  return { harness, client, baker };
}

describe("content scripts", () => {
  it("a talk opens the script's dialog; its choice starts a quest the client sees, kills advance it, the giver rewards it", async () => {
    const { harness, client, baker } = await start({ "baker.lua": BAKER_LUA });
    client.query(baker.id);
    const first = await client.waitFor("the baker's dialog", () => dialogs(client)[0], 5000);
    expect(labels(first)).toEqual(["Shop", "A job", "Bye"]);
    reply(client, first, 2);
    const started = await client.waitFor("the quest in the quest log", () => {
      const tlv = ownTlv(client, "quests");
      return tlv?.kind === "quests" && tlv.quests.length === 1 ? tlv : undefined;
    });
    expect(started.quests[0]).toEqual({ quest: 1, state: 1, progress: 0, goal: 2 });
    const catalogue = (await (await fetch(`http://127.0.0.1:${harness.httpPort}/api/quests`)).json()) as {
      version: number;
      quests: { number: number; title: string }[];
    };
    expect(catalogue.version).toBe(started.catalogueVersion);
    expect(catalogue.quests).toMatchObject([
      { number: 1, title: "Rat cull", reward: { items: [{ item: "gold coin", count: 5 }], xp: 0 } },
    ]);
    // Two kills (the combat room tells the scripts); the quest is then ready, and the giver is marked for a hand-in.
    const game = harness.game;
    const me = game.sessions.byEntityId(client.lastState()!.playerEntityId)!;
    const rat = spawnRat(game);
    game.scripts!.onKill(me.entity, rat);
    game.scripts!.onKill(me.entity, rat);
    await client.waitFor("the quest ready, the giver marked", () => {
      const quests = ownTlv(client, "quests");
      const marks = ownTlv(client, "quest_marks");
      return (
        quests?.kind === "quests" &&
        quests.quests[0].state === 2 &&
        marks?.kind === "quest_marks" &&
        marks.marks.some((mark) => mark.typeId === BAKER.typeId && mark.mark === 2)
      );
    });
    // Handing it in: the reward lands and the quest is done, in one change.
    client.query(baker.id);
    await client.waitFor("the quest done", () => {
      const quests = ownTlv(client, "quests");
      return quests?.kind === "quests" && quests.quests[0].state === 3;
    });
    expect(game.items.countOf(me, COIN.id)).toBe(5);
  });

  it("buys and sells for gold coins as one exchange each, and refuses what cannot be paid or has run out", async () => {
    const { harness, client, baker } = await start({ "baker.lua": BAKER_LUA });
    const game = harness.game;
    const me = game.sessions.byEntityId(client.lastState()!.playerEntityId)!;
    await new Promise<void>((resolve) => game.items.exchange(me, [], [{ itemId: COIN.id, count: 7 }], () => resolve()));
    client.query(baker.id);
    const menu = await client.waitFor("the baker's dialog", () => dialogs(client)[0], 5000);
    reply(client, menu, 1);
    const shop = await client.waitFor("the shop", () =>
      dialogs(client).find((d) => labels(d).some((l) => l.startsWith("Buy"))),
    );
    expect(labels(shop)).toEqual(["Buy healing potion - 3 (2 left)", "Leave"]);
    reply(client, shop, 1);
    const after = await client.waitFor("the shop again", () =>
      dialogs(client).find((d) => labels(d).includes("Buy healing potion - 3 (1 left)")),
    );
    expect(game.items.countOf(me, COIN.id)).toBe(4);
    expect(game.items.countOf(me, POTION.id)).toBe(1);
    expect(labels(after)).toContain("Sell healing potion - 1 (1)");
    reply(client, after, 1); // the last one in stock
    const soldOut = await client.waitFor("the stock gone", () =>
      dialogs(client).find((d) => labels(d).includes("Buy healing potion - 3 (0 left)")),
    );
    reply(client, soldOut, 1);
    await client.waitFor("a refusal", () =>
      dialogs(client).find((d) => d.elements.some((e) => e.kind === "text" && e.text.includes("sold out"))),
    );
    expect(game.items.countOf(me, COIN.id)).toBe(1);
    expect(game.items.countOf(me, POTION.id)).toBe(2);
    expect(game.scripts!.shops.stats.bought).toBe(2);
  });

  it("stops hostile scripts with their file and line, keeps the others and the tick", async () => {
    const { harness, client, baker } = await start({
      "a-broken.lua": "function (\n",
      "b-loop.lua": `on.talk("baker", function() while true do end end)`,
      "c-bomb.lua": `on.kill("*", function() local t = {} for i = 1, 1e9 do t[i] = ("x"):rep(64) end end)`,
      "d-wrong.lua": `local ok = 1\nquest.define{ id = "bad", giver = "dragon" }`,
      "e-good.lua": `on.talk("baker", function(npc, player) tell(player, "still here", npc.name) end)`,
    });
    const game = harness.game;
    const status = game.scripts!.status() as { files: { name: string; running: boolean; loadError: string | null }[] };
    const byName = new Map(status.files.map((file) => [file.name, file]));
    expect(byName.get("a-broken.lua")).toMatchObject({ running: false });
    expect(byName.get("a-broken.lua")!.loadError).toMatch(/^a-broken\.lua:1:/);
    expect(byName.get("d-wrong.lua")!.loadError).toMatch(
      /^d-wrong\.lua:2: quest\.define: giver must be a creature kind's name/,
    );
    expect(byName.get("b-loop.lua")!.running).toBe(true);
    const tickBefore = game.tick;
    client.query(baker.id);
    // The good file still answers; the loop was stopped within its budget.
    await client.waitFor("the good script's line", () =>
      client.received.some((entry) => entry.packet?.type === "chat" && entry.packet.text === "still here"),
    );
    const me = game.sessions.byEntityId(client.lastState()!.playerEntityId)!;
    const rat = spawnRat(game);
    game.scripts!.onKill(me.entity, rat);
    const stats = game.scripts!.stats;
    expect(stats.budgetStops).toBeGreaterThanOrEqual(1);
    // The loop's stop names its file and line (the count hook reports where the script was).
    const after = game.scripts!.status() as { files: { name: string; lastError: string | null }[] };
    expect(after.files.find((file) => file.name === "b-loop.lua")!.lastError).toMatch(
      /^b-loop\.lua:1: instruction budget exceeded/,
    );
    expect(stats.budgetStops + stats.memoryStops).toBeGreaterThanOrEqual(2);
    await client.waitFor("ticks going on", () => game.tick > tickBefore + 5);
  });

  it("rests a file stopped at its budget 3 times in 10 s: its events are skipped, then it runs again, longer rests if it goes on", async () => {
    const { harness } = await start({
      "spin.lua": `on.kill("*", function() while true do end end)`,
      "count.lua": `kills = 0\non.kill("*", function() kills = kills + 1 end)`,
    });
    const game = harness.game;
    const scripts = game.scripts!;
    const me = [...game.sessions.values()][0];
    const kill = () => {
      const rat = spawnRat(game);
      scripts.onKill(me.entity, rat);
      game.entities.remove(rat);
    };
    const spin = () =>
      (scripts.status() as { files: { name: string; resting: boolean; rests: number }[] }).files.find(
        (file) => file.name === "spin.lua",
      )!;
    for (let index = 0; index < 3; index++) kill();
    expect(scripts.stats.budgetStops).toBe(3);
    expect(spin()).toMatchObject({ resting: true, rests: 1 });
    // Resting: ten more kills cost it nothing; the other file hears every one.
    for (let index = 0; index < 10; index++) kill();
    expect(scripts.stats.budgetStops).toBe(3);
    expect(scripts.stats.eventsRested).toBe(10);
    expect((scripts.status() as { log: string[] }).log.join("\n")).toMatch(/spin\.lua: resting 240 ticks/);
    // Its rest over (240 ticks on the world's clock), it runs again — and, stopped 3 times more at once,
    // rests twice as long.
    game.tick += REST_TICKS;
    for (let index = 0; index < 3; index++) kill();
    expect(scripts.stats.budgetStops).toBe(6);
    expect(spin()).toMatchObject({ resting: true, rests: 2 });
    game.tick += REST_TICKS;
    kill();
    expect(scripts.stats.budgetStops).toBe(6); // still resting: 480 ticks this time
  });

  it("one file's question to a second creature replaces the first's unanswered dialog; the first hears it was dismissed", async () => {
    const MILLER = testKind({
      name: "miller",
      typeId: 32,
      behaviour: "guard",
      wander: 0,
      speed: 20,
      hp: 40,
      perception: 4,
      leash: 6,
    });
    const harness = await npcGame.start(
      {
        width: 16,
        height: 12,
        spawn: SPAWN,
        kinds: [BAKER, MILLER],
        spawns: [
          { kind: "baker", x: 7, y: 6 },
          { kind: "miller", x: 5, y: 6 },
        ],
        items: [COIN],
      },
      {
        content: {
          runtime,
          files: files({
            "people.lua": `
local function talk(npc, player)
  ask(player, { title = npc.name, text = "I am the " .. npc.name .. ".", choices = { "Hello", "Bye" } },
    function(choice) tell(player, npc.name .. " heard " .. choice, npc.name) end)
end
on.talk("baker", talk)
on.talk("miller", talk)`,
          }),
        },
      },
    );
    const client = await npcGame.connect("Ada");
    const baker = await client.waitFor("the baker in view", () => client.inView(BAKER.typeId)[0]);
    const miller = await client.waitFor("the miller in view", () => client.inView(MILLER.typeId)[0]);
    client.query(baker.id);
    const first = await client.waitFor("the baker's dialog", () => dialogs(client)[0], 5000);
    // The baker's dialog still open, unanswered: the miller is asked.
    client.query(miller.id);
    const second = await client.waitFor("the miller's dialog", () =>
      dialogs(client).find((dialog) => dialog.dialogId !== first.dialogId),
    );
    expect(JSON.stringify(second.elements)).toContain("I am the miller.");
    // The baker's dialog is closed on the client, and its callback heard 0 (dismissed).
    await client.waitFor("the baker's dialog closed", () =>
      client.received.some(
        (entry) => entry.packet?.type === "dialog_close" && entry.packet.dialogId === first.dialogId,
      ),
    );
    const said = () => client.received.flatMap((entry) => (entry.packet?.type === "chat" ? [entry.packet.text] : []));
    await client.waitFor("the baker's callback", () => said().includes("baker heard 0"));
    // Asked the same again while it stands open, the miller's dialog is only shown again: one callback.
    client.query(miller.id);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(
      dialogs(client).filter((dialog) => dialog.dialogId !== first.dialogId && dialog.dialogId !== second.dialogId),
    ).toEqual([]);
    reply(client, second, 1);
    await client.waitFor("the miller's callback", () => said().includes("miller heard 1"));
    expect(harness.game.dialogs.stats.opened).toBe(2);
  });

  it("reloads a file in the running world: a failed version leaves the last good one running", async () => {
    const { harness, client, baker } = await start({
      "talk.lua": `on.talk("baker", function(npc, player) tell(player, "one", npc.name) end)`,
    });
    const scripts = harness.game.scripts!;
    const heard = (text: string) =>
      client.waitFor(`"${text}"`, () =>
        client.received.some((e) => e.packet?.type === "chat" && e.packet.text === text),
      );
    client.query(baker.id);
    await heard("one");
    expect(
      scripts.reload("talk.lua", `on.talk("baker", function(npc, player) tell(player, "two", npc.name) end)`),
    ).toBeNull();
    client.query(baker.id);
    await heard("two");
    expect(scripts.reload("talk.lua", `on.talk("baker", function(npc, player) tell(player, "three" end)`)).toMatch(
      /^talk\.lua:1:/,
    );
    client.query(baker.id);
    await client.waitFor(
      "two again",
      () => client.received.filter((e) => e.packet?.type === "chat" && e.packet.text === "two").length >= 2,
    );
  });

  it("buys once for a reply sent three times (a re-sent datagram), and nothing is made or lost", async () => {
    const { harness, client, baker } = await start({ "baker.lua": BAKER_LUA });
    const game = harness.game;
    const me = game.sessions.byEntityId(client.lastState()!.playerEntityId)!;
    await new Promise<void>((resolve) => game.items.exchange(me, [], [{ itemId: COIN.id, count: 9 }], () => resolve()));
    client.query(baker.id);
    const menu = await client.waitFor("the baker's dialog", () => dialogs(client)[0], 5000);
    reply(client, menu, 1);
    const shop = await client.waitFor("the shop", () => dialogs(client).find((d) => labels(d)[0]?.startsWith("Buy")));
    for (let copy = 0; copy < 3; copy++) reply(client, shop, 1);
    await client.waitFor("the shop again", () =>
      dialogs(client).find((d) => labels(d).includes("Buy healing potion - 3 (1 left)")),
    );
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(game.items.countOf(me, POTION.id)).toBe(1);
    expect(game.items.countOf(me, COIN.id)).toBe(6);
    expect(game.scripts!.shops.stats.bought).toBe(1);
  });

  it("keeps an account's quest across a restart", async () => {
    const dir = mkdtempSync(join(tmpdir(), "caves-quests-"));
    try {
      const spec = BAKERY;
      const options = () => ({
        content: { runtime, files: files({ "baker.lua": BAKER_LUA }) },
        database: openGameDatabase(join(dir, "world.sqlite")),
      });
      let harness = await npcGame.start(spec, options());
      const registered = await postJson(harness.httpPort, "/api/register", {
        name: "Questa",
        password: "rats-rats",
        nick: "Questa",
      });
      expect(registered.status).toBe(200);
      let client = await UdpTestClient.withSession(registered.body as unknown as Joined);
      client.action(0, 0);
      await client.waitFor("own position", () => client.position());
      const baker = await client.waitFor("the baker", () => client.inView(BAKER.typeId)[0]);
      client.query(baker.id);
      const menu = await client.waitFor("the baker's dialog", () => dialogs(client)[0], 5000);
      reply(client, menu, 2);
      const me = () => harness.game.sessions.byEntityId(client.lastState()!.playerEntityId)!;
      await client.waitFor(
        "the quest started",
        () => harness.game.scripts!.quests.standing(me(), "rats").state === "active",
      );
      const rat = spawnRat(harness.game);
      harness.game.scripts!.onKill(me().entity, rat);
      client.close();
      await npcGame.cleanup();

      harness = await npcGame.start(spec, options());
      const login = await postJson(harness.httpPort, "/api/login", { name: "Questa", password: "rats-rats" });
      expect(login.status).toBe(200);
      client = await UdpTestClient.withSession(login.body as unknown as Joined);
      client.action(0, 0);
      await client.waitFor("own position", () => client.position());
      // Its own detail (asked for, as the client does) carries the quest where the first life left it.
      client.query(client.lastState()!.playerEntityId);
      const quests = await client.waitFor("the quest back", () => {
        const tlv = ownTlv(client, "quests");
        return tlv?.kind === "quests" && tlv.quests.length > 0 ? tlv : undefined;
      });
      expect(quests.quests[0]).toMatchObject({ state: 1, progress: 1, goal: 2 });
      client.close();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("grants experience (issue 39): give_xp, and a quest's xp saved in the transaction that hands it in", async () => {
    const dir = mkdtempSync(join(tmpdir(), "caves-quest-xp-"));
    const path = join(dir, "world.sqlite");
    let client: UdpTestClient | undefined;
    try {
      const lua = BAKER_LUA.replace('reward = { ["gold coin"] = 5 } }', 'reward = { ["gold coin"] = 5 }, xp = 40 }')
        .replace(
          'on.kill("cave rat", function(player, rat) quest.progress(player, "rats", 1) end)',
          'on.kill("cave rat", function(player, rat)\n  quest.progress(player, "rats", 1)\n  log("gained " .. give_xp(player, 25))\nend)',
        )
        .replace(
          'on.talk("baker", function(npc, player)\n',
          'on.talk("baker", function(npc, player)\n  log("level " .. player.level .. ", " .. player.xp)\n',
        );
      const harness = await npcGame.start(BAKERY, {
        content: { runtime, files: files({ "baker.lua": lua }) },
        database: openGameDatabase(path),
      });
      const registered = await postJson(harness.httpPort, "/api/register", {
        name: "Grower",
        password: "grow-grow",
        nick: "Grower",
      });
      const player = await UdpTestClient.withSession(registered.body as unknown as Joined);
      client = player;
      player.action(0, 0);
      await player.waitFor("own position", () => player.position());
      const game = harness.game;
      const me = game.sessions.byEntityId(player.lastState()!.playerEntityId)!;
      const baker = [...game.entities.values()].find((entity) => entity.typeId === BAKER.typeId)!;
      game.scripts!.onQuery(me, baker);
      reply(player, await player.waitFor("the baker's dialog", () => dialogs(player)[0], 5000), 2);
      await player.waitFor("the quest started", () => game.scripts!.quests.standing(me, "rats").state === "active");
      // Two kills the scripts hear of: 25 experience each from give_xp, which says what it gave.
      const rat = spawnRat(game);
      game.scripts!.onKill(me.entity, rat);
      game.scripts!.onKill(me.entity, rat);
      expect(me.entity.xp).toBe(50);
      expect(game.scripts!.status().log).toEqual(expect.arrayContaining(["baker.lua: gained 25"]));
      await player.waitFor("level 2 in its entries and 50 in its progress", () => {
        const progress = ownTlv(player, "progress");
        const own = player.inView(0).find((entity) => entity.id === me.entity.id);
        return (
          progress?.kind === "progress" &&
          progress.xp === 50 &&
          own?.meta.some((t) => t.kind === "level" && t.value === 2)
        );
      });
      // Handing the quest in (in this turn: no tick, so no periodic save, runs in between): the reward's 40
      // experience is in the database with the quest done and the coins, before anyone is told.
      game.scripts!.onQuery(me, baker);
      const reader = new Database(path, { readonly: true });
      try {
        const row = reader
          .prepare(
            "SELECT c.xp, q.state FROM characters c JOIN character_quests q ON q.account_id = c.account_id WHERE q.quest = 'rats'",
          )
          .get();
        expect(row).toEqual({ xp: 90, state: "done" });
      } finally {
        reader.close();
      }
      expect(me.entity.xp).toBe(90);
      expect(game.items.countOf(me, COIN.id)).toBe(5);
      // What a script reads of a player: its level and experience (level 2 when it asked at the hand-in).
      expect(game.scripts!.status().log).toEqual(expect.arrayContaining(["baker.lua: level 2, 50"]));
    } finally {
      client?.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("lets go of the callbacks of dialogs asked again and again: a state's memory stays put", async () => {
    const { harness, client, baker } = await start({ "baker.lua": BAKER_LUA });
    const scripts = harness.game.scripts!;
    const me = harness.game.sessions.byEntityId(client.lastState()!.playerEntityId)!;
    const entity = harness.game.entities.get(baker.id)!;
    const memory = () =>
      (scripts.status() as { files: { name: string; memoryBytes: number }[] }).files.find(
        (f) => f.name === "baker.lua",
      )!.memoryBytes;
    for (let i = 0; i < 200; i++) scripts.onQuery(me, entity);
    const before = memory();
    for (let i = 0; i < 3000; i++) scripts.onQuery(me, entity);
    expect(scripts.stats.errors).toBe(0);
    expect(memory() - before).toBeLessThan(64 * 1024);
  });
});
