// A recording's replay, as its viewers read and steer it (`replay watch`, docs/recording.md § Watch): the
// shapes of GET and POST /api/replay and the speeds, once for the watch server
// (ts/server/replay-viewer/) and the page's replay bar (ts/client/ui/replay-bar.ts).

/** The slowest and the fastest a replay plays (× real time), and the speeds the page offers between. */
export const MIN_REPLAY_SPEED = 0.25;
export const MAX_REPLAY_SPEED = 8;
export const REPLAY_SPEEDS = [0.25, 0.5, 1, 2, 4, 8] as const;

/** Where the replay's controls are served. */
export const REPLAY_PATH = "/api/replay";

/** A replay's divergence from its recording: the tick, what differs, and the entities and fields at the next checkpoint. */
export interface ReplayDivergence {
  readonly tick: number;
  readonly what: readonly string[];
  readonly details: readonly string[];
  readonly checkpointTick: number | null;
}

/** What GET /api/replay answers. */
export interface ReplayState {
  readonly tickHz: number;
  /** The span: the first tick the recording has and its last (a cut's: its window's end). */
  readonly firstTick: number;
  readonly lastTick: number;
  /** The tick the world stands at (firstTick − 1 before the first has run). */
  readonly tick: number;
  readonly playing: boolean;
  readonly speed: number;
  /** Bumped each time the world is made again (a seek backwards): viewers join the new one. */
  readonly epoch: number;
  /** The seek under way: from which tick, to which, and where it is now. */
  readonly seeking: { readonly fromTick: number; readonly toTick: number; readonly atTick: number } | null;
  /** The replay left the recording (a digest, a checkpoint or the tape differs), or null: exact so far. */
  readonly divergence: ReplayDivergence | null;
  /** The replay is at the recording's end (or stopped at a divergence it cannot go on from). */
  readonly ended: boolean;
  /** The players in the world at this tick, to follow. */
  readonly players: readonly {
    readonly entityId: number;
    readonly nick: string;
    readonly x: number;
    readonly y: number;
  }[];
  /** Why the replay stopped, when it failed (a file unreadable mid-run). */
  readonly failure?: string;
}

/** What POST /api/replay may change; absent fields stay as they are (`seekTick` or `seekSeconds`, not both). */
export interface ReplayControl {
  readonly play?: boolean;
  readonly speed?: number;
  readonly seekTick?: number;
  /** Seconds of the world from the recording's start. */
  readonly seekSeconds?: number;
}
