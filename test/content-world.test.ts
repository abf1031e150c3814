// The content API's events from the world and its actions on it (issue 38), over real UDP with the real
// sandbox: a protocol client walks into and out of a named zone (on.enter / on.leave), takes, uses and
// equips items (on.pickup / on.use / on.equip, once each change is durable), and a quest step a script
// makes comes back to the scripts as an event of its own (on.quest). Scripts spawn and despawn a creature
// the client sees come and go, change a tile through a TileUpdate, open and lock a door, and say a line
// to everyone; wrong arguments are stopped with the file and line and change nothing.
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { ACTION_DX, ACTION_DY } from "../ts/protocol/action.js";
import type { ContentFile } from "../ts/server/content/content-files.js";
import { LuaRuntime } from "../ts/server/scripting/lua-sandbox.js";
import { SLOT_WEAPON } from "../ts/protocol/tlv.js";
import { itemDef, itemRequest } from "./support/item-client.js";
import { NpcGame } from "./support/npc-game.js";
import { NPC_DOOR, NPC_FLOOR, NPC_OPEN_DOOR, NPC_WALL, testKind, walledRoom } from "./support/npc-map.js";
import { dialogs, labels, reply } from "./support/script-dialogs.js";
import type { UdpTestClient } from "./support/udp-client.js";
import { walkSteps } from "./support/walk.js";

const POTION = itemDef({ id: 1, name: "healing potion", kind: "consumable", stack: 5, heal: 5, sprite: "potion" });
const DAGGER = itemDef({ id: 2, name: "dagger", kind: "weapon", damage: 3 });
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
const RAT = testKind({ name: "cave rat", typeId: 31, wander: 0, hp: 3 });
const SPAWN = { x: 6, y: 6 };
const PANTRY = { name: "pantry", x: 9, y: 4, width: 3, height: 5 };
const DOOR = { x: 14, y: 2 };
const EAST = ACTION_DX.findIndex((dx, code) => code > 0 && dx === 1 && ACTION_DY[code] === 0);
const WEST = ACTION_DX.findIndex((dx, code) => code > 0 && dx === -1 && ACTION_DY[code] === 0);

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
  const room = walledRoom(16, 12);
  const harness = await npcGame.start(
    {
      width: 16,
      height: 12,
      tile: (x, y) => (x === DOOR.x && y === DOOR.y ? NPC_DOOR : room(x, y)),
      spawn: SPAWN,
      kinds: [BAKER, RAT],
      spawns: [{ kind: "baker", x: 7, y: 7 }],
      items: [POTION, DAGGER],
      chests: [{ name: "box", x: 5, y: 6, items: "healing potion:2, dagger" }],
      zones: [PANTRY],
      doors: [{ x: DOOR.x, y: DOOR.y }],
    },
    { content: { runtime, files: files(content) } },
  );
  const client = await npcGame.connect("Ada");
  await client.waitFor("a position", () => client.position());
  return { harness, game: harness.game, client };
}

/** The chat lines the client was sent, in order, each once (a line is re-sent until acknowledged). */
function lines(client: UdpTestClient): string[] {
  const bySeq = new Map<number, string>();
  for (const entry of client.received) {
    if (entry.packet?.type === "chat" && !bySeq.has(entry.packet.seq)) bySeq.set(entry.packet.seq, entry.packet.text);
  }
  return [...bySeq].sort((a, b) => a[0] - b[0]).map(([, text]) => text);
}

describe("the content API's world events", () => {
  it("a player walking through a zone enters it once and leaves it once", async () => {
    const { client } = await start({
      "pantry.lua": `
        on.enter("pantry", function(player, zone) tell(player, "in " .. zone.name .. " " .. player.x) end)
        on.leave("pantry", function(player, zone) tell(player, "out " .. zone.name .. " " .. player.x) end)
        on.enter("*", function(player, zone) log("anywhere: " .. zone.name) end)`,
    });
    // (6, 6) → (12, 6): into the pantry at x = 9, out of it at x = 12.
    expect(await walkSteps(client, [EAST, EAST, EAST, EAST, EAST, EAST])).toEqual({ x: 12, y: 6 });
    await client.waitFor("out of the pantry", () => lines(client).includes("out pantry 12"));
    expect(lines(client).filter((line) => /^(in|out) /.test(line))).toEqual(["in pantry 9", "out pantry 12"]);
    // And back in from the east side.
    await walkSteps(client, [WEST]);
    await client.waitFor("in again", () => lines(client).includes("in pantry 11"));
  });

  it("hears a pickup, a use and an equip once each, after the change is durable, however often the request comes", async () => {
    const { game, client } = await start({
      "items.lua": `
        on.pickup("*", function(player, item, count) tell(player, "picked " .. item .. " x" .. count) end)
        on.use("healing potion", function(player, item) tell(player, "used " .. item) end)
        on.equip("dagger", function(player, item) tell(player, "wields " .. item) end)`,
    });
    const chest = game.items.chestNamed("box")!;
    expect(await itemRequest(client, 1, "take_all", { container: chest.id })).toBe("ok");
    // The same request again (a re-sent datagram) is answered again and changes nothing.
    expect(await itemRequest(client, 1, "take_all", { container: chest.id })).toBe("ok");
    await client.waitFor("both pickups", () => lines(client).filter((line) => line.startsWith("picked")).length >= 2);
    expect(await itemRequest(client, 2, "use", { slot: 0 })).toBe("ok");
    expect(await itemRequest(client, 3, "equip", { slot: 1 })).toBe("ok");
    await client.waitFor("the use and the equip", () => lines(client).includes("wields dagger"));
    // A refused request makes no event: nothing in slot 5 to use.
    expect(await itemRequest(client, 4, "use", { slot: 5 })).toBe("no_item");
    const ticks = game.tick;
    await client.waitFor("a few more ticks", () => game.tick > ticks + 6);
    expect(lines(client).filter((line) => /^(picked|used|wields)/.test(line))).toEqual([
      "picked healing potion x2",
      "picked dagger x1",
      "used healing potion",
      "wields dagger",
    ]);
  });

  it("a shop offers to buy only what the bag holds, not the dagger in the player's hand", async () => {
    const { game, client } = await start({
      "shop.lua": `
        shop.define{ id = "smith", title = "Smith", currency = "healing potion", buys = { { item = "dagger", price = 1 } } }
        on.talk("baker", function(npc, player) shop.open(player, "smith", npc.name) end)`,
    });
    const chest = game.items.chestNamed("box")!;
    expect(await itemRequest(client, 1, "take_all", { container: chest.id })).toBe("ok");
    expect(await itemRequest(client, 2, "equip", { slot: 1 })).toBe("ok");
    const baker = await client.waitFor("the baker", () => client.inView(BAKER.typeId)[0]);
    const shops = () =>
      dialogs(client).filter((dialog) =>
        dialog.elements.some((e) => e.kind === "text" && e.text.includes("You carry")),
      );
    client.query(baker.id);
    const wielding = await client.waitFor("the smith's stall", () => shops()[0]);
    expect(labels(wielding)).toEqual(["Leave"]);
    reply(client, wielding, 1);
    expect(await itemRequest(client, 3, "unequip", { slot: SLOT_WEAPON })).toBe("ok");
    client.query(baker.id);
    const bagged = await client.waitFor("the stall again", () => shops().find((d) => labels(d).length === 2));
    expect(labels(bagged)).toEqual(["Sell dagger - 1 (1)", "Leave"]);
  });

  it("a quest step a script makes comes back as an event, after the script that made it", async () => {
    const { client } = await start({
      "a-quest.lua": `
        quest.define{ id = "walk", title = "A walk", goal = 2, giver = "baker" }
        on.enter("pantry", function(player)
          if quest.state(player, "walk").state == "none" then quest.start(player, "walk") else quest.progress(player, "walk") end
        end)`,
      "b-listen.lua": `
        on.quest("walk", function(player, q) tell(player, q.id .. ": " .. q.state .. " " .. q.progress .. "/" .. q.goal) end)`,
    });
    await walkSteps(client, [EAST, EAST, EAST]);
    await client.waitFor("the quest started", () => lines(client).includes("walk: active 0/2"));
    await walkSteps(client, [WEST, EAST, WEST, EAST]);
    await client.waitFor("the quest ready", () => lines(client).includes("walk: ready 2/2"));
    expect(lines(client).filter((line) => line.startsWith("walk:"))).toEqual([
      "walk: active 0/2",
      "walk: active 1/2",
      "walk: ready 2/2",
    ]);
  });
});

describe("the content API's world actions", () => {
  it("spawns a creature the client sees and despawns it; never replaced, and only the file's own", async () => {
    const { game, client } = await start({
      "spawner.lua": `
        local mine = nil
        on.talk("baker", function(npc, player)
          if mine == nil then mine = spawn("cave rat", 3, 3, "pet rat") tell(player, "spawned " .. mine)
          else tell(player, "despawned " .. tostring(despawn(mine)) .. " " .. tostring(despawn(npc))) mine = nil end
        end)`,
    });
    const baker = await client.waitFor("the baker", () => client.inView(BAKER.typeId)[0]);
    client.query(baker.id);
    const rat = await client.waitFor("the rat in view", () => client.inView(RAT.typeId)[0]);
    expect(lines(client)).toContain(`spawned ${rat.id}`);
    expect({ x: rat.x, y: rat.y }).toEqual({ x: 3, y: 3 });
    expect(game.npcs.get(rat.id)!.entity.name).toBe("pet rat");
    client.query(baker.id);
    // Its own creature goes; the baker, which the map placed, does not.
    await client.waitFor("the despawn", () => lines(client).includes("despawned true false"));
    await client.waitFor("the rat gone", () => client.inView(RAT.typeId).length === 0);
    expect(game.npcs.get(baker.id)).toBeDefined();
    expect(game.scripts!.world.stats).toMatchObject({ spawned: 1, despawned: 1 });
    // A spawned creature that dies is not replaced.
    client.query(baker.id);
    const second = await client.waitFor("a second rat", () => client.inView(RAT.typeId)[0]);
    // Its corpse taken away (what the combat room does once a corpse has lain its time).
    expect(game.npcs.kill(second.id)).toBe(true);
    const ticks = game.tick;
    await client.waitFor("long past a respawn", () => game.tick > ticks + 48);
    expect([...game.npcs.values()].filter((npc) => npc.kind.name === "cave rat")).toEqual([]);
  });

  it("changes a tile through a TileUpdate the server's rule sees, and never walls a player in", async () => {
    const { game, client } = await start({
      "tiles.lua": `
        on.talk("baker", function(npc, player)
          tell(player, "floor " .. tile.get(8, 8))
          tell(player, "set " .. tostring(tile.set(8, 8, ${NPC_WALL})) .. " under " .. tostring(tile.set(player.x, player.y, ${NPC_WALL})))
        end)`,
    });
    const baker = await client.waitFor("the baker", () => client.inView(BAKER.typeId)[0]);
    client.query(baker.id);
    await client.waitFor("the answer", () => lines(client).some((line) => line.startsWith("set ")));
    expect(lines(client)).toContain(`floor ${NPC_FLOOR}`);
    expect(lines(client)).toContain("set true under false");
    expect(game.world.tileAt(8, 8)).toBe(NPC_WALL);
    expect(game.world.walkable(8, 8)).toBe(false);
    expect(game.world.tileAt(SPAWN.x, SPAWN.y)).toBe(NPC_FLOOR);
    await client.waitFor("the tile update", () =>
      client.received.some(
        (entry) => entry.packet?.type === "tile_update" && entry.packet.changes.some((c) => c.tileId === NPC_WALL),
      ),
    );
  });

  it("opens, closes and locks a door, and says a line to everyone", async () => {
    const { game, client } = await start({
      "doors.lua": `
        local turn = 0
        on.talk("baker", function(npc, player)
          turn = turn + 1
          if turn == 1 then door(${DOOR.x}, ${DOOR.y}, "open") announce("The door is open!", npc.name)
          else door(${DOOR.x}, ${DOOR.y}, "lock") end
        end)`,
    });
    const other = await npcGame.connect("Bob");
    const baker = await client.waitFor("the baker", () => client.inView(BAKER.typeId)[0]);
    client.query(baker.id);
    await other.waitFor("Bob hears it", () => lines(other).includes("The door is open!"));
    expect(game.world.tileAt(DOOR.x, DOOR.y)).toBe(NPC_OPEN_DOOR);
    client.query(baker.id);
    await client.waitFor("the door shut", () => game.world.tileAt(DOOR.x, DOOR.y) === NPC_DOOR);
    const door = game.doors.at(DOOR.x, DOOR.y)!;
    expect(door.locked).toBe(true);
  });

  it("stops a wrong argument with its file and line, and changes nothing", async () => {
    const { game, client } = await start({
      "wrong.lua": `on.talk("baker", function(npc, player)
        local which = random(4)
        if which == 1 then spawn("dragon", 3, 3)
        elseif which == 2 then tile.set(3, 3, 999)
        elseif which == 3 then spawn("cave rat", 0, 0)
        else door(3, 3, "open") end
      end)`,
    });
    const baker = await client.waitFor("the baker", () => client.inView(BAKER.typeId)[0]);
    const errors = new Set<string>();
    for (let talk = 0; talk < 40 && errors.size < 4; talk++) {
      const before = game.scripts!.stats.errors;
      client.query(baker.id);
      await client.waitFor("the error", () => game.scripts!.stats.errors > before);
      const status = game.scripts!.status() as { files: { lastError: string }[] };
      errors.add(status.files[0].lastError);
    }
    expect([...errors].sort()).toEqual([
      'wrong.lua:3: spawn: no creature kind named "dragon"',
      "wrong.lua:4: tile.set: the map has no tile 999",
      "wrong.lua:5: spawn: (0, 0) is not a free tile",
      "wrong.lua:6: door: no door on (3, 3)",
    ]);
    expect(game.world.tileAt(3, 3)).toBe(NPC_FLOOR);
    expect(game.scripts!.world.stats).toMatchObject({ spawned: 0, tilesSet: 0, doorsSet: 0 });
  });
});
