// Rewrites a flight recording without one of its records (a test's deliberate loss of an input), or with one
// record's payload replaced (an input edited): the head copied, every block decompressed, the record left out
// or rewritten, and the block compressed and framed again as the recorder frames it
// (ts/server/recording/format.ts).
import { writeFileSync } from "node:fs";
import { deflateSync } from "node:zlib";
import { ByteReader } from "../../ts/server/recording/bytes.js";
import {
  BLOCK_HEADER_BYTES,
  BLOCK_MAGIC,
  BlockReader,
  fileSource,
  readHeader,
} from "../../ts/server/recording/format.js";

/** A record as the edit sees it: its place among the file's records, its type, its payload, and the last tick ended before it. */
export interface EditedRecord {
  readonly index: number;
  readonly type: number;
  readonly payload: ByteReader;
  readonly afterTick: number;
}

/** A record listed: `read()` gives a new reader of its payload each time. */
export interface ListedRecord {
  readonly index: number;
  readonly type: number;
  readonly afterTick: number;
  read(): ByteReader;
}

/** Every record of `path` in order. */
export function listRecords(path: string, tickEndType: number): ListedRecord[] {
  const list: ListedRecord[] = [];
  withoutRecord(
    path,
    null,
    ({ index, type, payload, afterTick }) => {
      const { bytes, at, end } = payload;
      list.push({ index, type, afterTick, read: () => new ByteReader(bytes, at, end, "a record") });
      return false;
    },
    tickEndType,
  );
  return list;
}

/**
 * Writes `out` (null: nothing): `path` without the first record `drop` picks. Returns the tick after which the
 * dropped record stood (null: none picked, `out` is a copy).
 */
export function withoutRecord(
  path: string,
  out: string | null,
  drop: (record: EditedRecord) => boolean,
  tickEndType: number,
): number | null {
  return rewritten(path, out, (record) => (drop(record) ? "drop" : null), tickEndType);
}

/**
 * Writes `out`: `path` with the payload of the first record `edit` gives a new one for replaced by it. Returns
 * the tick after which the edited record stood (null: none edited, `out` is a copy).
 */
export function withRecordReplaced(
  path: string,
  out: string,
  edit: (record: EditedRecord) => Uint8Array | null,
  tickEndType: number,
): number | null {
  return rewritten(path, out, edit, tickEndType);
}

function rewritten(
  path: string,
  out: string | null,
  pick: (record: EditedRecord) => Uint8Array | "drop" | null,
  tickEndType: number,
): number | null {
  const source = fileSource(path);
  try {
    const { blocksAt } = readHeader(source);
    const parts: Uint8Array[] = [source.read(0, blocksAt)];
    let dropped: number | null = null;
    let afterTick = 0;
    let index = 0;
    for (const block of new BlockReader(source, blocksAt).blocks()) {
      const raw = block.records;
      const kept: Uint8Array[] = [];
      const reader = new ByteReader(raw, 0, raw.length, "a block");
      while (reader.remaining > 0) {
        const start = reader.at;
        const type = reader.u8();
        const length = reader.varint();
        const payloadAt = reader.at;
        const payload = new ByteReader(raw, payloadAt, payloadAt + length, "a record");
        reader.at += length;
        const end = reader.at;
        const picked = dropped === null ? pick({ index: index++, type, payload, afterTick }) : null;
        if (type === tickEndType) afterTick = new ByteReader(raw, payloadAt, payloadAt + length, "tick").varint();
        if (picked === null) kept.push(raw.subarray(start, end));
        else {
          dropped = afterTick;
          if (picked !== "drop") kept.push(recordBytes(type, picked));
        }
      }
      const records = Buffer.concat(kept);
      const body = deflateSync(records, { level: 1 });
      const head = Buffer.alloc(BLOCK_HEADER_BYTES);
      head.writeUInt32LE(BLOCK_MAGIC, 0);
      head.writeUInt32LE(body.length, 4);
      head.writeUInt32LE(records.length, 8);
      head.writeUInt32LE(block.firstTick, 12);
      head.writeUInt32LE(block.lastTick, 16);
      parts.push(head, body);
    }
    if (out !== null) writeFileSync(out, Buffer.concat(parts));
    return dropped;
  } finally {
    source.close();
  }
}

/** A record framed as the recorder frames it: its type, its payload's length (LEB128), the payload. */
function recordBytes(type: number, payload: Uint8Array): Uint8Array {
  const length: number[] = [];
  let rest = payload.length;
  do {
    length.push((rest & 0x7f) | (rest >= 0x80 ? 0x80 : 0));
    rest >>>= 7;
  } while (rest > 0);
  return Buffer.concat([Uint8Array.of(type, ...length), payload]);
}
