// A bounded queue in front of password hashing. scrypt runs on libuv's thread
// pool (4 threads by default), which file reads and DNS share: 20-odd logins a
// second once saturated it, so GET / went from 8 ms to 1.8 s. At most
// `concurrency` hashes run at once (leaving pool threads for everything
// else), at most `queued` wait, and beyond that a request is refused at once
// (503 with Retry-After) instead of piling up.

export class QueueFullError extends Error {}

export interface HashQueueStats {
  running: number;
  waiting: number;
  refused: number;
}

export class HashQueue {
  readonly stats: HashQueueStats = { running: 0, waiting: 0, refused: 0 };
  private readonly waiters: (() => void)[] = [];

  constructor(
    private readonly concurrency: number,
    private readonly queued: number,
  ) {
    if (!Number.isInteger(concurrency) || concurrency < 1)
      throw new RangeError("concurrency must be a positive integer");
    if (!Number.isInteger(queued) || queued < 0) throw new RangeError("queued must be a non-negative integer");
  }

  /** Runs `work` when a slot is free; rejects with QueueFullError when the queue is full. */
  async run<T>(work: () => Promise<T>): Promise<T> {
    if (this.stats.running >= this.concurrency) {
      if (this.waiters.length >= this.queued) {
        this.stats.refused++;
        throw new QueueFullError("too many logins at once");
      }
      await new Promise<void>((resolve) => {
        this.waiters.push(resolve);
        this.stats.waiting = this.waiters.length;
      });
    } else {
      this.stats.running++;
    }
    try {
      return await work();
    } finally {
      const next = this.waiters.shift();
      this.stats.waiting = this.waiters.length;
      // The slot passes straight to the next waiter, so `running` stays as it is.
      if (next) next();
      else this.stats.running--;
    }
  }
}
