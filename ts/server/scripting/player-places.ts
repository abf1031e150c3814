// Where each player stands, as content scripts watch it (docs/content.md § Zones and levels): which of
// the map's named zones (../content/zones.ts) hold it, and how deep in the dungeon it is. The scripting
// room asks once a tick, after the moves; a player who moved is looked up against the zones of the
// chunks it stands in — an index built once, so the cost is per move, not per player × zone — and each
// change comes back as an event: entered or left a zone, reached another depth.
//
// A player's first look (it joined, or a script started watching) counts as arriving: it enters the zones
// it stands in and reaches its depth. A player who leaves the world leaves nothing (its session ends).
import { CHUNK_SIZE } from "../../constants.js";
import type { Zone } from "../content/zones.js";

export type PlaceChange =
  { readonly kind: "enter" | "leave"; readonly zone: Zone } | { readonly kind: "level"; readonly depth: number };

/** Where one player stood at the last look. */
interface Standing {
  x: number;
  y: number;
  /** The zones holding it, in the map's order. */
  zones: readonly Zone[];
  depth: number;
}

export class PlayerPlaces {
  private readonly standing = new WeakMap<object, Standing>();
  /** The zones overlapping each chunk, by chunkKey. */
  private readonly byChunk = new Map<number, Zone[]>();

  constructor(
    readonly zones: readonly Zone[],
    /** The dungeon depth of a world cell: 0 on a map, 1… in a level (../dungeon/levels.ts). */
    private readonly depthAt: (x: number, y: number) => number,
  ) {
    for (const zone of zones) {
      const cx0 = Math.floor(zone.x / CHUNK_SIZE);
      const cy0 = Math.floor(zone.y / CHUNK_SIZE);
      const cx1 = Math.floor((zone.x + zone.width - 1) / CHUNK_SIZE);
      const cy1 = Math.floor((zone.y + zone.height - 1) / CHUNK_SIZE);
      for (let cy = cy0; cy <= cy1; cy++) {
        for (let cx = cx0; cx <= cx1; cx++) {
          const key = chunkKey(cx, cy);
          const list = this.byChunk.get(key);
          if (list === undefined) this.byChunk.set(key, [zone]);
          else list.push(zone);
        }
      }
    }
  }

  /** The zone named `name`, if the map has one. */
  named(name: string): Zone | undefined {
    return this.zones.find((zone) => zone.name === name);
  }

  /**
   * Looks at `player` (keyed by its session object) standing on (x, y): what changed since the last look,
   * leaving before entering, in the zones' map order. Nothing for a player that has not moved.
   */
  look(player: object, x: number, y: number): readonly PlaceChange[] {
    const before = this.standing.get(player);
    if (before !== undefined && before.x === x && before.y === y) return NO_CHANGE;
    const zones = this.zonesAt(x, y);
    const depth = this.depthAt(x, y);
    this.standing.set(player, { x, y, zones, depth });
    const was = before?.zones ?? [];
    const changes: PlaceChange[] = [];
    for (const zone of was) if (!zones.includes(zone)) changes.push({ kind: "leave", zone });
    for (const zone of zones) if (!was.includes(zone)) changes.push({ kind: "enter", zone });
    if (before === undefined ? depth !== 0 : depth !== before.depth) changes.push({ kind: "level", depth });
    return changes;
  }

  /** The zones holding (x, y), in the map's order. */
  zonesAt(x: number, y: number): readonly Zone[] {
    const list = this.byChunk.get(chunkKey(Math.floor(x / CHUNK_SIZE), Math.floor(y / CHUNK_SIZE)));
    if (list === undefined) return NO_ZONES;
    const here = list.filter((z) => x >= z.x && x < z.x + z.width && y >= z.y && y < z.y + z.height);
    return here.length === 0 ? NO_ZONES : here;
  }
}

/** A world is at most 4096 tiles a side (areas.ts GRID_MAX_EDGE_TILES): 256 chunks, one key each. */
function chunkKey(cx: number, cy: number): number {
  return cy * 0x10000 + cx;
}

const NO_CHANGE: readonly PlaceChange[] = [];
const NO_ZONES: readonly Zone[] = [];
