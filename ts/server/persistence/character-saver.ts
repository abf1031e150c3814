// When characters are written: the save policy of docs/persistence.md.
// Each played character's last saved state is remembered; `saveChanged` (run
// every SAVE_INTERVAL_MS by the game) writes only the characters whose state
// differs from it, all in one transaction, so an idle server writes nothing and
// a busy one commits once per interval. A character is also saved when its
// session ends and, all together, on clean shutdown. One in a dungeon level is
// saved with the level's identity and its cell in it, and the map's stairs down
// it came by (dungeon/levels.ts, placeOf): a level is regenerated from its seed.
import type { Entity } from "../entities/entities.js";
import type { CharacterState, DungeonPlace } from "./character-store.js";

/** Where a character is saved: a map's cell, or a dungeon level's with the map's stairs down to it. */
export interface SavedPlace {
  x: number;
  y: number;
  dungeon: DungeonPlace | null;
}

/**
 * Where saved characters go: the SQLite CharacterStore of one process, or a cluster's shared
 * PostgreSQL store (ts/cluster/pg-accounts.ts), which writes asynchronously and only the characters
 * this process holds the right to write.
 */
export interface CharacterSink {
  /** Writes every row together: all of them land, or none. */
  saveMany(rows: readonly { accountId: number; state: CharacterState }[], nowMs: number): void;
  /** The character left this process: after its last save, the right to write it is given back. */
  releaseCharacter?(accountId: number): void;
  /**
   * A character handed over by another process of the world plays here from now on: its saves wait
   * until that process has written its last one and given the right to write it back.
   */
  takeCharacter?(accountId: number): void;
}

/** How often changed characters are written: a crash loses at most this much play (plus one tick). */
export const SAVE_INTERVAL_MS = 500;

export interface PlayedCharacter {
  readonly accountId: number;
  readonly entity: Entity;
}

export interface SaveStats {
  /** Transactions committed and character rows written by them. */
  batches: number;
  rows: number;
  lastBatchMs: number;
}

export class CharacterSaver {
  /** Last state written (or loaded) per account in play. */
  private readonly saved = new Map<number, CharacterState>();
  private readonly batch: { accountId: number; state: CharacterState }[] = [];
  readonly stats: SaveStats = { batches: 0, rows: 0, lastBatchMs: 0 };

  /**
   * `placeOf` is where a character's entity is saved: its cell, except in a dungeon level (or on its way
   * back into one), which does not outlive the process — there the level's identity and the cell in it,
   * with the map's stairs down it came by (dungeon/levels.ts).
   */
  constructor(
    private readonly store: CharacterSink,
    private readonly mapName: string,
    private readonly placeOf: (entity: Entity) => SavedPlace = ({ x, y }) => ({ x, y, dungeon: null }),
  ) {}

  /** Starts tracking a character that entered the world; `state` is what the database holds now. */
  track(character: PlayedCharacter, state: CharacterState): void {
    this.saved.set(character.accountId, state);
  }

  /** Starts tracking a character handed over by another process (as it stands), and takes the right to write it. */
  adopt(character: PlayedCharacter): void {
    this.saved.set(character.accountId, this.stateOf(character.entity));
    this.store.takeCharacter?.(character.accountId);
  }

  /** Writes the characters whose state changed since their last save, in one transaction. */
  saveChanged(characters: Iterable<PlayedCharacter>, nowMs: number): void {
    this.batch.length = 0;
    for (const character of characters) {
      const state = this.stateOf(character.entity);
      const saved = this.saved.get(character.accountId);
      if (!saved || !sameState(saved, state)) this.batch.push({ accountId: character.accountId, state });
    }
    this.commit(nowMs);
  }

  /**
   * Saves one character whose session ends (if it changed) and stops tracking it; `release` gives
   * back the right to write it (false when a new session here goes on with it).
   */
  saveAndForget(character: PlayedCharacter, nowMs: number, release = true): void {
    this.saveChanged([character], nowMs);
    this.saved.delete(character.accountId);
    if (release) this.store.releaseCharacter?.(character.accountId);
  }

  private commit(nowMs: number): void {
    if (this.batch.length === 0) return;
    const started = performance.now();
    this.store.saveMany(this.batch, nowMs);
    for (const { accountId, state } of this.batch) this.saved.set(accountId, state);
    this.stats.batches++;
    this.stats.rows += this.batch.length;
    this.stats.lastBatchMs = performance.now() - started;
    this.batch.length = 0;
  }

  /** What a save of `entity` now would write. */
  stateOf(entity: Entity): CharacterState {
    const { x, y, dungeon } = this.placeOf(entity);
    return { map: this.mapName, x, y, hp: entity.hp, hpMax: entity.hpMax, elo: entity.elo, xp: entity.xp, dungeon };
  }
}

function sameState(a: CharacterState, b: CharacterState): boolean {
  return (
    a.map === b.map &&
    a.x === b.x &&
    a.y === b.y &&
    a.hp === b.hp &&
    a.hpMax === b.hpMax &&
    a.elo === b.elo &&
    a.xp === b.xp &&
    samePlace(a.dungeon ?? null, b.dungeon ?? null)
  );
}

function samePlace(a: DungeonPlace | null, b: DungeonPlace | null): boolean {
  if (a === null || b === null) return a === b;
  return a.seed === b.seed && a.depth === b.depth && a.size === b.size && a.x === b.x && a.y === b.y;
}
