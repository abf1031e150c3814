// What the simulation reads from outside itself, beyond its inputs: the clock where a tick's outcome
// depends on it (a session's silence, a rate limit, a level left empty), a value of the machine (the
// think budget's share under load, which levels the generator has finished), and the random identity
// of a new session. Every such read goes through the world's tape: live, it reads the machine; while
// recording, it also writes what it read (recording/recorder.ts); in a replay, it hands back what was
// written (replay-world.ts), so the same code makes the same world. A read that only times a re-send or a metric
// reads performance.now() itself and is not on the tape (docs/recording.md § What is recorded).
import { performance } from "node:perf_hooks";

/** A new session's token and key (SessionRegistry.create). */
export interface SessionIdentity {
  readonly token: bigint;
  readonly key: Uint8Array;
}

export interface WorldTape {
  /** The monotonic clock in ms (performance.now()), as the simulation reads it. */
  now(): number;
  /** The wall clock in ms since 1970 (Date.now()), as the simulation reads it (an operator's mute expires). */
  wallNow(): number;
  /** A value the tick reads from the machine: `live` live, the recorded value in a replay. */
  sample(live: number): number;
  /** The identity the next session takes: undefined to make a fresh one (live), the recorded one in a replay. */
  identity(): SessionIdentity | undefined;
  /** The identity a session was given (recorded while recording). */
  identified(identity: SessionIdentity): void;
}

/** The machine, unrecorded: the tape of a world that is neither recorded nor replayed. */
export const LIVE_TAPE: WorldTape = {
  now: () => performance.now(),
  wallNow: () => Date.now(),
  sample: (live) => live,
  identity: () => undefined,
  identified: () => {},
};
