// Replays a flight recording (docs/recording.md § Replay): the composition root of a replayed world, as
// server.ts is of a running one. It makes the world again from the recording's
// snapshot (its database, its content scripts, the map it names, its options), feeds every recorded input
// through the same code and the same wasm core in the order the world consumed them — each datagram into
// the datagram handler at the time it arrived, each join, leave and operator's action through the Game —
// and answers every read of the tape with what was recorded. After each tick it compares the world's
// digest with the recorded one; at the first difference it names the tick and the part of the world, and
// at the next checkpoint the entities and fields that differ.
import { performance } from "node:perf_hooks";
import { loadCore } from "../wasm/node.js";
import type { Peer } from "./edge/peer.js";
import { Game } from "./game-server.js";
import type { AdminInput } from "./admin/admin-service.js";
import { Logger } from "./ops/log.js";
import { openGameDatabaseFromSnapshot } from "./persistence/database.js";
import type { CharacterState } from "./persistence/character-store.js";
import { LuaRuntime } from "./scripting/lua-sandbox.js";
import type { AccountEntry } from "./session-lifecycle.js";
import { readWorld } from "./world/world-areas.js";
import type { WorldMap } from "./world/world.js";
import type { GameOptions } from "./game-options.js";
import { type ByteReader, RecordingError } from "./recording/bytes.js";
import {
  BlockReader,
  type ByteSource,
  DIGEST_PART_NAMES,
  fileSource,
  RECORD,
  type RawRecord,
  type RecordingHeader,
  readHeader,
  recordsOf,
} from "./recording/format.js";
import { buildInfo, mapFingerprint } from "./recording/recording-files.js";
import type { SessionIdentity, WorldTape } from "./ops/world-tape.js";
import { decodeCheckpoint, describeDifferences } from "./recording/world-digest.js";

const RECORD_NAMES = new Map<number, string>(Object.entries(RECORD).map(([name, type]) => [type, name]));

/**
 * A host of the Game other than one process — a cluster's region (ts/cluster/region-replay.ts): how its world
 * is made from the map, and the records of its own inputs, which it applies to the world it made.
 */
export interface ReplayHost {
  /**
   * The map and the options (beyond the recorded plain ones) the host's Game is made with; `take` reads the
   * record the world reads next off the tape (the host's own reads of the machine: a shared store's answers).
   */
  world(
    map: WorldMap,
    mapPath: string,
    take: (type: number, what: string) => RawRecord,
  ): { map: WorldMap; options: Partial<GameOptions> };
  /** The Game is made: the host attaches what drives it, and answers its own records from then on. */
  attach(game: Game, log: Logger): ReplayHostInputs;
}

export interface ReplayHostInputs {
  /**
   * Applies a record of the host's (its payload at its start): true when it was one, false for a type the
   * host does not know either. Throws OffTheRecord where the replay cannot follow the recording.
   */
  input(type: number, payload: ByteReader): boolean;
  /**
   * Whether the world acts on a record of this type after it is applied, not at once (a promise it waits on
   * settled): the replay then lets it act before it reads on, as the live world did before its next input.
   */
  actsLater?(type: number): boolean;
}

export interface ReplayOptions {
  readonly file: string;
  /** The host a recording's header names (a cluster's region), or undefined: one process. */
  readonly hostFor?: (header: RecordingHeader) => ReplayHost | undefined;
  /** The map to make the world from instead of the recorded path (a moved checkout): still checked by hash. */
  readonly mapPath?: string;
  /** Stop after this tick (a partial replay). */
  readonly untilTick?: number;
  /** Told every `progressEveryTicks` ticks. */
  readonly onProgress?: (tick: number, lastTick: number | null) => void;
  readonly progressEveryTicks?: number;
  /** Called after every tick with the replayed world (a viewer, a test). */
  readonly onTick?: (game: Game) => void;
  readonly log?: Logger;
}

export interface Divergence {
  /** The first tick whose digest differs (or where the replay stopped following the recording). */
  readonly tick: number;
  /** What differs: the digest's parts, or how the replay left the recording's path. */
  readonly what: string[];
  /** The entities and fields that differ at the next checkpoint, when one was reached. */
  readonly details: string[];
  /** The checkpoint's tick the details are of. */
  readonly checkpointTick: number | null;
}

export interface ReplayResult {
  readonly header: RecordingHeader;
  /** Differences between the recording's build and this one (a replay on another build checks behaviour). */
  readonly buildNotes: string[];
  readonly firstTick: number;
  readonly lastTick: number;
  readonly ticks: number;
  readonly checkpoints: number;
  readonly inputs: number;
  /** The first divergence, or null: every tick's digest matched. */
  readonly divergence: Divergence | null;
  /** Why the file ends before a clean end (a crash, a stopped recording), or null. */
  readonly truncated: string | null;
  /** The reason of the recording's end record, or null when it has none. */
  readonly ended: string | null;
  readonly elapsedMs: number;
}

/** The replay stopped following the recording (a tape read where the recording has something else). */
export class OffTheRecord extends Error {}

/** Answers the world's reads of the tape from the recording's records, in order. */
class ReplayTape implements WorldTape {
  tick = 0;

  constructor(private readonly next: () => RawRecord | null) {}

  take(type: number, what: string): RawRecord {
    const record = this.next();
    if (record === null) throw new OffTheRecord(`the recording ends where the replay ${what}`);
    if (record.type !== type) {
      throw new OffTheRecord(
        `the replay ${what} where the recording has ${RECORD_NAMES.get(record.type) ?? `type ${record.type}`}`,
      );
    }
    return record;
  }

  now(): number {
    return this.take(RECORD.time, "read the clock").payload.f64();
  }

  wallNow(): number {
    return this.take(RECORD.wallTime, "read the wall clock").payload.f64();
  }

  sample(): number {
    return this.take(RECORD.sample, "read a value of the machine").payload.f64();
  }

  identity(): SessionIdentity {
    const payload = this.take(RECORD.identity, "started a session").payload;
    const token = payload.u64();
    return { token, key: payload.blob().slice() };
  }

  identified(): void {}
}

/** A link as the replay knows it: its key and address; what the world sends it goes nowhere. */
function replayPeer(key: string, address: string, transport: Peer["transport"]): Peer {
  return { key, address, transport, send: () => {} };
}

const TRANSPORTS = ["udp", "webrtc", "websocket"] as const;

/** Opens a recording and reads its header (checking it is one); the caller closes the source. */
export function openRecording(file: string): {
  header: RecordingHeader;
  source: ByteSource & { close(): void };
  blocksAt: number;
} {
  let source: ByteSource & { close(): void };
  try {
    source = fileSource(file);
  } catch (error) {
    throw new RecordingError(`cannot read ${file}: ${(error as Error).message}`, "missing");
  }
  try {
    const { header, blocksAt } = readHeader(source);
    return { header, source, blocksAt };
  } catch (error) {
    source.close();
    throw error;
  }
}

export async function replayRecording(options: ReplayOptions): Promise<ReplayResult> {
  const run = await ReplayRun.open(options);
  try {
    const progressEvery = options.progressEveryTicks ?? 24 * 60;
    while (await run.advance()) {
      if (run.ticks % progressEvery === 0) options.onProgress?.(run.lastTick, null);
      options.onTick?.(run.game);
    }
  } finally {
    run.close();
  }
  return run.result();
}

/** What a replay is made from: the file, the map when it moved, where it stops, and the log. */
export type ReplayOpenOptions = Pick<ReplayOptions, "file" | "mapPath" | "untilTick" | "log" | "hostFor">;

/**
 * One replay of a recording, a tick at a time: `verify` runs it through as fast as it goes, `watch`
 * (replay-viewer/) at the pace a viewer asks. Made again from the snapshot for a seek backwards.
 */
export class ReplayRun {
  lastTick = 0;
  ticks = 0;
  checkpoints = 0;
  inputs = 0;
  ended: string | null = null;
  private divergenceFound: { tick: number; what: string[] } | null = null;
  private details: string[] = [];
  private checkpointTick: number | null = null;
  private done = false;
  private closed = false;

  private constructor(
    readonly header: RecordingHeader,
    readonly game: Game,
    private readonly source: ByteSource & { close(): void },
    private readonly reader: BlockReader,
    private readonly next: () => RawRecord | null,
    private readonly peerAt: (index: number) => Peer | undefined,
    private readonly namePeer: (index: number, peer: Peer) => void,
    private readonly buildNotes: string[],
    private readonly untilTick: number | undefined,
    private readonly startMs: number,
    private readonly host: ReplayHostInputs | null,
    /** The first tick the recording has (the one after its snapshot: a region's, after the tick it joined the world at). */
    readonly firstTick: number,
  ) {}

  /**
   * Opens the recording, checks its map, and makes the world from its snapshot; throws RecordingError
   * for a file that is not a whole recording (what is wrong named).
   */
  static async open(options: ReplayOpenOptions): Promise<ReplayRun> {
    const startMs = performance.now();
    const { header, source, blocksAt } = openRecording(options.file);
    try {
      return await ReplayRun.make(options, header, source, blocksAt, startMs);
    } catch (error) {
      source.close();
      throw error;
    }
  }

  private static async make(
    options: ReplayOpenOptions,
    header: RecordingHeader,
    source: ByteSource & { close(): void },
    blocksAt: number,
    startMs: number,
  ): Promise<ReplayRun> {
    const log = options.log ?? new Logger("warn");
    const buildNotes = compareBuilds(header.build);
    // A cut (cut.ts) replays to the end of its window.
    const untilTick = options.untilTick ?? header.window?.toTick;

    // The map: the one recorded, unchanged.
    const mapPath = options.mapPath ?? header.map.path;
    let composed: ReturnType<typeof readWorld>;
    try {
      composed = readWorld(mapPath);
    } catch (error) {
      throw new RecordingError(`the recording's map ${mapPath} cannot be read: ${(error as Error).message}`, "missing");
    }
    const fingerprint = mapFingerprint(composed.files);
    if (fingerprint !== header.map.sha256) {
      throw new RecordingError(
        `the map ${mapPath} is not the one recorded (its files changed since, or it is another map): ` +
          `recorded ${header.map.sha256.slice(0, 12)}, found ${fingerprint.slice(0, 12)}`,
        "mismatch",
      );
    }

    const reader = new BlockReader(source, blocksAt);
    const blocks = reader.blocks();
    let records: Generator<RawRecord> | null = null;
    let peers: Peer[] = [];
    /** The first block's first tick: a region's recording starts where the world's timeline stood. */
    let firstTick: number | null = null;
    const next = (): RawRecord | null => {
      for (;;) {
        if (records !== null) {
          const record = records.next();
          if (!record.done) return record.value;
        }
        const block = blocks.next();
        if (block.done) return null;
        firstTick ??= block.value.firstTick;
        // Links are named per block (recorder.ts): a new block names them again.
        peers = [];
        records = recordsOf(block.value);
      }
    };

    // The snapshot: the database, then the content scripts, before anything else.
    const snapshotParts: Uint8Array[] = [];
    let snapshotBytes = -1;
    const content: { name: string; path: string; source: string }[] = [];
    let record = next();
    while (record !== null && record.type === RECORD.snapshotDb) {
      snapshotBytes = record.payload.varint();
      snapshotParts.push(record.payload.blob());
      record = next();
    }
    if (snapshotBytes < 0) {
      throw new RecordingError(
        reader.truncated !== null
          ? `the recording ends before its snapshot is whole (${reader.truncated})`
          : "the recording's snapshot is missing: it does not begin with the world's database",
        reader.truncated !== null ? "truncated" : "missing",
      );
    }
    const snapshot = Buffer.concat(snapshotParts);
    if (snapshot.length !== snapshotBytes) {
      throw new RecordingError(
        `the recording's snapshot is ${snapshot.length} of its ${snapshotBytes} bytes`,
        "corrupt",
      );
    }
    while (record !== null && record.type === RECORD.contentFile) {
      const name = record.payload.text();
      content.push({ name, path: name, source: record.payload.text() });
      record = next();
    }
    // The first record after the snapshot is read again by the first advance().
    let pending: RawRecord | null = record;
    const nextAfterSnapshot = (): RawRecord | null => {
      if (pending !== null) {
        const first = pending;
        pending = null;
        return first;
      }
      return next();
    };

    const tape = new ReplayTape(nextAfterSnapshot);
    let database;
    try {
      database = openGameDatabaseFromSnapshot(snapshot);
    } catch (error) {
      throw new RecordingError(`the recording's snapshot is not a database: ${(error as Error).message}`, "corrupt");
    }
    const core = await loadCore();
    const runtime = content.length > 0 ? await LuaRuntime.load() : null;
    const host = options.hostFor?.(header);
    const made = host?.world(composed.map, mapPath, (type, what) => tape.take(type, what)) ?? {
      map: composed.map,
      options: {},
    };
    const game = new Game(
      core,
      made.map,
      {
        ...(header.options as object),
        ...made.options,
        database,
        tape,
        content: runtime === null ? undefined : { runtime, files: content },
      },
      log,
    );
    return new ReplayRun(
      header,
      game,
      source,
      reader,
      nextAfterSnapshot,
      (index) => peers[index],
      (index, peer) => (peers[index] = peer),
      buildNotes,
      untilTick,
      startMs,
      host?.attach(game, log) ?? null,
      firstTick ?? header.firstTick + 1,
    );
  }

  /** Whether the replay has ended (the recording, its window or a divergence that stops it). */
  get finished(): boolean {
    return this.done;
  }

  /** The first divergence so far, or null. */
  get divergence(): Divergence | null {
    const found = this.divergenceFound;
    return found === null ? null : { ...found, details: this.details, checkpointTick: this.checkpointTick };
  }

  /**
   * Feeds the recording's inputs through the next tick's end: true when a tick was replayed, false when
   * the replay is over (the recording's end, its window's, a divergence it cannot go on from).
   */
  async advance(): Promise<boolean> {
    if (this.done) return false;
    const game = this.game;
    const sessionOf = (entityId: number) => game.sessions.byEntityId(entityId);
    try {
      for (let record = this.next(); record !== null; record = this.next()) {
        const payload = record.payload;
        switch (record.type) {
          case RECORD.peer: {
            const index = payload.varint();
            const key = payload.text();
            const address = payload.text();
            this.namePeer(index, replayPeer(key, address, TRANSPORTS[payload.u8()] ?? "udp"));
            break;
          }
          case RECORD.datagram:
          case RECORD.rerouted: {
            // Rerouted: one a cluster's gateway brought back from the region its session left (Game.receiveRerouted).
            this.inputs++;
            const peer = this.peerAt(payload.varint());
            if (peer === undefined)
              throw new RecordingError("a datagram names a link its block never named", "corrupt");
            const nowMs = payload.f64();
            game.handler.handle(payload.blob(), peer, nowMs, record.type === RECORD.rerouted);
            break;
          }
          case RECORD.linkClosed:
            this.inputs++;
            game.linkClosed(payload.text());
            break;
          case RECORD.joinGuest: {
            this.inputs++;
            const nick = payload.text();
            const appearance = payload.svarint();
            refusedIsOff(() => game.join(nick, appearance < 0 ? null : appearance), `${nick}'s join`);
            break;
          }
          case RECORD.joinAccount: {
            this.inputs++;
            const { account, saved } = JSON.parse(payload.text()) as { account: AccountEntry; saved: CharacterState };
            refusedIsOff(() => game.startAccountSession(account, saved), `${account.nick}'s login`);
            break;
          }
          case RECORD.sessionSource: {
            const session = sessionOf(payload.varint());
            const joinSource = payload.text();
            const reads = payload.varint();
            if (session === undefined) throw new OffTheRecord("the recording names a session the replay does not have");
            game.admitted(session, joinSource, reads);
            break;
          }
          case RECORD.leave: {
            this.inputs++;
            const session = sessionOf(payload.varint());
            const reason = payload.text();
            if (session !== undefined) game.leave(session, reason);
            break;
          }
          case RECORD.scriptReload: {
            this.inputs++;
            const name = payload.text();
            const removed = payload.u8() === 1;
            const source = payload.text();
            game.reloadScript(name, removed ? null : source);
            break;
          }
          case RECORD.setTile:
            this.inputs++;
            game.setTile(payload.svarint(), payload.svarint(), payload.varint());
            break;
          case RECORD.admin: {
            this.inputs++;
            const input = JSON.parse(payload.text()) as AdminInput;
            replayAdmin(game, input);
            break;
          }
          case RECORD.tickStart: {
            const tick = payload.varint();
            if (tick !== game.tick + 1)
              throw new OffTheRecord(`the recording's tick ${tick} follows the replay's ${game.tick}`);
            if (this.untilTick !== undefined && tick > this.untilTick) {
              this.done = true;
              return false;
            }
            // Levels the generator finished by this tick are on the tape: the replay's must be ready too.
            await game.levels.generated();
            game.step();
            break;
          }
          case RECORD.checkpoint: {
            const tick = payload.varint();
            const recorded = decodeCheckpoint(payload.blob());
            this.checkpoints++;
            const differences = describeDifferences(recorded, decodeCheckpoint(game.checkpoint()));
            if (differences.length > 0) {
              // The first checkpoint after a divergence names it; one that differs with every digest equal
              // (the items' census: bags and chests are not in the digest) is the divergence itself.
              this.details = differences;
              this.checkpointTick = tick;
              this.divergenceFound ??= { tick, what: ["the checkpoint (entities or the items' census)"] };
              this.done = true;
              return false;
            }
            break;
          }
          case RECORD.tickEnd: {
            const tick = payload.varint();
            const digest = game.digest();
            const differing: string[] = [];
            for (let part = 0; part < digest.length; part++) {
              if (payload.u32() !== digest[part]) differing.push(DIGEST_PART_NAMES[part]);
            }
            this.lastTick = tick;
            this.ticks++;
            if (differing.length > 0 && this.divergenceFound === null) this.divergenceFound = { tick, what: differing };
            return true;
          }
          case RECORD.end:
            this.ended = payload.text();
            break;
          case RECORD.clockMark:
            // For people finding a moment (replay cut); the world never read it.
            break;
          case RECORD.time:
          case RECORD.wallTime:
          case RECORD.sample:
          case RECORD.identity:
            throw new OffTheRecord(
              `the recording read ${RECORD_NAMES.get(record.type)} where the replay read nothing (between inputs, at tick ${game.tick})`,
            );
          default:
            // A record of the host's (a region's inputs), or of a type this build does not know: skipped (its
            // length says where the next begins).
            if (this.host?.input(record.type, payload) === true) {
              this.inputs++;
              // An answer a promise of the world waited on: what the world does on it runs now, before the next record.
              if (this.host.actsLater?.(record.type) === true) await new Promise((resolve) => setImmediate(resolve));
            }
            break;
        }
      }
    } catch (error) {
      if (!(error instanceof OffTheRecord)) throw error;
      const found = (this.divergenceFound ??= { tick: game.tick, what: [error.message] });
      if (!found.what.includes(error.message)) found.what.push(error.message);
    }
    this.done = true;
    return false;
  }

  /** What the replay found, as of now. */
  result(): ReplayResult {
    return {
      header: this.header,
      buildNotes: this.buildNotes,
      firstTick: this.firstTick,
      lastTick: this.lastTick,
      ticks: this.ticks,
      checkpoints: this.checkpoints,
      inputs: this.inputs,
      divergence: this.divergence,
      truncated: this.reader.truncated,
      ended: this.ended,
      elapsedMs: performance.now() - this.startMs,
    };
  }

  /** Ends the world (its generator, its scripts, its database) and closes the file. */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    try {
      this.game.shutdown();
    } finally {
      this.source.close();
    }
  }
}

/** Runs a join the recording says succeeded: refused in the replay, the replay has left the recording's path. */
function refusedIsOff(join: () => unknown, what: string): void {
  try {
    join();
  } catch (error) {
    throw new OffTheRecord(`${what} was refused in the replay (${(error as Error).message}), not when recorded`);
  }
}

/** Calls an operator's recorded action again; one the operator was refused is refused again (and skipped). */
function replayAdmin(game: Game, input: AdminInput): void {
  const admin = game.admin;
  try {
    switch (input.op) {
      case "kick":
        admin.kick(...input.args);
        break;
      case "ban":
        // JSON kept an absent duration ("for good") as null.
        admin.ban(input.args[0], input.args[1] ?? undefined, input.args[2]);
        break;
      case "unban":
        admin.unban(...input.args);
        break;
      case "mute":
        admin.mute(input.args[0], input.args[1] ?? undefined, input.args[2]);
        break;
      case "unmute":
        admin.unmute(...input.args);
        break;
      case "announce":
        admin.announce(...input.args);
        break;
      case "message":
        admin.message(...input.args);
        break;
      case "teleport":
        admin.teleport(...input.args);
        break;
    }
  } catch {
    // Refused as it was when recorded (an unknown player, a bad address): nothing changed.
  }
}

/** What differs between the recording's build and this one, said plainly (empty: the same build). */
function compareBuilds(recorded: RecordingHeader["build"]): string[] {
  const current = buildInfo();
  const notes: string[] = [];
  if (recorded.commit !== current.commit) {
    notes.push(`recorded by commit ${recorded.commit ?? "unknown"}, replayed by ${current.commit ?? "unknown"}`);
  }
  if (recorded.core !== current.core)
    notes.push(`the wasm core differs (recorded ${recorded.core}, now ${current.core})`);
  if (recorded.version !== current.version) notes.push(`version ${recorded.version}, now ${current.version}`);
  return notes;
}
