// Plays a flight recording for viewers (docs/recording.md § Watch): the replayed world (ReplayRun, the
// path `verify` takes) run on a tick loop at real time × the chosen speed, paused, or moved to another
// tick. A seek forwards runs the ticks between as fast as they go, with no frames to the viewers; a seek
// backwards makes the world again from the snapshot (a world mid-run cannot be saved yet: § One
// snapshot) and runs to the tick the same way. Every tick's digest is still checked: a divergence is
// told (onDivergence) and kept in the state the viewers read, never passed over.
import { setImmediate as yieldToIo } from "node:timers/promises";
import { performance } from "node:perf_hooks";
import { type Divergence, ReplayRun, type ReplayOpenOptions } from "../replay-world.js";
import { MAX_REPLAY_SPEED, MIN_REPLAY_SPEED, type ReplayState } from "../../replay-control.js";

/** How often a paused replay shows its tick to viewers who have not seen it (a new one, a rejoined page). */
const STILL_SHOW_MS = 200;
/** A seek gives the event loop a turn (the viewers' requests, their datagrams) after this many ticks. */
const SEEK_TICKS_PER_TURN = 24;

/** The replayed world, as the viewers' side of the watch server sees it. */
export type ReplayedWorld = ReplayRun["game"];

/** A seek the player cannot make: outside the recording's span, or not a tick. */
export class SeekError extends Error {}

export interface ReplayPlayerOptions extends ReplayOpenOptions {
  /** The recording's last tick (cut.ts summarize): the span a seek may go to. */
  readonly lastTick: number;
  /** Told once, at the first divergence. */
  readonly onDivergence?: (divergence: Divergence) => void;
  /** Told when the replay stops on an error (a file unreadable mid-run): the state shows it too. */
  readonly onFailure?: (error: Error) => void;
}

export class ReplayPlayer {
  private runValue: ReplayRun;
  private playingValue = false;
  private speedValue = 1;
  private epochValue = 0;
  private seek: { fromTick: number; toTick: number; landed: () => void } | null = null;
  private divergenceTold = false;
  private closed = false;
  /** Real time and tick from which the paced ticks are counted (reset by play, speed and seeks). */
  private anchor = { ms: 0, tick: 0 };
  private wake: (() => void) | null = null;
  private readonly loop: Promise<void>;
  /** A failure of the loop (a file that became unreadable mid-run): it stops, and says so. */
  failure: Error | null = null;

  private constructor(
    run: ReplayRun,
    private readonly options: ReplayPlayerOptions,
  ) {
    this.runValue = run;
    this.loop = this.pump();
  }

  /** Opens the recording and makes its world at the snapshot (paused). Throws RecordingError for a bad file. */
  static async open(options: ReplayPlayerOptions): Promise<ReplayPlayer> {
    return new ReplayPlayer(await ReplayRun.open(options), options);
  }

  /** The world being replayed now (another after a seek backwards). */
  get world(): ReplayedWorld {
    return this.runValue.game;
  }

  get tickHz(): number {
    return this.world.options.tickHz;
  }

  get firstTick(): number {
    return this.runValue.firstTick;
  }

  get lastTick(): number {
    return this.options.lastTick;
  }

  state(): ReplayState {
    const run = this.runValue;
    const world = run.game;
    const players = [];
    for (const session of world.sessions.values()) {
      const entity = session.entity;
      players.push({ entityId: entity.id, nick: session.nick, x: entity.x, y: entity.y });
    }
    players.sort((a, b) => a.nick.localeCompare(b.nick) || a.entityId - b.entityId);
    return {
      tickHz: this.tickHz,
      firstTick: this.firstTick,
      lastTick: this.lastTick,
      tick: world.tick,
      playing: this.playingValue,
      speed: this.speedValue,
      epoch: this.epochValue,
      seeking:
        this.seek === null ? null : { fromTick: this.seek.fromTick, toTick: this.seek.toTick, atTick: world.tick },
      divergence: run.divergence,
      ended: run.finished,
      players,
    };
  }

  play(): void {
    this.playingValue = true;
    this.reanchor();
  }

  pause(): void {
    this.playingValue = false;
  }

  /** Plays at `speed` × real time (MIN_REPLAY_SPEED … MAX_REPLAY_SPEED). */
  setSpeed(speed: number): void {
    if (!Number.isFinite(speed) || speed < MIN_REPLAY_SPEED || speed > MAX_REPLAY_SPEED) {
      throw new SeekError(`the speed must be between ${MIN_REPLAY_SPEED} and ${MAX_REPLAY_SPEED}, got ${speed}`);
    }
    this.speedValue = speed;
    this.reanchor();
  }

  /**
   * Moves the world to tick `tick` (the world as it is once that tick ran; firstTick − 1 is the snapshot):
   * forwards by running the ticks between with no frames sent, backwards by making the world again from
   * the snapshot and running to it. Resolves when it is there; the state shows the progress meanwhile.
   */
  seekTo(tick: number): Promise<void> {
    // Refused at once (not in the promise): the route answers 400 before it answers anything else.
    const from = this.firstTick - 1;
    if (!Number.isInteger(tick) || tick < from || tick > this.lastTick) {
      throw new SeekError(`tick ${tick} is outside the recording: it holds ticks ${from}–${this.lastTick}`);
    }
    if (this.seek !== null) throw new SeekError(`a seek to tick ${this.seek.toTick} is under way`);
    if (this.closed || this.failure !== null) throw new SeekError("the replay has stopped");
    return new Promise<void>((landed) => {
      this.seek = { fromTick: this.world.tick, toTick: tick, landed };
      this.poke();
    }).then(() => {
      if (this.failure !== null) throw this.failure;
    });
  }

  /** The tick `seconds` of the world after the recording's start (its snapshot). */
  tickAtSeconds(seconds: number): number {
    if (!Number.isFinite(seconds)) throw new SeekError(`a time must be a number of seconds, got ${seconds}`);
    return this.firstTick - 1 + Math.round(seconds * this.tickHz);
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.poke();
    await this.loop;
    this.runValue.close();
  }

  private reanchor(): void {
    this.anchor = { ms: performance.now(), tick: this.world.tick };
    this.poke();
  }

  private poke(): void {
    this.wake?.();
  }

  /** Waits `ms`, or until a control wakes the loop. */
  private sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(done, ms);
      function done() {
        clearTimeout(timer);
        resolve();
      }
      this.wake = done;
    });
  }

  /** The loop: seeks first, then the paced ticks while playing; one advance at a time. */
  private async pump(): Promise<void> {
    try {
      while (!this.closed) {
        const seek = this.seek;
        if (seek !== null) {
          await this.runSeek(seek.toTick);
          this.seek = null;
          seek.landed();
          this.reanchor();
          continue;
        }
        const run = this.runValue;
        if (!this.playingValue || run.finished || run.game.tick >= this.lastTick) {
          if (this.playingValue && (run.finished || run.game.tick >= this.lastTick)) this.playingValue = false;
          // Held still: whoever has not seen this tick yet (a viewer who just joined) is shown it.
          run.game.showSpectatorsStill();
          await this.sleep(STILL_SHOW_MS);
          continue;
        }
        const ticksPerMs = (this.tickHz * this.speedValue) / 1000;
        const due = this.anchor.tick + Math.floor((performance.now() - this.anchor.ms) * ticksPerMs);
        if (run.game.tick >= due) {
          await this.sleep(
            Math.max(1, (due + 1 - this.anchor.tick) / ticksPerMs - (performance.now() - this.anchor.ms)),
          );
          continue;
        }
        await this.advance(run);
        // A replay behind its pace (8× on a busy machine) still lets the viewers' requests and datagrams in.
        await yieldToIo();
      }
    } catch (error) {
      this.failure = error instanceof Error ? error : new Error(String(error));
      this.playingValue = false;
      this.options.onFailure?.(this.failure);
    } finally {
      this.seek?.landed();
      this.seek = null;
    }
  }

  private async advance(run: ReplayRun): Promise<boolean> {
    const stepped = await run.advance();
    const divergence = run.divergence;
    if (divergence !== null && !this.divergenceTold) {
      this.divergenceTold = true;
      this.options.onDivergence?.(divergence);
    }
    return stepped;
  }

  /** Runs the world to `tick` with no frames to its viewers; backwards, from a world made again. */
  private async runSeek(tick: number): Promise<void> {
    if (tick < this.world.tick) {
      const old = this.runValue;
      const run = await ReplayRun.open(this.options);
      this.runValue = run;
      this.epochValue++;
      // The old world's viewers end with it; their pages see the new epoch and join this one.
      old.close();
    }
    const run = this.runValue;
    run.game.spectators.holdFramesThrough(tick - 1);
    let since = 0;
    while (run.game.tick < tick && !this.closed) {
      if (!(await this.advance(run))) break;
      if (++since % SEEK_TICKS_PER_TURN === 0) await yieldToIo();
    }
  }
}
