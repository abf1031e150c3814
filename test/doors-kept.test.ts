// Issue 41, on the rooms' own ports with the real World over the real wasm grid:
// the map's doors as players left them, written to a real SQLite file and put
// back at start (persistence/door-store.ts, Doors.keptStates / restore) — but
// not onto a door the host has since redrawn, nor a level's; and the safety net
// (world/enclosure.ts): a character put into the world behind a locked door it
// has no key to, or in a closed door, is put on the door's other side on its
// way out — through nested vaults too — and never moved when it can leave or
// when no door is what holds it. The real server across restarts:
// test/vault-restart.test.ts.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { Egress } from "../ts/server/edge/egress.js";
import { EntityStore } from "../ts/server/entities/entities.js";
import { Logger } from "../ts/server/ops/log.js";
import { Metrics } from "../ts/server/ops/metrics.js";
import { openGameDatabase } from "../ts/server/persistence/database.js";
import { DoorStore } from "../ts/server/persistence/door-store.js";
import { Doors } from "../ts/server/world/doors.js";
import { Enclosure } from "../ts/server/world/enclosure.js";
import { TileUpdates } from "../ts/server/world/tile-updates.js";
import { Warps } from "../ts/server/world/warps.js";
import { World } from "../ts/server/world/world.js";
import { loadCore } from "../ts/wasm/node.js";
import { NPC_DOOR, NPC_FLOOR, NPC_OPEN_DOOR, NPC_WALL, writeNpcMap } from "./support/npc-map.js";

const dir = mkdtempSync(join(tmpdir(), "caves-doors-kept-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const WIDTH = 16;
const HEIGHT = 8;
const SPAWN = { x: 2, y: 3 };
/** The vault door (rusty key) between the hall (x < 6) and the vault (7..10); the inner door (iron key) to 12..14. */
const VAULT = { x: 6, y: 3 };
const INNER = { x: 11, y: 3 };
/** A corridor door, open at start, in the hall's south wall. */
const CORRIDOR = { x: 3, y: 5 };
const locked = (key: string) => [
  { name: "locked", type: "bool", value: true },
  { name: "key", type: "string", value: key },
];

function tile(x: number, y: number): number {
  if (x === 0 || y === 0 || x === WIDTH - 1 || y === HEIGHT - 1) return NPC_WALL;
  if (x === CORRIDOR.x && y === CORRIDOR.y) return NPC_OPEN_DOOR;
  // The south wall, and below it a pocket of floor reached only through the corridor door, and an island.
  if (y === 5) return NPC_WALL;
  if (y === 6) return x <= 4 || x >= 8 ? NPC_FLOOR : NPC_WALL;
  if (x === VAULT.x) return y === VAULT.y ? NPC_DOOR : NPC_WALL;
  if (x === INNER.x) return y === INNER.y ? NPC_DOOR : NPC_WALL;
  return NPC_FLOOR;
}

async function rooms() {
  const written = writeNpcMap({
    width: WIDTH,
    height: HEIGHT,
    tile,
    spawn: SPAWN,
    kinds: [],
    spawns: [],
    doors: [
      { ...VAULT, name: "vault door", properties: locked("rusty key") },
      { ...INNER, name: "inner door", properties: locked("iron key") },
      { ...CORRIDOR, name: "corridor door" },
    ],
  });
  written.dispose();
  const world = new World(await loadCore(), written.map);
  const entities = new EntityStore();
  const doors = new Doors(
    {
      entities,
      tiles: new TileUpdates(world, { values: () => [].values() }, new Egress(new Metrics())),
      chat: { tell: () => {} },
      keys: { holds: () => false },
      clock: { tick: 1 },
      log: new Logger("silent"),
    },
    world.doors,
  );
  const warps = new Warps({ entities, levels: { onStairs: () => {} } }, []);
  const enclosure = new Enclosure({ world, doors, warps });
  const keys =
    (...held: string[]) =>
    (key: string) =>
      held.includes(key);
  return { world, doors, enclosure, keys };
}

describe("the map's doors kept", () => {
  it("are written when they change, only then, and put back at start onto the doors the map still draws so", async () => {
    const path = join(dir, "doors.sqlite");
    let database = openGameDatabase(path);
    let { world: first, doors } = await rooms();
    let store = new DoorStore(database.db, first.name);
    expect(store.load()).toEqual([]);
    // Nothing changed: nothing written.
    store.saveChanged(doors.keptStates(), 1)();
    expect(store.stats.rows).toBe(0);
    // The vault unlocked and opened, the corridor door closed.
    expect(doors.set(VAULT.x, VAULT.y, "open")).toBe(true);
    expect(doors.set(CORRIDOR.x, CORRIDOR.y, "close")).toBe(true);
    const written = store.saveChanged(doors.keptStates(), 2);
    written();
    expect(store.stats.rows).toBe(2);
    // Unchanged since: the next save writes nothing; a save that was not committed writes again.
    store.saveChanged(doors.keptStates(), 3)();
    expect(store.stats.rows).toBe(2);
    doors.set(VAULT.x, VAULT.y, "close");
    store.saveChanged(doors.keptStates(), 4); // its transaction never committed
    store.saveChanged(doors.keptStates(), 5)();
    expect(store.stats.rows).toBe(3);
    database.close();

    // A restart: the doors as left — the vault closed but unlocked, the corridor door closed.
    database = openGameDatabase(path);
    ({ world: first, doors } = await rooms());
    store = new DoorStore(database.db, first.name);
    expect(doors.restore(store.load())).toEqual({ restored: 2, overruled: 0 });
    expect(doors.at(VAULT.x, VAULT.y)).toMatchObject({ open: false, locked: false });
    expect(doors.at(VAULT.x, VAULT.y)!.entity.name).toBe("vault door");
    expect(doors.at(CORRIDOR.x, CORRIDOR.y)).toMatchObject({ open: false, locked: false });
    expect(first.tileAt(CORRIDOR.x, CORRIDOR.y)).toBe(NPC_DOOR);
    expect(first.walkable(CORRIDOR.x, CORRIDOR.y)).toBe(false);
    // A row saved from a door the host has since redrawn (another key) is not put back: the map wins.
    database.db.prepare("UPDATE doors SET drawn = replace(drawn, 'rusty key', 'bone key')").run();
    ({ doors } = await rooms());
    store = new DoorStore(database.db, first.name);
    expect(doors.restore(store.load())).toEqual({ restored: 1, overruled: 1 });
    expect(doors.at(VAULT.x, VAULT.y)).toMatchObject({ open: false, locked: true });
    database.close();
  });

  it("never keeps a dungeon level's doors", async () => {
    const { doors } = await rooms();
    const before = [...doors.keptStates()].length;
    doors.add([
      {
        id: 1,
        name: "",
        x: 8,
        y: 6,
        closedTile: NPC_DOOR,
        openTile: NPC_OPEN_DOOR,
        open: false,
        locked: false,
        key: null,
      },
    ]);
    expect([...doors.keptStates()]).toHaveLength(before);
  });
});

describe("a character shut in", () => {
  it("is put on the vault door's other side, on its way out, when it has no key; left where it is with the key", async () => {
    const { enclosure, keys } = await rooms();
    expect(enclosure.releaseFrom(8, 3, keys())).toEqual({ x: 5, y: 3, door: "vault door" });
    expect(enclosure.releaseFrom(8, 3, keys("rusty key"))).toBeNull();
    // Deterministic: the same answer every time.
    expect(enclosure.releaseFrom(9, 1, keys())).toEqual({ x: 5, y: 3, door: "vault door" });
    expect(enclosure.releaseFrom(9, 1, keys())).toEqual({ x: 5, y: 3, door: "vault door" });
  });

  it("behind two doors goes beyond the last one it cannot open", async () => {
    const { enclosure, keys } = await rooms();
    expect(enclosure.releaseFrom(13, 3, keys())).toEqual({ x: 5, y: 3, door: "vault door" });
    expect(enclosure.releaseFrom(13, 3, keys("rusty key"))).toEqual({ x: 10, y: 3, door: "inner door" });
    expect(enclosure.releaseFrom(13, 3, keys("iron key"))).toEqual({ x: 5, y: 3, door: "vault door" });
    expect(enclosure.releaseFrom(13, 3, keys("rusty key", "iron key"))).toBeNull();
  });

  it("in a closed door's cell is put beside it; a door it can open does not shut it in", async () => {
    const { doors, enclosure, keys } = await rooms();
    expect(enclosure.releaseFrom(VAULT.x, VAULT.y, keys())).toEqual({ x: 5, y: 3, door: "vault door" });
    doors.set(CORRIDOR.x, CORRIDOR.y, "close");
    // Below the closed corridor door: it can open it, so it stays; in the door it is moved off, toward the spawn.
    expect(enclosure.releaseFrom(2, 6, keys())).toBeNull();
    expect(enclosure.releaseFrom(CORRIDOR.x, CORRIDOR.y, keys())).toEqual({ x: 3, y: 4, door: null });
  });

  it("follows tile changes: a wall opened between the vault and an island shuts the island in behind the vault door", async () => {
    const { world, doors, enclosure, keys } = await rooms();
    expect(enclosure.releaseFrom(9, 6, keys())).toBeNull();
    expect(enclosure.releaseFrom(4, 2, keys())).toBeNull();
    expect(enclosure.stats.outsideBuilds).toBe(1);
    // A door's tile changing does not make the cells reached through no door be found again…
    doors.set(CORRIDOR.x, CORRIDOR.y, "close");
    expect(enclosure.releaseFrom(4, 2, keys())).toBeNull();
    expect(enclosure.stats.outsideBuilds).toBe(1);
    // …another tile does (a script's tile.set, a reloaded map).
    expect(world.setTile(10, 5, NPC_FLOOR)).toBe(true);
    expect(enclosure.releaseFrom(9, 6, keys())).toEqual({ x: 5, y: 3, door: "vault door" });
    expect(enclosure.stats.outsideBuilds).toBe(2);
  });

  it("is left alone where it can leave, where no door is locked, and where no door is what holds it", async () => {
    const { doors, enclosure, keys } = await rooms();
    expect(enclosure.releaseFrom(4, 2, keys())).toBeNull();
    // An island of floor no way reaches: not shut in by a door, nothing this rule can do.
    expect(enclosure.releaseFrom(9, 6, keys())).toBeNull();
    doors.set(VAULT.x, VAULT.y, "unlock");
    doors.set(INNER.x, INNER.y, "open");
    expect(doors.anyLocked()).toBe(false);
    expect(enclosure.releaseFrom(13, 3, keys())).toBeNull();
    expect(enclosure.stats.released).toBe(0);
  });
});
