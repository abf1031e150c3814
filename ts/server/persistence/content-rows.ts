// Content written in the same transaction as an item change (ItemWrite.content, item-store.ts): the rows,
// as data so that every store writes them its own way, and how this process's SQLite writes them.
import type { QuestRecord, QuestStore, WorldValues } from "./quest-store.js";

/**
 * Content written in the same transaction as a change's items, as data so that every store — this
 * process's SQLite, a cluster's shared PostgreSQL — writes it its own way: a quest handed in with its
 * reward and its experience (never done without them), a shop's stock one less with the unit sold
 * (never sold twice). A character's rows are written only where its lease is (pg-items.ts).
 */
export interface ContentRows {
  quests?: readonly ({ accountId: number } & QuestRecord)[];
  /** A character's experience as it is after the change. */
  xp?: readonly { accountId: number; xp: number }[];
  /** World values (the store's world) by key, JSON-able. */
  values?: readonly { key: string; value: unknown }[];
}

/** The content rows of an item change (ItemWrite.content) written to this process's SQLite, inside its transaction. */
export function sqliteContentWriter(
  quests: QuestStore,
  values: WorldValues,
  xp: { saveXp(accountId: number, xp: number): void },
): (rows: ContentRows) => void {
  return (rows) => {
    for (const { accountId, ...record } of rows.quests ?? []) quests.save(accountId, record);
    for (const row of rows.xp ?? []) xp.saveXp(row.accountId, row.xp);
    for (const { key, value } of rows.values ?? []) values.set(key, value);
  };
}
