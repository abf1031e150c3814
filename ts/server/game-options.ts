// What a Game can be started with (server flags map onto these), its defaults,
// and the content it runs.
import type { Recorder } from "./recording/recorder.js";
import type { WorldTape } from "./ops/world-tape.js";
import type { ContentFile } from "./content/content-files.js";
import type { LuaRuntime } from "./scripting/lua-sandbox.js";
import { DEFAULT_DAY_MINUTES } from "../world-time.js";
import { TICK_HZ } from "../constants.js";
import { DEFAULT_THINK_BUDGET_BASE } from "./npc/think-budget.js";
import { DEFAULT_MAX_TICK_STRETCH } from "./ops/overload.js";
import type { GameDatabase } from "./persistence/database.js";
import type { ItemStorePort } from "./persistence/item-store.js";
import type { NoticePort } from "./persistence/notice-store.js";
import type { QuestStorePort, WorldValuesPort } from "./persistence/quest-store.js";
import type { SocialStorePort } from "./persistence/social-store.js";
import type { AccountPort } from "./accounts/account-port.js";
import type { CharacterSink } from "./persistence/character-saver.js";

export interface GameOptions {
  maxPlayers: number;
  /** Spectators at once (spectators/, issue 40): sessions with no body, counted apart from the players. */
  maxSpectators: number;
  /** Sessions unseen this long are evicted. */
  sessionTimeoutMs: number;
  /**
   * A session that never sent a datagram is evicted this long after its join
   * (at most sessionTimeoutMs): joins that never play must not hold player slots.
   */
  unboundSessionTimeoutMs: number;
  /** Send every entity update even when unchanged (the seed's behaviour; decision 10). */
  sendUnchangedEntities: boolean;
  /**
   * Check each kept EntityPacket entry against its entity's fields every round, and throw when a field
   * changed without EntityStore.changed (broadcast.ts). Costs what the change counts save; on in the
   * tests (vitest.config.ts sets CAVES_VERIFY_ENTITY_CHANGES=1, which the servers they start inherit).
   */
  verifyEntityChanges: boolean;
  /** Inbound datagram limits: per session and per source address (datagrams/s). */
  sessionRatePerSecond: number;
  addressRatePerSecond: number;
  tickHz: number;
  /** NPC think budget: BASE / (clients + 1) units per entity tick (ts/server/npc/think-budget.ts). */
  npcThinkBudgetBase: number;
  /**
   * Time dilation (ts/server/ops/overload.ts): the longest a tick's period may stretch to when the loop
   * cannot keep its rate, as a multiple of 1 / tickHz (default 4: down to a quarter of real time);
   * 1 turns it off (the loop falls behind and skips ticks instead). NPC thinking is shed first either way.
   */
  maxTickStretch: number;
  /** Seed of the NPCs' random stream (wandering, spawn cells). */
  npcSeed: number;
  /** Players may fight each other outside the map's safe zones (or the map's `pvp` property says so). */
  pvp: boolean;
  /** Seed of the combat room's hit rolls. */
  combatSeed: number;
  /** Real minutes per in-game day (ts/world-time.ts). */
  dayMinutes: number;
  /** Where the first day starts, 0 … 1 (0 midnight, 0.5 noon). */
  startTimeOfDay: number;
  /** Seed of the weather schedule. */
  weatherSeed: number;
  /** Dungeon levels one process holds at once (P-24: slots beside the maps), their edge in tiles, and how long an empty one is kept. */
  levelSlots: number;
  levelSize: number;
  levelKeepEmptyMs: number;
  /** Seed of the dungeon levels below the map's stairs (each level's seed follows from it and the stairs). */
  dungeonSeed: number;
  /**
   * A cluster region's share of the dungeon (ts/cluster/cluster-levels.ts): the world lays out `worldSlots`
   * level slots, of which this game fills its `levelSlots` from `firstSlot` on, and it follows only the map's
   * stairs down for which `followsStairs` holds. Absent: one process, every slot and every stairs its own.
   */
  dungeonShare?: DungeonShare;
  /**
   * Where accounts and characters live (openGameDatabase). Without one the game
   * opens an in-memory database: accounts work, nothing survives the process.
   * The game closes it in shutdown().
   */
  database?: GameDatabase;
  /**
   * Where registration and login find accounts and characters, and where characters are saved,
   * when that is not `database`: a cluster's shared PostgreSQL store (ts/cluster/pg-accounts.ts).
   * Notices and admin records stay in `database`, per process.
   */
  sharedAccounts?: AccountPort & CharacterSink;
  /** Where items live when that is not `database`: the cluster's shared store (ts/cluster/pg-items.ts). */
  sharedItems?: ItemStorePort;
  /** Where the notice boards keep their notices when that is not `database`: the cluster's shared store (ts/cluster/pg-notices.ts). */
  sharedNotices?: NoticePort;
  /** Where characters' quests are kept when that is not `database`: the cluster's shared store (ts/cluster/pg-quests.ts). */
  sharedQuests?: QuestStorePort;
  /** Where the scripts' world values (a shop's stock) are kept when that is not `database`: the cluster's shared store. */
  sharedValues?: WorldValuesPort;
  /** Where friends, ignores and waiting lines are kept when that is not `database`: the cluster's shared store. */
  sharedSocial?: SocialStorePort;
  /** The first entity id this game hands out (default 1): a cluster's regions take disjoint ranges (ts/cluster/). */
  firstEntityId?: number;
  /**
   * The map's content scripts and the Lua module they run in (scripting/, docs/content.md): loaded before
   * the Game (compiling the module is async); absent, the world has no scripted content.
   */
  content?: { runtime: LuaRuntime; files: ContentFile[] };
  /** Seed of the scripts' random numbers (their `random`). */
  scriptSeed: number;
  /**
   * The flight recorder this world writes its inputs to (recording/recorder.ts; started by the server before
   * the Game, from the database as it then is). Absent: the world is not recorded.
   */
  recorder?: Recorder;
  /** What the world reads from the machine, when not recorded: a replay's tape (recording/replay.ts). */
  tape?: WorldTape;
  /** Seconds between a recording's checkpoints (every entity's fields, the items' census). */
  checkpointSeconds: number;
}

export interface DungeonShare {
  worldSlots: number;
  firstSlot: number;
  followsStairs(x: number, y: number): boolean;
}

export const DEFAULT_GAME_OPTIONS: GameOptions = {
  maxPlayers: 256,
  maxSpectators: 32,
  sessionTimeoutMs: 10_000,
  unboundSessionTimeoutMs: 5_000,
  sendUnchangedEntities: false,
  verifyEntityChanges: process.env.CAVES_VERIFY_ENTITY_CHANGES === "1",
  sessionRatePerSecond: 60,
  addressRatePerSecond: 5_000,
  tickHz: TICK_HZ,
  npcThinkBudgetBase: DEFAULT_THINK_BUDGET_BASE,
  maxTickStretch: DEFAULT_MAX_TICK_STRETCH,
  npcSeed: 0x6e7063,
  pvp: false,
  combatSeed: 0x636f6d,
  dayMinutes: DEFAULT_DAY_MINUTES,
  // 9:00: a new world starts in the morning.
  startTimeOfDay: 0.375,
  weatherSeed: 0x776561,
  levelSlots: 4,
  levelSize: 256,
  levelKeepEmptyMs: 60_000,
  dungeonSeed: 0x64756e,
  scriptSeed: 0x736372,
  checkpointSeconds: 10,
};
