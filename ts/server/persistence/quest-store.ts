// Characters' quests and the world's script values in SQLite (migration 0007-content.sql). A quest
// change is written in the turn it happens, before the player hears of it; a guest's quests live in
// memory only, like its character (../scripting/quest-book.ts keeps those).
import type Database from "better-sqlite3";

export const QUEST_STATES = ["active", "ready", "done"] as const;
export type QuestState = (typeof QUEST_STATES)[number];

/** One quest a character has started. */
export interface QuestRecord {
  readonly quest: string;
  readonly state: QuestState;
  readonly progress: number;
}

/** What the quest book uses of a store. */
export interface QuestStorePort {
  /** Every quest the account's character has started (a shared store: as read when the character came here). */
  load(accountId: number): QuestRecord[];
  /**
   * Writes one quest's state: this process's SQLite at once (a failure throws: the change did not
   * happen); a shared store later, the promise settling once it is written (or refused).
   */
  save(accountId: number, record: QuestRecord): void | Promise<void>;
}

export class QuestStore implements QuestStorePort {
  private readonly select: Database.Statement<[number], { quest: string; state: string; progress: number }>;
  private readonly upsert: Database.Statement;

  constructor(db: Database.Database) {
    this.select = db.prepare("SELECT quest, state, progress FROM character_quests WHERE account_id = ? ORDER BY quest");
    this.upsert = db.prepare(
      "INSERT INTO character_quests (account_id, quest, state, progress) VALUES (?, ?, ?, ?) " +
        "ON CONFLICT (account_id, quest) DO UPDATE SET state = excluded.state, progress = excluded.progress",
    );
  }

  load(accountId: number): QuestRecord[] {
    return this.select
      .all(accountId)
      .flatMap((row) =>
        (QUEST_STATES as readonly string[]).includes(row.state)
          ? [{ quest: row.quest, state: row.state as QuestState, progress: row.progress }]
          : [],
      );
  }

  save(accountId: number, record: QuestRecord): void {
    this.upsert.run(accountId, record.quest, record.state, record.progress);
  }
}

/** A world's values that scripts keep across restarts and reloads (a shop's stock), JSON by key. */
export interface WorldValuesPort {
  get(key: string): unknown;
  /** Writes one value (a failure throws). */
  set(key: string, value: unknown): void;
}

export class WorldValues implements WorldValuesPort {
  private readonly select: Database.Statement<[string, string], { value: string }>;
  private readonly upsert: Database.Statement;

  constructor(
    db: Database.Database,
    private readonly world: string,
  ) {
    this.select = db.prepare("SELECT value FROM world_values WHERE world = ? AND key = ?");
    this.upsert = db.prepare(
      "INSERT INTO world_values (world, key, value) VALUES (?, ?, ?) " +
        "ON CONFLICT (world, key) DO UPDATE SET value = excluded.value",
    );
  }

  get(key: string): unknown {
    const row = this.select.get(this.world, key);
    if (row === undefined) return undefined;
    try {
      return JSON.parse(row.value) as unknown;
    } catch {
      return undefined;
    }
  }

  set(key: string, value: unknown): void {
    this.upsert.run(this.world, key, JSON.stringify(value));
  }
}
