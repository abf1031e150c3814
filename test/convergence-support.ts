// Shared harness of the bad-link convergence and fault tests: a purpose-built
// course map, the real server in-process, headless GameClients over real UDP
// loopback (optionally seen through netsim or a fault), and a walk recorder
// that checks the invariants every round and measures what the docs report.
//
// Why a purpose-built map: it has exactly one spawn (the free cell nearest the
// centre), so every client of a test starts on the same tile and walks the same
// route. The clean baseline then walks *concurrently* with the impaired client,
// under the same machine load — the only fair way to compare times on a loaded
// 2-core CI machine.
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { connectGuest, GameClient, impairTransport } from "../ts/client/core/index.js";
import type { GameClientOptions, Transport } from "../ts/client/core/index.js";
import type { ImpairedTransport } from "../ts/client/core/impaired-transport.js";
import { UdpNodeTransport } from "../ts/client/transport/udp-node.js";
import { CHUNK_SIZE } from "../ts/constants.js";
import { deriveSeed, type DuplexProfile } from "../ts/netsim/index.js";
import { ACTION_NOOP } from "../ts/protocol/action.js";
import { chunkId, decodePacket } from "../ts/protocol/index.js";
import { Logger } from "../ts/server/ops/log.js";
import { type RunningServer, startServer } from "../ts/server/server.js";
import { loadCore } from "../ts/wasm/node.js";
import { afterAll, beforeAll } from "vitest";
import { neighbourhoodComplete, sleep } from "./client-core-support.js";

export const FLOOR = 1;
export const WALL = 5;
export const COURSE_WIDTH = 140;
export const COURSE_HEIGHT = 140;
/** The map's one spawn: the centre cell, which is floor. */
export const COURSE_START = { x: 70, y: 70 } as const;
/**
 * 30 tiles east of the start (Chebyshev 30), behind two staggered walls: the
 * route goes south-east round the south end of wall A, north up the passage
 * between the walls, round the north end of wall B and east into the next
 * chunk — about 40 steps with four changes of direction, hugging both walls.
 */
export const COURSE_GOAL = { x: 100, y: 70 } as const;

/** Tile id at (x, y): floor inside a wall rim, wall A at x = 78 (y 40..76), wall B at x = 84 (y 64..100). */
export function courseTile(x: number, y: number): number {
  if (x === 0 || y === 0 || x === COURSE_WIDTH - 1 || y === COURSE_HEIGHT - 1) return WALL;
  if (x === 78 && y >= 40 && y <= 76) return WALL;
  if (x === 84 && y >= 64 && y <= 100) return WALL;
  return FLOOR;
}

export interface CourseMap {
  path: string;
  dispose(): void;
}

export function writeCourseMap(): CourseMap {
  const dir = mkdtempSync(join(tmpdir(), "caves-course-"));
  const rows: string[] = [];
  for (let y = 0; y < COURSE_HEIGHT; y++) {
    const row: number[] = [];
    for (let x = 0; x < COURSE_WIDTH; x++) row.push(courseTile(x, y));
    rows.push(row.join(","));
  }
  const path = join(dir, "course.csv");
  writeFileSync(path, rows.join("\n") + "\n");
  writeFileSync(
    join(dir, "course.tiles.json"),
    JSON.stringify({
      version: 1,
      tiles: [
        { id: FLOOR, name: "floor" },
        { id: WALL, name: "wall", collides: true, opaque: true },
      ],
    }),
  );
  return { path, dispose: () => rmSync(dir, { recursive: true, force: true }) };
}

/** The real server on the course, in-process, silent; port 0 unless given (a restart reuses the old ports). */
export function startCourseServer(map: CourseMap, ports = { httpPort: 0, udpPort: 0 }): Promise<RunningServer> {
  return startServer({ host: "127.0.0.1", ...ports, mapPath: map.path, logger: new Logger("silent") });
}

/** Round-trip time a profile adds by its delays alone (jitter averages out). */
export function nominalRttMs(profile: DuplexProfile): number {
  return profile.up.delayMs + profile.down.delayMs;
}

export interface JoinOptions {
  /** Seen through netsim (impairTransport, both directions) with this profile; seeded per link. */
  profile?: DuplexProfile;
  seed?: number;
  /** Wraps the raw UDP transport before netsim (fault injection); called again for each reconnect. */
  fault?: (udp: Transport) => Transport;
  options?: Partial<GameClientOptions>;
}

export interface CourseClient {
  client: GameClient;
  /** The current link's netsim, when a profile was given (the newest one after a reconnect). */
  impaired: ImpairedTransport | null;
  /** Movement steps the client sent, and how many of them netsim dropped on the way up. */
  steps: StepCount;
}

export interface StepCount {
  sent: number;
  lost: number;
}

/** Whether a datagram is a scheduled movement step (an ActionPacket with target_tick > 0 and a real action). */
export function isStepDatagram(datagram: Uint8Array): boolean {
  const decoded = decodePacket(datagram);
  return (
    decoded.ok &&
    decoded.packet.type === "action" &&
    decoded.packet.targetTick > 0 &&
    decoded.packet.action !== ACTION_NOOP
  );
}

/** Counts the steps sent through `impaired` and those its up link dropped (netsim decides loss inside send()). */
function countingSteps(impaired: ImpairedTransport, steps: StepCount): Transport {
  return {
    name: impaired.name,
    send: (datagram) => {
      if (!isStepDatagram(datagram)) return impaired.send(datagram);
      const droppedBefore = impaired.duplex.up.counts.dropped;
      impaired.send(datagram);
      steps.sent++;
      if (impaired.duplex.up.counts.dropped > droppedBefore) steps.lost++;
    },
    onDatagram: (handler) => impaired.onDatagram(handler),
    close: () => impaired.close(),
  };
}

/** Joins the course over UDP loopback and waits until the client plays and holds its whole neighbourhood. */
export async function joinCourse(baseUrl: string, nick: string, join: JoinOptions = {}): Promise<CourseClient> {
  const joined: CourseClient = { client: null as unknown as GameClient, impaired: null, steps: { sent: 0, lost: 0 } };
  let links = 0;
  const connection = await connectGuest(baseUrl, nick, async (session) => {
    let transport: Transport = await UdpNodeTransport.connect("127.0.0.1", session.udpPort);
    if (join.fault) transport = join.fault(transport);
    if (join.profile) {
      joined.impaired = impairTransport(transport, join.profile, deriveSeed(join.seed ?? 1, nick, links++));
      transport = countingSteps(joined.impaired, joined.steps);
    }
    return transport;
  });
  joined.client = GameClient.create({ core: await loadCore(), ...connection, options: join.options });
  await driveUntil([joined.client], `${nick} playing with its neighbourhood`, () => {
    const client = joined.client;
    return client.state === "playing" && client.confirmed !== null && neighbourhoodComplete(client);
  });
  return joined;
}

/**
 * Drives clients the way a bot does — one loop, every client updated every
 * ~10 ms — until `done`; `each` runs after every round (the invariants). Throws,
 * naming `what`, after `timeoutMs`.
 */
export async function driveUntil(
  clients: readonly GameClient[],
  what: string,
  done: () => boolean,
  timeoutMs = 15_000,
  each: (nowMs: number) => void = () => {},
): Promise<void> {
  const deadline = performance.now() + timeoutMs;
  for (;;) {
    const nowMs = performance.now();
    for (const client of clients) client.update(nowMs);
    each(nowMs);
    if (done()) return;
    if (nowMs > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await sleep(10);
  }
}

/** Drives for a fixed time (e.g. to let a link go quiet), still checking `each`. */
export async function driveFor(
  clients: readonly GameClient[],
  durationMs: number,
  each: (nowMs: number) => void = () => {},
): Promise<void> {
  const end = performance.now() + durationMs;
  await driveUntil(clients, "the end of the period", () => performance.now() >= end, durationMs + 5000, each);
}

export function serverPosition(server: RunningServer, client: GameClient): { x: number; y: number } | null {
  const entity = server.game.entities.get(client.ownEntityId);
  return entity ? { x: entity.x, y: entity.y } : null;
}

/**
 * Two walkers' crossing, west of wall A where the start is: two posts 33 tiles apart (beyond the 15-tile view
 * radius, out of each other's view), then two ends 12 apart that make them pass each other (in view again).
 */
export const CROSSING = {
  westPost: { x: 42, y: 66 },
  eastPost: { x: 75, y: 74 },
  adaEnd: { x: 64, y: 74 },
  beaEnd: { x: 52, y: 66 },
} as const;

/** The chunk neighbourhood requirement: all 9 chunks (those that exist) within this long of entering a chunk. */
export const NEIGHBOURHOOD_DEADLINE_MS = 2000;

/**
 * Watches one client every round: its prediction never stands where the
 * server's map lets no one stand, and each time the server moves its entity
 * into another chunk the client holds that chunk's whole 3×3 neighbourhood (at
 * the server's current versions) within NEIGHBOURHOOD_DEADLINE_MS (or the deadline given). A crossing
 * superseded by the next one before its deadline only counts as superseded:
 * the server then streams the newer neighbourhood instead.
 */
export class Watch {
  /** Time from each crossing to a complete neighbourhood, ms. */
  readonly neighbourhoodMs: number[] = [];
  superseded = 0;
  rounds = 0;
  maxPending = 0;
  private chunk: { cx: number; cy: number } | null = null;
  private crossing: { cx: number; cy: number; atMs: number } | null = null;

  constructor(
    private readonly server: () => RunningServer,
    readonly client: GameClient,
    /** A link slower than the ones convergence.test.ts walks needs longer: its chunks come a one-way delay later. */
    private readonly neighbourhoodDeadlineMs = NEIGHBOURHOOD_DEADLINE_MS,
  ) {}

  check(nowMs: number): void {
    const client = this.client;
    this.rounds++;
    this.maxPending = Math.max(this.maxPending, client.pending.length);
    const world = this.server().game.world;
    const at = client.predicted;
    if (at && !world.walkable(at.x, at.y)) {
      throw new Error(`${client.session.nick}: prediction inside a wall at ${at.x},${at.y}`);
    }
    if (client.state !== "playing") return;
    const position = serverPosition(this.server(), client);
    if (!position) return;
    const cx = Math.floor(position.x / CHUNK_SIZE);
    const cy = Math.floor(position.y / CHUNK_SIZE);
    if (this.chunk && (this.chunk.cx !== cx || this.chunk.cy !== cy)) {
      if (this.crossing) this.superseded++;
      this.crossing = { cx, cy, atMs: nowMs };
    }
    this.chunk = { cx, cy };
    const crossing = this.crossing;
    if (!crossing) return;
    if (this.holdsNeighbourhoodOf(crossing.cx, crossing.cy)) {
      this.neighbourhoodMs.push(nowMs - crossing.atMs);
      this.crossing = null;
    } else if (nowMs - crossing.atMs > this.neighbourhoodDeadlineMs) {
      throw new Error(
        `${client.session.nick}: chunk (${cx},${cy}) entered ${Math.round(nowMs - crossing.atMs)} ms ago, ` +
          `neighbourhood still incomplete`,
      );
    }
  }

  /** Whether the client holds every existing chunk around (cx, cy) at the server's version now. */
  holdsNeighbourhoodOf(cx: number, cy: number): boolean {
    const world = this.server().game.world;
    for (let dy = -1; dy <= 1; dy++) {
      for (let dx = -1; dx <= 1; dx++) {
        const version = world.chunkVersion(cx + dx, cy + dy);
        if (version > 0 && this.client.chunks.version(chunkId(cx + dx, cy + dy)) !== version) return false;
      }
    }
    return true;
  }

  /** No crossing is still waiting for its chunks. */
  get settled(): boolean {
    return this.crossing === null;
  }
}

export interface WalkResult {
  nick: string;
  /** From setGoal to the goal released on arrival (confirmed = goal, nothing pending), ms. */
  timeMs: number;
  routeSteps: number;
  stepsSent: number;
  corrections: number;
  replans: number;
  retractions: number;
  chunkRetransmits: number;
  keepAlives: number;
  /** Steps netsim dropped on the way up during the walk (NaN when the link is not impaired). */
  stepsLost: number;
  maxPending: number;
  rttMs: number;
  /** Chunk crossings during the walk whose neighbourhood was checked, and the slowest one to complete, ms. */
  crossings: number;
  neighbourhoodMaxMs: number;
}

export interface Walker {
  client: GameClient;
  goal: { x: number; y: number };
  watch: Watch;
  /** The client's step counter, when its link is impaired (for the steps lost on the way up). */
  steps?: StepCount;
}

/**
 * Sets every walker's goal at the same moment and drives them all until each
 * has arrived, then for `quietMs` more (the link goes quiet: nothing pending,
 * the last broadcasts in) and until every chunk crossing has been checked. Every round runs every walker's Watch. Returns one
 * result per walker, in order.
 */
export async function walkTogether(
  walkers: readonly Walker[],
  { timeoutMs = 30_000, quietMs = 600, during }: { timeoutMs?: number; quietMs?: number; during?: () => void } = {},
): Promise<WalkResult[]> {
  const clients = walkers.map((walker) => walker.client);
  const crossingsBefore = walkers.map((walker) => walker.watch.neighbourhoodMs.length);
  const lostBefore = walkers.map((walker) => walker.steps?.lost ?? NaN);
  const before = walkers.map((walker) => walker.client.stats);
  const routeSteps: number[] = [];
  const startMs = performance.now();
  for (const walker of walkers) {
    const result = walker.client.setGoal(walker.goal.x, walker.goal.y);
    if (result !== "planned") throw new Error(`${walker.client.session.nick}: setGoal said ${result}`);
    routeSteps.push(walker.client.route.length);
  }
  const arrivedMs = walkers.map(() => NaN);
  const each = (nowMs: number) => {
    during?.();
    walkers.forEach((walker, index) => {
      walker.watch.check(nowMs);
      const client = walker.client;
      const at = client.confirmed;
      if (
        Number.isNaN(arrivedMs[index]) &&
        client.goal === null &&
        client.pending.length === 0 &&
        at?.x === walker.goal.x &&
        at.y === walker.goal.y
      ) {
        arrivedMs[index] = nowMs;
      }
    });
  };
  await driveUntil(
    clients,
    `arrival of ${walkers.map((walker) => walker.client.session.nick).join(", ")}`,
    () => arrivedMs.every((ms) => !Number.isNaN(ms)),
    timeoutMs,
    each,
  );
  // Quiet: nothing more to send; the last broadcasts land, and a crossing near the end gets its full check.
  const quietEnd = performance.now() + quietMs;
  await driveUntil(
    clients,
    "a quiet link and every crossing's neighbourhood",
    () => performance.now() >= quietEnd && walkers.every((walker) => walker.watch.settled),
    quietMs + NEIGHBOURHOOD_DEADLINE_MS + 5000,
    each,
  );
  return walkers.map((walker, index) => {
    const after = walker.client.stats;
    const start = before[index];
    return {
      nick: walker.client.session.nick,
      timeMs: arrivedMs[index] - startMs,
      routeSteps: routeSteps[index],
      stepsSent: after.stepsSent - start.stepsSent,
      corrections: after.corrections - start.corrections,
      replans: after.replans - start.replans,
      retractions: after.retractions - start.retractions,
      chunkRetransmits: after.chunkRetransmits - start.chunkRetransmits,
      keepAlives: after.keepAlives - start.keepAlives,
      stepsLost: (walker.steps?.lost ?? NaN) - lostBefore[index],
      maxPending: walker.watch.maxPending,
      rttMs: after.rttMs,
      crossings: walker.watch.neighbourhoodMs.length - crossingsBefore[index],
      neighbourhoodMaxMs: Math.max(0, ...walker.watch.neighbourhoodMs.slice(crossingsBefore[index])),
    };
  });
}

/** Closes the clients and the server and removes the map; safe with partly set-up fixtures. */
export async function tearDown(
  clients: readonly (GameClient | undefined)[],
  server: RunningServer | undefined,
  map: CourseMap | undefined,
): Promise<void> {
  for (const client of clients) client?.close();
  await server?.close();
  map?.dispose();
}

/**
 * The course server of one test file: the map written and the real server started before the file's
 * tests, and after them every client they joined closed, the server closed and the map removed.
 */
export class CourseServer {
  private running: RunningServer | undefined;
  private course: CourseMap | undefined;
  /** The clients the tests joined: closed after the file. */
  readonly clients: GameClient[] = [];

  constructor() {
    beforeAll(async () => {
      this.course = writeCourseMap();
      this.running = await startCourseServer(this.course);
    });
    afterAll(() => tearDown(this.clients, this.running, this.course));
  }

  get server(): RunningServer {
    if (this.running === undefined) throw new Error("the course server is not running");
    return this.running;
  }

  get baseUrl(): string {
    return `http://127.0.0.1:${this.server.httpPort}`;
  }

  /** Stops the server, waits `downMs`, and starts it again on the same ports (what its clients must ride out). */
  async restart(downMs: number): Promise<void> {
    const ports = { httpPort: this.server.httpPort, udpPort: this.server.udpPort };
    await this.server.close();
    await sleep(downMs);
    this.running = await startCourseServer(this.course!, ports);
  }
}

/** One line per walk for the log a convergence run prints (the numbers docs/netcode.md reports). */
export function formatWalk(profileName: string, result: WalkResult, cleanMs = NaN, boundMs = NaN): string {
  const seconds = (ms: number) => `${(ms / 1000).toFixed(2)} s`;
  const baseline = Number.isNaN(cleanMs) ? "" : ` (clean ${seconds(cleanMs)}, bound ${seconds(boundMs)})`;
  return (
    `${profileName.padEnd(34)} ${seconds(result.timeMs)}${baseline} route ${result.routeSteps} ` +
    `sent ${result.stepsSent}${Number.isNaN(result.stepsLost) ? "" : ` (${result.stepsLost} lost)`} ` +
    `corrections ${result.corrections} replans ${result.replans} ` +
    `retractions ${result.retractions} max pending ${result.maxPending} ` +
    `chunk retransmits ${result.chunkRetransmits} keep-alives ${result.keepAlives} rtt ${Math.round(result.rttMs)} ms ` +
    `crossings ${result.crossings} (slowest neighbourhood ${Math.round(result.neighbourhoodMaxMs)} ms)`
  );
}
