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
import { TickLoop } from "../server/ops/tick-loop.js";
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
import { type GhostTable, ghostsFor } from "./ghosts.js";
import { PgNoticeStore } from "./pg-notices.js";
import { CLOCK_POLL_MS, deadlineOf, nextSegment, tickAt, WorldStretch } from "./world-dilation.js";
import { PgWorldValues } from "./pg-values.js";
import { readContentFiles } from "../server/content/content-files.js";
import { LuaRuntime } from "../server/scripting/lua-sandbox.js";
import type { QuestStorePort } from "../server/persistence/quest-store.js";
import type { HandoffState } from "./handoff.js";
import { type ClusterLayout, handoffTarget, neighboursOf } from "./layout.js";
import { spectatorHandoffOf } from "./spectator-handoff.js";
import {
  FRAME_DOOR_TILES,
  FRAME_GHOSTS,
  FRAME_HANDOFF,
  FRAME_HELLO,
  FrameError,
  FrameReader,
  FrameWriter,
  dialLink,
  jsonOf,
} from "./link-frames.js";
import { ENTITY_ID_RANGE, regionWorldOf } from "./region-world.js";
import { type GatewayLink, MAX_TICKS_BEHIND, RegionRoom } from "./region-room.js";
import { regionInputsOf } from "./region-recording.js";
import { recordedPorts, type SharedPorts } from "./store-tape.js";
import type { Recorder } from "../server/recording/recorder.js";
import {
  DEFAULT_RECORDING_LIMITS,
  recordingPrefix,
  type RecordingLimits,
  startRecording,
} from "../server/recording/recording-files.js";
import { installRecordingRoutes } from "../server/http/recording-routes.js";
import { refuseUpgrade } from "../server/http/pass-on.js";
import { installViewerRoutes, type ViewerDoors } from "../server/replay-viewer/viewer-routes.js";
import { ReplayViewers } from "../server/replay-viewer/viewer-pool.js";
import { DEFAULT_CLIENT_DIR, DEFAULT_MAX_REPLAY_VIEWERS, REPLAY_VIEWER_IDLE_MS } from "../server/server.js";
import { type GameDatabase, MEMORY_DATABASE, openGameDatabase } from "../server/persistence/database.js";
import { readWorld } from "../server/world/world-areas.js";

export { ENTITY_ID_RANGE, MAX_TICKS_BEHIND };
/**
 * Ids a region may hand out between two checkpoints (a second apart) and still not see again after a
 * restart: far more than a second's joins and spawns. A restart uses this much of its 2²⁴ range up.
 */
const IDS_AFTER_CHECKPOINT = 50_000;
/** A session handed off is remembered this long, so its datagrams still in flight are sent back to route again. */
const TOMBSTONE_MS = 10_000;
/**
 * A camera following a neighbour's ghost this many ticks (a second) goes to that neighbour: it joined here
 * while the entity was across the border. Not at once: an entity handed here through another gateway may
 * be a ghost for the moment its spectator arrives ahead of it. A free camera looking at a neighbour's ground
 * waits as long before it goes there (handOffSpectators).
 */
const CAMERA_AWAY_TICKS = 24;
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
  /**
   * Record the region's inputs into this folder (docs/recording.md § In a cluster), within these bounds;
   * absent: not recorded.
   */
  record?: { dir: string; limits?: Partial<RecordingLimits> };
  /** The built browser client a replay viewer of this region's recordings serves (default the server's, dist/client). */
  clientDir?: string;
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
  const {
    map,
    ground,
    levels,
    owns,
    options: groundOptions,
  } = regionWorldOf(options.mapPath, layout, region, options.game);
  const chests = ground.chests ?? [];
  // The directory first: the world's epoch, this region's checkpoint and the ids its last life gave out are
  // read before its Game is made, so a recording of the region starts with them (its header).
  const directory = new Directory(options.redisUrl);
  // Redis lost: the region plays on; when it is back, it writes its part of the directory again.
  let writeDirectoryAgain: (() => void) | null = null;
  directory.watch(log, () => writeDirectoryAgain?.());
  await directory.connect();
  const epochMs = await directory.tickEpochMs(Date.now());
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
  const idsReservedThrough = reservedThrough(region, restorable.values(), await directory.nextEntityIdOf(region));
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
  // The flight recorder (docs/recording.md § In a cluster): a region records its inputs as one process does, from
  // the database it starts from (its notices and admin records, in memory). With the shared store, the store's
  // answers to its Game are inputs too — the rows its world is made from at start among them —, each written
  // when the Game gets it (store-tape.ts).
  let recorder: Recorder | undefined;
  let database: GameDatabase | undefined;
  let shared: SharedPorts = {
    sharedItems: store?.items,
    // The boards' notices in the shared store: kept when this region restarts, and seen from every region.
    sharedNotices: store?.notices,
    // Quests and the scripts' world values too: a quest step survives a border and a restart.
    sharedQuests: store?.quests,
    sharedValues: store?.values,
    // Friends, ignores and waiting lines too: kept once, whichever region a player logs in to.
    sharedSocial: store?.social,
  };
  if (options.record !== undefined) {
    database = openGameDatabase(MEMORY_DATABASE);
    recorder = await startRecording({
      dir: options.record.dir,
      mapPath: options.mapPath,
      mapFiles: readWorld(options.mapPath).files,
      options: { ...DEFAULT_GAME_OPTIONS, ...options.game, ...groundOptions },
      database: database.db.serialize(),
      content: content?.files ?? [],
      limits: { ...DEFAULT_RECORDING_LIMITS, ...options.record.limits },
      log,
      region: { id: region, layout, epochMs, idsReservedThrough, sharedStore: store !== null },
    });
    if (store !== null) shared = recordedPorts(shared, recorder);
  }
  // The whole Game is returned for tests and tools; the region itself reaches it through its port only.
  const wholeGame = new Game(
    core,
    ground,
    {
      ...options.game,
      ...groundOptions,
      content,
      database,
      recorder,
      sharedAccounts: accounts ?? undefined,
      ...shared,
    },
    log,
  );
  const game: RegionGame = wholeGame;
  // Ids this region's last life gave out are not handed out again: their players come back.
  if (idsReservedThrough !== null) game.entities.reserveThrough(idsReservedThrough);
  // Everything its links bring to its Game, recorded at its door (region-room.ts).
  const room = new RegionRoom({
    game,
    region,
    layout,
    npcKinds: map.npcKinds ?? [],
    npcSpawns: map.npcSpawns ?? [],
    doors: map.doors ?? [],
    levels,
    inputs: recorder === undefined ? null : regionInputsOf(recorder),
    sharedAccounts: accounts !== null,
    host: {
      arrived: (session, state) => {
        listPlayer(session);
        own(session.entity.id);
        if (state.from !== region) claim(session.entity.id, state.from);
        // Banned while it was on its way here (in no region's list when the ban's sessions were ended).
        bans
          ?.checkArrival(session, () => game.leave(session, "banned"))
          .catch((error: unknown) => log.warn("an arrival not checked against the bans", { error: String(error) }));
      },
      handedOn: (session, target) => {
        disown(session.entity.id);
        players.movedOn(session.entity.id);
        movedAway.set(session.entity.id, target);
      },
    },
    log,
  });
  const { ghosts, strikes, doorLink, npcLink, stats, gateways, peerLinks } = room;
  for (const [tokenHex, state] of restorable) room.restorable.set(tokenHex, state);
  // Bans kept in the shared store, decided by the one process's rules (cluster-bans.ts).
  const bans = store === null ? null : new ClusterBans(wholeGame.admin, new PgBans(store.connection));

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
  /** The sockets of this region's links to its neighbours (it dials each: linkNeighbours). */
  const neighbours = new Map<number, Socket>();
  const chatRelay = new ChatRelay(region, directory.redis, game.chat, log, "fc:", game.social);
  await chatRelay.start();
  // Who plays where, for the social room: players named across regions, friends online anywhere.
  const players = new PlayersOnline(directory.redis, region, "fc:", (commands) => (directory.commands += commands));
  game.social.elsewhere = {
    presence: (accountId, nick, online) => chatRelay.presence(accountId, nick, online),
    onlineOf: (accountIds) => players.onlineOf(accountIds),
    playerNamed: (nick) => players.playerNamed(nick),
    befriended: (accountId, by) => chatRelay.befriended(accountId, by),
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
  const connecting = new Set<number>();
  const owned = new Map<number, number>(); // player entity id → owned since (ms)
  const ownershipLog: Ownership[] = [];
  if (restorable.size > 0) {
    log.warn("restarting with a checkpoint", { region, sessions: restorable.size });
    setTimeout(() => room.restorable.clear(), CHECKPOINT_TTL_MS).unref();
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

  function acceptLink(socket: Socket): void {
    socket.setNoDelay(true);
    const writer = new FrameWriter(socket);
    let gateway: GatewayLink | null = null;
    let neighbour: number | null = null;
    const reader = new FrameReader((kind, client, payload) => {
      if (gateway !== null) return room.gatewayFrame(gateway, kind, client, payload, performance.now());
      if (neighbour !== null) return room.neighbourFrame(neighbour, kind, client, payload, performance.now());
      if (kind !== FRAME_HELLO) throw new FrameError("the first frame must be a hello");
      const hello = jsonOf(payload, "hello") as { role?: unknown; id?: unknown };
      if (hello.role === "gateway" && typeof hello.id === "string" && /^[\w-]{1,32}$/.test(hello.id)) {
        gateway = room.gatewayLinked(hello.id, writer);
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
      // The gateway is gone, not its clients (room.gatewayLost).
      if (gateway !== null) room.gatewayLost(gateway);
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
          neighbours.set(n, socket);
          room.neighbourLinked(n, writer);
        },
        (socket) => {
          connecting.delete(n);
          if (neighbours.get(n) !== socket) return;
          neighbours.delete(n);
          // The neighbour's process is gone: creatures that crossed between us are settled (npc-link.ts).
          room.neighbourLost(n);
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
      if (room.mayCross(session)) scratch.push(session);
    }
    for (const session of scratch) {
      const { x, y } = session.entity;
      // A dungeon level is its region's alone: no border there (cluster-levels.ts).
      if (levels.inLevel(x, y)) continue;
      // On a neighbour's stairs down (within the margin of its ground): to the region that holds their levels.
      const pulled = levels.pulledTo(x, y);
      const target = pulled >= 0 ? pulled : handoffTarget(layout, region, x, y);
      if (target >= 0 && target !== region) room.handOff(session, target);
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
      room.creaturesCross((id, target) => movedAway.set(id, target));
      publishGhosts();
    }
    handOffSpectators();
  }

  /**
   * Since which tick each camera has wanted another region: followed a neighbour's ghost, or (free) looked at
   * a neighbour's ground — for CAMERA_AWAY_TICKS before it goes.
   */
  const wantsAway = new WeakMap<Session, { target: number; since: number }>();
  const spectatorsMoving: [Session, number, number][] = [];
  /**
   * The spectators whose camera follows an entity this region no longer holds go where it went, on their
   * gateway's link (as a player's handoff does): an entity handed on this tick takes its spectators along;
   * a camera that has followed a neighbour's ghost for a second goes to that neighbour; and a free camera
   * that has looked at a neighbour's ground for a second (past the margin a player's handoff allows, not in
   * a dungeon level) goes to the region whose ground that is, so it sees who stands there and not only the
   * tiles. The second keeps a camera panned along a border, or across a region on its way, where it is.
   */
  function handOffSpectators(): void {
    spectatorsMoving.length = 0;
    for (const [session, followId] of game.spectators.cameraTargets()) {
      let target = followId === 0 ? undefined : movedAway.get(followId);
      if (target === undefined) {
        const { x, y } = session.entity;
        let wanted: number;
        if (followId !== 0) wanted = ghosts.ownerOf(followId) ?? -1;
        else wanted = levels.inLevel(x, y) ? -1 : handoffTarget(layout, region, x, y);
        if (wanted < 0 || wanted === region) {
          wantsAway.delete(session);
          continue;
        }
        const since = wantsAway.get(session);
        if (since === undefined || since.target !== wanted)
          wantsAway.set(session, { target: wanted, since: game.tick });
        if (since === undefined || since.target !== wanted || game.tick - since.since < CAMERA_AWAY_TICKS) continue;
        target = wanted;
      }
      spectatorsMoving.push([session, followId, target]);
    }
    for (const [session, followId, target] of spectatorsMoving) {
      wantsAway.delete(session);
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
    const states = new Map<string, string>();
    for (const session of game.sessions.values()) {
      if (session.peer === null || !peerLinks.has(session.peer.key)) continue;
      if (session.accountId !== null && accounts === null) continue;
      const state = room.stateOf(session, region, Date.now());
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
    for (const n of neighbours.keys()) {
      const writer = room.linkTo(n)!;
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
  // The console's Recordings tab at a gateway (docs/recording.md § The Recordings tab at a gateway): this region's
  // own files of the folder the regions share, cut and watched here, the gateway naming the region (`?region=N`).
  let replayViewers: ReplayViewers | null = null;
  let viewerDoors: ViewerDoors | null = null;
  if (options.adminToken !== undefined && options.record !== undefined) {
    const prefix = recordingPrefix(region);
    const owns = (name: string) => name.startsWith(prefix);
    const noted = (action: string, request: Record<string, unknown>, result: Record<string, unknown>) =>
      wholeGame.admin.noted(action, { ...request, region }, result);
    installRecordingRoutes(http, adminAuthorizer(game.admin, options.adminToken, http.clientAddress), {
      dir: options.record.dir,
      live: () => (recorder === undefined || recorder.status.stopped !== null ? null : recorder.status.path),
      noted,
      owns,
    });
    replayViewers = new ReplayViewers({
      maxViewers: DEFAULT_MAX_REPLAY_VIEWERS,
      idleMs: REPLAY_VIEWER_IDLE_MS,
      startTimeoutMs: 120_000,
      clientDir: options.clientDir ?? DEFAULT_CLIENT_DIR,
      mapPath: options.mapPath,
      log,
      // A viewer's id names its region: a gateway passes its page and link on here by the id alone.
      idPrefix: `r${region}-`,
    });
    viewerDoors = installViewerRoutes(
      http,
      adminAuthorizer(game.admin, options.adminToken, http.clientAddress, 'Basic realm="admin"'),
      replayViewers,
      { dir: options.record.dir, owns, noted },
    );
  }
  http.setFallback((req, res) => viewerDoors?.request(req, res) === true);
  // A region takes no WebSocket of its own but a replay viewer's link, passed on to it from a gateway.
  http.server.on("upgrade", (req, socket, head: Buffer) => {
    if (viewerDoors?.upgrade(req, socket, head) !== true) refuseUpgrade(socket, 404, "Not Found");
  });
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
  room.startAt(nextTick);
  // Overload: NPC thinking shed by this region's governor; the period is the world's (one timeline), which
  // the lowest live region stretches to the largest stretch any region wishes.
  const world = new WorldStretch(game.overload, segment, tickPeriodMs, () => game.tick);
  game.appliedStretch = () => world.stretch;
  // Behind the world's timeline (the loop skipped ticks after a stall): rejoin it — before a tick, and before
  // any frame is applied — so this region's ticks stay the ones its neighbours run and its players' clients
  // have seen. The windows jumped over do not run: their steps are owed, not lost (Game.jumpClock).
  room.followTimeline(() => world.timelineAt(Date.now()));
  const loop = new TickLoop(
    game.options.tickHz,
    () => {
      room.keepUp();
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
      for (const socket of neighbours.values()) socket.destroy();
      linkServer.close();
      http.server.closeAllConnections();
      await new Promise<void>((resolve) => http.server.close(() => resolve()));
      game.eventLoopDelay.stop();
      game.shutdown();
      await replayViewers?.close();
      await recorder?.close("the region stopped");
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

/**
 * The last entity id this region's last life may have given out (its own range), or null: the ids of the
 * sessions its checkpoint holds (their players come back), and past the id it wrote down last, with room for
 * what it handed out in the second after — not in the checkpoint, a player who then left for another region
 * is still in play there (two entities under one id corrupted the store of the region holding both, issue
 * 41's chaos run).
 */
function reservedThrough(
  region: number,
  restorable: Iterable<HandoffState>,
  nextIdBefore: number | null,
): number | null {
  const ownRange = (id: number) => id > (region + 1) * ENTITY_ID_RANGE && id <= (region + 2) * ENTITY_ID_RANGE;
  let through: number | null = null;
  for (const state of restorable) {
    if (Number.isInteger(state.entity?.id) && ownRange(state.entity.id))
      through = Math.max(through ?? 0, state.entity.id);
  }
  if (nextIdBefore !== null && ownRange(nextIdBefore)) {
    const past = Math.min(nextIdBefore + IDS_AFTER_CHECKPOINT, (region + 2) * ENTITY_ID_RANGE - 1);
    through = Math.max(through ?? 0, past);
  }
  return through;
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
