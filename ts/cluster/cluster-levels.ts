// Dungeon levels in a cluster (docs/scaling.md § Dungeon levels, docs/dungeons.md § In a cluster). A level
// instance is held by one region — the one whose ground holds the map's stairs down its chain of levels starts
// from — so everyone who goes down the same stairs is in the same level, whichever region they came from:
//
// - **Stairs pull.** Only the stairs' region follows them (GameOptions.dungeonShare.followsStairs). A player of
//   a neighbour may stand on them (a player is handed over only HANDOFF_MARGIN_TILES into a neighbour's
//   ground, and stairs may lie on a border column, as the bundled map's far stairs do): it is handed to the
//   stairs' region at once, which takes it down (its stairs were stepped on; Game.arrivedAt).
// - **Slots of its own.** The world lays out every region's level slots, and region r fills its own
//   `levelSlots` of them (from r × levelSlots on): a level's cells are the same in every process and no two
//   regions' levels share one, so a position names its level world-wide (a checkpoint, a party member's place,
//   the console's map).
// - **A level is no border.** The slots lie beyond the map, apart from every region's ground (the layout's
//   rectangles are the map's): nothing standing in a level is handed over by the border rule, or published to
//   a neighbour as a ghost — only its region plays it.
// - **Its piles** are read by its region only (keepsLevel), those of a level no stairs lead to any more by the
//   region that holds the stairs they are put on (the map's first stairs down: ChestsAndPiles.settleLevelPiles).
import type { DungeonShare } from "../server/game-options.js";
import { levelsBelow } from "../server/dungeon/levels.js";
import type { LevelIdentity } from "../server/persistence/item-store.js";
import { type AreaRect, inArea, type WorldWarp } from "../server/world/areas.js";
import { type ClusterLayout, regionOfTile } from "./layout.js";

/** Which of the world's level slots region `region` fills, and which stairs it follows. */
export function dungeonShareOf(
  layout: ClusterLayout,
  region: number,
  slotsPerRegion: number,
  stairs: readonly WorldWarp[],
): DungeonShare {
  return {
    worldSlots: slotsPerRegion * layout.regionCount,
    firstSlot: region * slotsPerRegion,
    followsStairs: (x, y) => stairsRegion(layout, stairs, x, y) === region,
  };
}

/** The region holding the levels below the stairs down covering (x, y); -1 when no stairs down cover it. */
function stairsRegion(layout: ClusterLayout, stairs: readonly WorldWarp[], x: number, y: number): number {
  for (const warp of stairs) {
    if (warp.stairs !== "down" || !inArea(warp, x, y)) continue;
    // A stairs object's cells are its top-left cell's region's, all of them (one rule, wherever it is asked).
    return regionOfTile(layout, warp.x, warp.y);
  }
  return -1;
}

export class ClusterLevels {
  /** Each level a map's stairs lead to (`seed:depth`) and the stairs its chain starts from. */
  private readonly roots: Map<string, WorldWarp>;
  /** Every level slot of the world (World.levelSlots), once the region's Game laid them out (placed). */
  private slots: readonly AreaRect[] = [];

  constructor(
    private readonly layout: ClusterLayout,
    private readonly region: number,
    /** The map's stairs (world tiles). */
    private readonly stairs: readonly WorldWarp[],
    private readonly options: {
      dungeonSeed: number;
      levelSize: number;
      /** Where the piles of a level no stairs lead to any more are put (the map's first stairs down). */
      settleTo: { x: number; y: number };
    },
  ) {
    this.roots = levelsBelow(
      options.dungeonSeed,
      stairs.filter((warp) => warp.stairs === "down"),
    );
  }

  /** The world's level slots, as the region's Game laid them out (none: a world without levels). */
  placed(slots: readonly AreaRect[]): void {
    this.slots = slots;
  }

  /** Whether (x, y) lies in a level slot (any region's): never handed over by the border rule, never a ghost. */
  inLevel(x: number, y: number): boolean {
    for (const slot of this.slots) if (inArea(slot, x, y)) return true;
    return false;
  }

  /**
   * The region a player standing on (x, y) is handed to because it stands on that region's stairs down, or
   * -1 (no stairs there, or this region's own, or no levels in this world).
   */
  pulledTo(x: number, y: number): number {
    if (this.slots.length === 0) return -1;
    const holder = stairsRegion(this.layout, this.stairs, x, y);
    return holder === this.region ? -1 : holder;
  }

  /**
   * Whether the piles kept with `level` are this region's to read and bring back: it holds the level (its
   * stairs are on this region's ground); or no stairs lead to it any more and this region holds the place
   * such piles are put (`settleTo`).
   */
  keepsLevel(level: LevelIdentity): boolean {
    const root = level.size === this.options.levelSize ? this.roots.get(`${level.seed}:${level.depth}`) : undefined;
    const at = root ?? this.options.settleTo;
    return regionOfTile(this.layout, at.x, at.y) === this.region;
  }
}
