// Finding a moment in a recording and cutting the minutes around it into a file of their own
// (docs/recording.md § Cut). A recording's only snapshot is the world as the run began (the world's
// state mid-run is not serialized: NPC minds, scripts' Lua states), so a cut holds that snapshot and
// every block up to the window's end — copied byte for byte, never recompressed — and its header names
// the window, which a replay stops at and a viewer starts from. It replays alone, on any machine with
// the map.
import { basename } from "node:path";
import { RecordingError } from "./bytes.js";
import { open, unlink } from "node:fs/promises";
import {
  type Block,
  BlockReader,
  blocksOfFile,
  type ByteSource,
  RECORD,
  type RecordingHeader,
  encodeHead,
  readHeader,
  recordsOf,
} from "./format.js";

/** What a recording holds, read without replaying it: for `replay info` and for finding a moment. */
export interface RecordingSummary {
  readonly header: RecordingHeader;
  readonly bytes: number;
  readonly blocks: number;
  readonly lastTick: number;
  readonly inputs: Record<string, number>;
  /** (tick, wall ms) once a second: what "21:03" was in ticks. */
  readonly clock: readonly { readonly tick: number; readonly wallMs: number }[];
  readonly snapshotBytes: number;
  readonly contentFiles: number;
  readonly ended: string | null;
  readonly truncated: string | null;
  /** Where each whole block sits, in order: what a cut copies. */
  readonly frames: readonly {
    readonly offset: number;
    readonly end: number;
    readonly firstTick: number;
    readonly lastTick: number;
  }[];
}

const NAMES = new Map<number, string>(Object.entries(RECORD).map(([name, type]) => [type, name]));

/** What a summary gathers from each block in turn: one reading for the file read at once and the one read a block at a time. */
class Summing {
  readonly inputs: Record<string, number> = {};
  readonly clock: { tick: number; wallMs: number }[] = [];
  readonly frames: { offset: number; end: number; firstTick: number; lastTick: number }[] = [];
  lastTick: number;
  snapshotBytes = 0;
  contentFiles = 0;
  ended: string | null = null;

  constructor(readonly header: RecordingHeader) {
    this.lastTick = header.firstTick;
  }

  add(block: Block): void {
    this.frames.push({ offset: block.offset, end: block.end, firstTick: block.firstTick, lastTick: block.lastTick });
    for (const record of recordsOf(block)) {
      const payload = record.payload;
      switch (record.type) {
        case RECORD.tickEnd:
          this.lastTick = payload.varint();
          break;
        case RECORD.clockMark:
          this.clock.push({ tick: payload.varint(), wallMs: payload.f64() });
          break;
        case RECORD.snapshotDb:
          this.snapshotBytes = payload.varint();
          break;
        case RECORD.contentFile:
          this.contentFiles++;
          break;
        case RECORD.end:
          this.ended = payload.text();
          break;
        default: {
          const name = NAMES.get(record.type) ?? `type ${record.type}`;
          this.inputs[name] = (this.inputs[name] ?? 0) + 1;
        }
      }
    }
  }

  summary(bytes: number, truncated: string | null): RecordingSummary {
    return {
      header: this.header,
      bytes,
      blocks: this.frames.length,
      lastTick: this.lastTick,
      inputs: this.inputs,
      clock: this.clock,
      snapshotBytes: this.snapshotBytes,
      contentFiles: this.contentFiles,
      ended: this.ended,
      truncated,
      frames: this.frames,
    };
  }
}

/** Reads every record (no world made): counts, the clock marks, how it ends. */
export function summarize(file: ByteSource): RecordingSummary {
  const { header, blocksAt } = readHeader(file);
  const reader = new BlockReader(file, blocksAt);
  const summing = new Summing(header);
  for (const block of reader.blocks()) summing.add(block);
  return summing.summary(file.size, reader.truncated);
}

/** summarize() of the file at `path`, a block at a time without holding the event loop (blocksOfFile). */
export async function summarizeFile(path: string): Promise<RecordingSummary> {
  const seen: { header?: RecordingHeader; size?: number; truncated: string | null } = { truncated: null };
  let summing: Summing | null = null;
  for await (const block of blocksOfFile(path, seen)) {
    summing ??= new Summing(seen.header!);
    summing.add(block);
  }
  return (summing ?? new Summing(seen.header!)).summary(seen.size!, seen.truncated);
}

/** The tick the world was at, at wall time `wallMs` (from the clock marks; null: outside the recording). */
export function tickAt(summary: RecordingSummary, wallMs: number): number | null {
  const marks = summary.clock;
  if (marks.length === 0 || wallMs < marks[0].wallMs - 1000 || wallMs > marks[marks.length - 1].wallMs + 1000) {
    return null;
  }
  let best = marks[0];
  for (const mark of marks) if (mark.wallMs <= wallMs) best = mark;
  const tickHz = Number(summary.header.options.tickHz ?? 24);
  return Math.max(1, Math.round(best.tick + ((wallMs - best.wallMs) * tickHz) / 1000));
}

/** A cut asked for with a moment that does not fit the recording: the asker's to fix (a usage error, a 400). */
export class CutRequestError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "CutRequestError";
  }
}

/** The moment a cut is around, and how much of the run before and after it (seconds; 120 and 60). */
export interface CutMoment {
  /** HH:MM[:SS] (UTC, on the recording's days) or an ISO time. */
  readonly at?: string;
  readonly atTick?: number;
  readonly beforeS?: number;
  readonly afterS?: number;
}

export const CUT_BEFORE_S = 120;
export const CUT_AFTER_S = 60;

/** The wall time (ms) `text` names: HH:MM[:SS] on the day the recording started (or the next), or ISO. */
export function wallTimeOf(text: string, startedAt: string): number {
  const clock = /^(\d{1,2}):(\d{2})(?::(\d{2}))?$/.exec(text);
  if (clock === null) {
    const ms = Date.parse(text);
    if (Number.isNaN(ms)) throw new CutRequestError(`the moment must be HH:MM[:SS] or an ISO time, got "${text}"`);
    return ms;
  }
  const start = new Date(startedAt);
  const day = Date.UTC(start.getUTCFullYear(), start.getUTCMonth(), start.getUTCDate());
  const at = day + ((Number(clock[1]) * 60 + Number(clock[2])) * 60 + Number(clock[3] ?? 0)) * 1000;
  return at < start.getTime() - 60_000 ? at + 86_400_000 : at;
}

/** The ticks a cut around `moment` holds, in `summary`'s recording: one rule for the CLI and the admin API. */
export function cutWindow(
  summary: RecordingSummary,
  moment: CutMoment,
): { at: number; fromTick: number; toTick: number } {
  const tickHz = Number(summary.header.options.tickHz ?? 24);
  const seconds = (value: number | undefined, name: string, fallback: number) => {
    if (value === undefined) return fallback;
    if (!Number.isInteger(value) || value < 0 || value > 86_400) {
      throw new CutRequestError(`${name} must be a whole number of seconds from 0 to 86400, got ${value}`);
    }
    return value;
  };
  let at: number;
  if (moment.atTick !== undefined) {
    if (!Number.isInteger(moment.atTick) || moment.atTick < 1) {
      throw new CutRequestError(`the tick must be a positive whole number, got ${moment.atTick}`);
    }
    at = moment.atTick;
  } else if (moment.at !== undefined) {
    const tick = tickAt(summary, wallTimeOf(moment.at, summary.header.startedAt));
    if (tick === null) {
      throw new CutRequestError(
        `${moment.at} is not within the recording (${summary.header.startedAt}, ${summary.lastTick} ticks)`,
      );
    }
    at = tick;
  } else {
    throw new CutRequestError("a cut needs a moment: a time or a tick");
  }
  const before = seconds(moment.beforeS, "before", CUT_BEFORE_S);
  const after = seconds(moment.afterS, "after", CUT_AFTER_S);
  return {
    at,
    fromTick: Math.max(1, at - before * tickHz),
    toTick: Math.min(summary.lastTick, at + after * tickHz),
  };
}

/** Whether the `index`th block, its first tick `firstTick`, is in a cut ending at `toTick` (blocks are in tick order). */
function inCut(index: number, firstTick: number, toTick: number): boolean {
  // The snapshot's block comes first whatever its ticks; the window's end is in the last one copied.
  return index === 0 || firstTick <= toTick;
}

/** The header of a cut of `header`'s recording (the file `name`) at `window`. */
function cutHead(header: RecordingHeader, name: string, window: { fromTick: number; toTick: number }): Uint8Array {
  return encodeHead({ ...header, window: { ...window, cutFrom: basename(name) } });
}

/**
 * Writes the recording at `path` (summarized already) cut at the window [fromTick, toTick] to `out` (never
 * over an existing file): the header with the window named, then every block up to the one holding `toTick`,
 * byte for byte. Reads and writes are asynchronous, so a server cutting its own recording keeps its tick;
 * `replay cut` and the admin API both cut here.
 */
export async function cutFile(
  path: string,
  summary: RecordingSummary,
  window: { fromTick: number; toTick: number },
  out: string,
): Promise<{ bytes: number; blocks: number; toTick: number }> {
  const frames = summary.frames.filter((frame, index) => inCut(index, frame.firstTick, window.toTick));
  const lastTick = frames.at(-1)?.lastTick ?? summary.header.firstTick;
  if (lastTick < window.fromTick) {
    throw new RecordingError(
      `the recording ends at tick ${lastTick}, before the window's start (${window.fromTick})`,
      "truncated",
    );
  }
  if (!(window.fromTick >= 1 && window.toTick >= window.fromTick)) {
    throw new RecordingError(`a cut needs 1 ≤ from ≤ to, got ${window.fromTick}..${window.toTick}`, "mismatch");
  }
  const source = await open(path, "r");
  const target = await open(out, "wx");
  let bytes = 0;
  try {
    const head = cutHead(summary.header, path, window);
    await target.write(head);
    bytes += head.length;
    const chunk = new Uint8Array(1 << 20);
    for (const frame of frames) {
      for (let at = frame.offset; at < frame.end;) {
        const { bytesRead } = await source.read(chunk, 0, Math.min(chunk.length, frame.end - at), at);
        if (bytesRead === 0)
          throw new RecordingError(`the recording shrank while it was cut (at byte ${at})`, "truncated");
        await target.write(chunk, 0, bytesRead);
        at += bytesRead;
        bytes += bytesRead;
      }
    }
  } catch (error) {
    await target.close();
    await unlink(out).catch(() => {});
    throw error;
  } finally {
    await source.close();
  }
  await target.close();
  return { bytes, blocks: frames.length, toTick: Math.min(lastTick, window.toTick) };
}
