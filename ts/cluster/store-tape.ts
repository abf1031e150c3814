// The shared PostgreSQL store's answers on a region's recording (docs/recording.md § In a cluster): a region's
// Game asks the store for a bag, a friend list, a quest's state, a world value, a board's notices, and writes
// through it; a sync answer is read from what the store holds (its ground's piles, as read at start), an async
// one completes later, and the order in which they complete is an input like a datagram's arrival. So every
// call the Game makes on the shared ports is numbered, and its answer written when the Game gets it: a sync
// one at the call, an async one when it settles — just before the Game's own continuation runs on it. A
// replay of the region alone hands back the same answers at the same points (no database): a sync answer is
// read off the tape at the call (as a clock read is, replay-world.ts), an async one is given to the promise
// the replayed call returned when the replay reaches its record, and the replay lets the world act on it
// before it reads on. The world made from the store's rows at start is on the tape the same way: the reads the
// Game makes while it is made are its first answers.
import { deserialize, serialize } from "node:v8";
import type { AccountPort } from "../server/accounts/account-port.js";
import type { GameOptions } from "../server/game-options.js";
import type { CharacterSink } from "../server/persistence/character-saver.js";
import { type ByteReader, RecordingError } from "../server/recording/bytes.js";
import { RECORD } from "../server/recording/format.js";
import type { Recorder } from "../server/recording/recorder.js";
import type { RawRecord } from "../server/recording/format.js";
import { OffTheRecord } from "../server/replay-world.js";

/** The shared ports whose answers are taped, by the number a record names them with (never renumbered). */
const PORT_NAMES = ["sharedItems", "sharedNotices", "sharedQuests", "sharedValues", "sharedSocial"] as const;
type PortName = (typeof PORT_NAMES)[number];
export type SharedPorts = Pick<GameOptions, PortName>;

const RETURNED = 0;
const RESOLVED = 1;
const REJECTED = 2;
/** Written at an async call: its answer comes later (so a replay knows, at the call, which kind it is). */
const PENDING = 3;

/** The ports with every call's answer written to `recorder` as the Game gets it. */
export function recordedPorts(ports: SharedPorts, recorder: Recorder): SharedPorts {
  let calls = 0;
  const write = (port: number, method: string, call: number, outcome: number, value: unknown) =>
    recorder.hostRecord(RECORD.storeAnswer, (out) => {
      out.u8(port);
      out.text(method);
      out.varint(call);
      out.u8(outcome);
      out.blob(serialize(value));
    });
  const taped: SharedPorts = {};
  PORT_NAMES.forEach((name, port) => {
    const target = ports[name] as object | undefined;
    if (target === undefined) return;
    (taped as Record<string, unknown>)[name] = wrap(target, (method, args) => {
      const call = ++calls;
      const answer = (target as Record<string, (...a: unknown[]) => unknown>)[method](...args);
      if (!isThenable(answer)) {
        write(port, method, call, RETURNED, answer);
        return answer;
      }
      write(port, method, call, PENDING, null);
      return answer.then(
        (value) => {
          write(port, method, call, RESOLVED, value);
          return value;
        },
        (error: unknown) => {
          write(port, method, call, REJECTED, error instanceof Error ? error.message : String(error));
          throw error;
        },
      );
    });
  });
  return taped;
}

/** The store's answers as a replay hands them back: the ports to make the Game with, and the records' door. */
export interface ReplayedStore {
  readonly ports: SharedPorts;
  /** Applies a `storeAnswer` record read between inputs: an async answer the replayed Game is waiting for. */
  answer(payload: ByteReader): void;
}

/**
 * The shared ports of a replayed region: each call answered from the recording — a sync one from the record
 * `take` reads next (a read where the recording has none has left the recording's path), an async one when
 * its record comes (answer()).
 */
export function replayedPorts(take: (type: number, what: string) => RawRecord): ReplayedStore {
  let calls = 0;
  const waiting = new Map<number, { method: string; settle(outcome: number, value: unknown): void }>();
  const ports: SharedPorts = {};
  PORT_NAMES.forEach((name, port) => {
    (ports as Record<string, unknown>)[name] = wrap({}, (method) => {
      const call = ++calls;
      const asked = `asked the shared store (${name}.${method}, call ${call})`;
      // A sync answer is the next record; an async one's comes later (its promise is returned now).
      const answered = answerAtCall(take, asked, port, method, call);
      if (answered !== null) return answered.value;
      return new Promise((resolve, reject) => {
        waiting.set(call, {
          method: `${name}.${method}`,
          settle: (outcome, value) => (outcome === RESOLVED ? resolve(value) : reject(new Error(String(value)))),
        });
      });
    });
  });
  return {
    ports,
    answer(payload) {
      const answer = readAnswer(payload);
      const call = waiting.get(answer.call);
      if (call === undefined || answer.outcome === RETURNED || answer.outcome === PENDING) {
        throw new OffTheRecord(
          `the recording has the shared store's answer to call ${answer.call} (${PORT_NAMES[answer.port] ?? "?"}.${answer.method}), which the replay is not waiting for`,
        );
      }
      waiting.delete(answer.call);
      call.settle(answer.outcome, answer.value);
    },
  };
}

/**
 * A replayed region's accounts: its logins are recorded as the sessions they started (`joinAccount`), and
 * its saves are outputs, which go nowhere (as the links' frames do, link-frames.ts's NOWHERE).
 */
export const REPLAYED_ACCOUNTS: AccountPort & CharacterSink = new Proxy({} as AccountPort & CharacterSink, {
  get(_target, method) {
    if (method === "saveMany" || method === "releaseCharacter" || method === "takeCharacter") return () => {};
    if (method === "then") return undefined;
    return () => Promise.reject(new Error("a replay takes no logins: the sessions they started are recorded"));
  },
});

/** The record written at the call: a sync call's answer, or null for an async one (whose answer comes later). */
function answerAtCall(
  take: (type: number, what: string) => RawRecord,
  asked: string,
  port: number,
  method: string,
  call: number,
): { value: unknown } | null {
  const record = take(RECORD.storeAnswer, asked);
  const answer = readAnswer(record.payload);
  if (answer.call !== call || answer.port !== port || answer.method !== method) {
    throw new OffTheRecord(
      `the replay ${asked} where the recording has the answer to call ${answer.call} (${PORT_NAMES[answer.port] ?? "?"}.${answer.method})`,
    );
  }
  if (answer.outcome === RETURNED) return { value: answer.value };
  if (answer.outcome === PENDING) return null;
  throw new OffTheRecord(`the replay ${asked} where the recording has an answer that came later`);
}

function readAnswer(payload: ByteReader): {
  port: number;
  method: string;
  call: number;
  outcome: number;
  value: unknown;
} {
  const port = payload.u8();
  const method = payload.text();
  const call = payload.varint();
  const outcome = payload.u8();
  let value: unknown;
  try {
    value = deserialize(payload.blob());
  } catch (error) {
    throw new RecordingError(`a shared store's answer cannot be read: ${(error as Error).message}`, "corrupt");
  }
  return { port, method, call, outcome, value };
}

/** An object whose every method call goes to `call(method, args)`. */
function wrap(target: object, call: (method: string, args: unknown[]) => unknown): object {
  return new Proxy(target, {
    get(_target, method) {
      if (typeof method !== "string" || method === "then") return undefined;
      return (...args: unknown[]) => call(method, args);
    },
  });
}

function isThenable(value: unknown): value is Promise<unknown> {
  return typeof value === "object" && value !== null && typeof (value as { then?: unknown }).then === "function";
}
