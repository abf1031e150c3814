// The cluster's directory in Redis (docs/scaling.md § Directory): which region process serves which
// region id (and where its link listens), which rectangle of chunks each region owns, which gateway and
// region hold each session, and which region owns each entity. Entries of live things carry TTLs and
// are refreshed by their holder, so a process that dies falls out of the directory on its own. The
// owner of an entity changes only by compare-and-set (a Lua script: one atomic step in Redis), so
// two regions can never both be written down as its owner.
import { Redis } from "ioredis";
import type { Logger } from "../server/ops/log.js";
import type { ClusterLayout } from "./layout.js";
import type { ClockSegment } from "./world-dilation.js";

/** Where a region process can be reached. */
export interface RegionEndpoint {
  readonly region: number;
  readonly host: string;
  /** Its link port (gateways and neighbour regions connect there). */
  readonly linkPort: number;
  /** Its HTTP API (join, status, metrics, /api/cluster). */
  readonly httpPort: number;
  readonly pid: number;
}

/** Where a gateway can be reached (on the host its clients reached it by: docs/protocol.md § 3.1). */
export interface GatewayEndpoint {
  readonly id: string;
  readonly httpPort: number;
  readonly udpPort: number;
  /**
   * Its public base URL, when the operator gave one (`--gateway-url`): the origin a browser reaches it at,
   * whose host also serves its UDP port. Absent: the host a client joined through, at `httpPort`.
   */
  readonly url?: string;
}

/** How long a region's (or a gateway's) entry lives without a refresh; they refresh every REFRESH_MS. */
export const REGION_TTL_MS = 5000;
export const SESSION_TTL_MS = 30_000;
export const OWNER_TTL_MS = 60_000;
export const REFRESH_MS = 1000;
/** A region's wished stretch outlives its last write this long (it writes every CLOCK_POLL_MS). */
export const STRETCH_WISH_TTL_MS = 3000;
/** How long a region's checkpoint outlives its last refresh: a restart within this brings its players back. */
export const CHECKPOINT_TTL_MS = 30_000;

// KEYS[1] the owner key; ARGV: expected owner ("" = none), new owner, TTL ms. 1 when set, 0 when the
// owner was someone else.
const CLAIM_SCRIPT = `
local current = redis.call("GET", KEYS[1])
if (current == false and ARGV[1] == "") or current == ARGV[1] then
  redis.call("SET", KEYS[1], ARGV[2], "PX", ARGV[3])
  return 1
end
return 0`;

export class Directory {
  readonly redis: Redis;
  /** Commands this process sent, for the figures (INFO gives the server's total). */
  commands = 0;
  /** Times the connection was lost, and came back. */
  readonly connection = { lost: 0, back: 0 };
  private everReady = false;
  private connected = false;
  private log: Logger | null = null;
  private readonly backHandlers: (() => void)[] = [];

  constructor(
    url: string,
    private readonly prefix = "fc:",
  ) {
    this.redis = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 2, enableOfflineQueue: true });
    // ioredis reconnects on its own; each try's error would otherwise be printed as an unhandled error
    // event (hundreds of lines a minute). The connection's state changes are logged once each (watch).
    this.redis.on("error", () => {});
    this.redis.on("close", () => {
      if (!this.connected) return;
      this.connected = false;
      this.connection.lost++;
      this.log?.error("Redis unreachable: playing on; the directory is written again when it is back");
    });
    this.redis.on("ready", () => {
      if (this.connected) return;
      this.connected = true;
      if (!this.everReady) return void (this.everReady = true);
      this.connection.back++;
      this.log?.warn("Redis is back: writing this process's part of the directory again");
      // What Redis held may be gone (a restarted server keeps nothing): each part writes its own again.
      for (const handler of this.backHandlers) handler();
    });
  }

  /** Logs the connection's state changes to `log`, once each, and runs `onBack` each time it comes back. */
  watch(log: Logger, onBack?: () => void): void {
    this.log = log;
    if (onBack !== undefined) this.backHandlers.push(onBack);
  }

  /** Whether the connection is up now. */
  get up(): boolean {
    return this.connected;
  }

  /**
   * A handler for a command's failure that logs it only while the connection is up: while it is down,
   * the one line saying so stands for every command that fails.
   */
  failed(what: string): (error: unknown) => void {
    return (error) => {
      if (this.connected) this.log?.warn(what, { error: String(error) });
    };
  }

  async connect(): Promise<void> {
    await this.redis.connect();
  }

  async close(): Promise<void> {
    // Closed on purpose: not a loss worth a line.
    this.connected = false;
    this.redis.disconnect();
    await Promise.resolve();
  }

  /** The world's tick epoch (ms since 1970): the first process sets it, every process reads it. */
  async tickEpochMs(proposedMs: number): Promise<number> {
    this.commands += 2;
    await this.redis.set(`${this.prefix}epoch`, String(proposedMs), "NX");
    return Number(await this.redis.get(`${this.prefix}epoch`));
  }

  /** The world's timeline (world-dilation.ts): the segment in force, first the epoch at the nominal rate. */
  async worldClock(epochMs: number, nominalPeriodMs: number): Promise<ClockSegment> {
    this.commands += 2;
    const first: ClockSegment = { startMs: epochMs, tick: 0, periodMs: nominalPeriodMs };
    await this.redis.set(`${this.prefix}clock`, JSON.stringify(first), "NX");
    return parseSegment(await this.redis.get(`${this.prefix}clock`));
  }

  /**
   * One round trip for a region's clock work: the latest segment published, which regions are live,
   * and the stretch each live one wishes (1 when it wrote none).
   */
  async clockState(regionCount: number): Promise<{ segment: ClockSegment | null; live: number[]; wishes: number[] }> {
    this.commands++;
    const keys = [`${this.prefix}clock`];
    for (let region = 0; region < regionCount; region++) {
      keys.push(`${this.prefix}region:${region}`, `${this.prefix}stretch:${region}`);
    }
    const values = await this.redis.mget(...keys);
    const live: number[] = [];
    const wishes: number[] = [];
    for (let region = 0; region < regionCount; region++) {
      if (values[1 + 2 * region] === null) continue;
      live.push(region);
      const wish = Number(values[2 + 2 * region] ?? "1");
      wishes.push(Number.isFinite(wish) && wish >= 1 ? wish : 1);
    }
    return { segment: values[0] === null ? null : parseSegment(values[0]), live, wishes };
  }

  /** Writes the segment in force again where Redis lost it (a restarted Redis): every region holds the same. */
  async restoreClock(segment: ClockSegment): Promise<void> {
    this.commands++;
    await this.redis.set(`${this.prefix}clock`, JSON.stringify(segment), "NX");
  }

  /** This region's wished stretch, kept STRETCH_WISH_TTL_MS unless written again. */
  async wishStretch(region: number, stretch: number): Promise<void> {
    this.commands++;
    await this.redis.set(`${this.prefix}stretch:${region}`, String(stretch), "PX", STRETCH_WISH_TTL_MS);
  }

  /** Publishes the world's next segment (the leader does, world-dilation.ts). */
  async publishClock(segment: ClockSegment): Promise<void> {
    this.commands++;
    await this.redis.set(`${this.prefix}clock`, JSON.stringify(segment));
  }

  async publishLayout(layout: ClusterLayout): Promise<void> {
    this.commands += 1 + layout.rects.length;
    const multi = this.redis.multi().set(`${this.prefix}layout`, JSON.stringify(layout));
    layout.rects.forEach((rect, index) => multi.set(`${this.prefix}rect:${index}`, String(rect.region)));
    await multi.exec();
  }

  /** The layout the launcher published (publishLayout), or null before it did. */
  async layout(): Promise<ClusterLayout | null> {
    this.commands++;
    const text = await this.redis.get(`${this.prefix}layout`);
    return text === null ? null : (JSON.parse(text) as ClusterLayout);
  }

  async registerRegion(endpoint: RegionEndpoint): Promise<void> {
    this.commands++;
    await this.redis.set(`${this.prefix}region:${endpoint.region}`, JSON.stringify(endpoint), "PX", REGION_TTL_MS);
  }

  /** The live regions' endpoints, by region id. */
  async regions(regionCount: number): Promise<Map<number, RegionEndpoint>> {
    const keys = Array.from({ length: regionCount }, (_, region) => `${this.prefix}region:${region}`);
    this.commands++;
    const values = await this.redis.mget(...keys);
    const out = new Map<number, RegionEndpoint>();
    values.forEach((value, region) => {
      if (value !== null) out.set(region, JSON.parse(value) as RegionEndpoint);
    });
    return out;
  }

  /** Writes down (or refreshes) a gateway's endpoint, which lives REGION_TTL_MS unless written again. */
  async registerGateway(endpoint: GatewayEndpoint): Promise<void> {
    this.commands += 2;
    await this.redis
      .multi()
      .sadd(`${this.prefix}gateways`, endpoint.id)
      .set(`${this.prefix}gateway:${endpoint.id}`, JSON.stringify(endpoint), "PX", REGION_TTL_MS)
      .exec();
  }

  /** The live gateways' endpoints, by id (one gone quiet falls out with its entry's TTL). */
  async gateways(): Promise<GatewayEndpoint[]> {
    this.commands++;
    const ids = (await this.redis.smembers(`${this.prefix}gateways`)).sort();
    if (ids.length === 0) return [];
    this.commands++;
    const values = await this.redis.mget(...ids.map((id) => `${this.prefix}gateway:${id}`));
    return values.flatMap((value) => (value === null ? [] : [JSON.parse(value) as GatewayEndpoint]));
  }

  /** Writes down (or refreshes) which gateway and region hold the sessions given, in one round trip. */
  async putSessions(entries: Iterable<{ tokenHex: string; gateway: string; region: number }>): Promise<void> {
    const multi = this.redis.multi();
    let count = 0;
    for (const { tokenHex, gateway, region } of entries) {
      multi.set(`${this.prefix}session:${tokenHex}`, `${gateway} ${region}`, "PX", SESSION_TTL_MS);
      count++;
    }
    if (count === 0) return;
    this.commands += count;
    await multi.exec();
  }

  async sessionOf(tokenHex: string): Promise<{ gateway: string; region: number } | null> {
    this.commands++;
    const value = await this.redis.get(`${this.prefix}session:${tokenHex}`);
    if (value === null) return null;
    const [gateway, region] = value.split(" ");
    return { gateway, region: Number(region) };
  }

  /**
   * Makes `to` the owner of entity `entityId` if `from` is (null: nobody is); false when someone else
   * is written down. A claim from nobody is how a region takes an entity it created.
   */
  async claimEntity(entityId: number, from: number | null, to: number): Promise<boolean> {
    this.commands++;
    const result = await this.redis.eval(
      CLAIM_SCRIPT,
      1,
      `${this.prefix}owner:${entityId}`,
      from === null ? "" : String(from),
      String(to),
      String(OWNER_TTL_MS),
    );
    return result === 1;
  }

  /** Refreshes the owner entries of the entities a region holds (their TTL), in one round trip. */
  async refreshOwners(entityIds: Iterable<number>): Promise<void> {
    const multi = this.redis.multi();
    let count = 0;
    for (const id of entityIds) {
      multi.pexpire(`${this.prefix}owner:${id}`, OWNER_TTL_MS);
      count++;
    }
    if (count === 0) return;
    this.commands += count;
    await multi.exec();
  }

  /**
   * Writes `owner` down as the owner of the entities given, in one round trip: after Redis came back,
   * the region that holds their sessions says so again (it is the truth; Redis only keeps a copy).
   */
  async rewriteOwners(entityIds: Iterable<number>, owner: number): Promise<void> {
    const multi = this.redis.multi();
    let count = 0;
    for (const id of entityIds) {
      multi.set(`${this.prefix}owner:${id}`, String(owner), "PX", OWNER_TTL_MS);
      count++;
    }
    if (count === 0) return;
    this.commands += count;
    await multi.exec();
  }

  /** Removes an entity's owner entry if `owner` still holds it (the entity left the world). */
  async releaseEntity(entityId: number, owner: number): Promise<void> {
    this.commands++;
    await this.redis.eval(
      `if redis.call("GET", KEYS[1]) == ARGV[1] then return redis.call("DEL", KEYS[1]) end return 0`,
      1,
      `${this.prefix}owner:${entityId}`,
      String(owner),
    );
  }

  /**
   * Replaces region `region`'s checkpoint — its sessions' states by token (handoff.ts), what a restart of
   * it adopts again — in one atomic step.
   */
  async putCheckpoint(region: number, states: Map<string, string>, nextEntityId: number): Promise<void> {
    const key = `${this.prefix}checkpoint:${region}`;
    const multi = this.redis.multi().del(key);
    if (states.size > 0) multi.hset(key, states).pexpire(key, CHECKPOINT_TTL_MS);
    // No TTL: a region started again, however much later, hands out none of these ids again.
    multi.set(`${this.prefix}ids:${region}`, String(nextEntityId));
    this.commands += states.size > 0 ? 4 : 2;
    await multi.exec();
  }

  /** The next entity id region `region` would have handed out at its last checkpoint; null: none written. */
  async nextEntityIdOf(region: number): Promise<number | null> {
    this.commands++;
    const value = await this.redis.get(`${this.prefix}ids:${region}`);
    return value === null || !Number.isSafeInteger(Number(value)) ? null : Number(value);
  }

  /** Region `region`'s checkpoint: session state JSON by token hex. */
  async checkpoint(region: number): Promise<Record<string, string>> {
    this.commands++;
    return this.redis.hgetall(`${this.prefix}checkpoint:${region}`);
  }

  async ownerOf(entityId: number): Promise<number | null> {
    this.commands++;
    const value = await this.redis.get(`${this.prefix}owner:${entityId}`);
    return value === null ? null : Number(value);
  }
}

function parseSegment(text: string | null): ClockSegment {
  const segment = JSON.parse(text ?? "null") as ClockSegment | null;
  if (
    segment === null ||
    !Number.isFinite(segment.startMs) ||
    !Number.isSafeInteger(segment.tick) ||
    !(segment.periodMs > 0)
  ) {
    throw new Error(`the world's clock in Redis is not a segment: ${text}`);
  }
  return segment;
}
