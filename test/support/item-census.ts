// What a game's database holds of each item, read directly (the crash tests read it after a SIGKILL):
// every stack in a container (bags, chests) and every pile on the ground, summed by item id.
import type Database from "better-sqlite3";

export function storedItemTotals(db: Database.Database): Record<number, number> {
  const rows = db
    .prepare(
      "SELECT item_id AS id, SUM(count) AS n FROM (SELECT item_id, count FROM item_stacks UNION ALL SELECT item_id, count FROM item_piles) GROUP BY item_id",
    )
    .all() as { id: number; n: number }[];
  return Object.fromEntries(rows.map((row) => [row.id, row.n]));
}
