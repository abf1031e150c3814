// Doors over real UDP with the real wasm (issue 14, Doors): a Tiled map with
// door objects is written beside its tile data (a closed door tile that opens to
// an open one) and read by the real loader. The browser's own networking core
// (GameClient) uses a door the way a click does — an EntityQuery from beside
// it — and the change is seen at once by THE rule on the server (a step into
// the doorway refused closed, allowed open), by the client's prediction (its
// grid, from the TileUpdate) and by its A* (click-to-move through the doorway).
// A door never closes on anyone standing in it, a locked door stays shut
// without its key, and a creature opens a door only if its kind allows.
import { afterEach, describe, expect, it } from "vitest";
import { type ChatEvent, connectGuest, GameClient } from "../ts/client/core/index.js";
import { UdpNodeTransport } from "../ts/client/transport/udp-node.js";
import { ENTITY_TYPE_DOOR } from "../ts/entity-types.js";
import { ACTION_E } from "../ts/protocol/action.js";
import { DOOR_IN_THE_WAY, DOOR_LOCKED, DOOR_REPEAT_TICKS } from "../ts/server/world/doors.js";
import type { NpcKind } from "../ts/server/content/npc-kinds.js";
import type { ItemDef } from "../ts/server/content/item-catalogue.js";
import { loadCore } from "../ts/wasm/node.js";
import { drive } from "./client-core-support.js";
import { NpcGame } from "./support/npc-game.js";
import { type DoorObject, NPC_DOOR, NPC_FLOOR, NPC_OPEN_DOOR, NPC_WALL, testKind } from "./support/npc-map.js";
import type { UdpTestClient } from "./support/udp-client.js";

const npcGame = new NpcGame();
const clients: GameClient[] = [];
afterEach(async () => {
  for (const client of clients.splice(0)) client.close();
  await npcGame.cleanup();
});

const WIDTH = 24;
const HEIGHT = 12;
/** The wall between the west and the east room, and its two doorways. */
const WALL_X = 10;
const DOOR = { x: WALL_X, y: 3 };
const LOCKED = { x: WALL_X, y: 8 };
const RUSTY_KEY = [
  { name: "locked", type: "bool", value: true },
  { name: "key", type: "string", value: "rusty key" },
];

/** Two rooms split by a wall at x = 10, joined only by the doorways in `doors` (closed unless `open`). */
function twoRooms(doors: readonly { x: number; y: number; open?: boolean }[]) {
  return (x: number, y: number): number => {
    if (x === 0 || y === 0 || x === WIDTH - 1 || y === HEIGHT - 1) return NPC_WALL;
    const door = doors.find((d) => d.x === x && d.y === y);
    if (door) return door.open === true ? NPC_OPEN_DOOR : NPC_DOOR;
    return x === WALL_X ? NPC_WALL : NPC_FLOOR;
  };
}

async function start(
  options: {
    doors?: DoorObject[];
    open?: boolean;
    spawn?: { x: number; y: number };
    kinds?: NpcKind[];
    npcs?: { kind: string; x: number; y: number }[];
    items?: ItemDef[];
    chests?: { name: string; x: number; y: number; items: string }[];
  } = {},
) {
  const doors = options.doors ?? [
    { ...DOOR, name: "" },
    { ...LOCKED, name: "", properties: RUSTY_KEY },
  ];
  return npcGame.start({
    width: WIDTH,
    height: HEIGHT,
    tile: twoRooms(doors.map((door) => ({ ...door, open: options.open === true && door.properties === undefined }))),
    spawn: options.spawn ?? { x: 7, y: 3 },
    kinds: options.kinds ?? [],
    spawns: (options.npcs ?? []).map((npc) => ({ ...npc, count: 1 })),
    doors,
    items: options.items,
    chests: options.chests,
  });
}

async function join(nick: string): Promise<{ client: GameClient; told: string[] }> {
  const connection = await connectGuest(`http://127.0.0.1:${npcGame.harness.httpPort}`, nick, (session) =>
    UdpNodeTransport.connect("127.0.0.1", session.udpPort),
  );
  const client = GameClient.create({ core: await loadCore(), ...connection });
  clients.push(client);
  const told: string[] = [];
  client.chat.listen((event: ChatEvent) => {
    if (event.kind === "line") told.push(`${event.speakerName}: ${event.text}`);
  });
  await drive([client], `${nick} playing`, () => client.state === "playing" && client.confirmed !== null);
  return { client, told };
}

/** Click-to-move to (x, y) and wait until the server has the player there. */
async function walkTo(client: GameClient, x: number, y: number): Promise<void> {
  expect(client.setGoal(x, y)).toBe("planned");
  await drive(
    [client],
    `arrival at ${x},${y}`,
    () => client.goal === null && client.pending.length === 0 && client.confirmed?.x === x && client.confirmed.y === y,
  );
}

/** Uses the door at `at` as a click beside it does, and waits until the client's grid shows `tile` there. */
async function use(client: GameClient, at: { x: number; y: number }): Promise<void> {
  const door = npcGame.harness.game.doors.at(at.x, at.y)!;
  await drive([client], "the door in view", () => client.entities.has(door.entity.id));
  // A repeat from the same player within DOOR_REPEAT_TICKS is the same use: wait it out.
  const game = npcGame.harness.game;
  await drive(
    [client],
    "a fresh use",
    () => game.tick - door.lastUseTick >= DOOR_REPEAT_TICKS || door.lastUserId === 0,
  );
  const usedAt = door.lastUseTick;
  expect(client.interact(door.entity.id)).toBeNull();
  await drive([client], "the use arrived", () => door.lastUserId === client.ownEntityId && door.lastUseTick > usedAt);
}

const tileOnClient = (client: GameClient, at: { x: number; y: number }) => client.sim.getTile(at.x, at.y);

describe("doors", () => {
  it("open and close through a tile update that the server's rule, the client's prediction and its A* all see", async () => {
    await start();
    const game = npcGame.harness.game;
    const { client } = await join("Ann");
    await walkTo(client, DOOR.x - 1, DOOR.y);
    const door = game.doors.at(DOOR.x, DOOR.y)!;
    expect(door.entity.typeId).toBe(ENTITY_TYPE_DOOR);
    await drive([client], "the door's chunk", () => tileOnClient(client, DOOR) === NPC_DOOR);

    // Closed: the server's rule, the client's grid and its A* all refuse the doorway.
    expect(game.world.walkable(DOOR.x, DOOR.y)).toBe(false);
    expect(client.sim.isFree(DOOR.x, DOOR.y)).toBe(false);
    expect(client.setGoal(DOOR.x + 2, DOOR.y)).toBe("unreachable");
    // A step straight into it, sent anyway (a raw ActionPacket), is refused by the server.
    const bob = await npcGame.connect("Bob");
    await stepEastUntilBlocked(bob, DOOR.x - 1);
    expect(bob.position()).toEqual({ x: DOOR.x - 1, y: DOOR.y });

    // Opened by a use from beside it: one TileUpdate, and everyone sees the doorway free.
    const versionBefore = game.world.chunkVersion(0, 0);
    await use(client, DOOR);
    await drive([client], "the open door on the client", () => tileOnClient(client, DOOR) === NPC_OPEN_DOOR);
    expect(game.world.tileAt(DOOR.x, DOOR.y)).toBe(NPC_OPEN_DOOR);
    expect(game.world.chunkVersion(0, 0)).toBe(versionBefore + 1);
    expect(game.world.walkable(DOOR.x, DOOR.y)).toBe(true);
    expect(client.sim.isFree(DOOR.x, DOOR.y)).toBe(true);
    bob.action(bob.lastState()!.tick + 4, ACTION_E);
    await bob.waitFor("Bob in the doorway", () => bob.position()?.x === DOOR.x);
    // The A* routes through the doorway now, and the player walks it.
    await walkTo(client, DOOR.x + 1, DOOR.y);

    // Closed again from the east side, once Bob has moved on: the way back is shut for all three.
    bob.action(bob.lastState()!.tick + 4, ACTION_E);
    await bob.waitFor("Bob through", () => bob.position()?.x === DOOR.x + 1);
    await use(client, DOOR);
    await drive([client], "the closed door on the client", () => tileOnClient(client, DOOR) === NPC_DOOR);
    expect(game.world.walkable(DOOR.x, DOOR.y)).toBe(false);
    expect(client.setGoal(DOOR.x - 2, DOOR.y)).toBe("unreachable");
    expect(game.doors.stats).toMatchObject({ opened: 1, closed: 1 });
  });

  it("never closes on a player standing in the doorway, and says so", async () => {
    await start({ open: true });
    const game = npcGame.harness.game;
    const { client, told } = await join("Ann");
    await walkTo(client, DOOR.x, DOOR.y);
    expect(game.world.tileAt(DOOR.x, DOOR.y)).toBe(NPC_OPEN_DOOR);
    await use(client, DOOR);
    await drive([client], "the refusal", () => told.includes(`door: ${DOOR_IN_THE_WAY}`));
    expect(game.world.tileAt(DOOR.x, DOOR.y)).toBe(NPC_OPEN_DOOR);
    expect(game.doors.stats).toMatchObject({ closed: 0, refusedInTheWay: 1 });
    // Stepped out of it, the same player closes it.
    await walkTo(client, DOOR.x - 1, DOOR.y);
    await use(client, DOOR);
    await drive([client], "the closed door", () => tileOnClient(client, DOOR) === NPC_DOOR);
    expect(game.doors.stats.closed).toBe(1);
  });

  it("never closes on a creature standing in the doorway", async () => {
    // A rat that never moves lives in the open doorway.
    await start({
      open: true,
      kinds: [testKind({ name: "rat", typeId: 16, wander: 0 })],
      npcs: [{ kind: "rat", ...DOOR }],
    });
    const game = npcGame.harness.game;
    const { client, told } = await join("Ann");
    await walkTo(client, DOOR.x - 1, DOOR.y);
    await use(client, DOOR);
    await drive([client], "the refusal", () => told.includes(`door: ${DOOR_IN_THE_WAY}`));
    expect(game.world.tileAt(DOOR.x, DOOR.y)).toBe(NPC_OPEN_DOOR);
    expect([...game.npcs.values()].map((npc) => [npc.entity.x, npc.entity.y])).toEqual([[DOOR.x, DOOR.y]]);
  });

  it("keeps a locked door shut for a player without its key, and says so", async () => {
    await start({ spawn: { x: 7, y: 8 } });
    const game = npcGame.harness.game;
    const { client, told } = await join("Ann");
    const door = game.doors.at(LOCKED.x, LOCKED.y)!;
    expect(door.locked).toBe(true);
    // Its name, asked from three tiles away (a query from beside it would be a use).
    await drive([client], "its name", () => {
      if (client.entities.has(door.entity.id)) client.lookUpName(door.entity.id);
      return client.names.get(door.entity.id) !== undefined;
    });
    expect(client.names.get(door.entity.id)).toBe("locked door");
    expect(door.lastUserId).toBe(0);
    await walkTo(client, LOCKED.x - 1, LOCKED.y);
    await use(client, LOCKED);
    await drive([client], "the refusal", () => told.includes(`locked door: ${DOOR_LOCKED}`));
    expect(game.world.tileAt(LOCKED.x, LOCKED.y)).toBe(NPC_DOOR);
    expect(game.world.walkable(LOCKED.x, LOCKED.y)).toBe(false);
    expect(client.setGoal(LOCKED.x + 1, LOCKED.y)).toBe("unreachable");
    expect(game.doors.stats).toMatchObject({ opened: 0, unlocked: 0, refusedLocked: 1 });
  });

  it("opens a locked door for a player carrying its key, taken from a chest, and leaves it unlocked", async () => {
    const key: ItemDef = {
      id: 1,
      name: "rusty key",
      kind: "key",
      stack: 1,
      sprite: "key",
      damage: 0,
      armor: 0,
      heal: 0,
    };
    await start({ spawn: { x: 7, y: 8 }, items: [key], chests: [{ name: "key box", x: 6, y: 8, items: "rusty key" }] });
    const game = npcGame.harness.game;
    const { client, told } = await join("Keyholder");
    const door = game.doors.at(LOCKED.x, LOCKED.y)!;
    const box = game.items.chestNamed("key box")!;
    await drive([client], "the box in view", () => client.entities.has(box.id));
    expect(client.takeAll(box.id)).not.toBeNull();
    await drive([client], "the key in the bag", () =>
      (client.items.inventory?.stacks ?? []).some((stack) => stack.itemId === key.id),
    );
    const session = game.sessions.byEntityId(client.ownEntityId)!;
    expect(game.items.holds(session, "rusty key")).toBe(true);
    await walkTo(client, LOCKED.x - 1, LOCKED.y);
    await use(client, LOCKED);
    await drive([client], "the door open on the client", () => tileOnClient(client, LOCKED) === NPC_OPEN_DOOR);
    expect(door.locked).toBe(false);
    expect(told).not.toContain(`locked door: ${DOOR_LOCKED}`);
    expect(game.doors.stats).toMatchObject({ unlocked: 1, refusedLocked: 0 });
    await walkTo(client, LOCKED.x + 1, LOCKED.y);
  });

  it("is opened by a creature whose kind opensDoors, never by one without, and never when locked", async () => {
    // Two hostiles stand beside a door each, a player beyond it within their perception. Only the
    // one whose kind opens doors gets through; a third, an opener, stands at the locked door.
    const hunter = (name: string, typeId: number, opensDoors: boolean) =>
      testKind({
        name,
        typeId,
        behaviour: "hostile",
        perception: 8,
        leash: 12,
        wander: 0,
        attack: 1,
        ...(opensDoors ? { opensDoors } : {}),
      });
    const middle = { x: WALL_X, y: 5 };
    await start({
      doors: [
        { ...DOOR, name: "" },
        { ...middle, name: "" },
        { ...LOCKED, name: "", properties: RUSTY_KEY },
      ],
      spawn: { x: 13, y: 5 },
      kinds: [hunter("skeleton", 16, true), hunter("spider", 17, false), hunter("ghoul", 18, true)],
      npcs: [
        { kind: "skeleton", x: DOOR.x - 1, y: DOOR.y },
        { kind: "spider", x: middle.x - 1, y: middle.y },
        { kind: "ghoul", x: LOCKED.x - 1, y: LOCKED.y },
      ],
    });
    const game = npcGame.harness.game;
    const player = await npcGame.connect("Ann");
    await player.waitFor("the skeleton's door open", () => game.world.tileAt(DOOR.x, DOOR.y) === NPC_OPEN_DOOR, 5000);
    expect(game.doors.stats.openedByCreatures).toBe(1);
    expect(game.npcs.stats.doorsOpened).toBe(1);
    // The others have had as long and longer: still shut.
    await new Promise((resolve) => setTimeout(resolve, 1500));
    expect(game.world.tileAt(middle.x, middle.y)).toBe(NPC_DOOR);
    expect(game.world.tileAt(LOCKED.x, LOCKED.y)).toBe(NPC_DOOR);
    expect(game.doors.stats.openedByCreatures).toBe(1);
  });
});

/** Sends a step east each window until the server's position stops at `stopX` (two windows without a move). */
async function stepEastUntilBlocked(client: UdpTestClient, stopX: number): Promise<void> {
  for (let tries = 0; tries < 40; tries++) {
    const before = client.position()!;
    client.action(client.lastState()!.tick + 4, ACTION_E);
    await new Promise((resolve) => setTimeout(resolve, 400));
    const after = client.position()!;
    if (after.x === before.x && after.x === stopX) return;
  }
  throw new Error(`never stopped at x = ${stopX}`);
}
