// Finding a moment in a recording and cutting the minutes around it into a file of their own
// (docs/recording.md § Cut). A recording's only snapshot is the world as the run began (the world's
// state mid-run is not serialized: NPC minds, scripts' Lua states), so a cut holds that snapshot and
// every block up to the window's end — copied byte for byte, never recompressed — and its header names
// the window, which a replay stops at and a viewer starts from. It replays alone, on any machine with
// the map.
import { closeSync, openSync, unlinkSync, writeSync } from "node:fs";
import { basename } from "node:path";
import { RecordingError } from "./bytes.js";
import {
  BlockReader,
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
}

const NAMES = new Map<number, string>(Object.entries(RECORD).map(([name, type]) => [type, name]));

/** Reads every record (no world made): counts, the clock marks, how it ends. */
export function summarize(file: ByteSource): RecordingSummary {
  const { header, blocksAt } = readHeader(file);
  const reader = new BlockReader(file, blocksAt);
  const inputs: Record<string, number> = {};
  const clock: { tick: number; wallMs: number }[] = [];
  let blocks = 0;
  let lastTick = header.firstTick;
  let snapshotBytes = 0;
  let contentFiles = 0;
  let ended: string | null = null;
  for (const block of reader.blocks()) {
    blocks++;
    for (const record of recordsOf(block)) {
      const payload = record.payload;
      switch (record.type) {
        case RECORD.tickEnd:
          lastTick = payload.varint();
          break;
        case RECORD.clockMark:
          clock.push({ tick: payload.varint(), wallMs: payload.f64() });
          break;
        case RECORD.snapshotDb:
          snapshotBytes = payload.varint();
          break;
        case RECORD.contentFile:
          contentFiles++;
          break;
        case RECORD.end:
          ended = payload.text();
          break;
        default: {
          const name = NAMES.get(record.type) ?? `type ${record.type}`;
          inputs[name] = (inputs[name] ?? 0) + 1;
        }
      }
    }
  }
  return {
    header,
    bytes: file.size,
    blocks,
    lastTick,
    inputs,
    clock,
    snapshotBytes,
    contentFiles,
    ended,
    truncated: reader.truncated,
  };
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

/**
 * Writes the recording `file` (its bytes) cut at the window [fromTick, toTick] to `out` (never over an
 * existing file): the header with the window named, then every block up to the one holding `toTick`.
 */
export function cutRecording(
  file: ByteSource,
  name: string,
  window: { fromTick: number; toTick: number },
  out: string,
): { bytes: number; blocks: number; toTick: number } {
  if (!(window.fromTick >= 1 && window.toTick >= window.fromTick)) {
    throw new RecordingError(`a cut needs 1 ≤ from ≤ to, got ${window.fromTick}..${window.toTick}`, "mismatch");
  }
  const { header, blocksAt } = readHeader(file);
  const cutHeader: RecordingHeader = { ...header, window: { ...window, cutFrom: basename(name) } };
  const head = encodeHead(cutHeader);
  const reader = new BlockReader(file, blocksAt);
  const fd = openSync(out, "wx");
  let bytes = 0;
  let blocks = 0;
  let lastTick = header.firstTick;
  try {
    bytes += writeSync(fd, head);
    for (const block of reader.blocks()) {
      // The snapshot's block comes first whatever its ticks; the window's end is in the last one copied.
      if (blocks > 0 && block.firstTick > window.toTick) break;
      bytes += writeSync(fd, file.read(block.offset, block.end - block.offset));
      blocks++;
      lastTick = block.lastTick;
    }
  } finally {
    closeSync(fd);
  }
  if (lastTick < window.fromTick) {
    unlinkSync(out);
    throw new RecordingError(
      `the recording ends at tick ${lastTick}, before the window's start (${window.fromTick})`,
      "truncated",
    );
  }
  return { bytes, blocks, toTick: Math.min(lastTick, window.toTick) };
}
