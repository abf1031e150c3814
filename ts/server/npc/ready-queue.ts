// The NPCs ready to think, nearest to a player first: one FIFO per distance
// (0 .. maxDistance tiles to the nearest player). The think loop pops from the
// nearest non-empty FIFO while the budget lasts; whoever is left simply stays
// queued for the next entity tick — shedding costs nothing per shed NPC, so a
// budget far smaller than the crowd does not turn into work proportional to
// the crowd. Within one distance, first come, first served: no NPC is shed
// forever while others at its distance act.

export class ReadyQueue<T> {
  private readonly fifos: T[][];
  private readonly heads: Int32Array;
  private queued = 0;

  constructor(readonly maxDistance: number) {
    this.fifos = Array.from({ length: maxDistance + 1 }, () => []);
    this.heads = new Int32Array(maxDistance + 1);
  }

  /** How many entries are queued (stale ones included until popped). */
  get size(): number {
    return this.queued;
  }

  /** Queues `item` at `distance` (clamped to 0 .. maxDistance). */
  push(item: T, distance: number): void {
    const d = distance < 0 ? 0 : distance > this.maxDistance ? this.maxDistance : distance;
    this.fifos[d].push(item);
    this.queued++;
  }

  /** The nearest, oldest entry, or undefined when empty. */
  pop(): T | undefined {
    if (this.queued === 0) return undefined;
    for (let d = 0; d <= this.maxDistance; d++) {
      const fifo = this.fifos[d];
      const head = this.heads[d];
      if (head >= fifo.length) continue;
      const item = fifo[head];
      if (head + 1 === fifo.length) {
        // Drained: reset in place (length = 0 keeps the backing store in V8 for small arrays).
        fifo.length = 0;
        this.heads[d] = 0;
      } else {
        this.heads[d] = head + 1;
      }
      this.queued--;
      return item;
    }
    return undefined;
  }

  /** Entries queued at each distance, for counting what a tick shed by distance. */
  countAt(distance: number): number {
    return this.fifos[distance].length - this.heads[distance];
  }
}
