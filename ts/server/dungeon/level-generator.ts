// Generates dungeon levels in a worker_thread (level-worker.ts), so a level of
// 256 × 256 (tens of milliseconds) never stalls the 24 Hz tick: the tick thread
// only posts a request and, later, takes the finished level from its queue.
// The worker is started on the first request and stopped by close().
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { pathToFileURL } from "node:url";
import { Worker } from "node:worker_threads";
import type { GeneratedDungeon } from "./generate-dungeon.js";

export interface LevelRequest {
  id: number;
  seed: number;
  depth: number;
  size: number;
}

export type LevelReply = { id: number; level: GeneratedDungeon; ms: number } | { id: number; error: string };

/**
 * The worker runs the generator's TypeScript through tsx, as the server itself runs: a bootstrap
 * registers tsx's loader in the worker, then imports level-worker.ts.
 */
const TSX_API = pathToFileURL(
  join(dirname(createRequire(import.meta.url).resolve("tsx/package.json")), "dist/esm/api/index.mjs"),
).href;
const WORKER_SOURCE =
  `import { register } from ${JSON.stringify(TSX_API)}; register(); ` +
  `await import(${JSON.stringify(new URL("./level-worker.ts", import.meta.url).href)});`;

export class LevelGenerator {
  private worker: Worker | null = null;
  private nextId = 1;
  private readonly pending = new Map<number, (reply: LevelReply) => void>();
  /** Generation times measured in the worker, milliseconds, newest last (at most 64). */
  readonly timesMs: number[] = [];

  /** Generates a level in the worker; rejects with the generator's error. */
  generate(seed: number, depth: number, size: number): Promise<GeneratedDungeon> {
    const worker = this.worker ?? this.start();
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.pending.set(id, (reply) => {
        if ("error" in reply) reject(new Error(reply.error));
        else {
          this.timesMs.push(reply.ms);
          if (this.timesMs.length > 64) this.timesMs.shift();
          resolve(reply.level);
        }
      });
      worker.postMessage({ id, seed, depth, size } satisfies LevelRequest);
    });
  }

  /** Stops the worker; requests still out are rejected. */
  close(): void {
    const worker = this.worker;
    this.worker = null;
    if (worker) void worker.terminate();
    this.failAll("the level generator was closed");
  }

  private start(): Worker {
    const worker = new Worker(new URL(`data:text/javascript,${encodeURIComponent(WORKER_SOURCE)}`));
    // Never the reason the process stays up.
    worker.unref();
    worker.on("message", (reply: LevelReply) => {
      const settle = this.pending.get(reply.id);
      this.pending.delete(reply.id);
      settle?.(reply);
    });
    worker.on("error", (error) => {
      if (this.worker === worker) this.worker = null;
      this.failAll(`the level generator failed: ${String(error)}`);
    });
    this.worker = worker;
    return worker;
  }

  private failAll(reason: string): void {
    for (const [id, settle] of this.pending) settle({ id, error: reason });
    this.pending.clear();
  }
}
