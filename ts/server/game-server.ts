// The composition root of the game. It builds the world, the entities, the
// sessions and the services (chat, dialogs, custom messages, interactables,
// tile updates, the broadcast, the datagram handler, the session lifecycle,
// accounts and character saving), and hands each service only the ports it
// uses — the egress (egress.ts), the clock (clock.ts), the sessions, a read
// view of the world and the entities, the logger, the metrics, the other rooms
// it calls — never the Game itself. step() runs one 24 Hz tick over them:
// players' movement on window ticks, the NPCs on entity ticks (npc/), tile
// updates, chat and dialog re-sends, the broadcast, the periodic save and the
// eviction of silent sessions. Its other
// methods are doors into those services for game code and the HTTP API.
// Clients only ever send intent; every move goes through the wasm rule.
import { performance } from "node:perf_hooks";
import { ACTION_WINDOW_HORIZON, BROADCAST_EVERY_TICKS } from "../constants.js";
import { ENTITY_FLAG_STATIC } from "../protocol/entity.js";
import { PROTOCOL_VERSION } from "../protocol/header.js";
import type { Core } from "../wasm/core.js";
import { executesWindow, nextWindowAfter, windowOfTick } from "../window.js";
import { ENTITY_TICK_EVERY, entityTickOf, isEntityTick } from "../action-points.js";
import { AccountService } from "./accounts/account-service.js";
import { SqliteAccounts } from "./accounts/account-port.js";
import { type AccountRecord, AccountStore } from "./accounts/account-store.js";
import { partOfDay } from "../world-time.js";
import { Broadcaster } from "./broadcast/broadcast.js";
import { ChunkOrder } from "./broadcast/chunk-order.js";
import { ChunkStream } from "./world/chunk-stream.js";
import { ChatService } from "./talk/chat.js";
import type { Clock } from "./ops/clock.js";
import { type CustomHandler, CustomMessages } from "./talk/custom-messages.js";
import { DialogService } from "./talk/dialogs.js";
import { EntityStore, type StoredEntity } from "./entities/entities.js";
import { DatagramHandler } from "./datagram-handler.js";
import { Egress } from "./edge/egress.js";
import { Interactables } from "./world/interactables.js";
import { Doors } from "./world/doors.js";
import { EventLoopDelay } from "./ops/event-loop-delay.js";
import { DEFAULT_GAME_OPTIONS, type GameOptions } from "./game-options.js";
import { JoinError } from "./sessions/join-error.js";
import { Logger } from "./ops/log.js";
import { BusyTime } from "./ops/busy-time.js";
import { Metrics, TIMING_WINDOW_TICKS } from "./ops/metrics.js";
import { executeWindowMoves } from "./entities/movement.js";
import { NpcRoom } from "./npc/npc-room.js";
import { ScriptRoom } from "./scripting/script-room.js";
import type { WorldActionPorts } from "./scripting/world-actions.js";
import { EntityDetails } from "./broadcast/entity-detail.js";
import { sqliteContentWriter } from "./persistence/content-rows.js";
import { type QuestRecord, QuestStore, WorldValues } from "./persistence/quest-store.js";
import { CombatRoom } from "./combat/combat-room.js";
import { Experience } from "./combat/experience.js";
import { partyXpShare } from "../progression.js";
import { ItemCatalogue } from "./content/item-catalogue.js";
import type { ItemEvent } from "./items/item-requests.js";
import { ItemRoom } from "./items/item-room.js";
import { ItemStore } from "./persistence/item-store.js";
import { WorldClock } from "./world/world-clock.js";
import { AdminService } from "./admin/admin-service.js";
import { AdminStore } from "./admin/admin-store.js";
import { PvpRule } from "./combat/pvp-rule.js";
import { CharacterSaver, SAVE_INTERVAL_MS } from "./persistence/character-saver.js";
import { KnownAddresses } from "./accounts/known-addresses.js";
import { LoginAddressStore } from "./accounts/login-address-store.js";
import { DoorStore } from "./persistence/door-store.js";
import { Enclosure } from "./world/enclosure.js";
import { CharacterStore, type DungeonPlace, NEW_CHARACTER } from "./persistence/character-store.js";
import type { SavedPlace } from "./persistence/character-saver.js";
import { NoticeStore } from "./persistence/notice-store.js";
import { type GameDatabase, MEMORY_DATABASE, openGameDatabase } from "./persistence/database.js";
import { KeyedRateLimiter } from "./edge/rate-limit.js";
import { type Session, SessionRegistry } from "./sessions/session.js";
import { SpectatorRoom } from "./spectators/spectator-room.js";
import type { Peer } from "./edge/peer.js";
import { type SessionArrival, SessionLifecycle } from "./session-lifecycle.js";
import { type LoopGovernor, TickLoop } from "./ops/tick-loop.js";
import { OverloadGovernor, type OverloadState } from "./ops/overload.js";
import { PhaseBalancer } from "./broadcast/phase-balance.js";
import { TileUpdates } from "./world/tile-updates.js";
import { SocialStore } from "./persistence/social-store.js";
import { PartyRoom } from "./social/parties.js";
import { SocialRoom } from "./social/social-room.js";
import { TradeRoom } from "./social/trades.js";
import { World, type WorldMap } from "./world/world.js";
import type { WorldWarp } from "./world/areas.js";
import { Warps } from "./world/warps.js";
import { DungeonLevels, type LevelPorts } from "./dungeon/levels.js";
import type { Recorder } from "./recording/recorder.js";
import { LIVE_TAPE, type WorldTape } from "./ops/world-tape.js";
import { WorldDigest, encodeCheckpoint } from "./recording/world-digest.js";
import { DIGEST_PARTS } from "./recording/format.js";
import type { AccountHost, Seat } from "./accounts/account-service.js";
import type { AccountEntry } from "./session-lifecycle.js";
import type { CharacterState } from "./persistence/character-store.js";
import { LevelGenerator } from "./dungeon/level-generator.js";

/** The Game's tick and next window as services read them: they get this, never the Game. */
class GameClock implements Clock {
  constructor(private readonly game: Game) {}

  get tick(): number {
    return this.game.tick;
  }

  get nextWindow(): number {
    return this.game.nextWindow;
  }
}

export class Game {
  readonly world: World;
  readonly entities: EntityStore;
  readonly sessions: SessionRegistry;
  readonly metrics = new Metrics();
  readonly eventLoopDelay = new EventLoopDelay();
  /** Wall time spent in calls into the content scripts (every call that may run Lua): /api/status scripts.busyMs. */
  private readonly scriptTime = new BusyTime();
  /** The one way datagrams leave for clients, counted in the metrics. */
  readonly egress = new Egress(this.metrics);
  /** The tick and the next window, as services read them. */
  readonly clock: Clock;
  readonly addressLimiter: KeyedRateLimiter;
  readonly handler: DatagramHandler;
  readonly options: GameOptions;
  readonly database: GameDatabase;
  /** Registration and login (POST /api/register, /api/login). */
  readonly accounts: AccountService;
  readonly accountStore: AccountStore;
  private readonly characterStore: CharacterStore;
  /** Saves characters: changed ones every SAVE_INTERVAL_MS, each when its session ends, all on shutdown. */
  readonly characters: CharacterSaver;
  readonly chat: ChatService;
  readonly dialogs: DialogService;
  readonly custom: CustomMessages;
  readonly interactables: Interactables;
  /** The map's doors: open, closed, locked (doors.ts). */
  readonly doors: Doors;
  /** Where the map's doors are kept across restarts: written with the characters' periodic save. */
  private readonly doorStore: DoorStore;
  /** The map's creatures: action points, the think budget, their moves (npc/npc-room.ts). */
  readonly npcs: NpcRoom;
  /** Bump to attack, HP, death and respawn (combat/combat-room.ts). */
  readonly combat: CombatRoom;
  /** Players' experience and levels (combat/experience.ts). */
  readonly experience: Experience;
  /** Where players may fight each other. */
  readonly pvp: PvpRule;
  /** Bags, equipment, chests, piles and loot (items/item-room.ts). */
  readonly items: ItemRoom;
  /** The time of day and the weather (world-clock.ts). */
  readonly worldClock: WorldClock;
  /** What operators do: kick, ban, mute, announce (admin/; its HTTP API only with an admin token). */
  readonly admin: AdminService;
  /**
   * The sources each account was registered or logged into from, which the login limits let through
   * (accounts/login-limits.ts): kept in SQLite in one process, in memory where accounts are shared.
   */
  readonly knownAddresses: KnownAddresses;
  /** The host's content scripts (scripting/): null for a map without a content folder. */
  readonly scripts: ScriptRoom | null;
  /** EntityDetail replies, composed for the asking player (broadcast/entity-detail.ts). */
  readonly details: EntityDetails;
  /**
   * Sessions with no body that watch the world from a camera (spectators/, issue 40): counted apart from
   * the players, invisible to them, and no input of the world (never recorded).
   */
  readonly spectators: SpectatorRoom;
  /** Private lines, friends, ignores and waiting lines (social/social-room.ts); the verbs typed into chat. */
  readonly social: SocialRoom;
  /** Parties: invitations, the party channel, shared kills (social/parties.ts). */
  readonly parties: PartyRoom;
  /** Trades between players: offers, confirmations, one item transaction (social/trades.ts). */
  readonly trades: TradeRoom;
  /** Warps, teleports and stairs stepped on (warps.ts), and the dungeon levels below the stairs (dungeon/levels.ts). */
  readonly warps: Warps;
  readonly levels: DungeonLevels;
  private readonly levelGenerator = new LevelGenerator();
  /** Last processed tick; the first tick processed is 1. */
  tick = 0;
  /**
   * What the world reads from the machine (recording/tape.ts): the recorder's while it records, a replay's
   * while it replays, the machine's otherwise.
   */
  readonly tape: WorldTape;
  /** The flight recorder, while this world is recorded (recording/recorder.ts). */
  readonly recorder: Recorder | null;
  private readonly digestScratch = new Uint32Array(DIGEST_PARTS);
  private readonly worldDigest = new WorldDigest();
  private readonly checkpointEveryTicks: number;
  private readonly loop: TickLoop;
  /** Sheds NPC thinking, then stretches the tick, when the loop cannot keep its rate (overload.ts). */
  readonly overload: OverloadGovernor;
  /**
   * The stretch the ticks run at: the governor's, unless a cluster's region runs at the world's
   * (ts/cluster/world-dilation.ts), which it sets here so status and /metrics report what is in force.
   */
  appliedStretch: () => number = () => this.overload.stretch;
  /** Ticks the loop driving this game skipped (a cluster's region runs its own loop and says so here). */
  skippedTicks: () => number = () => this.loop.skippedTicks;
  /**
   * Players this game does not hold but its creatures should wake near: a cluster's region sets the
   * ghosts of its neighbours' players (ts/cluster/region.ts), so a creature by a border is awake for a
   * player across it, as one process's would be.
   */
  otherPlayers: () => Iterable<StoredEntity> = () => [];
  /** Ticks run while the applied stretch was above 1. */
  private dilatedTicks = 0;
  /** What a tick loop driving this game tells the governor (a cluster's region runs its own loop). */
  readonly loopGovernor: LoopGovernor;
  private readonly tileUpdates: TileUpdates;
  /** Joining, leaving, eviction and saving characters. */
  private readonly lifecycle: SessionLifecycle;
  private readonly saveEveryTicks: number;
  private shutDown = false;
  private readonly broadcaster: Broadcaster;
  /** What clients are told and sent of the chunks: manifests, cache-list answers (world/chunk-stream.ts). */
  private readonly chunkStream: ChunkStream;
  /** This tick's sessions to broadcast to, put in chunk order by `chunkOrder`. */
  private readonly dueScratch: Session[] = [];
  /** Moves sessions between the broadcast phases so even and odd ticks carry the same work (phase-balance.ts). */
  private readonly phaseBalancer = new PhaseBalancer();
  private readonly chunkOrder = new ChunkOrder();

  constructor(
    core: Core,
    map: WorldMap,
    options: Partial<GameOptions> = {},
    readonly log: Logger = new Logger("info"),
  ) {
    const o = (this.options = { ...DEFAULT_GAME_OPTIONS, ...options });
    const recorder = (this.recorder = o.recorder ?? null);
    const tape = (this.tape = recorder ?? o.tape ?? LIVE_TAPE);
    this.checkpointEveryTicks = Math.max(1, Math.round(o.checkpointSeconds * o.tickHz));
    // Links: a room that calls a room built after it is handed one of these, shaped like the port it
    // declares and forwarding to that room. Every other port is the room or registry itself.
    const lifecycle = {
      startsPlaying: (session: Session) => this.lifecycle.startsPlaying(session),
      leave: (session: Session, reason: string) => this.lifecycle.leave(session, reason),
    };
    const admin = { isMuted: (session: Session) => this.admin.isMuted(session) };
    const combat = {
      bump: (attacker: StoredEntity, x: number, y: number) => this.combat.bump(attacker, x, y),
      isDown: (entity: StoredEntity) => this.combat.isDown(entity),
    };
    const items = {
      holds: (session: Session, key: string) => this.items.holds(session, key),
      weaponDamage: (entity: StoredEntity) => this.items.weaponDamage(entity),
      armorValue: (entity: StoredEntity) => this.items.armorValue(entity),
      // A party's kill: the loot goes to the member whose turn it is (parties.ts lootTakerOf), into the bag.
      dropLootOf: (typeId: number, x: number, y: number, killer?: StoredEntity) => {
        const session = killer === undefined ? undefined : this.sessions.byEntityId(killer.id);
        const sharers = session === undefined ? [] : this.parties.sharersOf(session, x, y);
        if (sharers.length < 2) return this.items.dropLootOf(typeId, x, y);
        this.items.dropLootFor(typeId, x, y, this.parties.lootTakerOf(sharers));
      },
    };
    const details = { send: (session: Session, entity: StoredEntity) => this.details.send(session, entity) };
    // The spectators, built last (they watch every room): told the blows near their cameras.
    const spectatorsWatch = () => this.spectators.watching;
    const onlookers = {
      get watching() {
        return spectatorsWatch();
      },
      see: (tick: number, blows: readonly number[]) => this.spectators.see(tick, blows),
    };
    const scripts = {
      // A party shares the kill's credit: each member present near it counts it (a quest's "kill 5 rats").
      onKill: (killer: StoredEntity, victim: StoredEntity) =>
        this.scriptTime.run(() => {
          const session = this.sessions.byEntityId(killer.id);
          const sharers = session === undefined ? [killer] : this.parties.sharersOf(session, victim.x, victim.y);
          for (const sharer of sharers) this.scripts?.onKill("entity" in sharer ? sharer.entity : sharer, victim);
        }),
      units: () => (this.scripts === null ? 0 : ScriptRoom.unitsOf(this.scripts.takeSteps())),
      talks: (kindName: string) => this.scripts?.talks(kindName) === true,
      onItem: (session: Session, event: ItemEvent) => this.scripts?.onItem(session, event),
    };
    const levels = {
      onStairs: (session: Session, warp: WorldWarp) => this.levels.onStairs(session, warp),
      levelOf: (x: number, y: number) => this.levels.levelOf(x, y),
    };

    // The world, its entities and sessions, and the ways out.
    this.entities = new EntityStore(o.firstEntityId);
    const levelSlots = levelSlotsFor(map, o.levelSlots, log);
    // A cluster's region lays out every region's slots (so a level's cells are the same world-wide) and fills its own.
    const share = o.dungeonShare;
    this.world = new World(core, map, {
      levelSlots: levelSlots > 0 && share !== undefined ? share.worldSlots : levelSlots,
      levelSize: o.levelSize,
    });
    const limits = { ratePerSecond: o.sessionRatePerSecond, burst: o.sessionRatePerSecond * 2 };
    this.sessions = new SessionRegistry(limits, lifecycle.startsPlaying, tape);
    this.addressLimiter = new KeyedRateLimiter(o.addressRatePerSecond, o.addressRatePerSecond * 2, 4096);
    this.clock = new GameClock(this);
    this.overload = new OverloadGovernor(o.maxTickStretch);
    const { world, entities, sessions, metrics, egress, clock, overload } = this;
    this.database = o.database ?? openGameDatabase(MEMORY_DATABASE);
    const db = this.database.db;
    this.worldClock = new WorldClock(
      { dayMinutes: o.dayMinutes, startTimeOfDay: o.startTimeOfDay, weatherSeed: o.weatherSeed, tickHz: o.tickHz },
      egress,
      (session) =>
        sessions.byTokenValue(session.token) === session ||
        this.spectators.sessions.byTokenValue(session.token) === session,
    );
    this.chunkStream = new ChunkStream({ world, egress });

    // Talk.
    const chat = (this.chat = new ChatService(sessions, egress, metrics, admin.isMuted));
    // The spectators overhear what is said in public where their cameras are (issue 40), joins and leaves too.
    const overhearing = { values: () => this.spectators.sessions.values() };
    chat.overhearing = overhearing;
    const dialogs = (this.dialogs = new DialogService(egress, metrics, log));
    this.custom = new CustomMessages(egress, metrics, log);

    // The rooms, in the order their entities take ids: signs, doors, creatures, chests and piles.
    const notices = o.sharedNotices ?? new NoticeStore(db);
    this.interactables = new Interactables(
      { entities, dialogs, chat, notices, worldName: world.name, log, tape },
      world.interactables,
    );
    // Spectators are told of tile changes around their cameras as players are around themselves.
    this.tileUpdates = new TileUpdates(world, { values: () => this.watchers() }, egress);
    const doors = (this.doors = new Doors(
      { entities, tiles: this.tileUpdates, chat, keys: items, clock, log },
      world.doors,
    ));
    // The map's doors as players left them (issue 41): put back before anyone or anything is in the world.
    this.doorStore = new DoorStore(db, world.name);
    const keptDoors = doors.restore(this.doorStore.load());
    if (keptDoors.restored + keptDoors.overruled > 0) log.info("doors as they were left", keptDoors);
    const players = () => wakers(sessions, this.otherPlayers());
    const { pathing, moves } = world;
    // The think budget's share under load is the machine's (the governor measures the tick): on the tape.
    const budgetShare = {
      get npcBudgetScale() {
        return tape.sample(overload.npcBudgetScale);
      },
    };
    this.npcs = new NpcRoom(
      { entities, pathing, moves, players, sessions, overload: budgetShare, combat, doors, scripts, log },
      world.npcSpawns,
      { thinkBudgetBase: o.npcThinkBudgetBase, seed: o.npcSeed, entityTicksPerSecond: o.tickHz / ENTITY_TICK_EVERY },
    );
    this.pvp = new PvpRule(o.pvp || world.mapPvp === true, world.safeZones);
    const experience = (this.experience = new Experience({ entities, sessions, details, log }));
    this.combat = new CombatRoom(
      {
        entities,
        npcs: this.npcs,
        sessions,
        spawns: world.spawns,
        pvp: this.pvp,
        egress,
        clock,
        log,
        // Players fight with what they wield, creatures with what their kind says; the dead drop their loot.
        items,
        scripts,
        onlookers,
        // A kill by a party member is shared by the members near it (progression.ts partyXpShare).
        experience: {
          gain: (player: StoredEntity, amount: number, why: string) => {
            const session = this.sessions.byEntityId(player.id);
            const sharers = session === undefined ? [] : this.parties.sharersOf(session, player.x, player.y);
            if (sharers.length < 2) return experience.gain(player, amount, why);
            const each = partyXpShare(amount, sharers.length);
            let gained = 0;
            for (const sharer of sharers) {
              const got = experience.gain(sharer.entity, each, why);
              if (sharer === session) gained = got;
            }
            return gained;
          },
        },
      },
      { seed: o.combatSeed, tickHz: o.tickHz },
    );
    const catalogue = new ItemCatalogue(world.items);
    // A change's content rows (a quest handed in, a shop's stock) land in its transaction (ItemWrite.content).
    const characterStore = new CharacterStore(db);
    const questStore = new QuestStore(db);
    const worldValues = new WorldValues(db, world.name);
    const store =
      o.sharedItems ?? new ItemStore(db, world.name, sqliteContentWriter(questStore, worldValues, characterStore));
    this.items = new ItemRoom(
      {
        entities,
        store,
        catalogue,
        egress,
        chat,
        combat,
        details,
        log,
        worldName: world.name,
        levels,
        happened: scripts.onItem,
      },
      world.chests,
      { seed: o.combatSeed, kinds: world.npcKinds },
    );
    const follows = share === undefined ? undefined : (x: number, y: number) => share.followsStairs(x, y);
    const warps = (map.warps ?? []).filter(
      (warp) => warp.stairs === null || (levelSlots > 0 && (follows === undefined || follows(warp.x, warp.y))),
    );
    this.warps = new Warps({ entities, levels }, warps);
    this.levels = new DungeonLevels(
      {
        world: share === undefined ? world : ownSlots(world, share.firstSlot, levelSlots),
        warps: this.warps,
        npcs: this.npcs,
        items: this.items,
        doors,
        kinds: world.npcKinds,
        catalogue,
        sessions,
        generator: this.levelGenerator,
        log,
        tape,
      },
      {
        levelSize: o.levelSize,
        keepEmptyMs: o.levelKeepEmptyMs,
        seed: o.dungeonSeed,
        stairs: levelSlots > 0 ? (map.warps ?? []).filter((warp) => warp.stairs === "down") : [],
        follows,
      },
    );
    this.levels.settleKeptPiles(this.items, firstStairsDown(map) ?? world.spawns[0]);
    // The host's content scripts (scripting/): talking creatures, quests, shops.
    const content = o.content;
    // What comes back into the scripts later — a dialog's answer, an exchange's outcome — is timed as they are.
    const scriptTime = this.scriptTime;
    const itemRoom = this.items;
    this.scripts =
      content === undefined
        ? null
        : new ScriptRoom(
            {
              runtime: content.runtime,
              catalogue,
              kinds: world.npcKinds,
              npcs: this.npcs,
              sessions,
              chat,
              dialogs: {
                open: (session, spec, onReply, options) =>
                  dialogs.open(session, spec, (reply) => scriptTime.run(() => onReply(reply)), options),
              },
              items: {
                // Bound, not re-declared: a wrapper would drop an argument the port gains (countOf's bagOnly).
                countOf: itemRoom.countOf.bind(itemRoom),
                exchange: (session, take, give, done, alongside) =>
                  itemRoom.exchange(session, take, give, (outcome) => scriptTime.run(() => done(outcome)), alongside),
                sendDetail: itemRoom.sendDetail.bind(itemRoom),
              },
              warps: this.warps,
              experience: { gain: (player, amount, why) => experience.gain(player, amount, why) },
              walkable: (x, y) => world.walkable(x, y),
              world: scriptWorld(world, entities, this.npcs, this.tileUpdates, doors, chat),
              zones: world.zones,
              depthAt: (x, y) => this.levels.levelOf(x, y)?.level.depth ?? 0,
              // A cluster's quests and values are in its shared store (ts/cluster/pg-quests.ts).
              quests: o.sharedQuests ?? questStore,
              values: o.sharedValues ?? worldValues,
              clock,
              isNight: (tick) => partOfDay(this.worldClock.timeOfDay(tick)) === "night",
              log,
              seed: o.scriptSeed,
            },
            content.files,
          );
    const scriptRoom = this.scripts;
    this.npcs.refreshTalkFlags();
    this.details = new EntityDetails({ egress, clock }, [
      (session, entity) => this.items.detailTlv(session, entity),
      (session, entity) => (scriptRoom !== null && entity === session.entity ? scriptRoom.detailTlvs(session) : null),
      (session, entity) => (entity === session.entity ? this.parties.detailTlv(session) : null),
      (session, entity) => experience.detailTlv(session, entity),
    ]);

    // Playing together: the verbs typed into chat, private lines, friends, parties (social/).
    this.parties = new PartyRoom({
      chat,
      dialogs,
      pushOwnDetail: (session) => this.details.send(session, session.entity),
      ignoresKey: (session, key) => !this.social.hearsKey(session, key),
      socialKeyOf: (session) => this.social.keyOf(session),
      byNick: (nick) => this.lifecycle.sessionByNick(nick),
      inPlay: (session) => sessions.byTokenValue(session.token) === session,
      // A member's key (parties.ts keyOf): an account's "a12", a guest's "s" + its token in hex.
      sessionOfKey: (key) =>
        /^a\d{1,15}$/.test(key)
          ? this.lifecycle.sessionOf(Number(key.slice(1)))
          : /^s[0-9a-f]{16}$/.test(key)
            ? sessions.byTokenValue(BigInt(`0x${key.slice(1)}`))
            : undefined,
      clock,
      tickHz: o.tickHz,
      log,
    });
    this.trades = new TradeRoom({
      chat,
      dialogs,
      items: {
        countOf: (session, itemId, bagOnly) => this.items.countOf(session, itemId, bagOnly),
        trade: (a, b, aGives, bGives, done) => this.items.trade(a, b, aGives, bGives, done),
        tradeAcross: (a, aGives, bGives, other, done) => this.items.tradeAcross(a, aGives, bGives, other, done),
        holdForTrade: (session, held, after) => this.items.holdForTrade(session, held, after),
      },
      catalogue,
      ignores: (session, other) => this.social.ignores(session, other),
      ignoresKey: (session, key) => !this.social.hearsKey(session, key),
      keyOf: (session) => this.social.keyOf(session),
      byEntityId: (entityId) => sessions.byEntityId(entityId),
      inPlay: (session) => sessions.byTokenValue(session.token) === session,
      clock,
      tickHz: o.tickHz,
    });
    // A cluster's friends, ignores and waiting lines are in its shared store (ts/cluster/pg-social.ts).
    this.social = new SocialRoom({
      byNick: (nick) => this.lifecycle.sessionByNick(nick),
      byAccount: (accountId) => this.lifecycle.sessionOf(accountId),
      chat,
      store: o.sharedSocial ?? (o.sharedAccounts === undefined ? new SocialStore(db) : null),
      parties: this.parties,
      trades: this.trades,
      log,
      nowMs: () => tape.wallNow(),
    });
    chat.commands = this.social;
    chat.hearing = this.social;

    // Egress to every client, and the one inbound path.
    this.broadcaster = new Broadcaster({
      entities,
      chunks: this.chunkStream,
      clock,
      egress,
      sendUnchangedEntities: o.sendUnchangedEntities,
      verifyEntityChanges: o.verifyEntityChanges,
    });
    this.handler = new DatagramHandler({
      metrics,
      addressLimiter: this.addressLimiter,
      sessions,
      clock,
      chunks: this.chunkStream,
      entities,
      egress,
      log,
      details: this.details,
      lifecycle,
      play: {
        chat,
        dialogs,
        custom: this.custom,
        interactables: this.interactables,
        items: this.items,
        scripts:
          scriptRoom === null
            ? null
            : { onQuery: (session, entity) => scriptTime.run(() => scriptRoom.onQuery(session, entity)) },
        doors,
      },
      cameras: null,
      heard: chat,
    });

    this.spectators = new SpectatorRoom(
      {
        metrics,
        clock,
        chunks: this.chunkStream,
        entities,
        egress,
        log,
        details,
        world,
        worldClock: this.worldClock,
        chat,
      },
      {
        maxSpectators: o.maxSpectators,
        sessionRatePerSecond: o.sessionRatePerSecond,
        addressRatePerSecond: o.addressRatePerSecond,
        sessionTimeoutMs: o.sessionTimeoutMs,
        unboundSessionTimeoutMs: o.unboundSessionTimeoutMs,
      },
    );

    // The loop.
    this.loopGovernor = { governor: overload, npcsThinking: () => this.npcsThinking() };
    this.loop = new TickLoop(o.tickHz, () => this.step(), metrics.tickLateMs, this.loopGovernor);

    // Sessions, characters, accounts and operators.
    this.characterStore = characterStore;
    this.accountStore = new AccountStore(db, this.characterStore);
    const shared = o.sharedAccounts;
    this.characters = new CharacterSaver(shared ?? this.characterStore, world.name, (entity) =>
      this.levels.placeOf(entity),
    );
    this.lifecycle = new SessionLifecycle({
      options: o,
      world,
      entities,
      sessions,
      chat,
      characters: this.characters,
      items: this.items,
      warps: this.warps,
      // Where a bag is read in the same turn (SQLite): whether a character is shut in depends on its keys.
      enclosure: shared === undefined ? new Enclosure({ world, doors, warps: this.warps }) : null,
      levels: this.levels,
      worldClock: this.worldClock,
      overhearing,
      clock,
      tape,
      log,
      social: {
        arrived: (session) => {
          this.social.arrived(session);
          this.parties.arrived(session);
        },
        left: (session, continues) => {
          this.social.left(session, continues);
          this.parties.left(session, continues);
          this.trades.left(session);
        },
      },
    });
    // Logins and registrations start their sessions here, each recorded as an input of the world.
    const accountHost: AccountHost = {
      hasRoomFor: (accountId) => this.lifecycle.hasRoomFor(accountId),
      reserve: (accountId, nick) => this.lifecycle.reserve(accountId, nick),
      joinAccount: (account, saved, seat) => this.startAccount(account, saved, seat),
      nickInUse: (nick) => this.lifecycle.nickInUse(nick),
    };
    this.accounts = new AccountService(
      shared ?? new SqliteAccounts(this.accountStore, this.characterStore),
      accountHost,
    );
    this.knownAddresses = new KnownAddresses(shared === undefined ? new LoginAddressStore(db) : null);
    this.admin = new AdminService({
      sessions,
      lifecycle,
      chat,
      accounts: this.accountStore,
      store: new AdminStore(db),
      world,
      warps: this.warps,
      log,
      now: Date.now,
      muteClock: () => tape.wallNow(),
      recordInput: recorder === null ? undefined : (op, args) => recorder.admin(op, args),
    });
    this.saveEveryTicks = Math.max(1, Math.round((o.tickHz * SAVE_INTERVAL_MS) / 1000));
  }

  start(): void {
    this.eventLoopDelay.start();
    this.loop.start();
  }

  stop(): void {
    this.eventLoopDelay.stop();
    this.loop.stop();
  }

  /**
   * Clean shutdown: stops the tick loop, saves every character in play (one
   * transaction) and closes the database. Call after the transports closed.
   */
  shutdown(): void {
    if (this.shutDown) return;
    this.shutDown = true;
    this.stop();
    this.levelGenerator.close();
    this.scripts?.close();
    this.saveCharacters();
    this.database.close();
  }

  /** The first movement window that has not executed yet. */
  get nextWindow(): number {
    return nextWindowAfter(this.tick);
  }

  /**
   * Moves the clock on to `tick` without running the ticks between (a cluster's region rejoining the
   * world's timeline after a stall, ts/cluster/region.ts). The windows passed over never run, so the steps
   * scheduled in them are owed — run at the next windows in their order, as a handoff's late steps are
   * (schedule.ts) — instead of vanishing: a walk across a stalled region ended a step short. Returns how
   * many steps were owed and how many lost (an owed queue full).
   */
  jumpClock(tick: number): { owed: number; lost: number } {
    const fromWindow = this.nextWindow;
    this.tick = tick;
    const toWindow = this.nextWindow;
    let owed = 0;
    let lost = 0;
    if (toWindow > fromWindow) {
      for (const entity of this.entities.actors()) {
        const skipped = entity.slots.oweSkipped(fromWindow, toWindow);
        owed += skipped.owed;
        lost += skipped.lost;
      }
    }
    return { owed, lost };
  }

  /** Handles one inbound datagram from any transport. Never throws. */
  /** A datagram from `peer`, at `nowMs` (the machine's clock by default; a test may hold it still). */
  receive(datagram: Uint8Array, peer: Peer, nowMs = performance.now()): void {
    // A spectator's datagrams are no input of the world: handled apart, and not recorded.
    if (this.spectators.claims(datagram, peer)) return this.spectators.receive(datagram, peer, nowMs);
    this.recorder?.datagram(peer, nowMs, datagram);
    this.handler.handle(datagram, peer, nowMs);
  }

  /**
   * A datagram a cluster's handoff carried here: the region that let its session go received it after,
   * and sent it back through the gateway (REROUTE). Handled as any, except that a step in it that missed
   * its window is owed — run in order at the next windows — rather than left for the client's next step
   * to replace (schedule.ts). Recorded as a rerouted datagram (a region's recording: docs/recording.md § In a
   * cluster). A spectator's (its camera handed here with the entity it follows) owes no step: its room handles
   * it as any other.
   */
  receiveRerouted(datagram: Uint8Array, peer: Peer): void {
    const nowMs = performance.now();
    if (this.spectators.claims(datagram, peer)) return this.spectators.receive(datagram, peer, nowMs);
    this.recorder?.datagram(peer, nowMs, datagram, true);
    this.handler.handle(datagram, peer, nowMs, true);
  }

  /**
   * A transport's link closed (a WebSocket or a WebRTC data channel: a tab closed, a page left).
   * Its session ends at once, as "closed", when that link was the session's only way in — others
   * see the player leave within a tick instead of after the 10 s timeout. Clients that come back
   * do so with a new session (a join or a login), so nothing waits for this one; a session that had
   * already moved to another link keeps playing there. UDP has no close: its sessions time out.
   */
  linkClosed(peerKey: string): void {
    if (this.spectators.linkClosed(peerKey)) return;
    this.recorder?.linkClosed(peerKey);
    const session = this.sessions.byPeerKey(peerKey);
    this.sessions.unbindPeer(peerKey);
    if (session !== undefined && session.peer === null) this.lifecycle.leave(session, "closed");
  }

  /**
   * A link lost without its client leaving — a cluster's gateway died (ts/cluster/region.ts) — unlike
   * linkClosed, which ends a session whose client closed its link: the session is unbound, not ended, so
   * its client may bind it again from another link (a signed ActionPacket, docs/protocol.md § 6.1) before
   * the session timeout ends it. Not recorded here: a region records the gateway's link lost at its room's
   * door (ts/cluster/region-room.ts), which calls this for each of that link's clients.
   */
  linkLost(peerKey: string): void {
    this.sessions.unbindPeer(peerKey);
  }

  /** Creates a guest session with a fresh spawn; throws JoinError when refused. */
  join(nick: string, appearance: number | null = null): Session {
    return this.recorded(
      (recorder) => recorder.joinGuest(nick, appearance),
      () => this.lifecycle.join(nick, appearance),
    );
  }

  /**
   * Where a session's HTTP join came from (a spec-only client's UDP address there counts as proven) and
   * what the client said it reads: an input of the world, recorded.
   */
  admitted(session: Session, joinSource: string, reads: number): void {
    this.recorder?.sessionSource(session.entity.id, joinSource, reads);
    session.joinSource = joinSource;
    session.reads = reads;
  }

  /** Starts an account's session (a login, a registration), recorded as an input of the world. */
  private startAccount(account: AccountEntry, saved: CharacterState, seat: Seat): Session {
    const entry = { id: account.id, nick: account.nick, appearance: account.appearance ?? null };
    return this.recorded(
      (recorder) => recorder.joinAccount(entry, saved),
      () => this.lifecycle.joinAccount(entry, saved, seat),
    );
  }

  /**
   * Runs `input` with its record written first (so what it reads from the tape follows it), and takes the
   * record back when the input is refused (it changed nothing: a refusal throws before any change).
   */
  private recorded<T>(record: (recorder: Recorder) => void, input: () => T): T {
    const recorder = this.recorder;
    if (recorder === null) return input();
    const mark = recorder.mark();
    record(recorder);
    try {
      return input();
    } catch (error) {
      recorder.rollback(mark);
      throw error;
    }
  }

  /** Whether a session can start now; an account already in play can always replace its own. */
  hasRoomFor(accountId: number | null): boolean {
    return this.lifecycle.hasRoomFor(accountId);
  }

  /**
   * Starts a session for an account of the embedded store at once, replacing one it already has
   * (SessionLifecycle.joinAccount; logins go through `accounts`, which also checks the password).
   */
  joinAccount(account: Pick<AccountRecord, "id" | "nick" | "appearance">): Session {
    if (this.options.sharedAccounts) throw new Error("joinAccount: accounts live in a shared store; log in instead");
    return this.startAccountSession(account, this.characterStore.load(account.id) ?? NEW_CHARACTER);
  }

  /** Starts an account's session from its character as `saved` (a login as a replay repeats it). */
  startAccountSession(account: AccountEntry, saved: CharacterState): Session {
    const seat = this.lifecycle.reserve(account.id, account.nick);
    if (seat === null) throw new JoinError(503, `server full (${this.options.maxPlayers} players)`);
    return this.startAccount(account, saved, seat);
  }

  /** The session of an account in play here, if any. */
  sessionOfAccount(accountId: number): Session | undefined {
    return this.lifecycle.sessionOf(accountId);
  }

  /** Ends a session; its account's character is saved. */
  leave(session: Session, reason: string): void {
    this.recorder?.leave(session.entity.id, reason);
    this.lifecycle.leave(session, reason);
  }

  /** A session handed over by another process of a cluster starts here as it was (ts/cluster/handoff.ts). */
  adoptSession(arrival: SessionArrival, peer: Peer, nowMs: number): Session {
    const session = this.lifecycle.adopt(arrival, peer, nowMs);
    // Handed over dead: it lies dead here and stands up at a spawn, as it would have there.
    this.combat.adoptedDead(session.entity, this.tick);
    // Its quests come with it: what the process it left knew, written there or about to be (a border
    // crossed never loses a quest step, a guest's included).
    if (arrival.quests !== undefined) this.scripts?.quests.adopt(session, arrival.quests);
    return session;
  }

  /** The quests of `session` as a handoff to another process carries them (none in a world without scripts). */
  questsOf(session: Session): QuestRecord[] {
    return this.scripts?.quests.recordsFor(session) ?? [];
  }

  /**
   * Where `session`'s player is saved (CharacterSaver's rule): on a map, its cell; in a dungeon level — or on
   * its way back into one — the level's identity and cell, with the map's stairs down it came by as x, y. A
   * cluster's handoff and checkpoint carry it, so a level is never left by a region's restart.
   */
  placeOf(session: Session): SavedPlace {
    return this.levels.placeOf(session.entity);
  }

  /**
   * A session adopted from another process (or from this region's checkpoint) whose player was in a dungeon
   * level, or on its way into one: standing on the map's stairs down it came by, it goes back to its cell as a
   * login does (SessionLifecycle.returnBelow). `restored`: its player stood where it stands when this process
   * last ran, so stairs under it do not send it (as at a join); a player handed over onto stairs is sent.
   */
  arrivedAt(session: Session, dungeon: DungeonPlace | null, restored: boolean): void {
    if (restored || dungeon !== null) this.warps.arrive(session.entity);
    if (dungeon !== null) this.lifecycle.returnBelow(session, dungeon);
  }

  /** A session handed over to another process of a cluster stops here, without a "left" notice or a save. */
  releaseSession(session: Session): void {
    this.lifecycle.release(session);
  }

  /** The tile at (x, y) of the world. */
  tileAt(x: number, y: number): number {
    return this.world.tileAt(x, y);
  }

  /** Whether the NPCs spent think budget in the last entity tick: the loop's governor sheds thinking first. */
  npcsThinking(): boolean {
    return this.npcs.lastTick.spent > 0;
  }

  /** Changes one tile at run time and tells the clients holding its chunk (TileUpdates.set has the rules). */
  setTile(x: number, y: number, tileId: number): boolean {
    this.recorder?.setTile(x, y, tileId);
    return this.tileUpdates.set(x, y, tileId);
  }

  /** Routes custom messages of `subtype` from clients to `handler` (docs/protocol.md § Custom messages). */
  onCustom(subtype: number, handler: CustomHandler): void {
    this.custom.on(subtype, handler);
  }

  /** Sends a custom message to one client; throws EncodeError beyond 1190 payload bytes. */
  sendCustom(session: Session, subtype: number, payload: Uint8Array): void {
    this.custom.send(session, subtype, payload);
  }

  /** One simulation tick: players' movement on window ticks, the NPCs on entity ticks, then this tick's broadcast phase. */
  step(): void {
    const startMs = performance.now();
    this.tick++;
    this.recorder?.tickStart(this.tick);
    if (executesWindow(this.tick)) {
      this.executeWindow(windowOfTick(this.tick));
      // Steps onto warps and stairs send players on before anyone is told where they stand.
      this.warps.afterMoves(this.sessions.values());
    }
    const second = this.tick % this.options.tickHz === 0;
    this.levels.endTick(second);
    if (second) this.warps.sweep((entityId) => this.sessions.byEntityId(entityId) !== undefined);
    // NPCs act on entity ticks (12 Hz), after the players' window, all their steps in one kernel call.
    if (isEntityTick(this.tick)) {
      const npcStartMs = performance.now();
      const clock = this.worldClock;
      this.npcs.setConditions(partOfDay(clock.timeOfDay(this.tick)) === "night", clock.weather);
      this.npcs.entityTick(entityTickOf(this.tick));
      this.metrics.npcMs.add(performance.now() - npcStartMs);
    }
    // Corpses removed, the dead risen, regeneration, and the tick's blows told — before the broadcast shows them.
    this.combat.endTick(this.tick);
    // Steps onto piles pick them up (after the window and the NPCs moved everyone this tick).
    this.items.endTick();
    // The scripts' timers, and night falling or day breaking.
    const scripts = this.scripts;
    if (scripts !== null) this.scriptTime.run(() => scripts.endTick(this.tick));
    this.lifecycle.flushJoinNotices(this.tick);
    if (second) {
      this.parties.tick();
      this.social.tick();
      this.trades.tick();
    }
    this.worldClock.endTick(this.tick, this.watchers());
    // Tile updates go out before the State packets whose manifests show the new versions.
    this.tileUpdates.flush();
    const broadcastStartMs = performance.now();
    const phase = this.tick % BROADCAST_EVERY_TICKS;
    this.broadcaster.beginRound(broadcastStartMs);
    const due = this.dueScratch;
    let dueCount = 0;
    // Each session's re-sends (chat lines and dialogs not yet acknowledged: timers of hundreds of ms)
    // are looked at on its broadcast ticks, every other tick; new lines and acks send at once anyway.
    for (const session of this.sessions.inPhase(phase)) {
      if (!session.peer) continue;
      this.chat.pump(session, broadcastStartMs);
      this.dialogs.pump(session, broadcastStartMs);
      if (session.quietThroughTick >= this.tick) continue;
      if (dueCount < due.length) due[dueCount] = session;
      else due.push(session);
      dueCount++;
    }
    // The public lines spectators overheard and did not acknowledge yet are re-sent as a player's are.
    for (const session of this.spectators.sessions.inPhase(phase)) {
      if (session.peer) this.chat.pump(session, broadcastStartMs);
    }
    this.chunkOrder.sort(due, dueCount);
    for (let index = 0; index < dueCount; index++) this.broadcaster.sendTo(due[index]);
    // What a player at each spectator's camera is sent (its camera first follows its entity).
    this.spectators.broadcast(phase, this.tick, this.broadcaster);
    const endMs = performance.now();
    this.metrics.recordBroadcast(endMs - broadcastStartMs);
    if (this.appliedStretch() > 1) this.dilatedTicks++;
    if (this.tick % this.saveEveryTicks === 0) this.saveCharacters();
    const tickMs = performance.now() - startMs;
    this.metrics.recordTick(tickMs);
    // Level the even and odd ticks' work by moving sessions between the broadcast phases (phase-balance.ts).
    this.phaseBalancer.observe(phase, tickMs, endMs - broadcastStartMs, dueCount);
    if (second) {
      const move = this.phaseBalancer.decide(this.sessions.phaseSizes());
      if (move !== null) this.sessions.movePhase(move.from, move.to, move.count);
    }
    // A session's silence is measured on the tape: a replay ends the same sessions at the same tick.
    if (second) this.lifecycle.evictStale(this.tape.now());
    // A spectator's silence is the machine's: it is on no tape.
    if (second) this.spectators.evictStale(performance.now());
    const recorder = this.recorder;
    if (recorder !== null) {
      if (this.tick % this.checkpointEveryTicks === 0) recorder.checkpoint(this.tick, this.checkpoint());
      recorder.tickEnd(this.tick, this.digest(), second);
    }
  }

  /**
   * Between ticks, the spectators not yet sent this tick are sent the world as it stands: a paused replay
   * shows where it stands to a viewer who joins or whose phase it missed (replay-viewer/). No player's
   * broadcast, no state of the world, is touched.
   */
  showSpectatorsStill(): void {
    this.broadcaster.beginRound(performance.now());
    this.spectators.showStill(this.tick, this.broadcaster);
  }

  /** Everyone shown the world: the players, then the spectators (spectators/). */
  *watchers(): IterableIterator<Session> {
    yield* this.sessions.values();
    yield* this.spectators.sessions.values();
  }

  /**
   * Starts a spectator (spectators/) whose camera looks at `at` (the map's first spawn when null), joined
   * from `joinSource` with a client that reads `reads`; throws JoinError when refused. Not recorded.
   */
  spectate(
    at: { x: number; y: number } | null,
    joinSource: string | null = null,
    reads = 0,
    followEntityId = 0,
  ): Session {
    return this.spectators.join(at, joinSource, reads, followEntityId);
  }

  /** The world's digest as of now (recording/world-digest.ts): what a recording checks a replay against each tick. */
  digest(): Uint32Array {
    this.worldDigest.digest(
      {
        entities: this.entities,
        chunkVersions: this.world.chunkVersions,
        sessions: this.sessions.values(),
        tick: this.tick,
        weather: this.worldClock.weather,
      },
      this.digestScratch,
    );
    return this.digestScratch;
  }

  /** Every entity's fields and the items' census, encoded: a recording's checkpoint (names what differs). */
  checkpoint(): Uint8Array {
    return encodeCheckpoint(this.entities.values(), this.items.census());
  }

  /**
   * A content script was edited (--watch, the admin API): `name` reloads from `source` (null: the file is
   * gone). A failed version leaves the last good one running; returns the failure, or null.
   */
  reloadScript(name: string, source: string | null): string | null {
    if (this.scripts === null) return "this world was started without content scripts";
    this.recorder?.scriptReload(name, source);
    const failure = this.scripts.reload(name, source);
    this.npcs.refreshTalkFlags();
    return failure;
  }

  /** The quests' texts for GET /api/quests: none for a world without scripts. */
  questCatalogue(): ReturnType<ScriptRoom["catalogue"]> {
    return this.scripts?.catalogue() ?? { version: 0, quests: [] };
  }

  /** The overload governor's figures, with the stretch in force (what /api/status and /metrics report). */
  get overloadState(): OverloadState {
    const overload = this.overload;
    return {
      tickLoad: overload.tickLoad,
      lateness: overload.lateness,
      npcBudgetScale: overload.npcBudgetScale,
      dilation: 1 / this.appliedStretch(),
      dilatedTicks: this.dilatedTicks,
    };
  }

  /**
   * The periodic save (and the last, at shutdown): the map's doors whose state changed since they were
   * last written, then every character in play whose state changed, each in one transaction — one after
   * the other from the same tick, so a restart finds doors and characters as they were together.
   */
  saveCharacters(): void {
    const db = this.database.db;
    try {
      const written = db.transaction(() => this.doorStore.saveChanged(this.doors.keptStates(), Date.now()))();
      written();
    } catch (error) {
      // A full disk must not stop the world; the next save writes them again.
      this.log.error("saving doors failed", { error: String(error) });
    }
    this.lifecycle.saveCharacters();
  }

  /** Executes at most one action per entity for `window`, each through the wasm rule. */
  private executeWindow(window: number): void {
    // One wasm call per batch of movers (movement.ts); the world's move kernel applies THE rule.
    executeWindowMoves(window, this.entities, this.world.moves, this.metrics, this.combat);
  }

  /** The status /api/status serves; tick and broadcast percentiles cover the last `ticks` ticks (default: all held, up to 1024). */
  status(ticks = TIMING_WINDOW_TICKS): Record<string, unknown> {
    const m = this.metrics;
    const last = Math.min(ticks, m.tickMs.size);
    return {
      protocolVersion: PROTOCOL_VERSION,
      map: this.world.name,
      players: this.sessions.size,
      maxPlayers: this.options.maxPlayers,
      // Sessions with no body, watching (spectators/): never among the players.
      spectators: this.spectators.status(),
      entities: this.entities.size,
      tick: this.tick,
      tickHz: this.options.tickHz,
      actionWindowHorizon: ACTION_WINDOW_HORIZON,
      tickMs: {
        p50: m.tickMs.percentile(50, last),
        p99: m.tickMs.percentile(99, last),
        max: m.tickMs.percentile(100, last),
        ticks: last,
      },
      // Lateness against each tick's deadline, and ticks skipped after a stall of more than 4 ticks (tick-loop.ts).
      tickLateMs: {
        p50: m.tickLateMs.percentile(50, last),
        p99: m.tickLateMs.percentile(99, last),
        max: m.tickLateMs.percentile(100, last),
      },
      ticksSkipped: this.skippedTicks(),
      // Overload (overload.ts): the tick's smoothed load and lateness, the think budget's share, the world's speed.
      overload: overloadStatus(this.overloadState),
      eventLoopDelayMs: this.eventLoopDelay.summary,
      broadcastMs: { p50: m.broadcastMs.percentile(50, last), p99: m.broadcastMs.percentile(99, last) },
      // The sessions of each broadcast phase (even, odd ticks), and how many the phase balancer has moved.
      broadcastPhases: { sessions: this.sessions.phaseSizes(), moved: this.phaseBalancer.moved },
      datagramsIn: m.datagramsIn,
      datagramsOut: m.datagramsOut,
      bytesIn: m.bytesIn,
      bytesOut: m.bytesOut,
      // Return routability (docs/server.md § Sessions): what unproven addresses got for what they sent.
      addressProof: {
        challengesSent: m.challengesSent,
        proven: m.addressesProven,
        heldUnproven: m.heldUnproven,
        bytesToUnproven: m.bytesToUnproven,
        bytesFromUnproven: m.bytesFromUnproven,
      },
      drops: Object.fromEntries(m.drops),
      actions: Object.fromEntries(m.actions),
      accounts: { inPlay: this.lifecycle.accountsInPlay },
      saves: { ...this.characters.stats, intervalMs: SAVE_INTERVAL_MS, doors: this.doorStore.stats },
      chat: this.chat.stats,
      dialogs: this.dialogs.stats,
      custom: this.custom.stats,
      tileUpdates: this.tileUpdates.stats,
      warps: { cells: this.warps.size, ...this.warps.stats },
      levels: {
        held: this.levels.size,
        slots: this.levels.slots,
        ...this.levels.stats,
        installMs: [...this.levels.stats.installMs],
        generationMs: [...this.levelGenerator.timesMs],
      },
      interactables: { count: this.interactables.size, ...this.interactables.stats },
      // The flight recorder (recording/): its file, bytes written, and why it stopped if it did.
      recording: this.recorder?.status ?? null,
      // busyMs: wall time in calls into the scripts since start (every event, callback and end-of-tick pass).
      scripts: this.scripts === null ? null : { ...this.scripts.status(), busyMs: this.scriptTime.totalMs },
      doors: { count: this.doors.size, ...this.doors.stats },
      npcs: this.npcStatus(last),
      items: {
        chests: this.items.chestCount,
        piles: this.items.pileCount,
        levelPiles: this.items.dormantPileCount,
        ...this.items.stats,
      },
      worldClock: {
        timeOfDay: this.worldClock.timeOfDay(this.tick),
        dayMinutes: this.options.dayMinutes,
        weather: this.worldClock.weather,
        ...this.worldClock.stats,
      },
      combat: {
        ...this.combat.stats,
        kills: { ...this.combat.stats.kills },
        deadPlayers: this.combat.deadPlayers,
        fighting: this.combat.fighting,
        pvp: this.pvp.enabled,
        experience: { ...this.experience.stats },
      },
    };
  }

  /** The NPC figures of /api/status: counts, the last second's rates, the last entity tick's budget, totals. */
  private npcStatus(ticks: number): Record<string, unknown> {
    const npcs = this.npcs;
    const m = this.metrics;
    const lastSecond = npcs.lastSecond;
    const entityTicksPerSecond = this.options.tickHz / ENTITY_TICK_EVERY;
    const entitySamples = Math.min(m.npcMs.size, Math.max(1, Math.round(ticks / ENTITY_TICK_EVERY)));
    return {
      count: npcs.size,
      awake: npcs.awake,
      decidingTwicePerSecond: npcs.decidingTwice,
      thinksPerSecond: lastSecond.thinks,
      budgetSpentPerSecond: lastSecond.spent,
      shedPerEntityTick: lastSecond.shed / entityTicksPerSecond,
      lastEntityTick: npcs.lastTick,
      totals: { ...npcs.stats, byDistance: npcs.stats.byDistance.map((band) => ({ ...band })) },
      // One sample per entity tick: the last `ticks` ticks hold ticks / ENTITY_TICK_EVERY of them.
      thinkMs: {
        p50: m.npcMs.percentile(50, entitySamples),
        p99: m.npcMs.percentile(99, entitySamples),
      },
    };
  }
}

/** The entities of the sessions in play: what the NPCs wake near and notice. */
function* playerEntities(sessions: SessionRegistry): Iterable<StoredEntity> {
  for (const session of sessions.values()) yield session.entity;
}

/** What the NPCs wake near: the players in play here, then `others` (a cluster's ghosts of players). */
function* wakers(sessions: SessionRegistry, others: Iterable<StoredEntity>): Iterable<StoredEntity> {
  yield* playerEntities(sessions);
  yield* others;
}

/** /api/status's overload figures: rounded, and the period and rate the stretch gives. */
function overloadStatus(overload: OverloadState): Record<string, number> {
  return {
    tickLoad: Math.round(overload.tickLoad * 1000) / 1000,
    latenessPeriods: Math.round(overload.lateness * 1000) / 1000,
    npcBudgetScale: Math.round(overload.npcBudgetScale * 1000) / 1000,
    dilation: Math.round(overload.dilation * 1000) / 1000,
    dilatedTicks: overload.dilatedTicks,
  };
}

/**
 * Dungeon level slots for a world with stairs down, drawn with the built-in tiles the levels are made of
 * (P-24): `wanted`, or none for a map without stairs down or with its own art (said once in the log).
 */
function levelSlotsFor(map: WorldMap, wanted: number, log: Logger): number {
  const hasStairs = (map.warps ?? []).some((warp) => warp.stairs === "down");
  if (hasStairs && map.art)
    log.warn("stairs not followed: dungeon levels use the built-in tiles, the map has its own art");
  return hasStairs && !map.art ? wanted : 0;
}

/**
 * The level slots a cluster's region fills (DungeonShare): `count` of the world's, from `first` on, numbered
 * from 0 for DungeonLevels, which knows nothing of the others.
 */
function ownSlots(world: World, first: number, count: number): LevelPorts["world"] {
  return {
    levelSlots: world.levelSlots.slice(first, first + count),
    fillSlot: (slot, tiles, width, height) => world.fillSlot(first + slot, tiles, width, height),
    clearSlot: (slot) => world.clearSlot(first + slot),
    walkable: (x, y) => world.walkable(x, y),
  };
}

/** The map's first stairs down, if any. */
function firstStairsDown(map: WorldMap): WorldWarp | undefined {
  return (map.warps ?? []).find((warp) => warp.stairs === "down");
}

/** What content scripts change in the world (scripting/world-actions.ts), through the rooms that own it. */
function scriptWorld(
  world: World,
  entities: EntityStore,
  npcs: NpcRoom,
  tiles: TileUpdates,
  doors: Doors,
  chat: ChatService,
): Omit<WorldActionPorts, "kinds"> {
  const tileById = new Map(world.tileInfo.map((info) => [info.id, info]));
  const near: StoredEntity[] = [];
  return {
    npcs,
    walkable: (x, y) => world.walkable(x, y),
    tiles: {
      at: (x, y) => world.tileAt(x, y),
      known: (tileId) => tileById.has(tileId),
      collides: (tileId) => tileById.get(tileId)?.collides === true,
      set: (x, y, tileId) => tiles.set(x, y, tileId),
    },
    occupied: (x, y) => {
      const count = entities.inSquare(x, y, 0, near, false);
      for (let i = 0; i < count; i++) if ((near[i].flags & ENTITY_FLAG_STATIC) === 0) return true;
      return false;
    },
    doors,
    announce: (text, speaker) => chat.system(text, speaker),
  };
}
