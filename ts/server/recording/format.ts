// The flight recorder's file format, declared once (docs/recording.md has the reasons):
//
//   file    = magic "FCAVEREC" (8 bytes), format version u16, header length u32, header (UTF-8 JSON), block*
//   block   = BLOCK_MAGIC u32, compressed length u32, raw length u32, first tick u32, last tick u32,
//             zlib stream (RFC 1950: deflate with an Adler-32 of the raw bytes) of `raw length` bytes of records
//   record  = type u8, payload length (LEB128), payload
//
// Blocks are sealed once a second and written whole, so a crash loses at most the last second and a
// reader finds every block boundary from the lengths alone. A record names its length, so a reader
// skips a type it does not know; a record whose meaning changes takes a new type, and a format whose
// framing changes a new version.
import { closeSync, fstatSync, openSync, readSync } from "node:fs";
import { open } from "node:fs/promises";
import { promisify } from "node:util";
import { inflate, inflateSync } from "node:zlib";
import { ByteReader, RecordingError } from "./bytes.js";

export const FILE_MAGIC = new TextEncoder().encode("FCAVEREC");
export const FORMAT_VERSION = 1;
/** "FCBK" little-endian: the start of every block, so a reader at a wrong offset knows at once. */
export const BLOCK_MAGIC = 0x4b424346;
export const BLOCK_HEADER_BYTES = 20;
/** A block's raw records may not claim more than this (a corrupt length must not allocate gigabytes). */
export const MAX_BLOCK_RAW_BYTES = 256 * 1024 * 1024;

/** The record types (docs/recording.md § Records). Numbers are never reused. */
export const RECORD = {
  /** The world's database as the run began (SQLite serialized): the snapshot a replay starts from. */
  snapshotDb: 1,
  /** One content script as the run began: name, source. */
  contentFile: 2,
  /** A link seen for the first time: index, key, address, transport (later datagrams name the index). */
  peer: 3,
  /** A datagram the game received: peer index, time (ms), bytes. */
  datagram: 4,
  /** A link closed: its key. */
  linkClosed: 5,
  /** A read of the world's clock the simulation depends on (ms, f64). */
  time: 6,
  /** A read of the wall clock the simulation depends on (ms since 1970, f64). */
  wallTime: 7,
  /** A value of the machine the tick reads (the think budget's share, levels finished): f64. */
  sample: 8,
  /** The token and key a session was given. */
  identity: 9,
  /** A guest joined: nick, appearance (-1: none). */
  joinGuest: 10,
  /** An account's character joined: JSON of the account entry and the state it was saved in. */
  joinAccount: 11,
  /** A session was ended from outside the datagrams (an operator, the HTTP API): entity id, reason. */
  leave: 12,
  /** A content script was reloaded: name, source (empty and a flag: removed). */
  scriptReload: 13,
  /** A tile was set from outside the tick (a map edit, --watch): x, y, tile id. */
  setTile: 14,
  /** An operator's action: JSON { op, args }. */
  admin: 15,
  /** The end of a tick: tick, then the world's digest (DIGEST_PARTS u32). */
  tickEnd: 16,
  /** A checkpoint: tick, then every entity's fields and the items' census (names what differs). */
  checkpoint: 17,
  /** The run ended cleanly: reason. */
  end: 18,
  /** Where a session's HTTP join came from, and what its client reads: entity id, source, reads. */
  sessionSource: 19,
  /** A tick begins: its number (what the tick reads from the tape follows, then its checkpoint and end). */
  tickStart: 20,
  /** Once a second: a tick and the wall time (ms since 1970) it ended at — for finding "21:03" (replay cut). */
  clockMark: 21,
  // A cluster's region (ts/cluster/region-recording.ts): what its Game takes from its links, beyond datagrams.
  /** A frame from a gateway or a neighbour: origin (0 gateway link, 1 neighbour), its serial or region, kind, client, arrival ms, payload. */
  regionFrame: 22,
  /** A link came or went: event (0 gateway linked, 1 gateway lost, 2 neighbour linked, 3 neighbour lost), serial or region, gateway id. */
  regionLink: 23,
  /** A player handed on to a neighbour after the tick: entity id, target region. */
  handOff: 24,
  /** After a broadcast tick: the creatures past the margin go to their neighbours (the point it ran at): tick. */
  creaturesCross: 25,
  /** The region set its Game's clock on the world's timeline: tick, jumped (0 at start, 1 a rejoin after a stall). */
  clockSet: 26,
  /** A datagram the region a session left sent back through its gateway: as datagram. */
  rerouted: 27,
  /**
   * The shared store's answer to a region's Game (ts/cluster/store-tape.ts): port u8, method, call number,
   * outcome u8 (0 returned, 1 resolved, 2 rejected, 3 pending: written at an async call), the value (v8 serialized; a rejection's message).
   */
  storeAnswer: 28,
} as const;

export type RecordType = (typeof RECORD)[keyof typeof RECORD];

/** What a recording's header says (JSON: a reader ignores keys it does not know). */
export interface RecordingHeader {
  readonly format: number;
  /** The build that recorded: package version, git commit when known, the wasm core's hash. */
  readonly build: { readonly version: string; readonly commit: string | null; readonly core: string };
  /** The map the world was made from: the path given, and a hash of every map file's bytes. */
  readonly map: { readonly path: string; readonly files: readonly string[]; readonly sha256: string };
  /** The game options that are plain values (seeds, tick rate, limits). */
  readonly options: Readonly<Record<string, string | number | boolean | null>>;
  /** Wall time the recording began (ISO), for people; the world never reads it. */
  readonly startedAt: string;
  /** The tick of the world when the recording began (0: from the world's start). */
  readonly firstTick: number;
  /** A cut's window of interest (replay cut): ticks the viewer starts at and ends at. */
  readonly window?: { readonly fromTick: number; readonly toTick: number; readonly cutFrom?: string };
  /**
   * A cluster's region (ts/cluster/region-recording.ts): its number, the layout, the world's epoch (ms since
   * 1970: tick T ran at epoch + T × period, stretched by the world's segments) and the entity id its last life
   * reserved through (null: none).
   */
  readonly region?: {
    readonly id: number;
    readonly layout: unknown;
    readonly epochMs: number;
    readonly idsReservedThrough: number | null;
    /** Whether its Game took the shared PostgreSQL store's answers (on the tape: `storeAnswer` records). */
    readonly sharedStore?: boolean;
  };
}

export interface Block {
  /** Byte offset of the block in the file, and of the byte after it. */
  readonly offset: number;
  readonly end: number;
  readonly firstTick: number;
  readonly lastTick: number;
  /** The raw records. */
  readonly records: Uint8Array;
}

/** The parts of a tick's digest (world-digest.ts): entities, tiles, sessions, clock. */
export const DIGEST_PARTS = 4;
export const DIGEST_PART_NAMES = ["entities", "tiles", "sessions", "clock and weather"] as const;

/** A recording's head: the magic, the format version and the header as JSON (what every file begins with). */
export function encodeHead(header: RecordingHeader): Uint8Array {
  const json = new TextEncoder().encode(JSON.stringify(header));
  const head = new Uint8Array(FILE_MAGIC.length + 6 + json.length);
  head.set(FILE_MAGIC, 0);
  const view = new DataView(head.buffer);
  view.setUint16(FILE_MAGIC.length, FORMAT_VERSION, true);
  view.setUint32(FILE_MAGIC.length + 2, json.length, true);
  head.set(json, FILE_MAGIC.length + 6);
  return head;
}

/**
 * Where a recording's bytes are read from: a file read piece by piece (a long recording is never held
 * whole in memory), or bytes already in memory.
 */
export interface ByteSource {
  readonly size: number;
  /** `length` bytes from `offset` (fewer only at the end). */
  read(offset: number, length: number): Uint8Array;
}

/** The bytes of `path`, read as asked for; close() when done. */
export function fileSource(path: string): ByteSource & { close(): void } {
  const fd = openSync(path, "r");
  const size = fstatSync(fd).size;
  return {
    size,
    read(offset, length) {
      const bytes = new Uint8Array(Math.max(0, Math.min(length, size - offset)));
      let done = 0;
      while (done < bytes.length) {
        const got = readSync(fd, bytes, done, bytes.length - done, offset + done);
        if (got === 0) break;
        done += got;
      }
      return done === bytes.length ? bytes : bytes.subarray(0, done);
    },
    close: () => closeSync(fd),
  };
}

/** Bytes already in memory, as a source. */
export function bytesSource(bytes: Uint8Array): ByteSource {
  return {
    size: bytes.length,
    read: (offset, length) => bytes.subarray(offset, Math.min(bytes.length, offset + length)),
  };
}

/** The most a header may claim (a corrupt length must not allocate gigabytes). */
const MAX_HEADER_BYTES = 1024 * 1024;

/** Reads the file header; throws RecordingError naming what is wrong. */
export function readHeader(source: ByteSource): { header: RecordingHeader; blocksAt: number } {
  if (source.size < FILE_MAGIC.length + 6) {
    throw new RecordingError(`not a recording: ${source.size} bytes is shorter than a recording's header`, "foreign");
  }
  const head = source.read(0, FILE_MAGIC.length + 6);
  for (let index = 0; index < FILE_MAGIC.length; index++) {
    if (head[index] !== FILE_MAGIC[index]) {
      throw new RecordingError("not a recording of this game (its first bytes are not FCAVEREC)", "foreign");
    }
  }
  const reader = new ByteReader(head, FILE_MAGIC.length, head.length, "the header");
  const version = reader.u8() | (reader.u8() << 8);
  if (version !== FORMAT_VERSION) {
    throw new RecordingError(
      `recording format ${version}; this build reads format ${FORMAT_VERSION} (replay it with the build that made it)`,
      "version",
    );
  }
  const length = reader.u32();
  if (length > MAX_HEADER_BYTES) throw new RecordingError(`the recording's header claims ${length} bytes`, "corrupt");
  if (head.length + length > source.size) throw new RecordingError("the recording's header is cut short", "truncated");
  const json = new TextDecoder().decode(source.read(head.length, length));
  let header: RecordingHeader;
  try {
    header = JSON.parse(json) as RecordingHeader;
  } catch {
    throw new RecordingError("the recording's header is not JSON", "corrupt");
  }
  if (typeof header !== "object" || header === null || typeof header.map?.path !== "string") {
    throw new RecordingError("the recording's header lacks its map", "corrupt");
  }
  return { header, blocksAt: head.length + length };
}

/**
 * The blocks of a recording from `at`, read and inflated one at a time (a long recording is never held
 * inflated whole). A block cut short at the end — a crash while it was written — ends the reading and
 * is told through `truncated`; anything else wrong (a wrong magic, a checksum that does not match) throws.
 */
export class BlockReader {
  /** Why the file ends before its last block is whole, once the reading reached it; null otherwise. */
  truncated: string | null = null;
  /** The last whole block read. */
  last: Block | null = null;

  constructor(
    private readonly source: ByteSource,
    private readonly at: number,
  ) {}

  *blocks(): Generator<Block> {
    const source = this.source;
    let offset = this.at;
    while (offset < source.size) {
      const frame = blockFrame(offset, source.size, (length) => source.read(offset, length));
      if (typeof frame === "string") {
        this.truncated = frame;
        return;
      }
      let records: Uint8Array;
      try {
        records = inflateSync(source.read(frame.start, frame.compressed), { maxOutputLength: frame.raw + 1 });
      } catch (error) {
        throw notInflating(frame, error);
      }
      const block = inflated(frame, records);
      this.last = block;
      yield block;
      offset = block.end;
    }
  }

  /** The records of every block, in order. */
  *records(): Generator<RawRecord> {
    for (const block of this.blocks()) yield* recordsOf(block);
  }
}

/** Where a block sits and what its header says, before its records are read. */
export interface BlockFrame {
  readonly offset: number;
  /** Where its compressed records start, and end (the next block's offset). */
  readonly start: number;
  readonly end: number;
  readonly compressed: number;
  readonly raw: number;
  readonly firstTick: number;
  readonly lastTick: number;
}

/**
 * The frame of the block at `offset` in a file of `size` bytes, its header's bytes read by `read`: the
 * reason the file ends there (a crash while it was written) as a string, or a RecordingError thrown for
 * anything else wrong. One reading of a block's header for the synchronous and the asynchronous readers.
 */
function blockFrame(offset: number, size: number, read: (length: number) => Uint8Array): BlockFrame | string {
  if (size - offset < BLOCK_HEADER_BYTES) return `the last block's header is cut short at byte ${offset}`;
  const head = read(BLOCK_HEADER_BYTES);
  const view = new DataView(head.buffer, head.byteOffset, head.byteLength);
  if (view.getUint32(0, true) !== BLOCK_MAGIC) {
    throw new RecordingError(`corrupt recording: no block starts at byte ${offset}`, "corrupt");
  }
  const compressed = view.getUint32(4, true);
  const raw = view.getUint32(8, true);
  const firstTick = view.getUint32(12, true);
  const lastTick = view.getUint32(16, true);
  if (raw > MAX_BLOCK_RAW_BYTES || compressed > MAX_BLOCK_RAW_BYTES) {
    throw new RecordingError(`corrupt recording: the block at byte ${offset} claims ${raw} bytes`, "corrupt");
  }
  const start = offset + BLOCK_HEADER_BYTES;
  if (start + compressed > size)
    return `the last block (ticks ${firstTick}–${lastTick}) is cut short at byte ${offset}`;
  return { offset, start, end: start + compressed, compressed, raw, firstTick, lastTick };
}

function notInflating(frame: BlockFrame, error: unknown): RecordingError {
  return new RecordingError(
    `corrupt recording: the block at byte ${frame.offset} (ticks ${frame.firstTick}–${frame.lastTick}) does not inflate (${String(error)})`,
    "corrupt",
  );
}

function inflated(frame: BlockFrame, records: Uint8Array): Block {
  if (records.length !== frame.raw) {
    throw new RecordingError(
      `corrupt recording: the block at byte ${frame.offset} is not the length it says`,
      "corrupt",
    );
  }
  return { offset: frame.offset, end: frame.end, firstTick: frame.firstTick, lastTick: frame.lastTick, records };
}

const inflateAsync = promisify(inflate);

/**
 * The blocks of the recording at `path`, like BlockReader's, read and inflated without holding the event
 * loop: the reads are asynchronous and each block inflates on libuv's thread pool (a server cutting its
 * own recording keeps its tick).
 */
export async function* blocksOfFile(
  path: string,
  /** Filled as the reading goes: the header and the file's size first, why it ends early last. */
  seen: { header?: RecordingHeader; size?: number; truncated: string | null } = { truncated: null },
): AsyncGenerator<Block> {
  const file = await open(path, "r");
  try {
    const size = (await file.stat()).size;
    const read = async (offset: number, length: number) => {
      const bytes = new Uint8Array(Math.max(0, Math.min(length, size - offset)));
      let done = 0;
      while (done < bytes.length) {
        const { bytesRead } = await file.read(bytes, done, bytes.length - done, offset + done);
        if (bytesRead === 0) break;
        done += bytesRead;
      }
      return bytes;
    };
    const headLength = Math.min(size, FILE_MAGIC.length + 6 + MAX_HEADER_BYTES);
    const head = await read(0, headLength);
    const { header, blocksAt } = readHeader(bytesSource(head));
    seen.header = header;
    seen.size = size;
    let offset = blocksAt;
    while (offset < size) {
      const frameHead = await read(offset, BLOCK_HEADER_BYTES);
      const frame = blockFrame(offset, size, () => frameHead);
      if (typeof frame === "string") {
        seen.truncated = frame;
        return;
      }
      const compressedBytes = await read(frame.start, frame.compressed);
      let records: Uint8Array;
      try {
        records = await inflateAsync(compressedBytes, { maxOutputLength: frame.raw + 1 });
      } catch (error) {
        throw notInflating(frame, error);
      }
      yield inflated(frame, records);
      offset = frame.end;
    }
  } finally {
    await file.close();
  }
}

/** One record as read: its type and payload (a view into the block). */
export interface RawRecord {
  readonly type: number;
  readonly payload: ByteReader;
}

/** The records of one block, in order. */
export function* recordsOf(block: Block): Generator<RawRecord> {
  const reader = new ByteReader(block.records, 0, block.records.length, `the block at byte ${block.offset}`);
  while (reader.remaining > 0) {
    const type = reader.u8();
    const length = reader.varint();
    if (length > reader.remaining) {
      throw new RecordingError(`corrupt recording: a record overruns the block at byte ${block.offset}`, "corrupt");
    }
    const payload = new ByteReader(block.records, reader.at, reader.at + length, `a record of type ${type}`);
    reader.at += length;
    yield { type, payload };
  }
}
