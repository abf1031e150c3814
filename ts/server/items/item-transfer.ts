// Item transfer: the one path every change of items takes (docs/items.md § Why nothing is lost). A
// change is decided in memory on copies (../content/item-slots.ts returns new slot arrays), written to
// the store in one transaction over every row it touches (../persistence/item-store.ts), and only then
// applied in memory and answered. So an item is durable before anyone hears "ok", and a kill at any
// moment leaves it in exactly one place. Bags, chests, piles, loot — and shops and trades to come —
// all commit here.
//
// With a store a cluster's processes share (ts/cluster/pg-items.ts) a write answers later: then changes
// run one at a time, in the order they came (`run`), each decided on the state the one before left and
// applied once written — the same rule, waiting its turn. With SQLite every change is done in the turn
// it came.
import { ITEM_STATUSES, type ItemStatus } from "../../protocol/item-result.js";
import type { Logger } from "../ops/log.js";
import type { ItemStorePort, ItemWrite, LevelIdentity } from "../persistence/item-store.js";

/**
 * Item work waiting for a write in flight (a shared store's): beyond this, requests are dropped unanswered
 * (the client sends them again) and pickups wait for the next step, so a flood cannot grow memory.
 */
export const MAX_WAITING_WORK = 4096;

/** ItemResult status codes by name (docs/protocol.md § 18). */
export const STATUS = Object.fromEntries(ITEM_STATUSES.map((name, code) => [name, code])) as Record<ItemStatus, number>;

/** A request's status: now, or once a store that answers later has written its change. */
export type Status = number | Promise<number>;

/** A change decided on copies: what to write, then what to apply once it is written (with the new piles' row ids). */
export interface Change {
  write: ItemWrite;
  apply: (newPileIds: readonly number[]) => void;
}

/** Whoever item work is counted for while it waits or is under way (a player's bag: it moves only at 0). */
export interface Worker {
  work: number;
}

/** The counters the transfer keeps (they are the item room's status figures). */
export interface TransferStats {
  writeFailures: number;
  /** Work dropped because MAX_WAITING_WORK waited already. */
  shed: number;
}

export interface ItemTransferPorts {
  readonly store: Pick<ItemStorePort, "write">;
  readonly log: Logger;
  /**
   * The dungeon levels (../dungeon/levels.ts): the level a world cell lies in, with the cell relative to
   * the level's corner; null on a map. A pile dropped in a level is stored that way, so it comes back
   * with the level.
   */
  readonly levels: { levelOf(x: number, y: number): { level: LevelIdentity; x: number; y: number } | null };
  readonly stats: TransferStats;
}

export class ItemTransfer {
  /** A change is being written to a store that answers later: further work waits here, in order. */
  private busy = false;
  private readonly waiting: (() => unknown)[] = [];

  constructor(private readonly ports: ItemTransferPorts) {}

  /**
   * Runs `work` now — or, while a change is being written to a store that answers later, after it and
   * everything that came before, in order. False when MAX_WAITING_WORK waits already (`work` dropped).
   */
  run(work: () => unknown): boolean {
    if (this.busy) {
      if (this.waiting.length >= MAX_WAITING_WORK) {
        this.ports.stats.shed++;
        return false;
      }
      this.waiting.push(work);
      return true;
    }
    this.start(work);
    return true;
  }

  private start(work: () => unknown): void {
    const result = work();
    if (!(result instanceof Promise)) return;
    this.busy = true;
    const next = () => {
      this.busy = false;
      while (!this.busy && this.waiting.length > 0) {
        try {
          this.start(this.waiting.shift()!);
        } catch (error) {
          this.ports.log.error("item work failed", { error: String(error) });
        }
      }
    };
    result.then(next, (error: unknown) => {
      this.ports.log.error("item work failed", { error: String(error) });
      next();
    });
  }

  /** `run`, counted as `worker`'s work while it waits or is under way. */
  runFor(worker: Worker, work: () => unknown): void {
    worker.work++;
    const done = () => void worker.work--;
    const queued = this.run(() => {
      let result: unknown;
      try {
        result = work();
      } catch (error) {
        done();
        throw error;
      }
      if (result instanceof Promise) return result.finally(done);
      done();
      return result;
    });
    if (!queued) done();
  }

  /** Writes, then applies; false (and nothing applied) when the write failed — now, or once the store answers. */
  commit(change: Change): boolean | Promise<boolean> {
    // A guest's bag has no row (key ""): it lives in memory only.
    const containers = change.write.containers?.filter((row) => row.key !== "");
    // A pile in a dungeon level is stored with the level and its level-relative cell, so it outlives the level.
    const newPiles = change.write.newPiles?.map((pile) => {
      const inLevel = this.ports.levels.levelOf(pile.x, pile.y);
      return inLevel === null ? pile : { ...pile, x: inLevel.x, y: inLevel.y, level: inLevel.level };
    });
    // A full disk, a broken file, a shared store's refusal: the change did not happen, anywhere.
    const notWritten = (error: unknown): false => {
      this.ports.stats.writeFailures++;
      this.ports.log.error("item change not written", { error: String(error) });
      return false;
    };
    let written: number[] | Promise<number[]>;
    try {
      written = this.ports.store.write({ ...change.write, containers, newPiles });
    } catch (error) {
      return notWritten(error);
    }
    const apply = (ids: number[]): true => {
      change.apply(ids);
      return true;
    };
    return written instanceof Promise ? written.then(apply, notWritten) : apply(written);
  }

  /** `commit`, answered as a request's status: ok, or not_written when the write failed (nothing changed). */
  commitStatus(change: Change): Status {
    return settle(this.commit(change), (ok) => (ok ? STATUS.ok : STATUS.not_written));
  }
}

/** `then` of `value` now, or once it resolves: with a synchronous store everything stays in the same turn. */
export function settle<T, R>(value: T | Promise<T>, then: (value: T) => R): R | Promise<R> {
  return value instanceof Promise ? value.then(then) : then(value);
}
