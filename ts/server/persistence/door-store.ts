// The map's doors as players left them (migration 0009, docs/maps.md § Doors):
// read once at start, written by the periodic save — only the doors whose state
// differs from what was last written, so an idle world writes nothing and a use
// never waits for the disk.
import type Database from "better-sqlite3";

/** A door's state as kept: its world cell, open or closed, locked or not, and the door the map drew (doors.ts). */
export interface DoorState {
  x: number;
  y: number;
  open: boolean;
  locked: boolean;
  /** The door as the map drew it; a kept state applies only to the same door. */
  drawn: string;
  /** Whether it is as the map draws it: a door never written needs no row then. */
  asDrawn?: boolean;
}

interface DoorRow {
  x: number;
  y: number;
  open: number;
  locked: number;
  drawn: string;
}

export class DoorStore {
  private readonly selectAll: Database.Statement<[string], DoorRow>;
  private readonly upsert: Database.Statement;
  /** What was last read or written per door cell ("x,y" → "open,locked,drawn"). */
  private readonly written = new Map<string, string>();
  readonly stats = { batches: 0, rows: 0, lastBatchMs: 0 };

  constructor(
    db: Database.Database,
    private readonly world: string,
  ) {
    this.selectAll = db.prepare<[string], DoorRow>("SELECT x, y, open, locked, drawn FROM doors WHERE world = ?");
    this.upsert = db.prepare(
      `INSERT INTO doors (world, x, y, open, locked, drawn, saved_at_ms) VALUES (?, ?, ?, ?, ?, ?, ?)
       ON CONFLICT (world, x, y) DO UPDATE SET open = excluded.open, locked = excluded.locked,
         drawn = excluded.drawn, saved_at_ms = excluded.saved_at_ms`,
    );
  }

  /** Every kept door of this world, as last written. */
  load(): DoorState[] {
    return this.selectAll.all(this.world).map((row) => {
      const state = { x: row.x, y: row.y, open: row.open === 1, locked: row.locked === 1, drawn: row.drawn };
      this.written.set(cellOf(state), valueOf(state));
      return state;
    });
  }

  /**
   * Writes the doors of `states` that differ from what was last written. Call it inside a transaction
   * (they all land or none does) and, once that transaction committed, the function it returns: only
   * then are they taken as written, so a failed save writes them again.
   */
  saveChanged(states: Iterable<DoorState>, nowMs: number): () => void {
    const started = performance.now();
    const wrote: [string, string][] = [];
    for (const state of states) {
      const cell = cellOf(state);
      const value = valueOf(state);
      const before = this.written.get(cell);
      if (before === value || (before === undefined && state.asDrawn === true)) continue;
      this.upsert.run(this.world, state.x, state.y, state.open ? 1 : 0, state.locked ? 1 : 0, state.drawn, nowMs);
      wrote.push([cell, value]);
    }
    if (wrote.length === 0) return () => {};
    const tookMs = performance.now() - started;
    return () => {
      for (const [cell, value] of wrote) this.written.set(cell, value);
      this.stats.batches++;
      this.stats.rows += wrote.length;
      this.stats.lastBatchMs = tookMs;
    };
  }
}

function cellOf(state: DoorState): string {
  return `${state.x},${state.y}`;
}

function valueOf(state: DoorState): string {
  return `${state.open ? 1 : 0},${state.locked ? 1 : 0},${state.drawn}`;
}
