// A region process (docs/scaling.md § Regions): a Game that simulates the players standing on its
// rectangles of the map, fed by gateways over direct links (link-frames.ts), not by sockets of its own.
// After each tick it hands off the players that walked far enough onto a neighbour's ground
// (layout.ts, handoff.ts) and publishes the entities near each neighbour's ground to it as ghosts
// (ghosts.ts). Its clock is the world's: ticks count from one epoch kept in Redis, so every region
// runs the same tick at the same moment and a step scheduled at one executes at the same tick at the
// other. The directory (directory.ts) gets its endpoint, and each entity it owns, claimed by
// compare-and-set.
import { createServer, type Server, type Socket } from "node:net";
import type { AddressInfo } from "node:net";
import { performance } from "node:perf_hooks";
import { BROADCAST_EVERY_TICKS } from "../constants.js";
import { isValidAction, readActionTokenHigh, readActionTokenLow } from "../protocol/action.js";
import { loadCore } from "../wasm/node.js";
import { adminAuthorizer, installAdminRoutes } from "../server/http/admin-routes.js";
import { type ConsoleGround, type ConsoleWorld, installAdminConsole } from "../server/http/admin-console.js";
import { CHUNK_SIZE } from "../constants.js";
import { HEALTH_SAMPLE_MS, HealthSampler } from "../server/http/health-sampler.js";
import { REPLACED_ELSEWHERE } from "../server/session-lifecycle.js";
import { installApiRoutes } from "../server/http/api-routes.js";
import { installSpectateRoute } from "../server/http/spectate-route.js";
import { Game } from "../server/game-server.js";
import type { RegionGame } from "./region-game.js";
import { ENTITY_TYPE_SIGN_POST, NOTICE_BOARD_KIND, noticeBoardKey } from "../server/world/interactables.js";
import { chestKey } from "../server/items/chests-and-piles.js";
import { DEFAULT_GAME_OPTIONS, type GameOptions } from "../server/game-options.js";
import { HttpApi } from "../server/http/http-api.js";
import { DEFAULT_HTTP_LIMITS } from "../server/http/http-guard.js";
import { Logger } from "../server/ops/log.js";
import type { Session } from "../server/sessions/session.js";
import type { Peer } from "../server/edge/peer.js";
import { TickLoop } from "../server/ops/tick-loop.js";
import { readWorldMapAndSource } from "../server/world/world-map.js";
import { stairsOfMap } from "../server/world/world-areas.js";
import { ClusterLevels, dungeonShareOf } from "./cluster-levels.js";
import { loadMigrations } from "../server/persistence/migrate.js";
import { AccountKicks } from "./account-kicks.js";
import { ChatRelay } from "./chat-relay.js";
import { PlayersOnline } from "./players-online.js";
import { PartyLink } from "./party-link.js";
import { TradeLink } from "./trade-link.js";
import { bagKey } from "../server/items/bags.js";
import { PgSocialStore } from "./pg-social.js";
import { ClusterBans } from "./cluster-bans.js";
import { PgBans } from "./pg-bans.js";
import { PgAccounts } from "./pg-accounts.js";
import { PgConnection } from "./pg-connection.js";
import { PgItemStore, type PgItemStoreOptions } from "./pg-items.js";
import { migratePostgres } from "./pg-migrate.js";
import { CHECKPOINT_TTL_MS, Directory, REFRESH_MS } from "./directory.js";
import { GhostTable, ghostsFor } from "./ghosts.js";
import { StrikeLink } from "./strikes.js";
import { DoorLink } from "./door-link.js";
import { PgNoticeStore } from "./pg-notices.js";
import { CLOCK_POLL_MS, deadlineOf, nextSegment, tickAt, WorldStretch } from "./world-dilation.js";
import { PgWorldValues } from "./pg-values.js";
import { readContentFiles } from "../server/content/content-files.js";
import { LuaRuntime } from "../server/scripting/lua-sandbox.js";
import type { QuestStorePort } from "../server/persistence/quest-store.js";
import {
  arrivalOf,
  belowOf,
  type HandoffState,
  handoffStateOf,
  muteOf,
  partyHomeOf,
  restoreSession,
  socialOf,
} from "./handoff.js";
import { type ClusterLayout, distanceToRegion, handoffTarget, neighboursOf } from "./layout.js";
import {
  isSpectatorHandoff,
  type SpectatorHandoff,
  spectatorArrivalOf,
  spectatorHandoffOf,
} from "./spectator-handoff.js";
import { npcLinkFor } from "./npc-link.js";
import {
  FRAME_CLOSE,
  FRAME_DATA,
  FRAME_DOOR_ANSWER,
  FRAME_DOOR_TILES,
  FRAME_DOOR_USE,
  FRAME_GHOSTS,
  FRAME_HANDOFF,
  FRAME_HELLO,
  FRAME_NPC_DIED,
  FRAME_NPC_HANDOFF,
  FRAME_NPC_HELD,
  FRAME_OPEN,
  FRAME_REROUTE,
  FRAME_STRIKE,
  FRAME_STRIKE_ANSWER,
  FrameError,
  FrameReader,
  FrameWriter,
  dialLink,
  jsonOf,
} from "./link-frames.js";

/** Each region hands out entity ids from its own range: (region + 1) × 2^24 onwards. */
export const ENTITY_ID_RANGE = 2 ** 24;
/**
 * Ids a region may hand out between two checkpoints (a second apart) and still not see again after a
 * restart: far more than a second's joins and spawns. A restart uses this much of its 2²⁴ range up.
 */
const IDS_AFTER_CHECKPOINT = 50_000;
/** Client links one gateway may open here (a gateway is trusted, but its memory here is bounded still). */
const MAX_PEERS_PER_GATEWAY = 65_536;
/** A session handed off is remembered this long, so its datagrams still in flight are sent back to route again. */
const TOMBSTONE_MS = 10_000;
/** A region more ticks than this behind the world's timeline (after a stall) jumps to it. */
export const MAX_TICKS_BEHIND = 2;
/**
 * A camera following a neighbour's ghost this many ticks (a second) goes to that neighbour: it joined here
 * while the entity was across the border. Not at once: an entity handed here through another gateway may
 * be a ghost for the moment its spectator arrives ahead of it.
 */
const GHOST_FOLLOW_TICKS = 24;
/**
 * A handoff the gateway sent back (no link to its target: that region is down) is not tried again for this
 * long. Without it a player standing on a region's ground, or on its stairs down — a login below a level whose
 * region is down (cluster-levels.ts) — was released and adopted again every tick until that region was back.
 */
export const HANDOFF_RETRY_MS = 1000;
/** A player waiting on a down region's stairs is told so again after this long (not at every retry). */
const HANDOFF_WAIT_TOLD_MS = 30_000;
/** Closed ownership intervals kept for /api/cluster. */
const OWNERSHIP_LOG_MAX = 20_000;

export interface RegionOptions {
  region: number;
  layout: ClusterLayout;
  redisUrl: string;
  mapPath: string;
  host: string;
  /** The link port gateways and neighbours connect to; 0 picks a free one. */
  linkPort: number;
  httpPort: number;
  game?: Partial<GameOptions>;
  logger?: Logger;
  /**
   * The PostgreSQL every process of the world keeps accounts in (pg-accounts.ts); account sessions
   * then cross borders like guests. Without it accounts live in region 0's own in-memory store and
   * stay in region 0 wherever they walk.
   */
  postgresUrl?: string;
  /**
   * Serve the admin routes (/api/admin/*, docs/server.md § Admin) to requests bearing this token; the
   * gateways fan an operator's request out to every region (gateway.ts). Bans are kept in the shared
   * PostgreSQL (cluster-bans.ts); without one they are refused (501).
   */
  adminToken?: string;
}

/** A gateway's link here: its client links (virtual peers) and the sessions handed off from them. */
interface GatewayLink {
  readonly id: string;
  /**
   * This link's number among the gateway links this region accepted: part of its clients' peer keys, so
   * the clients of a gateway started again (numbered from 1 again) never share a key — nor a bound link
   * or a proven address — with its last life's.
   */
  readonly serial: number;
  readonly writer: FrameWriter;
  readonly peers: Map<number, Peer>;
  /** Clients whose session left this region, and when: their datagrams go back to the gateway. */
  readonly tombstones: Map<number, number>;
}

/** One period of a region owning an entity, wall-clock ms (Date.now: one clock for every process here). */
export interface Ownership {
  id: number;
  fromMs: number;
  toMs: number;
}

export interface RunningRegion {
  readonly region: number;
  readonly game: Game;
  readonly linkPort: number;
  readonly httpPort: number;
  close(): Promise<void>;
}

export async function startRegion(options: RegionOptions): Promise<RunningRegion> {
  const { region, layout } = options;
  const log = options.logger ?? new Logger("info");
  const core = await loadCore();
  const { world: mapAlone, loaded } = readWorldMapAndSource(options.mapPath);
  // Its stairs down lead to dungeon levels, each held by the region of its stairs (cluster-levels.ts).
  const map = { ...mapAlone, warps: stairsOfMap(loaded, options.mapPath) };
  const gameOptions = { ...DEFAULT_GAME_OPTIONS, ...options.game };
  const firstStairs = map.warps.find((warp) => warp.stairs === "down") ?? map.spawns[0];
  const levels = new ClusterLevels(layout, region, map.warps, {
    dungeonSeed: gameOptions.dungeonSeed,
    levelSize: gameOptions.levelSize,
    settleTo: firstStairs,
  });
  // The spawns and chests of this region's ground live here (a creature crosses borders, npc-link.ts, but
  // its spawn stays); so do the piles lying on it, when items are kept in the shared store.
  const owns = (x: number, y: number) => distanceToRegion(layout, region, x, y) === 0;
  const npcSpawns = (map.npcSpawns ?? []).filter((spawn) => owns(spawn.x, spawn.y));
  const chests = (map.chests ?? []).filter((chest) => owns(chest.x, chest.y));
  // Doors too: a neighbour's door is a ghost here, its cell kept as its region says (door-link.ts).
  const doors = (map.doors ?? []).filter((door) => owns(door.x, door.y));
  const store =
    options.postgresUrl === undefined
      ? null
      : await openSharedStore(
          options.postgresUrl,
          log,
          {
            world: map.name,
            chestKeys: chests.map((chest) => chestKey(map.name, chest.id)),
            owns,
            keepsLevel: (level) => levels.keepsLevel(level),
          },
          (map.interactables ?? [])
            .filter((object) => object.kind === NOTICE_BOARD_KIND)
            .map((board) => noticeBoardKey(map.name, board)),
        );
  const accounts = store?.accounts ?? null;
  // The map's content scripts (<map>.content/*.lua), as one process runs them: each region runs them for
  // what happens on its ground — a talk to its creatures, a kill there, a zone entered there — with the
  // quests and the shops' stock in the shared store (docs/content.md § In a cluster).
  const contentFiles = options.game?.content === undefined ? readContentFiles(options.mapPath) : [];
  const content =
    options.game?.content ??
    (contentFiles.length > 0 ? { runtime: await LuaRuntime.load(), files: contentFiles } : undefined);
  // The whole Game is returned for tests and tools; the region itself reaches it through its port only.
  const wholeGame = new Game(
    core,
    { ...map, npcSpawns, chests, doors },
    {
      ...options.game,
      content,
      firstEntityId: (region + 1) * ENTITY_ID_RANGE + 1,
      sharedAccounts: accounts ?? undefined,
      sharedItems: store?.items,
      // The boards' notices in the shared store: kept when this region restarts, and seen from every region.
      sharedNotices: store?.notices,
      // Quests and the scripts' world values too: a quest step survives a border and a restart.
      sharedQuests: store?.quests,
      sharedValues: store?.values,
      // Friends, ignores and waiting lines too: kept once, whichever region a player logs in to.
      sharedSocial: store?.social,
      // Its share of the world's dungeon level slots, and the stairs down on its ground (cluster-levels.ts).
      dungeonShare: dungeonShareOf(layout, region, gameOptions.levelSlots, map.warps),
    },
    log,
  );
  const game: RegionGame = wholeGame;
  levels.placed(game.world.levelSlots);
  // Bans kept in the shared store, decided by the one process's rules (cluster-bans.ts).
  const bans = store === null ? null : new ClusterBans(wholeGame.admin, new PgBans(store.connection));

  const directory = new Directory(options.redisUrl);
  // Redis lost: the region plays on; when it is back, it writes its part of the directory again.
  let writeDirectoryAgain: (() => void) | null = null;
  directory.watch(log, () => writeDirectoryAgain?.());
  await directory.connect();
  const kicks = accounts === null ? null : new AccountKicks(region, directory.redis, game, log);
  if (accounts !== null) {
    // A lease taken elsewhere while the store was unreachable: this region's copy of the character is no
    // longer the one that is written, so its session here ends.
    accounts.onLeaseLost = (accountId) => {
      const session = game.sessionOfAccount(accountId);
      if (session !== undefined) game.leave(session, REPLACED_ELSEWHERE);
    };
  }
  if (kicks !== null) {
    await kicks.start();
    // A login here of a character another region plays: that region ends its session (saving it), and
    // the lease comes here within the login's wait.
    accounts!.onBusy = (accountId) => kicks.ask(accountId);
  }
  const tickPeriodMs = 1000 / game.options.tickHz;
  const epochMs = await directory.tickEpochMs(Date.now());

  const ghosts = new GhostTable(game.entities);
  const neighbours = new Map<number, { writer: FrameWriter; socket: Socket }>();
  const strikes = new StrikeLink(game.combat, ghosts, (n) => neighbours.get(n)?.writer);
  const doorLink = new DoorLink({
    doors: game.doors,
    ghosts,
    layout,
    region,
    specs: map.doors ?? [],
    linkTo: (n) => neighbours.get(n)?.writer,
    holds: (session, key) => game.items.holds(session, key),
    tileAt: (x, y) => game.tileAt(x, y),
    setTile: (x, y, tile) => game.setTile(x, y, tile),
    sessionOf: (id) => game.sessions.byEntityId(id),
    tell: (session, text, speaker) => game.chat.tell(session, text, speaker),
  });
  // Creatures cross borders as players do; each spawn's home is the region of its ground.
  const npcLink = npcLinkFor(
    game,
    map.npcKinds ?? [],
    map.npcSpawns ?? [],
    ghosts,
    layout,
    region,
    (n) => neighbours.get(n)?.writer,
    // A dungeon level's creatures stay in it: it is no border (cluster-levels.ts).
    (x, y) => levels.inLevel(x, y),
  );
  // A creature by a border wakes for a player across it, as in one process.
  game.otherPlayers = () => ghosts.players();
  const chatRelay = new ChatRelay(region, directory.redis, game.chat, log, "fc:", game.social);
  await chatRelay.start();
  // Who plays where, for the social room: players named across regions, friends online anywhere.
  const players = new PlayersOnline(directory.redis, region, "fc:", (commands) => (directory.commands += commands));
  game.social.elsewhere = {
    presence: (accountId, nick, online) => chatRelay.presence(accountId, nick, online),
    onlineOf: (accountIds) => players.onlineOf(accountIds),
    playerNamed: (nick) => players.playerNamed(nick),
  };
  // A party whose members play in several regions: its home and their regions talk on `fc:party`.
  const partyLink = new PartyLink(region, directory.redis, game.parties, log);
  await partyLink.start();
  // A trade with a player across the border: its home (the asker's region) and the other region talk on `fc:trade`.
  const tradeLink =
    store === null
      ? null
      : new TradeLink(
          region,
          directory.redis,
          {
            trades: game.trades,
            ghosts,
            bagKeyOf: (entityId) => {
              const accountId = game.sessions.byEntityId(entityId)?.accountId ?? null;
              return accountId === null ? null : bagKey(accountId);
            },
            backend: () => store.items.backend(),
          },
          log,
        );
  await tradeLink?.start();
  const listPlayer = (session: Session) =>
    players.came(session.entity.id, {
      key: game.social.keyOf(session),
      nick: session.nick,
      accountId: session.accountId,
    });
  const gateways = new Map<string, GatewayLink>();
  let gatewayLinkSerial = 0;
  /** Where each virtual peer (by key) came from: the handoff answers on the same link. */
  const peerLinks = new Map<string, { link: GatewayLink; client: number }>();
  const connecting = new Set<number>();
  const owned = new Map<number, number>(); // player entity id → owned since (ms)
  const ownershipLog: Ownership[] = [];
  const stats = {
    handoffsOut: 0,
    handoffsIn: 0,
    /** Handoffs the gateway sent back (their target down): each held HANDOFF_RETRY_MS before the next try. */
    handoffsBounced: 0,
    /**
     * Steps carried in handoffs' states; of them, run at a later window (owed: schedule.ts), lost (no room
     * in the owed queue or beyond the horizon), and doubled (for a window the old region had run).
     */
    stepsCarried: 0,
    stepsMovedWindow: 0,
    stepsLost: 0,
    stepsDoubled: 0,
    /**
     * GHOSTS frames received, by how many ticks this region had run past the tick the sender published
     * it after: 0, its entities are in each player's next broadcast one tick after an entity of this
     * region's own would be; 1, two ticks after (one broadcast period); 2 or more, later than that.
     */
    ghostFramesIn: 0,
    ghostLagTicks: [0, 0, 0] as [number, number, number],
    rerouted: 0,
    /** Datagrams the gateway brought back from the region a session left (REROUTE), handled here. */
    reroutedIn: 0,
    claimConflicts: 0,
    claims: 0,
    badFrames: 0,
    unknownClient: 0,
    ghostFramesOut: 0,
    restored: 0,
    checkpointed: 0,
    handoffsWaitedForItems: 0,
    handoffsWaitedForSocial: 0,
    /** Ticks jumped to rejoin the world's timeline after a stall (MAX_TICKS_BEHIND). */
    ticksRejoined: 0,
    /** Steps of the windows those jumps passed over: owed (run at the next windows, in order), or lost (queue full). */
    stepsOwedAtRejoin: 0,
    stepsLostAtRejoin: 0,
    /** Gateway links closed (a gateway stopped or died): their clients' sessions wait to be bound again. */
    gatewayLinksLost: 0,
    /** Spectators handed on with the entity they follow (spectator-handoff.ts), and taken from a neighbour. */
    spectatorsOut: 0,
    spectatorsIn: 0,
    /** Spectator handoffs refused here (a token in play already): that spectator's page joins again. */
    spectatorsRefused: 0,
  };
  // What this region held when it last died (its checkpoint), adopted again as each comes back; forgotten
  // after CHECKPOINT_TTL_MS (those clients have given up by then).
  const restorable = new Map<string, HandoffState>();
  for (const [tokenHex, json] of Object.entries(await directory.checkpoint(region))) {
    try {
      restorable.set(tokenHex, JSON.parse(json) as HandoffState);
    } catch {
      log.warn("checkpoint: an entry is not JSON", { tokenHex });
    }
  }
  // Ids this region's last life gave out (its own range) are not handed out again: their players come back.
  const ownRange = (id: number) => id > (region + 1) * ENTITY_ID_RANGE && id <= (region + 2) * ENTITY_ID_RANGE;
  for (const state of restorable.values()) {
    if (Number.isInteger(state.entity?.id) && ownRange(state.entity.id)) game.entities.reserveThrough(state.entity.id);
  }
  // Nor any its last life gave a player who then left for another region (not in the checkpoint, still in
  // play there — two entities under one id corrupted the store of the region holding both, issue 41's chaos
  // run): past the id it wrote down last, with room for what it handed out in the second after.
  const nextIdBefore = await directory.nextEntityIdOf(region);
  if (nextIdBefore !== null && ownRange(nextIdBefore)) {
    game.entities.reserveThrough(Math.min(nextIdBefore + IDS_AFTER_CHECKPOINT, (region + 2) * ENTITY_ID_RANGE - 1));
  }
  if (restorable.size > 0) {
    log.warn("restarting with a checkpoint", { region, sessions: restorable.size });
    setTimeout(() => restorable.clear(), CHECKPOINT_TTL_MS).unref();
  }

  const own = (id: number) => {
    if (owned.has(id)) return;
    owned.set(id, Date.now());
  };
  const disown = (id: number) => {
    const since = owned.get(id);
    if (since === undefined) return;
    owned.delete(id);
    ownershipLog.push({ id, fromMs: since, toMs: Date.now() });
    if (ownershipLog.length > OWNERSHIP_LOG_MAX) ownershipLog.shift();
  };
  const claim = (id: number, from: number | null) => {
    stats.claims++;
    directory.claimEntity(id, from, region).then(
      (ok) => {
        if (!ok) {
          stats.claimConflicts++;
          log.warn("entity claimed by another region", { entityId: id, from });
        }
      },
      directory.failed(`claiming entity ${id}`),
    );
  };

  function onGatewayFrame(link: GatewayLink, kind: number, client: number, payload: Buffer): void {
    switch (kind) {
      case FRAME_OPEN: {
        const { address, transport } = jsonOf(payload, "open") as { address?: unknown; transport?: unknown };
        if (
          typeof address !== "string" ||
          (transport !== "udp" && transport !== "webrtc" && transport !== "websocket")
        ) {
          throw new FrameError("open: bad address or transport");
        }
        if (!link.peers.has(client) && link.peers.size >= MAX_PEERS_PER_GATEWAY) throw new FrameError("open: too many");
        const key = `gw:${link.id}/${link.serial}:${client}`;
        const peer: Peer = {
          key,
          address,
          transport,
          send: (datagram) => link.writer.send(FRAME_DATA, client, datagram),
        };
        link.peers.set(client, peer);
        peerLinks.set(key, { link, client });
        return;
      }
      case FRAME_DATA:
      case FRAME_REROUTE: {
        const peer = link.peers.get(client);
        if (peer === undefined) {
          stats.unknownClient++;
          return;
        }
        if (link.tombstones.has(client)) {
          stats.rerouted++;
          link.writer.send(FRAME_REROUTE, client, payload);
          return;
        }
        if (kind === FRAME_REROUTE) {
          // Sent to the region this session left, after it left: a step in it that missed its window is
          // owed, not left for the client's next step to replace (schedule.ts).
          stats.reroutedIn++;
          return game.receiveRerouted(payload, peer);
        }
        if (restorable.size > 0 && isValidAction(payload)) restore(link, client, payload);
        game.receive(payload, peer);
        return;
      }
      case FRAME_CLOSE: {
        const peer = link.peers.get(client);
        if (peer === undefined) return;
        link.peers.delete(client);
        link.tombstones.delete(client);
        peerLinks.delete(peer.key);
        game.linkClosed(peer.key);
        return;
      }
      case FRAME_HANDOFF: {
        const state = jsonOf(payload, "handoff");
        if (isSpectatorHandoff(state)) return arriveSpectator(link, client, state);
        return arrive(link, client, state as HandoffState);
      }
      default:
        throw new FrameError(`gateway frame of kind ${kind}`);
    }
  }

  /** A session handed here by the gateway (from a neighbour, or back to us when its target was down). */
  function arrive(link: GatewayLink, client: number, state: HandoffState): void {
    const peer = link.peers.get(client);
    if (peer === undefined) throw new FrameError("handoff for a client never opened");
    // Below (or on its way below): it arrives on the map's stairs it came by, and goes down from there; the
    // steps it had scheduled were for where it stood (as at a teleport).
    const below = belowOf(state);
    const carried = arrivalOf(state);
    const arrival = below === null ? carried : { ...carried, entity: { ...carried.entity, x: below.x, y: below.y } };
    const mute = muteOf(state);
    const social = socialOf(state);
    const partyHome = partyHomeOf(state);
    ghosts.drop(arrival.entity.id);
    const session = game.adoptSession(arrival, peer, performance.now());
    const restored = restoreSession(
      session,
      below === null ? state : { ...state, steps: [], owed: [] },
      game.nextWindow,
    );
    game.arrivedAt(session, below?.dungeon ?? null, state.from === region);
    // Back from the gateway: the region it was handed to is down.
    if (state.from === region) bounced(session);
    // An operator's mute goes where the player goes (and survives this region's restart: the checkpoint).
    if (mute !== null) game.admin.restoreMute(session, mute);
    // Its ignores, friends and last teller come with it; the directory of players names this region now.
    game.social.adopt(session, social);
    listPlayer(session);
    // Still in its party: back at its home, or mirrored here for it (parties.ts).
    game.parties.adopted(session, partyHome);
    link.tombstones.delete(client);
    stats.handoffsIn++;
    stats.stepsCarried += restored.steps;
    stats.stepsMovedWindow += restored.moved;
    stats.stepsLost += restored.lost;
    stats.stepsDoubled += restored.doubled;
    own(session.entity.id);
    if (state.from !== region) claim(session.entity.id, state.from);
    // Banned while it was on its way here (in no region's list when the ban's sessions were ended).
    bans
      ?.checkArrival(session, () => game.leave(session, "banned"))
      .catch((error: unknown) => log.warn("an arrival not checked against the bans", { error: String(error) }));
  }

  /** A spectator handed here with the entity it follows (or back to us when its target was down). */
  function arriveSpectator(link: GatewayLink, client: number, state: SpectatorHandoff): void {
    const peer = link.peers.get(client);
    if (peer === undefined) throw new FrameError("spectator handoff for a client never opened");
    const arrival = spectatorArrivalOf(state);
    link.tombstones.delete(client);
    try {
      game.spectators.adopt(arrival, peer, performance.now());
      stats.spectatorsIn++;
    } catch (error) {
      // Not the link's fault (a token in play here already): the page finds its link silent and joins again.
      stats.spectatorsRefused++;
      log.warn("a spectator handed here was refused", { error: String(error) });
    }
  }

  /**
   * After a restart: the first ActionPacket of a session this region held when it died (its checkpoint
   * in Redis, at most REFRESH_MS old) adopts it again on the link it arrives by, where it stood then —
   * the same session, token and entity; the steps since the checkpoint are lost (what the client
   * predicted is corrected, as after any lost steps).
   */
  function restore(link: GatewayLink, client: number, payload: Uint8Array): void {
    const low = readActionTokenLow(payload);
    const high = readActionTokenHigh(payload);
    const tokenHex = ((BigInt(high >>> 0) << 32n) | BigInt(low >>> 0)).toString(16).padStart(16, "0");
    const state = restorable.get(tokenHex);
    if (state === undefined || game.sessions.byTokenValue(BigInt(`0x${tokenHex}`)) !== undefined) return;
    restorable.delete(tokenHex);
    try {
      arrive(link, client, { ...state, from: region, to: region });
      stats.restored++;
    } catch (error) {
      log.warn("checkpoint: a session could not be restored", { error: String(error) });
    }
  }

  /** What this region writes down of `session` for region `to` (a handoff, or its own checkpoint). */
  function stateOf(session: Session, to: number): HandoffState {
    const carrying = game.items.carrying(session);
    return handoffStateOf(
      session,
      region,
      to,
      game.nextWindow,
      carrying,
      game.tick,
      game.admin.muteStateOf(session),
      game.questsOf(session),
      game.social.carried(session),
      game.parties.homeOf(session),
      game.placeOf(session),
    );
  }

  /** Players whose last handoff came back (target down), by entity id: the tick of the next try, when last told. */
  const handoffsHeld = new Map<number, { retryAtTick: number; toldAtTick: number }>();
  const ticksOf = (ms: number) => Math.ceil(ms / tickPeriodMs);

  /** A handoff of `session` came back: the next try waits HANDOFF_RETRY_MS; one pulled below is told why it waits. */
  function bounced(session: Session): void {
    stats.handoffsBounced++;
    const id = session.entity.id;
    const held = handoffsHeld.get(id);
    const toldAtTick = held?.toldAtTick ?? -Infinity;
    const tell =
      levels.pulledTo(session.entity.x, session.entity.y) >= 0 &&
      game.tick - toldAtTick >= ticksOf(HANDOFF_WAIT_TOLD_MS);
    handoffsHeld.set(id, {
      retryAtTick: game.tick + ticksOf(HANDOFF_RETRY_MS),
      toldAtTick: tell ? game.tick : toldAtTick,
    });
    if (tell)
      game.chat.tell(
        session,
        "The level below is held by a part of the world that is not answering: you wait on the stairs and go down once it is back.",
      );
  }

  function handOff(session: Session, target: number): void {
    const at = session.peer === null ? undefined : peerLinks.get(session.peer.key);
    if (at === undefined) return; // not behind a gateway link (yet): it stays
    const held = handoffsHeld.get(session.entity.id);
    if (held !== undefined && game.tick < held.retryAtTick) return; // its last try came back: not yet again
    // An item change of its own still being written: it goes once that is applied (a tick or so later),
    // so what a guest carries over is what it holds, and an account's bag is read after its last write.
    if (!game.items.settled(session)) {
      stats.handoffsWaitedForItems++;
      return;
    }
    // Its friends and ignores still being read from the shared store: it goes once they are, with them.
    if (!game.social.settled(session)) {
      stats.handoffsWaitedForSocial++;
      return;
    }
    const state = stateOf(session, target);
    // A member of a party at home here plays on in the region it goes to (before its session is released).
    game.parties.handOver(session, target);
    game.releaseSession(session);
    disown(session.entity.id);
    players.movedOn(session.entity.id);
    movedAway.set(session.entity.id, target);
    at.link.tombstones.set(at.client, performance.now());
    at.link.writer.sendJson(FRAME_HANDOFF, at.client, state);
    stats.handoffsOut++;
  }

  function acceptLink(socket: Socket): void {
    socket.setNoDelay(true);
    const writer = new FrameWriter(socket);
    let gateway: GatewayLink | null = null;
    let neighbour: number | null = null;
    const reader = new FrameReader((kind, client, payload) => {
      if (gateway !== null) return onGatewayFrame(gateway, kind, client, payload);
      if (neighbour !== null) {
        if (kind === FRAME_GHOSTS) {
          ghosts.apply(neighbour, jsonOf(payload, "ghosts"));
          // The frame's client field is the tick it was published after (publishGhosts).
          stats.ghostFramesIn++;
          stats.ghostLagTicks[Math.min(2, Math.max(0, game.tick - client))]++;
          return;
        }
        if (kind === FRAME_STRIKE) return strikes.onStrike(neighbour, jsonOf(payload, "strike"));
        if (kind === FRAME_STRIKE_ANSWER) return strikes.onAnswer(jsonOf(payload, "strike answer"));
        if (kind === FRAME_DOOR_USE) return doorLink.onUse(neighbour, jsonOf(payload, "door use"));
        if (kind === FRAME_DOOR_ANSWER) return doorLink.onAnswer(jsonOf(payload, "door answer"));
        if (kind === FRAME_DOOR_TILES) return doorLink.onCells(neighbour, jsonOf(payload, "door tiles"));
        if (kind === FRAME_NPC_HANDOFF) return npcLink.onHandoff(jsonOf(payload, "npc handoff"));
        if (kind === FRAME_NPC_HELD) return npcLink.onHeld(neighbour, jsonOf(payload, "npc held"));
        if (kind === FRAME_NPC_DIED) return npcLink.onDied(jsonOf(payload, "npc died"));
        throw new FrameError(`region frame of kind ${kind}`);
      }
      if (kind !== FRAME_HELLO) throw new FrameError("the first frame must be a hello");
      const hello = jsonOf(payload, "hello") as { role?: unknown; id?: unknown };
      if (hello.role === "gateway" && typeof hello.id === "string" && /^[\w-]{1,32}$/.test(hello.id)) {
        gateway = { id: hello.id, serial: ++gatewayLinkSerial, writer, peers: new Map(), tombstones: new Map() };
        gateways.set(hello.id, gateway);
      } else if (hello.role === "region" && Number.isInteger(hello.id) && (hello.id as number) < layout.regionCount) {
        neighbour = hello.id as number;
      } else {
        throw new FrameError("hello: bad role or id");
      }
    });
    socket.on("data", (chunk: Buffer) => {
      try {
        reader.push(chunk);
      } catch (error) {
        stats.badFrames++;
        log.warn("link closed: bad frame", { error: String(error) });
        socket.destroy();
      }
    });
    socket.on("error", () => {});
    socket.on("close", () => {
      const closed = gateway;
      if (closed === null) return;
      stats.gatewayLinksLost++;
      // A gateway started again may have linked anew before this close was seen: that link stays.
      if (gateways.get(closed.id) === closed) gateways.delete(closed.id);
      // The gateway is gone, not its clients: their sessions stay, unbound, until each client binds its
      // own again through another gateway (a signed ActionPacket; docs/scaling.md § A gateway lost) or
      // the session timeout ends it.
      for (const peer of closed.peers.values()) {
        peerLinks.delete(peer.key);
        game.linkLost(peer.key);
      }
    });
  }

  /** Connects to the neighbours the directory knows and this region is not linked to yet. */
  async function linkNeighbours(): Promise<void> {
    const wanted = neighboursOf(layout, region).filter((n) => !neighbours.has(n) && !connecting.has(n));
    if (wanted.length === 0) return;
    const endpoints = await directory.regions(layout.regionCount);
    for (const n of wanted) {
      const endpoint = endpoints.get(n);
      if (endpoint === undefined) continue;
      connecting.add(n);
      dialLink(
        { host: endpoint.host, port: endpoint.linkPort },
        { role: "region", id: region },
        (writer, socket) => {
          connecting.delete(n);
          neighbours.set(n, { writer, socket });
        },
        (socket) => {
          connecting.delete(n);
          if (neighbours.get(n)?.socket !== socket) return;
          neighbours.delete(n);
          // The neighbour's process is gone: creatures that crossed between us are settled (npc-link.ts).
          npcLink.linkLost(n);
        },
      );
    }
  }

  /** What runs after each tick of the game: new and gone sessions, handoffs, ghosts. */
  const scratch: Session[] = [];
  /** The entities handed on this tick (players and creatures), by id, and the region each went to. */
  const movedAway = new Map<number, number>();
  function afterTick(): void {
    scratch.length = 0;
    movedAway.clear();
    for (const session of game.sessions.values()) {
      const id = session.entity.id;
      if (!owned.has(id)) {
        // A join here (handoffs arrive already owned): nobody owned it before.
        own(id);
        claim(id, null);
        listPlayer(session);
      }
      // Without a shared store, accounts stay where their character lives: region 0 (docs/scaling.md).
      if (session.accountId === null || accounts !== null) scratch.push(session);
    }
    for (const session of scratch) {
      const { x, y } = session.entity;
      // A dungeon level is its region's alone: no border there (cluster-levels.ts).
      if (levels.inLevel(x, y)) continue;
      // On a neighbour's stairs down (within the margin of its ground): to the region that holds their levels.
      const pulled = levels.pulledTo(x, y);
      const target = pulled >= 0 ? pulled : handoffTarget(layout, region, x, y);
      if (target >= 0 && target !== region) handOff(session, target);
    }
    for (const id of owned.keys()) {
      if (game.sessions.byEntityId(id) === undefined) {
        disown(id);
        directory.releaseEntity(id, region).catch(() => {});
        players.went(id);
      }
    }
    if (game.tick % BROADCAST_EVERY_TICKS === 0) {
      // Creatures first: one handed off now is published by its new owner, not as a ghost from here.
      npcLink.handOff((id, target) => movedAway.set(id, target));
      publishGhosts();
    }
    handOffSpectators();
  }

  /** Since which tick each camera has followed a neighbour's ghost (GHOST_FOLLOW_TICKS). */
  const followingGhost = new WeakMap<Session, number>();
  const spectatorsMoving: [Session, number, number][] = [];
  /**
   * The spectators whose camera follows an entity this region no longer holds go where it went, on their
   * gateway's link (as a player's handoff does): an entity handed on this tick takes its spectators along;
   * a camera that has followed a neighbour's ghost for a second goes to that neighbour.
   */
  function handOffSpectators(): void {
    spectatorsMoving.length = 0;
    for (const [session, followId] of game.spectators.following()) {
      let target = movedAway.get(followId);
      if (target === undefined) {
        const owner = ghosts.ownerOf(followId);
        if (owner === null) {
          followingGhost.delete(session);
          continue;
        }
        const since = followingGhost.get(session);
        if (since === undefined) followingGhost.set(session, game.tick);
        if (since === undefined || game.tick - since < GHOST_FOLLOW_TICKS) continue;
        target = owner;
      }
      spectatorsMoving.push([session, followId, target]);
    }
    for (const [session, followId, target] of spectatorsMoving) {
      followingGhost.delete(session);
      const at = session.peer === null ? undefined : peerLinks.get(session.peer.key);
      if (at === undefined || target === region) continue;
      const state = spectatorHandoffOf(session, followId, region, target, game.tick);
      game.spectators.release(session);
      at.link.tombstones.set(at.client, performance.now());
      at.link.writer.sendJson(FRAME_HANDOFF, at.client, state);
      stats.spectatorsOut++;
    }
  }

  /** Every second: the state of each session behind a gateway, for a restart of this region (restore). */
  function writeCheckpoint(): void {
    // Held handoffs long past their retry (the player went on, or away) are forgotten.
    for (const [id, held] of handoffsHeld)
      if (game.tick - held.retryAtTick > ticksOf(HANDOFF_WAIT_TOLD_MS)) handoffsHeld.delete(id);
    const states = new Map<string, string>();
    for (const session of game.sessions.values()) {
      if (session.peer === null || !peerLinks.has(session.peer.key)) continue;
      if (session.accountId !== null && accounts === null) continue;
      const state = stateOf(session, region);
      states.set(session.tokenHex, JSON.stringify(state));
    }
    stats.checkpointed = states.size;
    directory.putCheckpoint(region, states, game.entities.nextFreeId).catch(directory.failed("checkpoint"));
  }

  /**
   * The entities this region publishes as ghosts: its own, but not its signs and notice boards — every
   * region places the map's signs and boards itself (they hold no state a neighbour must see), so a ghost
   * of one would stand beside the neighbour's own copy, and a player by the border would see it twice.
   */
  function* ownEntities() {
    for (const entity of game.entities.values()) {
      if (entity.typeId === ENTITY_TYPE_SIGN_POST || ghosts.isGhost(entity.id)) continue;
      // What stands in a dungeon level is seen from there only (levels are no neighbour's: cluster-levels.ts).
      if (levels.inLevel(entity.x, entity.y)) continue;
      yield entity;
    }
  }

  function publishGhosts(): void {
    for (const [n, { writer }] of neighbours) {
      // The client field carries this tick: the neighbour measures how late its ghosts are (ghostLagTicks).
      writer.sendJson(FRAME_GHOSTS, game.tick, ghostsFor(layout, n, ownEntities()));
      stats.ghostFramesOut++;
      const cells = doorLink.cellsFor(n);
      if (cells.length > 0) writer.sendJson(FRAME_DOOR_TILES, 0, cells);
    }
  }

  // The HTTP API: joins (through a gateway, which answers with its own UDP port), status, metrics, and
  // /api/cluster for this region's part. Joins all come from the gateways' address: the per-address join
  // limit is theirs to keep (the gateway is the edge).
  const http = new HttpApi((error) => log.error("http handler failed", { error: String(error) }), {
    ...DEFAULT_HTTP_LIMITS,
    guestJoinsPerAddress: 1_000_000,
    registrationsPerAddress: 1_000_000,
  });
  installApiRoutes(http, game, () => 0);
  // Spectators through a gateway (the console's Follow): admins only, the gateway relays the link here and
  // rewrites the join's UDP port to its own (gateway.ts); a camera goes on with its entity across borders.
  installSpectateRoute(http, game, {
    policy: "admin",
    authorize:
      options.adminToken === undefined ? null : adminAuthorizer(game.admin, options.adminToken, http.clientAddress),
    udpPort: () => 0,
    joinsPerMinute: DEFAULT_HTTP_LIMITS.guestJoinsPerAddress,
  });
  const health = new HealthSampler(wholeGame, HEALTH_SAMPLE_MS);
  if (options.adminToken !== undefined) {
    if (bans === null) {
      installAdminRoutes(http, game.admin, options.adminToken, {
        bansElsewhere:
          "bans are kept in the cluster's shared PostgreSQL store, and this cluster runs without one " +
          "(docs/scaling.md § Bans in a cluster); kick or mute the player instead",
      });
    } else {
      installAdminRoutes(http, game.admin, options.adminToken, { bans });
      bans.installEndRoute(http, adminAuthorizer(game.admin, options.adminToken, http.clientAddress));
    }
    // The console's routes (http/admin-console.ts) over this region's own entities — a neighbour's ghosts are
    // that neighbour's to list — which a gateway puts together for the whole world (admin-fanout.ts).
    installAdminConsole(
      http,
      adminAuthorizer(game.admin, options.adminToken, http.clientAddress, 'Basic realm="admin"'),
      ownedOnly(wholeGame, ghosts, {
        region,
        rects: layout.rects
          .filter((rect) => rect.region === region)
          .map((rect) => ({
            x0: rect.cx0 * CHUNK_SIZE,
            y0: rect.cy0 * CHUNK_SIZE,
            x1: rect.cx1 * CHUNK_SIZE,
            y1: rect.cy1 * CHUNK_SIZE,
          })),
      }),
      health,
    );
    health.start();
  }
  http.route("GET", "/api/cluster", () => ({
    body: {
      region,
      tick: game.tick,
      players: game.sessions.size,
      ghosts: ghosts.size,
      ghostStats: ghosts.stats,
      gateways: [...gateways.keys()],
      neighbours: [...neighbours.keys()],
      ...stats,
      // Every step offered here by outcome (schedule.ts): "late_owed" and "owed_dropped" are the steps of
      // rerouted datagrams that came after their windows, owed (run in order) or lost (no room).
      stepOutcomes: Object.fromEntries(game.metrics.actions),
      redisCommands: directory.commands + chatRelay.stats.published,
      redis: { up: directory.up, ...directory.connection },
      chatRelay: chatRelay.stats,
      parties: { ...partyLink.stats, dropped: partyLink.dropped },
      trades: {
        ...tradeLink?.stats,
        dropped: tradeLink?.dropped ?? 0,
        holding: tradeLink?.bagsHeld ?? 0,
        active: game.trades.active,
      },
      strikes: strikes.stats,
      doors: doorLink.stats,
      npcs: { count: game.npcs.size, away: npcLink.away, holding: npcLink.holding, ...npcLink.stats },
      combat: game.combat.stats,
      chat: game.chat.stats,
      accounts: accounts?.stats ?? null,
      store:
        store === null
          ? null
          : { up: store.connection.up, ...store.connection.stats, commits: store.connection.commits },
      items: { store: store?.items.stats ?? null, room: game.items.stats },
      kicks: kicks?.stats ?? null,
      owned: [...owned].map(([id, fromMs]) => ({ id, fromMs })),
      ownership: ownershipLog,
      positions: [...game.sessions.values()].map((s) => ({ id: s.entity.id, x: s.entity.x, y: s.entity.y })),
    },
  }));
  const linkServer: Server = createServer(acceptLink);
  await listen(linkServer, options.linkPort, options.host);
  await listen(http.server, options.httpPort, options.host);
  const linkPort = (linkServer.address() as AddressInfo).port;
  const httpPort = (http.server.address() as AddressInfo).port;
  const endpoint = { region, host: options.host, linkPort, httpPort, pid: process.pid };
  await directory.registerRegion(endpoint);
  let refreshes = 0;
  const refresher = setInterval(() => {
    directory.registerRegion(endpoint).catch(directory.failed("registering in the directory"));
    linkNeighbours().catch(directory.failed("linking neighbours"));
    if (++refreshes % 10 === 0) directory.refreshOwners(owned.keys()).catch(() => {});
    writeCheckpoint();
    players.refresh(Date.now()).catch(directory.failed("listing the players"));
    const nowMs = performance.now();
    for (const link of gateways.values()) {
      for (const [client, sinceMs] of link.tombstones)
        if (nowMs - sinceMs > TOMBSTONE_MS) link.tombstones.delete(client);
    }
  }, REFRESH_MS);
  refresher.unref();
  await linkNeighbours();

  // Start on a tick boundary of the world's clock, the segment in force (world-dilation.ts): every
  // region runs tick T at the same wall time.
  let segment = await directory.worldClock(epochMs, tickPeriodMs);
  const nextTick = Math.ceil(tickAt(segment, Date.now()));
  await new Promise((resolve) => setTimeout(resolve, Math.max(0, deadlineOf(segment, nextTick) - Date.now())));
  game.tick = nextTick;
  // Overload: NPC thinking shed by this region's governor; the period is the world's (one timeline), which
  // the lowest live region stretches to the largest stretch any region wishes.
  const world = new WorldStretch(game.overload, segment, tickPeriodMs, () => game.tick);
  game.appliedStretch = () => world.stretch;
  const loop = new TickLoop(
    game.options.tickHz,
    () => {
      // Behind the world's timeline (the loop skipped ticks after a stall): rejoin it, so this region's
      // ticks stay the ones its neighbours run and its players' clients have seen.
      const worldTick = Math.floor(world.timelineAt(Date.now()));
      if (worldTick - game.tick > MAX_TICKS_BEHIND) {
        stats.ticksRejoined += worldTick - 1 - game.tick;
        // The windows jumped over do not run: their steps are owed, not lost (Game.jumpClock).
        const { owed, lost } = game.jumpClock(worldTick - 1);
        stats.stepsOwedAtRejoin += owed;
        stats.stepsLostAtRejoin += lost;
      }
      game.step();
      afterTick();
    },
    game.metrics.tickLateMs,
    { governor: world, npcsThinking: () => game.npcsThinking() },
  );
  game.skippedTicks = () => loop.skippedTicks;
  game.eventLoopDelay.start();
  loop.start();
  let clockBusy = false;
  const clockWork = setInterval(() => {
    if (clockBusy) return;
    clockBusy = true;
    worldClockRound()
      .catch(directory.failed("the world's clock"))
      .finally(() => (clockBusy = false));
  }, CLOCK_POLL_MS);
  clockWork.unref();

  /** Writes this region's wish, follows the segment published, and (the lowest live region) publishes the next. */
  async function worldClockRound(): Promise<void> {
    await directory.wishStretch(region, world.wish);
    const state = await directory.clockState(layout.regionCount);
    // A restarted Redis keeps nothing: the segment every region follows is written again.
    if (state.segment === null) return directory.restoreClock(world.segment);
    segment = state.segment;
    world.follow(segment);
    // Keep the loop on the segment's deadlines (a period switched at its tick, timer drift).
    loop.anchor(performance.now() + deadlineOf(world.segment, game.tick + 1) - Date.now());
    if (state.live[0] !== region) return;
    const nowMs = Date.now();
    // One change at a time: a segment published to start later is left to begin first.
    if (segment.startMs > nowMs) return;
    const next = nextSegment(segment, Math.max(1, ...state.wishes), tickPeriodMs, nowMs);
    if (next === null) return;
    await directory.publishClock(next);
    log.info("the world's tick stretched", { stretch: next.periodMs / tickPeriodMs, fromTick: next.tick });
  }
  writeDirectoryAgain = () => {
    // The directory is rebuilt from the processes: this region's endpoint, the world's epoch and clock
    // (the same in every region), the owner of each entity it holds, its checkpoint.
    const failed = directory.failed("writing the directory again");
    directory.registerRegion(endpoint).catch(failed);
    directory.tickEpochMs(epochMs).catch(failed);
    directory.restoreClock(world.segment).catch(failed);
    directory.rewriteOwners(owned.keys(), region).catch(failed);
    players.rewrite().catch(failed);
    writeCheckpoint();
  };
  log.info("region started", { region, linkPort, httpPort, tick: game.tick });

  let closed = false;
  return {
    region,
    game: wholeGame,
    linkPort,
    httpPort,
    async close() {
      if (closed) return;
      closed = true;
      loop.stop();
      health.stop();
      clearInterval(refresher);
      clearInterval(clockWork);
      for (const { socket } of neighbours.values()) socket.destroy();
      linkServer.close();
      http.server.closeAllConnections();
      await new Promise<void>((resolve) => http.server.close(() => resolve()));
      game.eventLoopDelay.stop();
      game.shutdown();
      await kicks?.close();
      if (store !== null) await store.close();
      await chatRelay.close();
      await partyLink.close();
      await tradeLink?.close();
      await directory.close();
    },
  };
}

/**
 * Connects to the shared store, brings its schema up to date (processes starting together take turns),
 * and reads the items of this region's ground. Accounts and items share the one connection: the leases
 * are held on it, and a bag's write is checked against them there. The connection outlives the store
 * going away (pg-connection.ts): the leases are taken again on the new one.
 */
async function openSharedStore(
  url: string,
  log: Logger,
  ground: Omit<PgItemStoreOptions, "leased">,
  boards: readonly string[],
): Promise<{
  accounts: PgAccounts;
  items: PgItemStore;
  notices: PgNoticeStore;
  quests: QuestStorePort;
  values: PgWorldValues;
  social: PgSocialStore;
  connection: PgConnection;
  close(): Promise<void>;
}> {
  const connection = new PgConnection(url, log);
  await migratePostgres(await connection.connect(), loadMigrations());
  const accounts = new PgAccounts(connection, log);
  connection.reopened = (client) => accounts.relock(client);
  const items = await PgItemStore.open(connection, { ...ground, leased: (accountId) => accounts.leased(accountId) });
  const notices = await PgNoticeStore.open(connection, boards, log);
  const values = await PgWorldValues.open(connection, ground.world, log);
  return {
    accounts,
    items,
    notices,
    // A character's quests are written with its other rows, where its lease is (pg-accounts.ts).
    quests: {
      load: (accountId) => accounts.questsOf(accountId),
      save: (accountId, record) => accounts.saveQuest(accountId, record),
    },
    values,
    social: new PgSocialStore(connection),
    connection,
    async close() {
      await notices.flush();
      // Every character's last state is written before the connection (and with it every lease) goes.
      if (!(await accounts.drain(5_000))) log.error("characters not saved before shutdown", { stats: accounts.stats });
      accounts.close();
      await connection.end();
    },
  };
}

function listen(server: Server, port: number, host: string): Promise<void> {
  return new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, host, () => {
      server.off("error", reject);
      resolve();
    });
  });
}

/**
 * The console's view of a region's game: its own entities only (a ghost is listed by the region that owns it),
 * and its ground, for the borders on the map.
 */
function ownedOnly(game: Game, ghosts: Pick<GhostTable, "isGhost">, ground: ConsoleGround): ConsoleWorld {
  const entities = game.entities;
  return {
    ground,
    get tick() {
      return game.tick;
    },
    world: game.world,
    sessions: game.sessions,
    admin: game.admin,
    entities: {
      get size() {
        return entities.size;
      },
      *values() {
        for (const entity of entities.values()) if (!ghosts.isGhost(entity.id)) yield entity;
      },
      get: (id) => (ghosts.isGhost(id) ? undefined : entities.get(id)),
    },
  };
}
