// The client core's pieces, one concept at a time, with the real wasm module
// and packets encoded by the protocol library.
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { ChunkCache } from "../ts/client/core/chunk-cache.js";
import { ChunkRequester } from "../ts/client/core/chunk-requests.js";
import { ConnectionMonitor } from "../ts/client/core/connection.js";
import { EntityTable } from "../ts/client/core/entity-table.js";
import { GridWindow } from "../ts/client/core/grid-window.js";
import { NameDirectory } from "../ts/client/core/names.js";
import { actionTowards, Planner } from "../ts/client/core/planner.js";
import { Prediction } from "../ts/client/core/prediction.js";
import { Pinger, RttEstimator } from "../ts/client/core/rtt.js";
import { earliestWindow, leadMs, nextStepWindow } from "../ts/client/core/scheduler.js";
import { ServerClock } from "../ts/client/core/server-clock.js";
import { joinGuest, parseToken, SessionError, tileFlagsTable } from "../ts/client/core/session-api.js";
import { statesMissedBetween, TrafficMeter } from "../ts/client/core/stats.js";
import { IDLE_STATE_EVERY_TICKS, TILE_UNKNOWN } from "../ts/constants.js";
import { mulberry32 } from "../ts/random.js";
import {
  chunkId,
  decodePacket,
  encodeChunkWideFromTiles,
  type ChunkEntry,
  type ChunkView,
  type EntityView,
} from "../ts/protocol/index.js";
import { WasmCodec } from "../ts/wasm/codec.js";
import type { Core } from "../ts/wasm/core.js";
import { loadCore } from "../ts/wasm/node.js";
import { WasmSim } from "../ts/wasm/sim.js";
import { lastWindowConsumedAt, tickOfWindow } from "../ts/window.js";
import {
  chunkDatagram,
  entityUpdate,
  FLOOR,
  GRAVEL,
  player,
  stateDatagram,
  TEST_WORLD,
  WALL,
} from "./client-core-support.js";

const N = 1, E = 2, W = 4, SE = 6; // prettier-ignore

let core: Core;
let sim: WasmSim;

beforeAll(async () => {
  core = await loadCore();
  sim = new WasmSim(core);
  sim.setFlags(tileFlagsTable(TEST_WORLD));
});

/** Loads rows of characters into the wasm grid at (originX, originY): . floor, # wall, ? unknown. */
function loadRows(rows: string[], originX = 0, originY = 0): void {
  expect(sim.initGrid(rows[0].length, rows.length, originX, originY)).toBe(true);
  const ids: Record<string, number> = { ".": FLOOR, "#": WALL, "?": TILE_UNKNOWN };
  rows.forEach((row, y) => [...row].forEach((ch, x) => sim.setTile(originX + x, originY + y, ids[ch])));
}

function decodeEntity(datagram: Uint8Array): EntityView {
  const result = decodePacket(datagram);
  if (!result.ok || result.packet.type !== "entity") throw new Error("not an entity packet");
  return result.packet;
}

function decodeChunk(datagram: Uint8Array): ChunkView {
  const result = decodePacket(datagram);
  if (!result.ok || result.packet.type !== "chunk") throw new Error("not a chunk packet");
  return result.packet;
}

function stateOf(datagram: Uint8Array): { tick: number; checksum: number } {
  const result = decodePacket(datagram);
  if (!result.ok || result.packet.type !== "state") throw new Error("not a state packet");
  return { tick: result.packet.tick, checksum: result.packet.entityChecksum };
}

describe("the networking core is platform-neutral", () => {
  it("imports nothing from node: and touches no DOM global in ts/client/core", () => {
    const dir = join(import.meta.dirname, "../ts/client/core");
    const files = readdirSync(dir).filter((name) => name.endsWith(".ts"));
    expect(files.length).toBeGreaterThan(10);
    for (const name of files) {
      const text = readFileSync(join(dir, name), "utf8");
      const code = text.replace(/\/\*[\s\S]*?\*\//g, "").replace(/\/\/.*$/gm, "");
      expect(text, name).not.toMatch(/from\s+["']node:/);
      expect(code, name).not.toMatch(/(?<![\w/.-])(window|document|process|globalThis)\.[A-Za-z]/);
      // Everything it imports lives in the shared layers, never in the server or a Node-only module
      // (blit-layout.js: the wasm layout's numbers, imports nothing; the catalogue checks a light radius by it;
      // replay-control.js: the replay viewer's request and state shapes, shared with its server, imports nothing).
      for (const match of text.matchAll(/from\s+["']([^"']+)["']/g)) {
        expect(match[1], `${name} imports ${match[1]}`).toMatch(
          /^\.\/|^\.\.\/\.\.\/(constants|window\.js|action-points\.js|npc-types\.js|item-types\.js|combat-rules\.js|world-time\.js|tile-flags|blit-layout\.js|replay-control\.js|protocol\/|wasm\/(core|sim|codec)|netsim\/index)/,
        );
      }
    }
  });
});

describe("server clock", () => {
  it("estimates the tick from the least-delayed StatePacket plus half the RTT", () => {
    const clock = new ServerClock(24);
    expect(clock.synced).toBe(false);
    expect(clock.tickAt(0, 0)).toBeNaN();
    clock.observe(100, 1000);
    expect(clock.tickAt(1000, 0)).toBeCloseTo(100, 9);
    expect(clock.tickAt(2000, 0)).toBeCloseTo(124, 9);
    expect(clock.tickAt(1000, 100)).toBeCloseTo(101.2, 9); // 50 ms one way = 1.2 ticks
    // The next State (tick 102, due at 1083.3 ms) arrives 50 ms late: the estimate does not fall back.
    clock.observe(102, 1000 + 2000 / 24 + 50);
    expect(clock.tickAt(2000, 0)).toBeCloseTo(124, 9);
  });

  it("follows a server that fell behind once the window of samples has passed", () => {
    const clock = new ServerClock(24);
    clock.observe(100, 1000);
    // The server stalls and resumes 12 ticks behind where wall time says it should be.
    for (let state = 1; state <= 30; state++) clock.observe(100 + 2 * state - 12, 1000 + (state * 2000) / 24);
    expect(clock.tickAt(1000 + (30 * 2000) / 24, 0)).toBeCloseTo(148, 6);
  });
});

describe("server clock under time dilation", () => {
  /** States every other tick from a server at `share` of 24 Hz, each delayed 20 ms plus up to `jitterMs`. */
  function feed(clock: ServerClock, share: number, seconds: number, jitterMs: number, seed: number): number {
    let state = seed;
    const random = () => (state = (state * 1103515245 + 12345) % 2147483648) / 2147483648;
    const periodMs = 1000 / (24 * share);
    let tick = 1000;
    let sentMs = 0;
    for (; sentMs < seconds * 1000; sentMs += 2 * periodMs, tick += 2)
      clock.observe(tick, sentMs + 20 + random() * jitterMs);
    return sentMs;
  }

  it("follows a server running at 70 % of its rate: the estimate stays within a tick", () => {
    const clock = new ServerClock(24);
    const endMs = feed(clock, 0.7, 8, 30, 7);
    // The server's tick at local time endMs (ticks start at 1000 at 0 ms), and the estimate with RTT 40 ms.
    const truth = 1000 + (endMs * 24 * 0.7) / 1000;
    expect(clock.tickAt(endMs - 20, 40)).toBeGreaterThan(truth - 1);
    expect(clock.tickAt(endMs - 20, 40)).toBeLessThan(truth + 1);
    expect(clock.estimatedHz).toBeCloseTo(24 * 0.7, 0);
  });

  it("keeps the nominal rate for a server at full speed, whatever the jitter", () => {
    for (const seed of [1, 2, 3, 4, 5]) {
      const clock = new ServerClock(24);
      const endMs = feed(clock, 1, 8, 80, seed);
      expect(clock.estimatedHz).toBe(24);
      const truth = 1000 + (endMs * 24) / 1000;
      expect(Math.abs(clock.tickAt(endMs - 20, 40) - truth)).toBeLessThan(1.5);
    }
  });
});

describe("round-trip time", () => {
  it("starts at a sane value, takes the first sample whole, then smooths by 1/8", () => {
    const rtt = new RttEstimator(100);
    expect(rtt.smoothedMs).toBe(100);
    rtt.addSample(40);
    expect(rtt.smoothedMs).toBe(40);
    expect(rtt.varianceMs).toBe(20);
    rtt.addSample(120);
    expect(rtt.smoothedMs).toBe(50);
    expect(rtt.varianceMs).toBe(20 + (80 - 20) / 4);
  });

  it("pings once per interval and pairs each pong with its ping by the echoed timestamp", () => {
    const pinger = new Pinger(1000);
    expect(pinger.due(0)).toBe(true);
    const first = pinger.send(10.4);
    expect(pinger.due(500)).toBe(false);
    expect(pinger.due(1010.4)).toBe(true);
    const second = pinger.send(1010.4);
    expect(second).not.toBe(first);
    // Pongs reordered: each still measures its own ping.
    expect(pinger.receive(second, 1030.4)).toBeCloseTo(20, 9);
    expect(pinger.receive(first, 1100)).toBeCloseTo(1089.6, 9);
    expect(pinger.receive(first, 1200)).toBeNull(); // a duplicate pong
    expect(pinger.receive(123456n, 1200)).toBeNull(); // never sent
  });
});

describe("scheduler", () => {
  it("aims at the first window whose execution tick lies after the arrival tick", () => {
    // Window w executes on tick 4w. At server tick 40.0, tick 40 (window 10) is being processed: too late.
    expect(earliestWindow(40, 0, 24)).toBe(11);
    expect(earliestWindow(39.5, 0, 24)).toBe(10);
    // 100 ms of lead is 2.4 ticks: arriving at 41.9 still makes window 11 (tick 44), at 44.1 only window 12.
    expect(earliestWindow(39.5, 100, 24)).toBe(11);
    expect(earliestWindow(41.7, 100, 24)).toBe(12);
    expect(tickOfWindow(11)).toBe(44);
  });

  it("never aims past the server's action window horizon, however large the lead", () => {
    // At tick 40 the server's next window is 11, and it accepts windows up to 11 + 3.
    expect(earliestWindow(40, 400, 24)).toBe(13); // 9.6 ticks of lead: arrives at 49.6, within the horizon
    expect(earliestWindow(40, 1450, 24)).toBe(14); // a stalled host's lead would aim at window 19
  });

  it("leads by half the RTT plus a margin that grows with the RTT's variation", () => {
    const rtt = new RttEstimator(100);
    rtt.addSample(200);
    expect(leadMs(rtt, 25)).toBe(100 + 2 * 100 + 25);
  });

  it("schedules one step per window, only into the earliest window, and at most maxPending", () => {
    expect(nextStepWindow(11, -1, 0, 8)).toBe(11);
    expect(nextStepWindow(11, 10, 3, 8)).toBe(11);
    expect(nextStepWindow(11, 11, 3, 8)).toBe(-1); // that window already has its step
    expect(nextStepWindow(11, 12, 3, 8)).toBe(-1); // the clock estimate fell back: never a second step in 12
    expect(nextStepWindow(12, 11, 8, 8)).toBe(-1);
  });
});

describe("prediction: predict → ack → replay", () => {
  const ROOM = [
    "#######", //
    "#.....#",
    "#..#..#",
    "#.....#",
    "#######",
  ];

  it("derives the predicted position by replaying pending steps through the rule, never into a wall", () => {
    loadRows(ROOM);
    const prediction = new Prediction(sim);
    expect(prediction.predicted()).toBeNull();
    prediction.acknowledge(9, 1, 1);
    expect(prediction.predicted()).toEqual({ x: 1, y: 1 });
    prediction.add(10, E);
    prediction.add(11, E);
    prediction.add(12, SE); // (3,1) -> (4,2) would cut the corner of the pillar at (3,2): refused
    prediction.add(13, E);
    expect(prediction.predicted()).toEqual({ x: 4, y: 1 });
    expect(prediction.inFlightTiles()).toEqual([
      { x: 2, y: 1 },
      { x: 3, y: 1 },
      { x: 3, y: 1 },
      { x: 4, y: 1 },
    ]);
    expect(() => prediction.add(13, N)).toThrow(RangeError);
  });

  it("expires every step of an acknowledged window and counts a correction only when the server disagrees", () => {
    loadRows(ROOM);
    const prediction = new Prediction(sim);
    prediction.acknowledge(lastWindowConsumedAt(36), 1, 1); // window 9
    prediction.add(10, E);
    prediction.add(11, E);
    prediction.add(12, E);
    // Ack of tick 44 (window 11): both E steps executed as predicted.
    prediction.acknowledge(lastWindowConsumedAt(44), 3, 1);
    expect(prediction.pending).toEqual([{ window: 12, action: E }]);
    expect(prediction.corrections).toBe(0);
    expect(prediction.predicted()).toEqual({ x: 4, y: 1 });
    // Window 12's step was lost: the server still has (3,1). The step drops out and the prediction shifts.
    prediction.acknowledge(12, 3, 1);
    expect(prediction.pending).toEqual([]);
    expect(prediction.corrections).toBe(1);
    expect(prediction.predicted()).toEqual({ x: 3, y: 1 });
    // A stale ack (older window) changes nothing.
    prediction.acknowledge(11, 1, 1);
    expect(prediction.confirmed).toEqual({ x: 3, y: 1 });
  });

  it("removes the steps of windows that can still be cancelled and keeps the rest (zombies)", () => {
    loadRows(ROOM);
    const prediction = new Prediction(sim);
    prediction.acknowledge(9, 1, 1);
    for (let window = 10; window <= 14; window++) prediction.add(window, window % 2 === 0 ? E : W);
    expect(prediction.removeFrom(12).map((step) => step.window)).toEqual([12, 13, 14]);
    expect(prediction.pending.map((step) => step.window)).toEqual([10, 11]);
    expect(prediction.lastWindow).toBe(11);
  });
});

describe("entity table and the acknowledgement cursor (decisions 9 and 10)", () => {
  const me = (x: number) => player(7, x, 5);

  it("acks a tick whose entity datagrams arrive whole and match the State's checksum", () => {
    const table = new EntityTable();
    const update = entityUpdate(40, [me(3), player(9, 4, 4)]);
    expect(table.onState(40, update.checksum)).toBe(false);
    expect(table.ackTick).toBe(-1);
    expect(table.onEntityDatagram(decodeEntity(update.datagrams[0]))).toBe(true);
    expect(table.ackTick).toBe(40);
    expect(table.entries.get(7)).toMatchObject({ x: 3, y: 5, typeId: 0 });
    expect(table.entries.get(9)).toMatchObject({ x: 4, y: 4 });
  });

  it("acks a State whose checksum equals the entries held (the server skipped an unchanged update)", () => {
    const table = new EntityTable();
    const update = entityUpdate(40, [me(3)]);
    table.onState(40, update.checksum);
    table.onEntityDatagram(decodeEntity(update.datagrams[0]));
    expect(table.onState(42, update.checksum)).toBe(true);
    expect(table.ackTick).toBe(42);
    expect(table.needsResend).toBe(false);
  });

  it("does not care about arrival order: entity datagrams before their State, or a lost State vouched for later", () => {
    const table = new EntityTable();
    const first = entityUpdate(40, [me(3)]);
    table.onEntityDatagram(decodeEntity(first.datagrams[0]));
    expect(table.ackTick).toBe(-1); // unverified: no State says what tick 40 should hold
    expect(table.onState(40, first.checksum)).toBe(true);
    expect(table.ackTick).toBe(40);
    // Tick 44's State is lost; its entities arrive; tick 46's State carries the same checksum.
    const moved = entityUpdate(44, [me(4)]);
    table.onState(42, first.checksum);
    table.onEntityDatagram(decodeEntity(moved.datagrams[0]));
    expect(table.ackTick).toBe(42);
    expect(table.onState(46, moved.checksum)).toBe(true);
    expect(table.ackTick).toBe(46);
    expect(table.entries.get(7)?.x).toBe(4);
    // A late, older State changes nothing.
    expect(table.onState(44, moved.checksum)).toBe(false);
  });

  it("asks for a re-send when lost entity datagrams leave the checksum unmatched past one more State", () => {
    const table = new EntityTable();
    const first = entityUpdate(40, [me(3)]);
    table.onState(40, first.checksum);
    table.onEntityDatagram(decodeEntity(first.datagrams[0]));
    const moved = entityUpdate(42, [me(4)]);
    table.onState(42, moved.checksum); // its entity datagram is lost
    expect(table.needsResend).toBe(false); // the datagrams may still be on their way
    table.onState(44, moved.checksum); // unchanged, so the server skipped it: nothing will come
    expect(table.needsResend).toBe(true);
    expect(table.ackTick).toBe(40);
    expect(table.entries.get(7)?.x).toBe(3);
    // The keep-alive made the server re-send at tick 46.
    const resent = entityUpdate(46, [me(4)]);
    table.onState(46, resent.checksum);
    expect(table.onEntityDatagram(decodeEntity(resent.datagrams[0]))).toBe(true);
    expect(table.ackTick).toBe(46);
    expect(table.needsResend).toBe(false);
  });

  it("checksums a multi-datagram tick in order, rejects a partial one and ignores duplicates", () => {
    const crowd = Array.from({ length: 100 }, (_, index) => player(100 + index, index % 30, 5));
    const update = entityUpdate(40, [me(3), ...crowd]);
    expect(update.datagrams.length).toBe(2);
    const partial = new EntityTable();
    partial.onState(40, update.checksum);
    partial.onEntityDatagram(decodeEntity(update.datagrams[1])); // the first datagram was lost
    expect(partial.ackTick).toBe(-1);

    const table = new EntityTable();
    table.onState(40, update.checksum);
    table.onEntityDatagram(decodeEntity(update.datagrams[0]));
    table.onEntityDatagram(decodeEntity(update.datagrams[0])); // duplicated on the way
    expect(table.ackTick).toBe(-1);
    expect(table.onEntityDatagram(decodeEntity(update.datagrams[1]))).toBe(true);
    expect(table.duplicates).toBe(1);
    expect(table.ackTick).toBe(40);
    expect(table.entries.size).toBe(101);
  });

  it("verifies with the same checksum the server's StatePacket carries", () => {
    const update = entityUpdate(40, [me(3)]);
    const state = stateOf(stateDatagram(40, 0, 0, update.checksum));
    const table = new EntityTable();
    table.onState(state.tick, state.checksum);
    expect(table.onEntityDatagram(decodeEntity(update.datagrams[0]))).toBe(true);
  });
});

describe("chunk cache and the wasm grid window", () => {
  const tileAt = (x: number, y: number) => (x === y ? WALL : (x + y) % 3 === 0 ? GRAVEL : FLOOR);
  const manifestAround = (cx: number, cy: number, version = 1): ChunkEntry[] => {
    const entries: ChunkEntry[] = [];
    for (let dy = -1; dy <= 1; dy++)
      for (let dx = -1; dx <= 1; dx++)
        entries.push({ chunkId: chunkId(cx + dx, cy + dy), version: cx + dx >= 0 && cy + dy >= 0 ? version : 0 });
    return entries;
  };

  it("decodes chunks with the wasm codec, lists what is missing and builds the cache list", () => {
    const cache = new ChunkCache(new WasmCodec(core));
    const manifest = manifestAround(0, 0); // four chunks exist: (0,0), (1,0), (0,1), (1,1)
    expect(cache.missingCount(manifest)).toBe(4);
    cache.store(decodeChunk(chunkDatagram(0, 0, 1, tileAt)));
    cache.store(decodeChunk(chunkDatagram(1, 1, 1, tileAt)));
    expect(cache.missingCount(manifest)).toBe(2);
    const list = manifest.map(() => ({ chunkId: 0, version: 0 }));
    cache.fillCacheList(manifest, list);
    expect(list).toEqual(
      manifest.map((entry) => ({ chunkId: entry.chunkId, version: [4, 8].includes(manifest.indexOf(entry)) ? 1 : 0 })),
    );
    const chunk = cache.get(chunkId(1, 1))!;
    expect(chunk.tiles[5 * 32 + 5]).toBe(WALL);
    expect(chunk.tiles[5 * 32 + 6]).toBe(tileAt(38, 37));
    // A newer version replaces the held one and makes the chunk stale until it arrives.
    expect(cache.missingCount(manifestAround(0, 0, 2))).toBe(4);
    cache.store(decodeChunk(chunkDatagram(0, 0, 2, () => GRAVEL)));
    expect(cache.version(chunkId(0, 0))).toBe(2);
    expect(cache.get(chunkId(0, 0))!.tiles.every((tile) => tile === GRAVEL)).toBe(true);
  });

  it("gathers a wide chunk's parts: missing in the cache list until all 32 rows are in, in any order", () => {
    const cache = new ChunkCache(new WasmCodec(core));
    const manifest = manifestAround(1, 1, 3);
    const id = chunkId(1, 1);
    // 1024 distinct ids: three parts.
    const tiles = Uint16Array.from({ length: 1024 }, (_, i) => 2000 + ((i * 7) % 1024));
    const parts = encodeChunkWideFromTiles(0, id, 3, tiles).map((bytes) => {
      const result = decodePacket(bytes);
      if (!result.ok || result.packet.type !== "chunk_wide") throw new Error("expected a wide part");
      return result.packet;
    });
    expect(parts.length).toBe(3);
    const heldVersion = () => {
      const list = manifest.map(() => ({ chunkId: 0, version: 0 }));
      cache.fillCacheList(manifest, list);
      return list[4].version;
    };
    expect(cache.storeWide(parts[2])).toBeNull();
    expect(cache.storeWide(parts[0])).toBeNull();
    expect(cache.storeWide(parts[0])).toBeNull(); // a duplicate changes nothing
    expect([heldVersion(), cache.pendingCount, cache.missingCount(manifest)]).toEqual([0, 1, 9]);
    const chunk = cache.storeWide(parts[1])!;
    expect(chunk.version).toBe(3);
    expect(Buffer.from(chunk.tiles.buffer).equals(Buffer.from(tiles.buffer))).toBe(true);
    expect([heldVersion(), cache.pendingCount]).toEqual([3, 0]);
    // A re-send of the complete chunk is ignored; a newer version's parts start over and keep the old chunk held.
    expect(cache.storeWide(parts[1])).toBeNull();
    const newer = encodeChunkWideFromTiles(
      0,
      id,
      4,
      tiles.map((tile) => tile + 1),
    ).map((bytes) => {
      const result = decodePacket(bytes);
      if (!result.ok || result.packet.type !== "chunk_wide") throw new Error("expected a wide part");
      return result.packet;
    });
    expect(cache.storeWide(newer[0])).toBeNull();
    expect(cache.version(id)).toBe(3);
    expect(cache.storeWide(newer[1])).toBeNull();
    expect(cache.storeWide(newer[2])!.tiles[0]).toBe(tiles[0] + 1);
    expect(cache.version(id)).toBe(4);
    // Pending parts far from the player are evicted with the chunks.
    cache.storeWide(parts[0]);
    expect(cache.pendingCount).toBe(1);
    cache.evictFar(10, 10);
    expect(cache.pendingCount).toBe(0);
  });

  it("evicts chunks beyond the keep radius", () => {
    const cache = new ChunkCache(new WasmCodec(core), 1);
    for (const [cx, cy] of [[0, 0], [1, 1], [2, 0], [3, 3]]) cache.store(decodeChunk(chunkDatagram(cx, cy, 1, tileAt))); // prettier-ignore
    cache.evictFar(1, 0);
    expect([...cache.values()].map((chunk) => chunk.id).sort((a, b) => a - b)).toEqual(
      [chunkId(0, 0), chunkId(1, 1), chunkId(2, 0)].sort((a, b) => a - b),
    );
  });

  it("keeps the grid as a window around the player's chunk; cells not held stay unknown", () => {
    const cache = new ChunkCache(new WasmCodec(core));
    const grid = new GridWindow(sim, cache, 1);
    cache.store(decodeChunk(chunkDatagram(0, 0, 1, tileAt)));
    grid.recentre(1, 1); // grid covers chunks (0..2, 0..2): (0,0) is put on recentring
    expect(sim.originX).toBe(0);
    expect(sim.width).toBe(96);
    expect(sim.getTile(3, 3)).toBe(WALL);
    expect(sim.getTile(40, 40)).toBe(TILE_UNKNOWN);
    expect(sim.stepAllowed(31, 30, E)).toBe(false); // into the unknown chunk (1,0): blocked
    const chunk = cache.store(decodeChunk(chunkDatagram(1, 1, 1, tileAt)))!;
    grid.put(chunk);
    expect(sim.getTile(40, 40)).toBe(WALL);
    expect(sim.getTile(40, 41)).toBe(tileAt(40, 41));
    // Moving the window drops what falls outside and re-puts what is cached inside.
    grid.recentre(2, 2);
    expect(sim.originX).toBe(32);
    expect(sim.getTile(3, 3)).toBe(TILE_UNKNOWN);
    expect(sim.getTile(40, 40)).toBe(WALL);
  });
});

describe("chunk requests", () => {
  it("asks when chunks are missing and no cache list went out for the timeout, and counts retransmits", () => {
    const requests = new ChunkRequester(250);
    requests.noteListSent(0); // the hello
    expect(requests.due(0, 100)).toBe(false);
    expect(requests.due(3, 100)).toBe(false); // the hello's list is only 100 ms old
    expect(requests.due(3, 250)).toBe(true);
    expect(requests.retransmits).toBe(0);
    requests.noteListSent(250);
    expect(requests.due(3, 400)).toBe(false);
    expect(requests.due(3, 500)).toBe(true); // still missing 400 ms after they were first seen missing
    expect(requests.retransmits).toBe(1);
    requests.noteListSent(500);
    expect(requests.due(0, 800)).toBe(false);
    expect(requests.requests).toBe(2);
  });
});

describe("planner: click-to-move over wasm A*", () => {
  const CAVE = [
    "############", //
    "#..........#",
    "#.########.#",
    "#.#......#.#",
    "#.#.####.#.#",
    "#...#....#.#",
    "############",
  ];

  function walk(planner: Planner, from: { x: number; y: number }, limit = 100) {
    let at = from;
    const visited = [at];
    for (let step = 0; step < limit; step++) {
      const action = planner.nextAction(at);
      if (action === 0) break;
      expect(sim.stepAllowed(at.x, at.y, action)).toBe(true);
      at = { x: at.x + [0, 0, 1, 0, -1, 1, 1, -1, -1][action], y: at.y + [0, -1, 0, 1, 0, -1, 1, 1, -1][action] };
      visited.push(at);
    }
    return { at, visited };
  }

  it("routes around walls with turns and walks the route one step at a time", () => {
    loadRows(CAVE);
    const planner = new Planner(sim);
    expect(planner.setGoal({ x: 5, y: 5 }, { x: 3, y: 3 })).toBe("planned");
    expect(planner.route.at(-1)).toEqual({ x: 5, y: 5 });
    const { at } = walk(planner, { x: 3, y: 3 });
    expect(at).toEqual({ x: 5, y: 5 });
    expect(planner.replans).toBe(0);
    expect(planner.setGoal({ x: 5, y: 5 }, at)).toBe("unchanged");
  });

  it("replans once when the route stops connecting, and releases an unreachable goal", () => {
    loadRows(CAVE);
    const planner = new Planner(sim);
    planner.setGoal({ x: 10, y: 5 }, { x: 1, y: 5 });
    expect(planner.nextAction({ x: 1, y: 5 })).toBe(N); // toward (1,4)
    // The prediction got ahead of the route (a late step executed after all): skip, no search.
    expect(planner.nextAction({ x: 1, y: 3 })).toBe(N);
    expect(planner.replans).toBe(0);
    // It fell behind instead (two steps lost): the route no longer connects, one replan.
    expect(planner.nextAction({ x: 1, y: 5 })).toBe(N);
    expect(planner.replans).toBe(1);
    expect(planner.goal).toEqual({ x: 10, y: 5 });
    sim.setTile(1, 2, WALL); // the only corridor closes
    expect(planner.nextAction({ x: 1, y: 4 })).toBe(N); // (1,3) is still open
    expect(planner.nextAction({ x: 1, y: 3 })).toBe(0); // blocked: replan finds nothing
    expect(planner.goal).toBeNull();
    expect(planner.replans).toBe(2);
    expect(planner.lastRelease).toBe("unreachable");
  });

  it("keeps the route while steering across an unreachable tile, releases it on a discrete click", () => {
    loadRows(CAVE);
    const planner = new Planner(sim);
    planner.setGoal({ x: 10, y: 1 }, { x: 1, y: 1 });
    expect(planner.setGoal({ x: 0, y: 0 }, { x: 1, y: 1 }, true)).toBe("unreachable");
    expect(planner.goal).toEqual({ x: 10, y: 1 });
    expect(planner.setGoal({ x: 0, y: 0 }, { x: 1, y: 1 })).toBe("unreachable");
    expect(planner.goal).toBeNull();
  });

  it("names the action between neighbouring tiles", () => {
    expect(actionTowards({ x: 5, y: 5 }, { x: 6, y: 6 })).toBe(SE);
    expect(actionTowards({ x: 5, y: 5 }, { x: 4, y: 5 })).toBe(W);
    expect(actionTowards({ x: 5, y: 5 }, { x: 7, y: 5 })).toBe(0);
  });
});

describe("names", () => {
  it("queries each player once, retransmits after the timeout, a bounded number of times", () => {
    const names = new NameDirectory(250, 3);
    names.want(9);
    names.want(10);
    names.want(9);
    expect(names.due(0)).toEqual([9, 10]);
    expect(names.due(100)).toEqual([]);
    names.receive(10, "Bo");
    expect(names.due(250)).toEqual([9]);
    expect(names.due(500)).toEqual([9]);
    expect(names.due(750)).toEqual([]); // three tries spent
    expect(names.names.get(10)).toBe("Bo");
    names.want(10);
    expect(names.due(1000)).toEqual([]);
    expect(names.sent).toBe(4);
  });
});

describe("traffic and loss", () => {
  it("counts rates per second and StatePackets missing from the tick sequence", () => {
    const traffic = new TrafficMeter();
    traffic.roll(0);
    for (let tick = 2; tick <= 40; tick += 2) {
      traffic.received(72);
      if (tick % 10 !== 0) traffic.stateTick(tick); // every fifth State is lost
    }
    traffic.sent(74);
    traffic.roll(1000);
    expect(traffic.datagramsInPerSecond).toBe(20);
    expect(traffic.bytesOutPerSecond).toBe(74);
    expect(traffic.statesMissed).toBe(3); // 10, 20 and 30; 40 was the last and is not yet a gap
    expect(traffic.lossPercent).toBeCloseTo((100 * 3) / 19, 6);
    // Once entity deltas arrive, the server holds back broadcasts that change nothing, but never for 8 ticks:
    // 38 (the last received) → 46 is no loss, 46 → 62 held one (at 54 at the latest) that never came.
    traffic.deltasArrive();
    traffic.stateTick(46);
    expect(traffic.statesMissed).toBe(3);
    traffic.stateTick(62);
    expect(traffic.statesMissed).toBe(4);
  });

  it("on deltas counts only the States the protocol says were sent: none on a clean link, whatever is held back", () => {
    expect(IDLE_STATE_EVERY_TICKS).toBe(8);
    // Every pattern the server may send (broadcasts every 2 ticks, any held back, never 8 ticks without one),
    // received whole: no State is missing.
    const random = mulberry32(42);
    for (let run = 0; run < 200; run++) {
      const traffic = new TrafficMeter();
      traffic.deltasArrive();
      let last = 0;
      traffic.stateTick(0);
      for (let tick = 2; tick <= 400; tick += 2) {
        if (tick - last < IDLE_STATE_EVERY_TICKS && random() < 0.6) continue; // held back
        traffic.stateTick(tick);
        last = tick;
      }
      expect(traffic.statesMissed).toBe(0);
    }
  });

  it("on deltas counts an idle session's lost States exactly, and a busy one's at least where the gap says so", () => {
    // Idle: one State every 8 ticks; every fifth lost.
    const idle = new TrafficMeter();
    idle.roll(0);
    idle.deltasArrive();
    for (let tick = 0; tick <= 400; tick += IDLE_STATE_EVERY_TICKS) if ((tick / 8) % 5 !== 4) idle.stateTick(tick);
    idle.roll(1000);
    expect(idle.statesMissed).toBe(10);
    expect(idle.lossPercent).toBeCloseTo((100 * 10) / 51, 6);
    // Busy: every broadcast sent; a single lost one (a gap of 4) may have been held back, three in a row may not.
    const busy = new TrafficMeter();
    busy.deltasArrive();
    for (const tick of [0, 2, 6, 8, 16, 18]) busy.stateTick(tick);
    expect(busy.statesMissed).toBe(0);
    busy.stateTick(28); // 18 → 28: 20, 22, 24, 26 — one at least was sent
    expect(busy.statesMissed).toBe(1);
    expect([
      statesMissedBetween(0, 8, true),
      statesMissedBetween(0, 9, true),
      statesMissedBetween(0, 24, true),
    ]).toEqual([0, 1, 2]);
    expect(statesMissedBetween(0, 8, false)).toBe(3);
  });

  it("counts pings left unanswered past the pong timeout over the last 20, not those still in flight", () => {
    const pinger = new Pinger(1000);
    expect(pinger.lossPercent(0)).toBe(0);
    // One ping a second; every fourth pong is lost, the rest come back 50 ms later.
    for (let second = 0; second < 25; second++) {
      const stamp = pinger.send(second * 1000);
      if (second % 4 !== 3) expect(pinger.receive(stamp, second * 1000 + 50)).toBe(50);
    }
    // At 24.5 s: the last 20 pings are those of 5 … 24 s; 23 s's (lost) is 1.5 s old, still in flight.
    // Decided: 19, of which lost: 7, 11, 15, 19 → 4.
    expect(pinger.lossPercent(24_500)).toBeCloseTo((100 * 4) / 19, 6);
    // At 30 s all are decided: 7, 11, 15, 19, 23 lost of 20.
    expect(pinger.lossPercent(30_000)).toBeCloseTo(25, 6);
    pinger.reset();
    expect(pinger.lossPercent(30_000)).toBe(0);
  });
});

describe("connection state", () => {
  it("reconnects at once after a link that played, with growing backoff after links that never answered", () => {
    const connection = new ConnectionMonitor(0, 10_000);
    connection.stateReceived(100);
    expect(connection.state).toBe("playing");
    expect(connection.checkTimeout(10_099)).toBe(false);
    expect(connection.checkTimeout(10_100)).toBe(true);
    expect(connection.reconnectDue(10_100)).toBe(true);
    connection.reconnectStarted();
    connection.linkStarted(10_200); // rejoined, but the server never sends a StatePacket
    expect(connection.checkTimeout(20_200)).toBe(true);
    expect(connection.reconnectDue(21_199)).toBe(false);
    expect(connection.reconnectDue(21_200)).toBe(true);
    connection.reconnectStarted();
    connection.reconnectFailed(21_300, "HTTP 503");
    expect(connection.reconnectDue(23_299)).toBe(false);
    expect(connection.reconnectDue(23_300)).toBe(true);
    connection.close();
    expect(connection.reconnectDue(99_999)).toBe(false);
  });
});

describe("session API", () => {
  it("builds the flags table the server decides movement with", () => {
    const flags = tileFlagsTable(TEST_WORLD);
    expect(flags.length).toBe(65536);
    expect(flags[WALL]).toBe(3);
    expect(flags[FLOOR]).toBe(0);
    expect(parseToken("00000000000000ff")).toBe(255n);
    expect(() => parseToken("xyz")).toThrow(SessionError);
  });

  it("refuses a server that speaks another protocol version, and reports refusals with their status", async () => {
    const answer = (status: number, body: unknown) => async () =>
      new Response(JSON.stringify(body), { status, headers: { "content-type": "application/json" } });
    await expect(
      joinGuest(
        "http://x",
        "Ada",
        answer(200, { token: "00000000000000ff", entityId: 1, protocolVersion: 2, udpPort: 1 }),
      ),
    ).rejects.toThrow(/protocol 2/);
    await expect(joinGuest("http://x", "", answer(400, { error: "bad nick" }))).rejects.toMatchObject({ status: 400 });
    const session = await joinGuest(
      "http://x/",
      "Ada",
      answer(200, { token: "00000000000000ff", entityId: 4, protocolVersion: 1, udpPort: 7 }),
    );
    expect(session).toEqual({ nick: "Ada", token: 255n, entityId: 4, protocolVersion: 1, udpPort: 7 });
  });
});
