// The flight recorder: an append-only recording of every input the world consumes, in the order it
// consumes them (docs/recording.md). Records go into a buffer in memory as they happen; once a second
// (at the end of the tick that completes a second) the buffer is sealed into a block, compressed on
// libuv's thread pool (node:zlib, deflate with an Adler-32) and appended to the file by an asynchronous
// write — the tick never waits on the disk, and a crash loses at most the second being recorded. A
// disk that fails or cannot keep up, or a recording that reaches its size limit, stops the recording
// with a loud warning; the world plays on.
import { open, type FileHandle } from "node:fs/promises";
import { performance } from "node:perf_hooks";
import { deflate } from "node:zlib";
import type { Logger } from "../ops/log.js";
import type { Peer } from "../edge/peer.js";
import { ByteWriter } from "./bytes.js";
import { BLOCK_HEADER_BYTES, BLOCK_MAGIC, RECORD, type RecordingHeader, encodeHead } from "./format.js";
import type { SessionIdentity, WorldTape } from "../ops/world-tape.js";

/** Sealed blocks waiting to be compressed and written, beyond which the disk is not keeping up. */
const MAX_PENDING_BYTES = 64 * 1024 * 1024;
/** A buffer this large is sealed before its second ends (a burst of inputs). */
const SEAL_AT_BYTES = 4 * 1024 * 1024;
/** The database snapshot goes in records of at most this many bytes. */
const SNAPSHOT_PART_BYTES = 16 * 1024 * 1024;
/** Bytes reserved for a record's length: a padded LEB128 of up to 2^28 - 1. */
const LENGTH_BYTES = 4;
const TRANSPORTS = ["udp", "webrtc", "websocket"] as const;

export interface RecorderOptions {
  readonly path: string;
  readonly header: RecordingHeader;
  /** The recording stops (with a warning) once its file would pass this many bytes. */
  readonly maxBytes: number;
  readonly log: Logger;
}

export interface RecorderStatus {
  readonly path: string;
  readonly recording: boolean;
  /** Why the recording stopped, or null while it records. */
  readonly stopped: string | null;
  readonly bytesWritten: number;
  readonly blocks: number;
  readonly pendingBytes: number;
  /** Wall time spent compressing, on the thread pool (ms). */
  readonly compressMs: number;
}

export class Recorder implements WorldTape {
  private readonly buffer = new ByteWriter(256 * 1024);
  /** Links named in the current block, by key: a datagram names its link's index (per block, so bounded). */
  private readonly peers = new Map<string, number>();
  private blockFirstTick: number;
  private lastTick: number;
  private written: number;
  private blocks = 0;
  private pending = 0;
  private compressMs = 0;
  private stoppedWhy: string | null = null;
  /** Where the payload of the record being written starts (begin() / end()). */
  private recordStart = 0;
  /** The writes in order: each block's write starts once the one before it finished. */
  private chain: Promise<void> = Promise.resolve();

  private constructor(
    private readonly file: FileHandle,
    private readonly options: RecorderOptions,
    headerBytes: number,
  ) {
    this.written = headerBytes;
    this.blockFirstTick = options.header.firstTick + 1;
    this.lastTick = options.header.firstTick;
  }

  /** Creates the file (never over an existing one) and writes its header. */
  static async create(options: RecorderOptions): Promise<Recorder> {
    const file = await open(options.path, "wx");
    const head = encodeHead(options.header);
    try {
      await file.write(head, 0, head.length, 0);
    } catch (error) {
      await file.close();
      throw error;
    }
    return new Recorder(file, options, head.length);
  }

  get recording(): boolean {
    return this.stoppedWhy === null;
  }

  get status(): RecorderStatus {
    return {
      path: this.options.path,
      recording: this.recording,
      stopped: this.stoppedWhy,
      bytesWritten: this.written,
      blocks: this.blocks,
      pendingBytes: this.pending,
      compressMs: Math.round(this.compressMs * 10) / 10,
    };
  }

  // ---- The tape (tape.ts): what the world reads from the machine, written as it is read.

  now(): number {
    const value = performance.now();
    if (this.recording) this.f64Record(RECORD.time, value);
    return value;
  }

  wallNow(): number {
    const value = Date.now();
    if (this.recording) this.f64Record(RECORD.wallTime, value);
    return value;
  }

  sample(live: number): number {
    if (this.recording) this.f64Record(RECORD.sample, live);
    return live;
  }

  identity(): SessionIdentity | undefined {
    return undefined;
  }

  identified(identity: SessionIdentity): void {
    if (!this.recording) return;
    const out = this.begin(RECORD.identity);
    out.u64(identity.token);
    out.blob(identity.key);
    this.end(out);
  }

  // ---- The inputs.

  /** The world as the run began: its database (SQLite serialized) and its content scripts. */
  snapshot(database: Uint8Array, content: readonly { name: string; source: string }[]): void {
    for (let at = 0; at < database.length || at === 0; at += SNAPSHOT_PART_BYTES) {
      const out = this.begin(RECORD.snapshotDb);
      out.varint(database.length);
      out.blob(database.subarray(at, Math.min(database.length, at + SNAPSHOT_PART_BYTES)));
      this.end(out);
      if (database.length === 0) break;
    }
    for (const file of content) {
      const out = this.begin(RECORD.contentFile);
      out.text(file.name);
      out.text(file.source);
      this.end(out);
    }
  }

  /** A datagram given to the handler; `rerouted`: one a cluster's gateway brought back from the region its session left. */
  datagram(peer: Peer, nowMs: number, bytes: Uint8Array, rerouted = false): void {
    if (!this.recording) return;
    const index = this.peerIndex(peer);
    const out = this.begin(rerouted ? RECORD.rerouted : RECORD.datagram);
    out.varint(index);
    out.f64(nowMs);
    out.blob(bytes);
    this.end(out);
    if (this.buffer.length >= SEAL_AT_BYTES) this.seal();
  }

  linkClosed(peerKey: string): void {
    if (!this.recording) return;
    const out = this.begin(RECORD.linkClosed);
    out.text(peerKey);
    this.end(out);
  }

  sessionSource(entityId: number, joinSource: string, reads: number): void {
    if (!this.recording) return;
    const out = this.begin(RECORD.sessionSource);
    out.varint(entityId);
    out.text(joinSource);
    out.varint(reads);
    this.end(out);
  }

  joinGuest(nick: string, appearance: number | null): void {
    if (!this.recording) return;
    const out = this.begin(RECORD.joinGuest);
    out.text(nick);
    out.svarint(appearance ?? -1);
    this.end(out);
  }

  joinAccount(account: unknown, saved: unknown): void {
    this.json(RECORD.joinAccount, { account, saved });
  }

  leave(entityId: number, reason: string): void {
    if (!this.recording) return;
    const out = this.begin(RECORD.leave);
    out.varint(entityId);
    out.text(reason);
    this.end(out);
  }

  scriptReload(name: string, source: string | null): void {
    if (!this.recording) return;
    const out = this.begin(RECORD.scriptReload);
    out.text(name);
    out.u8(source === null ? 1 : 0);
    out.text(source ?? "");
    this.end(out);
  }

  setTile(x: number, y: number, tileId: number): void {
    if (!this.recording) return;
    const out = this.begin(RECORD.setTile);
    out.svarint(x);
    out.svarint(y);
    out.varint(tileId);
    this.end(out);
  }

  admin(op: string, args: readonly unknown[]): void {
    this.json(RECORD.admin, { op, args });
  }

  /** A record of a type a host of the Game defines (a cluster's region: ts/cluster/region-recording.ts), its payload written by `fill`. */
  hostRecord(type: number, fill: (out: ByteWriter) => void): void {
    if (!this.recording) return;
    const out = this.begin(type);
    fill(out);
    this.end(out);
  }

  /**
   * The host set the world's clock to `tick` (a region joins the world's timeline at start, and again after
   * a stall): the next block starts after it, and the ticks passed over are in no block.
   */
  clockSet(tick: number, jumped: boolean): void {
    if (!this.recording) return;
    const out = this.begin(RECORD.clockSet);
    out.varint(tick);
    out.u8(jumped ? 1 : 0);
    this.end(out);
    if (this.lastTick === this.blockFirstTick - 1) this.blockFirstTick = tick + 1;
    this.lastTick = tick;
  }

  /** Where the buffer stands: an input that turns out refused (a join) is taken back to here. */
  mark(): number {
    return this.buffer.length;
  }

  /** Takes back everything recorded since `mark` (nothing was sealed in between: sealing happens between inputs). */
  rollback(mark: number): void {
    if (mark <= this.buffer.length) this.buffer.truncate(mark);
  }

  /** Tick `tick` begins: what it reads from the tape follows. */
  tickStart(tick: number): void {
    if (!this.recording) return;
    const out = this.begin(RECORD.tickStart);
    out.varint(tick);
    this.end(out);
  }

  /** The end of tick `tick`, with the world's digest (world-digest.ts); a second's end seals the block. */
  tickEnd(tick: number, digest: Uint32Array, secondEnds: boolean): void {
    if (!this.recording) return;
    const out = this.begin(RECORD.tickEnd);
    out.varint(tick);
    for (const part of digest) out.u32(part);
    this.end(out);
    this.lastTick = tick;
    if (secondEnds) {
      // Where this tick stands in wall time, for people looking for a moment (the world never reads it).
      const mark = this.begin(RECORD.clockMark);
      mark.varint(tick);
      mark.f64(Date.now());
      this.end(mark);
    }
    if (secondEnds || this.buffer.length >= SEAL_AT_BYTES) this.seal();
  }

  /** A checkpoint: every entity's fields and the items' census, encoded by world-digest.ts. */
  checkpoint(tick: number, encoded: Uint8Array): void {
    if (!this.recording) return;
    const out = this.begin(RECORD.checkpoint);
    out.varint(tick);
    out.blob(encoded);
    this.end(out);
  }

  /** Ends the recording: an end record, the last block, every write finished, the file closed. */
  async close(reason: string): Promise<void> {
    if (this.recording) {
      const out = this.begin(RECORD.end);
      out.text(reason);
      this.end(out);
      this.seal();
      this.stoppedWhy = `closed: ${reason}`;
    }
    await this.chain;
    await this.file.close().catch(() => {});
  }

  // ---- Writing.

  private peerIndex(peer: Pick<Peer, "key" | "address" | "transport">): number {
    let index = this.peers.get(peer.key);
    if (index !== undefined) return index;
    index = this.peers.size;
    this.peers.set(peer.key, index);
    const out = this.begin(RECORD.peer);
    out.varint(index);
    out.text(peer.key);
    out.text(peer.address);
    out.u8(TRANSPORTS.indexOf(peer.transport));
    this.end(out);
    return index;
  }

  private f64Record(type: number, value: number): void {
    const out = this.begin(type);
    out.f64(value);
    this.end(out);
  }

  private json(type: number, value: unknown): void {
    if (!this.recording) return;
    const out = this.begin(type);
    out.text(JSON.stringify(value, (_key, field: unknown) => (typeof field === "bigint" ? field.toString() : field)));
    this.end(out);
  }

  /** Starts a record of `type`: its type, room for its length; the caller writes the payload, then end(). */
  private begin(type: number): ByteWriter {
    const out = this.buffer;
    out.u8(type);
    out.reserve(LENGTH_BYTES);
    out.length += LENGTH_BYTES;
    this.recordStart = out.length;
    return out;
  }

  /** Writes the record's length (padded LEB128, so it fits the room begin() left). */
  private end(out: ByteWriter): void {
    const length = out.length - this.recordStart;
    const at = this.recordStart - LENGTH_BYTES;
    out.bytes[at] = (length & 0x7f) | 0x80;
    out.bytes[at + 1] = ((length >>> 7) & 0x7f) | 0x80;
    out.bytes[at + 2] = ((length >>> 14) & 0x7f) | 0x80;
    out.bytes[at + 3] = (length >>> 21) & 0x7f;
  }

  /** Seals the buffer into a block: compressed off the tick, appended after the blocks before it. */
  private seal(): void {
    if (this.buffer.length === 0) return;
    const raw = this.buffer.bytes.slice(0, this.buffer.length);
    this.buffer.truncate(0);
    this.peers.clear();
    const firstTick = this.blockFirstTick;
    const lastTick = this.lastTick;
    this.blockFirstTick = lastTick + 1;
    if (this.pending + raw.length > MAX_PENDING_BYTES) {
      this.stop(`the disk is not keeping up (${this.pending} bytes waiting to be written)`);
      return;
    }
    this.pending += raw.length;
    const startMs = performance.now();
    const compressed = new Promise<Buffer>((resolve, reject) =>
      deflate(raw, { level: 1 }, (error, result) => {
        this.compressMs += performance.now() - startMs;
        if (error) reject(error);
        else resolve(result);
      }),
    );
    // `pending` counts the block until it is on disk (or given up), so pendingBytes 0 means every sealed block is written.
    this.chain = this.chain.then(async () => {
      try {
        await this.write(raw, compressed, firstTick, lastTick);
      } finally {
        this.pending -= raw.length;
      }
    });
  }

  /** Appends one sealed block once compressed; a failure stops the recording (never the chain of writes). */
  private async write(
    raw: Uint8Array,
    compressed: Promise<Buffer>,
    firstTick: number,
    lastTick: number,
  ): Promise<void> {
    let body: Buffer;
    try {
      body = await compressed;
    } catch (error) {
      this.stop(`compressing failed: ${String(error)}`);
      return;
    }
    if (this.stoppedWhy !== null && !this.stoppedWhy.startsWith("closed")) return;
    if (this.written + BLOCK_HEADER_BYTES + body.length > this.options.maxBytes) {
      this.stop(`the recording reached its size limit (${this.options.maxBytes} bytes; --record-max-mb)`);
      return;
    }
    const head = new Uint8Array(BLOCK_HEADER_BYTES);
    const view = new DataView(head.buffer);
    view.setUint32(0, BLOCK_MAGIC, true);
    view.setUint32(4, body.length, true);
    view.setUint32(8, raw.length, true);
    view.setUint32(12, firstTick, true);
    view.setUint32(16, lastTick, true);
    try {
      const { bytesWritten } = await this.file.writev([head, body], this.written);
      if (bytesWritten !== head.length + body.length) {
        throw new Error(`short write: ${bytesWritten} of ${head.length + body.length} bytes`);
      }
      this.written += bytesWritten;
      this.blocks++;
    } catch (error) {
      this.stop(`writing failed: ${String(error)}`);
    }
  }

  /** Stops recording for good (the world plays on), loudly. */
  private stop(why: string): void {
    if (this.stoppedWhy !== null) return;
    this.stoppedWhy = why;
    this.buffer.truncate(0);
    this.options.log.error("the flight recorder stopped: the world plays on unrecorded from here", {
      path: this.options.path,
      why,
    });
  }
}
