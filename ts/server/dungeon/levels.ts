// Dungeon levels in the running world (issue 15, docs/dungeons.md § Where
// levels live). Stairs down in a map lead to a level of depth 1; each level has
// stairs up (where players arrive) and stairs down to the next depth. A level
// is generated when the first player takes the stairs to it — in the worker
// (level-generator.ts), so the tick never waits; the player stays on the
// stairs until it is ready — and lives in one of the world's level slots
// (P-24: a fixed number of fixed-size rectangles beside the maps, areas.ts).
// It is kept while anyone is in it and for keepEmptyMs after; then, or when
// its slot is wanted and it is the level empty the longest, it is dropped. A
// level is its seed and depth: the seed of the one below follows from them,
// the seed of a first level from the world's dungeon seed and the stairs' tile,
// so a dropped level comes back tile for tile when someone returns.
//
// Coming alive, a level's creature spawns join the NPC room and its chests
// the item room (their contents stored per level, so a looted chest stays
// looted); dropped, both go. Its doors (at room entrances) join the door room
// closed, and leave it with the level: the slot's cells are cleared, so a door
// opened in it is forgotten and the level comes back with every door shut. The piles left in it stay with it: stored with
// its seed, depth and size at level-relative cells, out of the world while it
// is dropped, back at their cells when it is generated again (in whatever slot).
// Up from a first level leads to the stairs that led down; up from a deeper
// one to the stairs down of the level above.
//
// A character saved in a level (issue 41) is saved with the level's identity and
// its cell in it (`placeOf`); at its next login `bringBack` makes the level come
// back from its seed as the stairs do — the player waits on the map's stairs it
// came by — and puts it at that cell (on the stairs up when the cell is no longer
// free). Only a level this world can never enter again (`canComeBack`: another
// dungeon seed, stairs moved), or no slot free, leaves it on the map's stairs.
import { performance } from "node:perf_hooks";
import type { WorldTape } from "../ops/world-tape.js";
import type { NpcKind } from "../content/npc-kinds.js";
import { npcSpawnsOf } from "../content/npc-spawns.js";
import type { NpcRoom } from "../npc/npc-room.js";
import type { ItemRoom } from "../items/item-room.js";
import type { ItemCatalogue } from "../content/item-catalogue.js";
import type { LevelIdentity } from "../persistence/item-store.js";
import type { DungeonPlace } from "../persistence/character-store.js";
import type { SavedPlace } from "../persistence/character-saver.js";
import { chestsOf } from "../content/item-specs.js";
import { type AreaRect, inArea, type WorldWarp } from "../world/areas.js";
import type { Doors } from "../world/doors.js";
import type { Logger } from "../ops/log.js";
import { CAVE_TILE } from "../map/generate-caves.js";
import type { Session } from "../sessions/session.js";
import type { Warps } from "../world/warps.js";
import type { World } from "../world/world.js";
import type { MapObject } from "../content/map-object.js";
import { DUNGEON_MAX_DEPTH, type GeneratedDungeon } from "./generate-dungeon.js";

export interface LevelPorts {
  world: Pick<World, "levelSlots" | "fillSlot" | "clearSlot" | "walkable">;
  warps: Pick<Warps, "teleport" | "add" | "remove">;
  npcs: Pick<NpcRoom, "addSpawns" | "removeSpawns">;
  items: Pick<ItemRoom, "addChests" | "removeChests" | "stowPiles" | "bringBackPiles">;
  doors: Pick<Doors, "add" | "remove">;
  /** The world's creature kinds and item catalogue: what a level's spawns and chests name. */
  kinds: readonly NpcKind[];
  catalogue: ItemCatalogue;
  /** The sessions in play (where their players stand), and whether one still is. */
  sessions: { values(): Iterable<Session>; byEntityId(entityId: number): Session | undefined };
  generator: { generate(seed: number, depth: number, size: number): Promise<GeneratedDungeon> };
  log: Logger;
  /** The clock a level left empty ages by, and how many finished levels a tick puts in: the world's tape. */
  tape: Pick<WorldTape, "now" | "sample">;
}

export interface LevelOptions {
  /** Edge of a generated level in tiles (≤ the slots' edge). */
  levelSize: number;
  /** How long a level nobody is in is kept. */
  keepEmptyMs: number;
  /** The world's dungeon seed (GameOptions.dungeonSeed). */
  seed: number;
  /** The map's stairs down (world tiles): what every first level's seed follows from. */
  stairs: readonly { x: number; y: number }[];
  /**
   * Whether the levels below the map's stairs down at (x, y) are held here. In one process all are; a
   * cluster's region holds those below the stairs on its ground (ts/cluster/cluster-levels.ts), and a
   * character saved below another region's stairs waits on them to be handed there (bringBack: "elsewhere").
   */
  follows?: (x: number, y: number) => boolean;
}

export interface LevelStats {
  generated: number;
  dropped: number;
  /** Stairs taken while every slot held a level someone was in: the player stays where it is. */
  refused: number;
  /** Characters saved in a level brought back into it at a login; those whose level could never come back. */
  broughtBack: number;
  cannotComeBack: number;
  failed: number;
  /** Milliseconds the tick spent putting finished levels into the world (fillSlot, spawns, chests). */
  installMs: number[];
}

/** Which level: the seed and depth make its tiles; `parent` is the level above (null: a map's stairs at upX, upY). */
interface LevelId {
  key: string;
  seed: number;
  depth: number;
  parent: string | null;
  upX: number;
  upY: number;
}

interface Level {
  id: LevelId;
  slot: number;
  area: AreaRect;
  ready: boolean;
  /** World tiles of the stairs up (arrival from above) and down (arrival from below). */
  entry: { x: number; y: number };
  exit: { x: number; y: number };
  waiting: { session: Session; to: Arrival }[];
  emptySinceMs: number | null;
  warps: WorldWarp[];
  spawns: readonly object[];
  chests: number[];
  /** Entity ids of its doors in the door room. */
  doors: number[];
}

/** Where a player arrives in a level: on its stairs up (from above), its stairs down (from below), or at a cell of it. */
type Arrival = "entry" | "exit" | { x: number; y: number };

/** What became of a character saved in a level at its login (DungeonLevels.bringBack). */
export type BroughtBack =
  /** In the level, at its cell (or waiting on the map's stairs until the level is made). */
  | "back"
  /** The world can never enter that level again: it stays on the map's stairs. */
  | "gone"
  /** Every level slot holds a level someone is in: it stays on the map's stairs. */
  | "crowded"
  /**
   * The level lies below stairs this process does not follow (a cluster's other region's): it waits on those
   * stairs, saved as below them still, for that region to take it down (ts/cluster/cluster-levels.ts).
   */
  | "elsewhere";

/** One round of a 32-bit mix (splitmix-like): a child seed from a parent's and a number. */
export function levelSeed(parent: number, salt: number): number {
  let h = (parent ^ Math.imul(salt + 0x9e3779b9, 0x85ebca6b)) >>> 0;
  h = Math.imul(h ^ (h >>> 16), 0x7feb352d) >>> 0;
  h = Math.imul(h ^ (h >>> 15), 0x846ca68b) >>> 0;
  return (h ^ (h >>> 16)) >>> 0;
}

/** The seed of the first level below a map's stairs down at world tile (x, y). */
function firstLevelSeed(dungeonSeed: number, stairs: { x: number; y: number }): number {
  return levelSeed(dungeonSeed, stairs.y * 65536 + stairs.x);
}

/**
 * Every level the map's `stairs` down lead to (99 below each), by key `seed:depth`, with the stairs its chain
 * starts from: the levels a world can ever enter again (canComeBack), and in a cluster which region holds
 * each (the one whose ground holds those stairs: ts/cluster/cluster-levels.ts). The first stairs win a key
 * two chains share (a 2⁻³² chance).
 */
export function levelsBelow<S extends { x: number; y: number }>(
  dungeonSeed: number,
  stairs: readonly S[],
): Map<string, S> {
  const below = new Map<string, S>();
  for (const each of stairs) {
    let seed = firstLevelSeed(dungeonSeed, each);
    for (let depth = 1; depth <= DUNGEON_MAX_DEPTH; depth++) {
      const key = `${seed}:${depth}`;
      if (!below.has(key)) below.set(key, each);
      seed = levelSeed(seed, depth + 1);
    }
  }
  return below;
}

export class DungeonLevels {
  private readonly bySlot: (Level | null)[];
  private readonly byKey = new Map<string, Level>();
  /** Every level ever entered, by key: what a dropped parent is regenerated from. Bounded by maps' stairs × depth. */
  private readonly known = new Map<string, LevelId>();
  /** Levels the worker finished, waiting for the tick to put them in the world. */
  private readonly finished: { level: Level; generated: GeneratedDungeon | null; error: string }[] = [];
  /** Levels being generated (a replay waits for them before each tick: generated()). */
  private readonly generating = new Set<Promise<void>>();
  readonly stats: LevelStats = {
    generated: 0,
    dropped: 0,
    refused: 0,
    failed: 0,
    broughtBack: 0,
    cannotComeBack: 0,
    installMs: [],
  };
  /** Players on their way back into the level they were saved in (by entity id): saved there while they wait. */
  private readonly returning = new Map<number, { stairs: { x: number; y: number }; place: DungeonPlace }>();
  /** Keys (seed:depth) of every level the map's stairs lead to, for canComeBack; built on first use. */
  private reachable: Map<string, unknown> | null = null;

  constructor(
    private readonly ports: LevelPorts,
    private readonly options: LevelOptions,
  ) {
    this.bySlot = ports.world.levelSlots.map(() => null);
  }

  /**
   * Which level a world cell lies in — its identity (seed, depth, size: what regenerates it tile for
   * tile) and the cell relative to its corner — or null outside every level. How a pile dropped in a
   * level is stored, so it comes back with the level.
   */
  levelOf(x: number, y: number): { level: LevelIdentity; x: number; y: number } | null {
    const level = this.levelAt(x, y);
    if (level === null) return null;
    return { level: this.identityOf(level.id), x: x - level.area.x, y: y - level.area.y };
  }

  /**
   * Whether a level with this identity is ever entered again in this world: its seed and depth lie on
   * the chain below one of the map's stairs down (the seeds follow from the dungeon seed and the stairs'
   * tiles alone) and its size is the world's. Piles kept with one that cannot are put on the map at start.
   */
  canComeBack(level: LevelIdentity): boolean {
    if (this.bySlot.length === 0 || level.size !== this.options.levelSize) return false;
    // 99 seeds a stairs: computed once, at the first question (start-up).
    this.reachable ??= levelsBelow(this.options.seed, this.options.stairs);
    return this.reachable.has(`${level.seed}:${level.depth}`);
  }
  /**
   * At start: piles kept with dungeon levels wait for them; those of a level this world can never enter
   * again go to `to` (the map's first stairs down, or its first spawn point). Rows from before migration
   * 0006 lying in a slot name no level: they go there too (docs/dungeons.md § Saved in a level).
   */
  settleKeptPiles(
    items: Pick<ItemRoom, "settleLevelPiles" | "movePiles">,
    to: { x: number; y: number } | undefined,
  ): void {
    if (to === undefined) return;
    items.settleLevelPiles((level) => this.canComeBack(level), to);
    for (const slot of this.ports.world.levelSlots) items.movePiles(slot, to.x, to.y);
  }

  private identityOf(id: LevelId): LevelIdentity {
    return { seed: id.seed, depth: id.depth, size: this.options.levelSize };
  }

  /** The level slots this process fills (a cluster's region: its share of the world's). */
  get slots(): number {
    return this.bySlot.length;
  }

  /** Levels held now (generating or ready). */
  get size(): number {
    return this.byKey.size;
  }

  /** The level held in `slot`, for tests and /api/status: its seed, depth and whether it is ready. */
  inSlot(slot: number): { seed: number; depth: number; ready: boolean; players: boolean } | null {
    const level = this.bySlot[slot];
    return level
      ? { seed: level.id.seed, depth: level.id.depth, ready: level.ready, players: level.emptySinceMs === null }
      : null;
  }

  /**
   * Where a character's entity is saved (docs/dungeons.md § Saved in a level): on a map, its cell; in a
   * level — or waiting on the map's stairs to be brought back into one — the level's identity and the cell
   * in it, with the map's stairs down it is reached from through every level above it (levels are dropped
   * and do not outlive the process: a level is regenerated from its seed; the stairs are where it comes
   * back when the level cannot).
   */
  placeOf(entity: { readonly id: number; readonly x: number; readonly y: number }): SavedPlace {
    const { x, y } = entity;
    const level = this.levelAt(x, y);
    if (level !== null) {
      const { id, area } = level;
      const stairs = this.rootStairs(id);
      const size = this.options.levelSize;
      return { ...stairs, dungeon: { seed: id.seed, depth: id.depth, size, x: x - area.x, y: y - area.y } };
    }
    const returning = this.returning.get(entity.id);
    if (returning !== undefined) return { ...returning.stairs, dungeon: returning.place };
    return { x, y, dungeon: null };
  }

  /**
   * A character saved in a level logs in (issue 41): its player, put on the map's stairs down it came by,
   * goes back into the level — regenerated from its seed in the worker if it is not held, the player
   * waiting on the stairs meanwhile, as one who takes them does — at its saved cell, or on the level's
   * stairs up when that cell is no longer free (only a changed generator can do that). "gone" when this
   * world can never enter that level again, "crowded" when no slot is free: it stays on the stairs.
   */
  bringBack(session: Session, place: DungeonPlace): BroughtBack {
    const level = { seed: place.seed, depth: place.depth, size: place.size };
    const chain = this.canComeBack(level) ? this.chainTo(place.seed, place.depth) : null;
    if (chain === null) {
      this.stats.cannotComeBack++;
      return "gone";
    }
    const stairs = this.rootStairs(chain);
    if (this.options.follows !== undefined && !this.options.follows(stairs.x, stairs.y)) {
      // Another region's stairs: the player waits on them, still saved below, until that region takes it.
      this.returning.set(session.entity.id, { stairs, place });
      return "elsewhere";
    }
    const to = { x: place.x, y: place.y };
    if (!this.go(session, chain, to)) return "crowded";
    this.stats.broughtBack++;
    if (this.levelAt(session.entity.x, session.entity.y) === null) {
      this.returning.set(session.entity.id, { stairs, place });
    }
    return "back";
  }

  /**
   * The level `seed` at `depth` as the stairs would reach it: every level from the map's stairs down to it
   * known (with its parent), so its stairs up lead where they would. Null when no stairs of this world lead there.
   */
  private chainTo(seed: number, depth: number): LevelId | null {
    for (const stairs of this.options.stairs) {
      // The first level's stairs up lead to these stairs; each deeper one's to the level above.
      const first = firstLevelSeed(this.options.seed, stairs);
      let id: LevelId = { key: `${first}:1`, seed: first, depth: 1, parent: null, upX: stairs.x, upY: stairs.y };
      const ids = [id];
      for (let down = 2; down <= depth; down++) {
        const below: number = levelSeed(id.seed, down);
        id = { key: `${below}:${down}`, seed: below, depth: down, parent: id.key, upX: 0, upY: 0 };
        ids.push(id);
      }
      if (id.seed !== seed || id.depth !== depth) continue;
      // Known from here on, as if the stairs had been taken all the way down.
      for (const each of ids) if (!this.known.has(each.key)) this.known.set(each.key, each);
      return this.known.get(id.key)!;
    }
    return null;
  }

  /** The map's stairs down a chain of levels starts from. */
  private rootStairs(from: LevelId): { x: number; y: number } {
    let id = from;
    // Each parent was known before its child was made, and `known` forgets nothing.
    while (id.parent !== null) id = this.known.get(id.parent)!;
    return { x: id.upX, y: id.upY };
  }

  /** A player stepped onto stairs (the warps room calls this). */
  onStairs(session: Session, warp: WorldWarp): void {
    const from = this.levelAt(warp.x, warp.y);
    if (from === null) {
      // A map's stairs: down to a first level; stairs up in a map lead nowhere.
      if (warp.stairs !== "down") return;
      const seed = firstLevelSeed(this.options.seed, warp);
      this.go(session, this.idOf(seed, 1, null, warp.x, warp.y), "entry");
      return;
    }
    const { id } = from;
    if (warp.stairs === "down") {
      if (id.depth >= DUNGEON_MAX_DEPTH) return;
      this.go(session, this.idOf(levelSeed(id.seed, id.depth + 1), id.depth + 1, id.key, 0, 0), "entry");
    } else if (id.parent === null) {
      this.ports.warps.teleport(session.entity, id.upX, id.upY);
    } else {
      this.go(session, this.known.get(id.parent)!, "exit");
    }
  }

  /** Resolves once every level asked for is generated (a replay's tick waits on it: the tape says which are in). */
  async generated(): Promise<void> {
    while (this.generating.size > 0) await Promise.all([...this.generating]);
  }

  /** Each tick: finished levels come alive and their waiting players arrive; once a second (`second`), the empty ones age. */
  endTick(second: boolean): void {
    // How many levels the generator has finished by now is the machine's doing, not the world's: on the
    // tape, so a replay (which waits for its generator: generated()) puts them in at the same ticks.
    const ready = this.ports.tape.sample(this.finished.length);
    if (ready > this.finished.length)
      throw new Error(`${ready} levels due at this tick, ${this.finished.length} finished`);
    for (let index = 0; index < ready; index++) this.install(this.finished.shift()!);
    if (second) this.age();
  }

  private idOf(seed: number, depth: number, parent: string | null, upX: number, upY: number): LevelId {
    const key = `${seed}:${depth}`;
    let id = this.known.get(key);
    if (id === undefined) {
      id = { key, seed, depth, parent, upX, upY };
      this.known.set(key, id);
    }
    return id;
  }

  private levelAt(x: number, y: number): Level | null {
    for (const level of this.bySlot) if (level !== null && inArea(level.area, x, y)) return level;
    return null;
  }

  /** Sends `session` into the level `id` (made if it is not held); false when every slot holds a level someone is in. */
  private go(session: Session, id: LevelId, to: Arrival): boolean {
    const level = this.byKey.get(id.key) ?? this.create(id);
    if (level === null) {
      this.stats.refused++;
      this.ports.log.info("stairs refused: every level slot holds a level someone is in", { level: id.key });
      return false;
    }
    if (level.ready) this.arrive(session, level, to);
    else level.waiting.push({ session, to });
    return true;
  }

  /** Puts `session`'s player into the ready `level`: on its stairs, or at a cell of it (its stairs up if not free). */
  private arrive(session: Session, level: Level, to: Arrival): void {
    this.returning.delete(session.entity.id);
    let at = typeof to === "string" ? level[to] : { x: level.area.x + to.x, y: level.area.y + to.y };
    if (typeof to !== "string" && !(inArea(level.area, at.x, at.y) && this.ports.world.walkable(at.x, at.y))) {
      this.ports.log.warn("a saved cell of a level is not free: the player arrives on its stairs up", {
        level: level.id.key,
        x: to.x,
        y: to.y,
      });
      at = level.entry;
    }
    this.ports.warps.teleport(session.entity, at.x, at.y);
  }

  /** A level for `id` in a free slot, or in the slot of the level empty the longest; null when all are in use. */
  private create(id: LevelId): Level | null {
    let slot = this.bySlot.indexOf(null);
    if (slot < 0) {
      let oldest: Level | null = null;
      for (const level of this.bySlot) {
        if (level === null || !level.ready || level.emptySinceMs === null || level.waiting.length > 0) continue;
        if (oldest === null || level.emptySinceMs < oldest.emptySinceMs!) oldest = level;
      }
      if (oldest === null) return null;
      slot = oldest.slot;
      this.drop(oldest);
    }
    const area = this.ports.world.levelSlots[slot];
    const level: Level = {
      id,
      slot,
      area,
      ready: false,
      entry: { x: 0, y: 0 },
      exit: { x: 0, y: 0 },
      waiting: [],
      emptySinceMs: null,
      warps: [],
      spawns: [],
      chests: [],
      doors: [],
    };
    this.bySlot[slot] = level;
    this.byKey.set(id.key, level);
    const generating = this.ports.generator.generate(id.seed, id.depth, this.options.levelSize).then(
      (generated) => void this.finished.push({ level, generated, error: "" }),
      (error: unknown) => void this.finished.push({ level, generated: null, error: String(error) }),
    );
    this.generating.add(generating);
    void generating.finally(() => this.generating.delete(generating));
    return level;
  }

  /** Puts a finished level into its slot, brings its creatures and chests, and lets its waiting players in. */
  private install({
    level,
    generated,
    error,
  }: {
    level: Level;
    generated: GeneratedDungeon | null;
    error: string;
  }): void {
    if (this.bySlot[level.slot] !== level) return;
    if (generated === null) {
      this.stats.failed++;
      this.ports.log.error("dungeon level generation failed", { level: level.id.key, error });
      this.bySlot[level.slot] = null;
      this.byKey.delete(level.id.key);
      // Those on their way back into it stay on the stairs and are saved there from now on.
      for (const { session } of level.waiting) this.returning.delete(session.entity.id);
      return;
    }
    const startMs = performance.now();
    const { world, warps } = this.ports;
    const { area } = level;
    world.fillSlot(level.slot, generated.tiles, generated.width, generated.height);
    level.entry = { x: area.x + generated.entry.x, y: area.y + generated.entry.y };
    level.exit = { x: area.x + generated.exit.x, y: area.y + generated.exit.y };
    const stairs = (name: string, at: { x: number; y: number }, way: "up" | "down"): WorldWarp => ({
      name,
      file: `level ${level.id.key}`,
      objectId: 0,
      x: at.x,
      y: at.y,
      width: 1,
      height: 1,
      to: null,
      stairs: way,
    });
    level.warps = [stairs("stairs up", level.entry, "up")];
    if (level.id.depth < DUNGEON_MAX_DEPTH) level.warps.push(stairs("stairs down", level.exit, "down"));
    warps.add(level.warps);
    // Levels are made of the built-in tiles (a world with its own art has no slots), so their door pair.
    level.doors = this.ports.doors.add(
      generated.doors.map((door, index) => ({
        id: index + 1,
        name: "",
        x: area.x + door.x,
        y: area.y + door.y,
        closedTile: CAVE_TILE.door,
        openTile: CAVE_TILE.openDoor,
        open: false,
        locked: false,
        key: null,
      })),
    );
    const file = `dungeon level ${level.id.key}`;
    try {
      // The level's objects read by the maps' own readers, so a level's spawns and chests obey the maps' rules.
      const objects: MapObject[] = generated.spawns.map((spawn, index) => ({
        id: index + 1,
        name: `${spawn.kind} ${index + 1}`,
        type: "npc_spawn",
        layer: "npcs",
        x: area.x + spawn.x,
        y: area.y + spawn.y,
        width: spawn.width,
        height: spawn.height,
        point: false,
        properties: { kind: spawn.kind, count: spawn.count },
      }));
      level.spawns = this.ports.npcs.addSpawns(
        npcSpawnsOf(objects, this.ports.kinds, (x, y) => world.walkable(x, y), file, "the world's kinds"),
      );
      const chests = chestsOf(
        generated.chests.map((chest, index) => ({
          id: index + 1,
          name: "chest",
          kind: "chest",
          x: area.x + chest.x,
          y: area.y + chest.y,
          properties: { kind: "chest", items: chest.items },
        })),
        this.ports.catalogue,
        file,
      );
      level.chests = this.ports.items.addChests(chests, `level:${level.id.key}`);
    } catch (failure) {
      // A world whose kinds or catalogue lack what levels name still has levels: without those creatures or chests.
      this.ports.log.warn("dungeon level without its creatures or chests", {
        level: level.id.key,
        error: String(failure),
      });
    }
    // What players left in it lies where they left it (stored at level-relative cells, so any slot will do).
    this.ports.items.bringBackPiles(this.identityOf(level.id), area, (x, y) => world.walkable(x, y), level.entry);
    level.ready = true;
    this.stats.generated++;
    for (const { session, to } of level.waiting.splice(0)) {
      if (this.ports.sessions.byEntityId(session.entity.id) === session) this.arrive(session, level, to);
    }
    const installMs = this.stats.installMs;
    installMs.push(performance.now() - startMs);
    if (installMs.length > 64) installMs.shift();
  }

  /** Marks levels empty or not, and drops those empty for keepEmptyMs. */
  private age(): void {
    const nowMs = this.ports.tape.now();
    for (const entityId of this.returning.keys()) {
      if (this.ports.sessions.byEntityId(entityId) === undefined) this.returning.delete(entityId);
    }
    const occupied = new Uint8Array(this.bySlot.length);
    for (const session of this.ports.sessions.values()) {
      const { x, y } = session.entity;
      const level = this.levelAt(x, y);
      if (level !== null) occupied[level.slot] = 1;
    }
    for (const level of this.bySlot) {
      if (level === null || !level.ready) continue;
      if (occupied[level.slot] === 1) level.emptySinceMs = null;
      else if (level.emptySinceMs === null) level.emptySinceMs = nowMs;
      else if (nowMs - level.emptySinceMs >= this.options.keepEmptyMs && level.waiting.length === 0) this.drop(level);
    }
  }

  private drop(level: Level): void {
    // What was left lying in it stays with it, out of the world until it comes back (docs/dungeons.md).
    this.ports.items.stowPiles(level.area);
    this.ports.warps.remove(level.warps);
    this.ports.npcs.removeSpawns(level.spawns);
    this.ports.items.removeChests(level.chests);
    this.ports.doors.remove(level.doors);
    this.ports.world.clearSlot(level.slot);
    this.bySlot[level.slot] = null;
    this.byKey.delete(level.id.key);
    this.stats.dropped++;
  }
}
