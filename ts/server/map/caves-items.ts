// The bundled map's items: maps/caves.items.json (the item catalogue,
// ts/server/content/item-catalogue.ts) and its chests, written by scripts/make-map.ts
// beside caves.tmj. The numbers sit against the combat formula
// (ts/server/combat/formula.ts): bare hands do 6, a dagger 9 and a short sword
// 12; leather armor 3 and chain mail 6 against a skeleton's attack of 4. The
// rusty key lies in the dusty chest of a far hall and opens the vault door, behind
// which the vault chest holds the best of the catalogue.
import { CAVE_TILE_DATA, type GeneratedCaves } from "./generate-caves.js";
import { ITEM_CATALOGUE_VERSION, type ItemDef } from "../content/item-catalogue.js";

export const CAVE_ITEMS: ItemDef[] = [
  { id: 1, name: "rusty key", kind: "key", stack: 1, sprite: "key", damage: 0, armor: 0, heal: 0 },
  { id: 2, name: "dagger", kind: "weapon", stack: 1, sprite: "dagger", damage: 9, armor: 0, heal: 0 },
  { id: 3, name: "short sword", kind: "weapon", stack: 1, sprite: "sword", damage: 12, armor: 0, heal: 0 },
  { id: 4, name: "leather armor", kind: "armor", stack: 1, sprite: "leather", damage: 0, armor: 3, heal: 0 },
  { id: 5, name: "chain mail", kind: "armor", stack: 1, sprite: "mail", damage: 0, armor: 6, heal: 0 },
  { id: 6, name: "healing potion", kind: "consumable", stack: 10, sprite: "potion", damage: 0, armor: 0, heal: 30 },
  { id: 7, name: "gold coin", kind: "treasure", stack: 999, sprite: "coin", damage: 0, armor: 0, heal: 0 },
  { id: 8, name: "glow crystal", kind: "treasure", stack: 20, sprite: "crystal", damage: 0, armor: 0, heal: 0 },
  // A torch is a poor club (7, one over bare hands) that lights 4 tiles around whoever wields it at night.
  { id: 9, name: "torch", kind: "weapon", stack: 1, sprite: "torch", damage: 7, armor: 0, heal: 0, light: 4 },
];

/** A chest of the bundled map: where it stands and what the map puts in it (the `items` property). */
export interface CaveChest {
  name: string;
  x: number;
  y: number;
  items: string;
}

/**
 * The chests: a supply chest in the great hall for the first minutes (a dagger, a torch for the
 * night and potions), and
 * one in each of three other halls, the farthest holding the rusty key. Each stands on the free
 * floor cell nearest its spot that is not a spawn point, sign or board.
 */
export function caveChests(caves: GeneratedCaves): CaveChest[] {
  const hall = caves.greatHall;
  const centreX = hall.x + Math.floor(hall.width / 2);
  const centreY = hall.y + Math.floor(hall.height / 2);
  const others = caves.halls.filter((other) => other !== hall);
  const far = (rect: { x: number; y: number }) => Math.abs(rect.x - hall.x) + Math.abs(rect.y - hall.y);
  const byDistance = [...others].sort((a, b) => far(a) - far(b) || a.x - b.x || a.y - b.y);
  const wanted: { name: string; x: number; y: number; items: string }[] = [
    { name: "supply chest", x: centreX - 7, y: centreY + 3, items: "dagger, torch, healing potion:2" },
  ];
  const contents = [
    { name: "old chest", items: "gold coin:12, leather armor" },
    { name: "iron chest", items: "short sword, chain mail, gold coin:30" },
    { name: "dusty chest", items: "rusty key, healing potion:3, glow crystal:2" },
  ];
  const picks = [byDistance[0], byDistance[Math.floor(byDistance.length / 2)], byDistance[byDistance.length - 1]];
  picks.forEach((rect, index) => {
    if (rect === undefined) return;
    wanted.push({ ...contents[index], x: rect.x + 1, y: rect.y + 1 });
  });
  const taken = new Set<number>([
    ...caves.spawns.map((spawn) => spawn.y * caves.width + spawn.x),
    caves.sign.y * caves.width + caves.sign.x,
    caves.noticeBoard.y * caves.width + caves.noticeBoard.x,
  ]);
  const chests = wanted.map((chest) => {
    const spot = nearestFree(caves, chest.x, chest.y, taken);
    taken.add(spot.y * caves.width + spot.x);
    return { ...chest, ...spot };
  });
  // The vault's reward: a chest at the far end of the dead end behind the locked door.
  const vaultDoor = caves.doors.find((door) => door.key !== null);
  const deepest = vaultDoor === undefined ? null : deepestBehind(caves, vaultDoor);
  if (deepest !== null)
    chests.push({ name: "vault chest", ...deepest, items: "chain mail, short sword, gold coin:100, glow crystal:5" });
  return chests;
}

/**
 * The walkable cell behind `door` farthest from it: the cells the spawn cannot reach with the door
 * shut (orthogonal steps, every other door open), the last one a search from the door finds.
 */
function deepestBehind(caves: GeneratedCaves, door: { x: number; y: number }): { x: number; y: number } | null {
  const { width, height, tiles } = caves;
  const solid = new Set(
    CAVE_TILE_DATA.filter((tile) => tile.collides && tile.opensTo === undefined).map((tile) => tile.id),
  );
  const doorCell = door.y * width + door.x;
  const walk = (from: number, blocked: number): Int32Array => {
    const distance = new Int32Array(width * height).fill(-1);
    const queue = [from];
    distance[from] = 0;
    for (let head = 0; head < queue.length; head++) {
      const cell = queue[head];
      for (const next of [cell + 1, cell - 1, cell + width, cell - width]) {
        if (next < 0 || next >= tiles.length || next === blocked || distance[next] >= 0 || solid.has(tiles[next]))
          continue;
        distance[next] = distance[cell] + 1;
        queue.push(next);
      }
    }
    return distance;
  };
  const spawn = caves.spawns[0];
  const fromSpawn = walk(spawn.y * width + spawn.x, doorCell);
  const fromDoor = walk(doorCell, -1);
  let best = -1;
  for (let cell = 0; cell < tiles.length; cell++) {
    if (cell === doorCell || fromSpawn[cell] >= 0 || fromDoor[cell] < 0) continue;
    if (best < 0 || fromDoor[cell] > fromDoor[best]) best = cell;
  }
  return best < 0 ? null : { x: best % width, y: Math.floor(best / width) };
}

function nearestFree(
  caves: GeneratedCaves,
  x: number,
  y: number,
  taken: ReadonlySet<number>,
): { x: number; y: number } {
  const collides = new Set(CAVE_TILE_DATA.filter((tile) => tile.collides).map((tile) => tile.id));
  for (let ring = 0; ring < 16; ring++) {
    for (let dy = -ring; dy <= ring; dy++) {
      for (let dx = -ring; dx <= ring; dx++) {
        if (Math.max(Math.abs(dx), Math.abs(dy)) !== ring) continue;
        const cx = x + dx;
        const cy = y + dy;
        if (cx < 0 || cy < 0 || cx >= caves.width || cy >= caves.height) continue;
        const cell = cy * caves.width + cx;
        if (!collides.has(caves.tiles[cell]) && !taken.has(cell)) return { x: cx, y: cy };
      }
    }
  }
  throw new Error(`no free cell near (${x}, ${y}) for a chest`);
}

/** caves.items.json: one item per line. */
export function cavesItemsJson(): string {
  // Only the number an item's kind carries is written (the others are 0, and the parser refuses them).
  const lines = CAVE_ITEMS.map(({ damage, armor, heal, light, ...item }) => {
    const numbers = {
      ...(damage > 0 ? { damage } : {}),
      ...(armor > 0 ? { armor } : {}),
      ...(heal > 0 ? { heal } : {}),
      ...(light ? { light } : {}),
    };
    return "  " + JSON.stringify({ ...item, ...numbers });
  });
  return `{\n "version": ${ITEM_CATALOGUE_VERSION},\n "items": [\n${lines.join(",\n")}\n ]\n}\n`;
}
