// The launcher's supervisor (docs/scaling.md § Healing): every process the launcher started — a region,
// a gateway, the redis-server, the PostgreSQL — is one supervised part, started again whenever it ends,
// forever. A restart that fails is tried again after a delay that doubles up to a cap (so a part that
// cannot start — its port taken, its store down — costs a try every few seconds, not a busy loop), and
// the delay starts small again once a part has stayed up a while. The log gets one line per change of
// a part's state (up → restarting → down → up), never one per failed try; the health of every part is
// what /api/cluster and /metrics report (cluster-health.ts).
import type { Logger } from "../server/ops/log.js";

/** What kind of process a part is. */
export type PartKind = "region" | "gateway" | "redis" | "postgres";

/**
 * up: running. restarting: it ended, a restart is under way. down: at least one restart failed; tried
 * again with backoff.
 */
export type PartState = "up" | "restarting" | "down";

/** One part's health, as /api/cluster shows it. */
export interface PartHealth {
  readonly name: string;
  readonly kind: PartKind;
  readonly state: PartState;
  /** When the part entered its state (ms since 1970). */
  readonly sinceMs: number;
  /** Times it ended and was started again (or is being started again). */
  readonly restarts: number;
  /** Restarts that failed (each tried again). */
  readonly failedStarts: number;
  /** How it last ended or why its last start failed. */
  readonly lastError: string | null;
  /** Its process id while up (null while it is not). */
  readonly pid: number | null;
}

/** A started part: how it ends, and how to stop it for good. */
export interface RunningPart {
  readonly pid: number | null;
  /** Resolves, saying how, when the process has ended. */
  readonly ended: Promise<string>;
  stop(): Promise<void>;
}

export interface BackoffOptions {
  /** The first restart's delay. */
  initialDelayMs: number;
  /** The most a restart waits. */
  maxDelayMs: number;
  /** A part up this long starts again from initialDelayMs when it next ends. */
  stableMs: number;
}

export const DEFAULT_BACKOFF: BackoffOptions = { initialDelayMs: 250, maxDelayMs: 8_000, stableMs: 30_000 };

/** The delay before the restart that follows `previousMs` (0: none yet): doubled, up to the cap. */
export function nextDelayMs(previousMs: number, options: BackoffOptions): number {
  return previousMs === 0 ? options.initialDelayMs : Math.min(options.maxDelayMs, previousMs * 2);
}

export class SupervisedPart {
  private state: PartState = "up";
  private sinceMs = Date.now();
  private restarts = 0;
  private failedStarts = 0;
  private lastError: string | null = null;
  private running: RunningPart;
  private stopping = false;
  private wake: (() => void) | null = null;
  private readonly loop: Promise<void>;

  /**
   * Supervises `first` (already started); `start` starts the part again. `changed` is called on every
   * change of state, `started` after every restart (a part others depend on is told about: the
   * directory written again into a restarted Redis).
   */
  constructor(
    readonly name: string,
    readonly kind: PartKind,
    first: RunningPart,
    private readonly start: () => Promise<RunningPart>,
    private readonly log: Logger,
    private readonly changed: () => void,
    private readonly options: BackoffOptions = DEFAULT_BACKOFF,
    private readonly started: (part: RunningPart) => Promise<void> = () => Promise.resolve(),
  ) {
    this.running = first;
    this.loop = this.supervise();
  }

  get health(): PartHealth {
    return {
      name: this.name,
      kind: this.kind,
      state: this.state,
      sinceMs: this.sinceMs,
      restarts: this.restarts,
      failedStarts: this.failedStarts,
      lastError: this.lastError,
      pid: this.state === "up" ? this.running.pid : null,
    };
  }

  /** Stops supervising and stops the part. */
  async stop(): Promise<void> {
    this.stopping = true;
    this.wake?.();
    await this.running.stop();
    // A restart under way ends too (the part it started is stopped).
    await this.loop;
  }

  private enter(state: PartState, line: string, fields: Record<string, unknown>): void {
    this.state = state;
    this.sinceMs = Date.now();
    if (state === "up") this.log.warn(line, { part: this.name, ...fields });
    else this.log.error(line, { part: this.name, ...fields });
    this.changed();
  }

  private async supervise(): Promise<void> {
    let delayMs = 0;
    for (;;) {
      const upSinceMs = Date.now();
      const how = await this.running.ended;
      if (this.stopping) return;
      if (Date.now() - upSinceMs >= this.options.stableMs) delayMs = 0;
      this.restarts++;
      this.lastError = how;
      this.enter("restarting", "a part of the cluster ended: restarting it", { how });
      for (;;) {
        delayMs = nextDelayMs(delayMs, this.options);
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, delayMs);
          this.wake = () => {
            clearTimeout(timer);
            resolve();
          };
        });
        this.wake = null;
        if (this.stopping) return;
        try {
          const next = await this.start();
          if (this.stopping) return void (await next.stop());
          try {
            await this.started(next);
          } catch (error) {
            await next.stop();
            throw error;
          }
          this.running = next;
          break;
        } catch (error) {
          this.failedStarts++;
          this.lastError = error instanceof Error ? error.message : String(error);
          // One line when the restarts begin to fail; the tries after it only count.
          if (this.state !== "down") {
            this.enter("down", "a part of the cluster did not restart: trying again with backoff", {
              error: this.lastError,
              maxDelayMs: this.options.maxDelayMs,
            });
          }
        }
      }
      this.enter("up", "a part of the cluster is up again", {
        pid: this.running.pid,
        restarts: this.restarts,
        failedStarts: this.failedStarts,
      });
    }
  }
}
