// The characters table: one row per account holding where the character
// stands, its vital numbers and its experience (docs/persistence.md § Schema).
import type Database from "better-sqlite3";
import { HP_MAX_BASE } from "../../progression.js";

/**
 * Where in a dungeon level a character was saved (issue 41): the level's identity (its seed, depth and size:
 * what regenerates it tile for tile) and the cell relative to the level's corner.
 */
export interface DungeonPlace {
  seed: number;
  depth: number;
  size: number;
  x: number;
  y: number;
}

export interface CharacterState {
  /** Map the position belongs to; null (with x, y) until the character was first saved. */
  map: string | null;
  /** On the map; in a dungeon level, the map's stairs down it was reached by (where it comes back if the level cannot). */
  x: number | null;
  y: number | null;
  hp: number;
  hpMax: number;
  elo: number;
  /** Experience: the level, and with it hp_max, follow from it (ts/progression.ts). */
  xp: number;
  /** Where in a dungeon level it stands; null or absent on a map. */
  dungeon?: DungeonPlace | null;
}

/** A brand-new character: no position yet, so it gets a fresh spawn; level 1. */
export const NEW_CHARACTER: CharacterState = {
  map: null,
  x: null,
  y: null,
  hp: HP_MAX_BASE,
  hpMax: HP_MAX_BASE,
  elo: 1000,
  xp: 0,
};

interface CharacterRow {
  map: string | null;
  x: number | null;
  y: number | null;
  hp: number;
  hp_max: number;
  elo: number;
  xp: number;
  dungeon_seed: number | null;
  dungeon_depth: number | null;
  dungeon_size: number | null;
  dungeon_x: number | null;
  dungeon_y: number | null;
}

const DUNGEON_COLUMNS = "dungeon_seed, dungeon_depth, dungeon_size, dungeon_x, dungeon_y";

export class CharacterStore {
  private readonly selectOne: Database.Statement<[number], CharacterRow>;
  private readonly insertOne: Database.Statement;
  private readonly updateOne: Database.Statement;
  private readonly updateXp: Database.Statement;
  private readonly saveBatch: (rows: readonly { accountId: number; state: CharacterState }[], nowMs: number) => void;

  constructor(db: Database.Database) {
    this.selectOne = db.prepare<[number], CharacterRow>(
      `SELECT map, x, y, hp, hp_max, elo, xp, ${DUNGEON_COLUMNS} FROM characters WHERE account_id = ?`,
    );
    this.insertOne = db.prepare(
      "INSERT INTO characters (account_id, map, x, y, hp, hp_max, elo, xp, saved_at_ms) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
    );
    this.updateOne = db.prepare(
      "UPDATE characters SET map = ?, x = ?, y = ?, hp = ?, hp_max = ?, elo = ?, xp = ?, saved_at_ms = ?, " +
        "dungeon_seed = ?, dungeon_depth = ?, dungeon_size = ?, dungeon_x = ?, dungeon_y = ? WHERE account_id = ?",
    );
    this.updateXp = db.prepare("UPDATE characters SET xp = ? WHERE account_id = ?");
    this.saveBatch = db.transaction((rows: readonly { accountId: number; state: CharacterState }[], nowMs: number) => {
      for (const { accountId, state } of rows) {
        const place = state.dungeon ?? null;
        this.updateOne.run(
          state.map,
          state.x,
          state.y,
          state.hp,
          state.hpMax,
          state.elo,
          state.xp,
          nowMs,
          place?.seed ?? null,
          place?.depth ?? null,
          place?.size ?? null,
          place?.x ?? null,
          place?.y ?? null,
          accountId,
        );
      }
    });
  }

  load(accountId: number): CharacterState | undefined {
    const row = this.selectOne.get(accountId);
    return (
      row && {
        map: row.map,
        x: row.x,
        y: row.y,
        hp: row.hp,
        hpMax: row.hp_max,
        elo: row.elo,
        xp: row.xp,
        dungeon: placeOf(row),
      }
    );
  }

  /** Inserts the character of a new account (call inside the account's transaction). */
  create(accountId: number, state: CharacterState, nowMs: number): void {
    this.insertOne.run(accountId, state.map, state.x, state.y, state.hp, state.hpMax, state.elo, state.xp, nowMs);
  }

  /**
   * Writes a character's experience alone: a quest's reward, inside the transaction that hands the quest
   * in (ItemWrite.alongside), so the quest is never done without it. The next save writes the rest.
   */
  saveXp(accountId: number, xp: number): void {
    this.updateXp.run(xp, accountId);
  }

  /** Writes every row in one transaction: all of them land, or none. */
  saveMany(rows: readonly { accountId: number; state: CharacterState }[], nowMs: number): void {
    if (rows.length > 0) this.saveBatch(rows, nowMs);
  }
}

/** The row's place in a dungeon level, when all of its columns are set. */
function placeOf(row: CharacterRow): DungeonPlace | null {
  const { dungeon_seed: seed, dungeon_depth: depth, dungeon_size: size, dungeon_x: x, dungeon_y: y } = row;
  if (seed === null || depth === null || size === null || x === null || y === null) return null;
  return { seed, depth, size, x, y };
}
