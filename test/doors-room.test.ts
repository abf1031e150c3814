// The door room on its own ports (ts/server/world/doors.ts): a real World over the
// real wasm grid, the real TileUpdates and EntityStore, and a DoorKeys that
// says who holds which key — what the items room will answer from inventories.
// A locked door opens for the key holder and stays unlocked for the next player;
// without the key it stays shut; a repeat of a use is no second toggle. Doors
// added at run time (a dungeon level's) work as the map's and leave with their state.
import { describe, expect, it } from "vitest";
import { DOOR_LOCKED, DOOR_REPEAT_TICKS, Doors } from "../ts/server/world/doors.js";
import { Egress } from "../ts/server/edge/egress.js";
import { EntityStore } from "../ts/server/entities/entities.js";
import { Logger } from "../ts/server/ops/log.js";
import { Metrics } from "../ts/server/ops/metrics.js";
import type { Session } from "../ts/server/sessions/session.js";
import { TileUpdates } from "../ts/server/world/tile-updates.js";
import { World } from "../ts/server/world/world.js";
import { loadCore } from "../ts/wasm/node.js";
import { NPC_DOOR, NPC_FLOOR, NPC_OPEN_DOOR, NPC_WALL, writeNpcMap } from "./support/npc-map.js";

async function room(holders: ReadonlySet<string>) {
  const written = writeNpcMap({
    width: 10,
    height: 6,
    tile: (x, y) =>
      x === 0 || y === 0 || x === 9 || y === 5 ? NPC_WALL : x === 5 ? (y === 2 ? NPC_DOOR : NPC_WALL) : NPC_FLOOR,
    spawn: { x: 2, y: 2 },
    kinds: [],
    spawns: [],
    doors: [
      {
        x: 5,
        y: 2,
        properties: [
          { name: "locked", type: "bool", value: true },
          { name: "key", type: "string", value: "rusty key" },
        ],
      },
    ],
  });
  written.dispose();
  const world = new World(await loadCore(), written.map);
  const entities = new EntityStore();
  const told: string[] = [];
  const clock = { tick: 1 };
  const doors = new Doors(
    {
      entities,
      tiles: new TileUpdates(world, { values: () => [].values() }, new Egress(new Metrics())),
      chat: { tell: (_session, text, speaker) => told.push(`${speaker}: ${text}`) },
      keys: { holds: (session, key) => holders.has(`${session.nick}/${key}`) },
      clock,
      log: new Logger("silent"),
    },
    world.doors,
  );
  const player = (nick: string, x: number, y: number) => {
    const entity = entities.spawn({ typeId: 0, x, y, hp: 10, hpMax: 10, elo: 1000, flags: 0, name: nick, meta: [] });
    // The room reads a session's player entity and nick, and hands the session to the keys port.
    return { nick, entity } as unknown as Session;
  };
  return { world, entities, doors, told, clock, player, door: doors.at(5, 2)! };
}

describe("the door room", () => {
  it("opens a locked door for the holder of its key, which leaves it unlocked for everyone", async () => {
    const { world, doors, told, clock, player, door } = await room(new Set(["Ann/rusty key"]));
    const bob = player("Bob", 4, 2);
    const ann = player("Ann", 6, 2);
    expect(door.entity.name).toBe("locked door");
    expect(doors.onQuery(bob, door.entity)).toBe(true);
    expect(world.tileAt(5, 2)).toBe(NPC_DOOR);
    expect(told).toEqual([`locked door: ${DOOR_LOCKED}`]);
    expect(doors.onQuery(ann, door.entity)).toBe(true);
    expect(world.tileAt(5, 2)).toBe(NPC_OPEN_DOOR);
    expect(world.walkable(5, 2)).toBe(true);
    expect(told[1]).toBe("door: You unlock the door with the rusty key.");
    expect(door.locked).toBe(false);
    expect(door.entity.name).toBe("door");
    // Bob, who has no key, closes it and opens it again: it is an unlocked door now.
    clock.tick += DOOR_REPEAT_TICKS;
    doors.onQuery(bob, door.entity);
    expect(world.tileAt(5, 2)).toBe(NPC_DOOR);
    clock.tick += DOOR_REPEAT_TICKS;
    doors.onQuery(bob, door.entity);
    expect(world.tileAt(5, 2)).toBe(NPC_OPEN_DOOR);
    expect(doors.stats).toMatchObject({ opened: 2, closed: 1, unlocked: 1, refusedLocked: 1 });
  });

  it("takes a repeated query from the same player within DOOR_REPEAT_TICKS as the same use", async () => {
    const { world, doors, clock, player, door } = await room(new Set(["Ann/rusty key"]));
    const ann = player("Ann", 4, 2);
    doors.onQuery(ann, door.entity);
    expect(world.tileAt(5, 2)).toBe(NPC_OPEN_DOOR);
    clock.tick += DOOR_REPEAT_TICKS - 1;
    expect(doors.onQuery(ann, door.entity)).toBe(true);
    expect(world.tileAt(5, 2)).toBe(NPC_OPEN_DOOR);
    clock.tick += 1;
    doors.onQuery(ann, door.entity);
    expect(world.tileAt(5, 2)).toBe(NPC_DOOR);
  });

  it("tells a repeat from a new use when two players take turns within a second", async () => {
    const { world, doors, clock, player, door } = await room(new Set(["Ann/rusty key"]));
    const ann = player("Ann", 4, 2);
    const bob = player("Bob", 6, 2);
    doors.onQuery(ann, door.entity); // opens (Ann has the key)
    clock.tick += 2;
    doors.onQuery(bob, door.entity); // Bob closes it
    expect(world.tileAt(5, 2)).toBe(NPC_DOOR);
    clock.tick += 4;
    doors.onQuery(ann, door.entity); // Ann's re-sent query of her first use: nothing happens
    expect(world.tileAt(5, 2)).toBe(NPC_DOOR);
    expect(doors.stats).toMatchObject({ opened: 1, closed: 1 });
  });

  it("is only queried, not used, from two tiles away; creatures never unlock it", async () => {
    const { world, doors, player, door } = await room(new Set(["Ann/rusty key"]));
    expect(doors.onQuery(player("Ann", 3, 2), door.entity)).toBe(false);
    expect(doors.openByCreature(5, 2)).toBe(false);
    expect(doors.openByCreature(4, 2)).toBe(false);
    expect(world.tileAt(5, 2)).toBe(NPC_DOOR);
  });

  it("takes doors at run time, as a level brings them, and lets them go with their state", async () => {
    const { world, entities, doors, clock, player } = await room(new Set());
    // A second doorway in the wall, as a level's tiles put it there with the door closed.
    expect(world.setTile(5, 4, NPC_DOOR)).toBe(true);
    const spec = {
      id: 1,
      name: "",
      x: 5,
      y: 4,
      closedTile: NPC_DOOR,
      openTile: NPC_OPEN_DOOR,
      open: false,
      locked: false,
      key: null,
    };
    const [id] = doors.add([spec]);
    expect(doors.size).toBe(2);
    const added = doors.at(5, 4)!;
    expect(added.entity.id).toBe(id);
    expect(entities.get(id)?.name).toBe("door");
    // Used by a player and opened by a creature like the map's doors.
    doors.onQuery(player("Ann", 4, 4), added.entity);
    expect(world.tileAt(5, 4)).toBe(NPC_OPEN_DOOR);
    clock.tick += DOOR_REPEAT_TICKS;
    doors.onQuery(player("Ann", 4, 4), added.entity);
    expect(world.tileAt(5, 4)).toBe(NPC_DOOR);
    expect(doors.openByCreature(5, 4)).toBe(true);
    // A second door on a cell that has one is refused, the first kept.
    expect(doors.add([spec])).toEqual([]);
    expect(doors.at(5, 4)).toBe(added);
    // Removed: its entity and state go; the map's door stays; added again, it is a new door as its spec says.
    doors.remove([id]);
    expect(doors.size).toBe(1);
    expect(doors.at(5, 4)).toBeUndefined();
    expect(doors.ofEntity(id)).toBeUndefined();
    expect(entities.get(id)).toBeUndefined();
    expect(doors.openByCreature(5, 4)).toBe(false);
    expect(doors.at(5, 2)).toBeDefined();
    const [again] = doors.add([spec]);
    expect(again).not.toBe(id);
    expect(doors.at(5, 4)).toMatchObject({ open: false, lastUserId: 0 });
  });
});
