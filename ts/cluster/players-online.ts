// Who plays where, for the social room of every region (docs/social.md § In a cluster): each region
// writes its players into the directory in Redis — `nick:<nickKey>` → the player (its key, nick, account,
// region) and, for an account, `online:<accountId>` → its region — so a region can name a player who plays
// in another (`/friend`, `/ignore`) and tell a friends list who is online anywhere. The entries live
// ENTRY_TTL_MS unless written again: each region writes all of its own again every REWRITE_MS (which also
// rebuilds them in a Redis that restarted empty), and deletes a player's as its session ends for good —
// only where they still name this region, so a handoff's new region, or a login elsewhere that replaced
// it, keeps its own. A session handed to another region is simply forgotten here: the new region writes it.
//
// A friend's coming and going travels on the chat relay's channel (chat-relay.ts: `{presence}`), heard by
// every region at once; this directory answers the questions asked later.
import type { Redis } from "ioredis";
import type { PlayerRef, PlayerThere, SocialElsewhere } from "../server/social/social-room.js";
import { nickKey } from "../server/sessions/nick.js";

/** How long an entry outlives the region that stopped writing it (a region killed). */
export const ENTRY_TTL_MS = 30_000;
/** How often a region writes its players' entries again. */
export const REWRITE_MS = 10_000;

// KEYS: the entries; ARGV[1]: this region. Deletes each entry that still names this region.
const FORGET_SCRIPT = `
for _, key in ipairs(KEYS) do
  local value = redis.call("GET", key)
  if value ~= false then
    local region = tonumber(string.match(value, "^(%d+) "))
    if region == tonumber(ARGV[1]) then redis.call("DEL", key) end
  end
end
return 0`;

/** Most accounts one question asks about (a friends list is at most MAX_FRIENDS). */
const MAX_ASKED = 200;

export class PlayersOnline implements Pick<SocialElsewhere, "onlineOf" | "playerNamed"> {
  /** This region's players in the directory, by entity id. */
  private readonly listed = new Map<number, PlayerRef>();
  private lastRewriteMs = 0;

  constructor(
    private readonly redis: Redis,
    private readonly region: number,
    private readonly prefix = "fc:",
    /** Counts the commands sent (the directory's figure). */
    private readonly counted: (commands: number) => void = () => {},
  ) {}

  /** A player began playing here (a join, a handoff, a restore): written down at once. */
  came(entityId: number, player: PlayerRef): void {
    this.listed.set(entityId, player);
    this.write([player]).catch(() => {});
  }

  /** A player's session here ended for good: its entries go, if they still name this region. */
  went(entityId: number): void {
    const player = this.listed.get(entityId);
    if (player === undefined) return;
    this.listed.delete(entityId);
    // A player still here under the same nick or account (a login that replaced the session) keeps its entries.
    const [, ...keys] = this.keysOf(player);
    const kept = new Set<string>();
    for (const other of this.listed.values()) for (const key of this.keysOf(other).slice(1)) kept.add(key as string);
    const gone = keys.filter((key) => !kept.has(key));
    if (gone.length === 0) return;
    this.counted(1);
    this.redis.eval(FORGET_SCRIPT, gone.length, ...gone, String(this.region)).catch(() => {});
  }

  /** A player handed to another region: forgotten here, its entries left for the new region to write. */
  movedOn(entityId: number): void {
    this.listed.delete(entityId);
  }

  /** Called often (each second): every REWRITE_MS, this region's entries are written again. */
  refresh(nowMs: number): Promise<void> {
    if (nowMs - this.lastRewriteMs < REWRITE_MS) return Promise.resolve();
    this.lastRewriteMs = nowMs;
    return this.write([...this.listed.values()]);
  }

  /** Rewrites every entry now (Redis came back empty). */
  rewrite(): Promise<void> {
    return this.write([...this.listed.values()]);
  }

  async onlineOf(accountIds: readonly number[]): Promise<Set<number>> {
    const asked = accountIds.slice(0, MAX_ASKED);
    if (asked.length === 0) return new Set();
    this.counted(1);
    const values = await this.redis.mget(...asked.map((id) => `${this.prefix}online:${id}`));
    return new Set(asked.filter((_, index) => values[index] !== null));
  }

  async playerNamed(nick: string): Promise<PlayerThere | null> {
    this.counted(1);
    const value = await this.redis.get(`${this.prefix}nick:${nickKey(nick)}`);
    return value === null ? null : parseEntry(value);
  }

  private keysOf(player: PlayerRef): [number, ...string[]] {
    const keys = [`${this.prefix}nick:${nickKey(player.nick)}`];
    if (player.accountId !== null) keys.push(`${this.prefix}online:${player.accountId}`);
    return [keys.length, ...keys];
  }

  private async write(players: readonly PlayerRef[]): Promise<void> {
    if (players.length === 0) return;
    const multi = this.redis.multi();
    for (const player of players) {
      const entry = `${this.region} ${JSON.stringify(player)}`;
      multi.set(`${this.prefix}nick:${nickKey(player.nick)}`, entry, "PX", ENTRY_TTL_MS);
      if (player.accountId !== null) multi.set(`${this.prefix}online:${player.accountId}`, entry, "PX", ENTRY_TTL_MS);
    }
    this.counted(1);
    await multi.exec();
  }
}

/** A directory entry ("<region> <json>") as the player and its region; null for one that is not well formed. */
function parseEntry(value: string): PlayerThere | null {
  const space = value.indexOf(" ");
  const region = Number(value.slice(0, space));
  try {
    const player = JSON.parse(value.slice(space + 1)) as Record<string, unknown>;
    if (
      space > 0 &&
      Number.isInteger(region) &&
      region >= 0 &&
      typeof player.key === "string" &&
      typeof player.nick === "string" &&
      (player.accountId === null || Number.isSafeInteger(player.accountId))
    ) {
      return { key: player.key, nick: player.nick, accountId: player.accountId as number | null, region };
    }
  } catch {
    // not JSON: as if nobody
  }
  return null;
}
