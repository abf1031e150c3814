// What a region process uses of the Game it runs (region.ts): the rooms its links to the neighbours and
// the shared stores reach (each as narrow as those links need), the doors through which sessions arrive,
// leave and are handed over, and the clock it drives on the world's timeline instead of the Game's own
// loop. region.ts holds its Game through this port only, so what a cluster depends on is listed here, and
// test/server-imports.test.ts keeps the rest of ts/cluster off the Game.
import type { AdminService } from "../server/admin/admin-service.js";
import type { CombatRoom } from "../server/combat/combat-room.js";
import type { EntityStore, StoredEntity } from "../server/entities/entities.js";
import type { ApiGame } from "../server/http/api-routes.js";
import type { ItemRoom } from "../server/items/item-room.js";
import type { NpcRoom } from "../server/npc/npc-room.js";
import type { EventLoopDelay } from "../server/ops/event-loop-delay.js";
import type { Metrics } from "../server/ops/metrics.js";
import type { OverloadGovernor } from "../server/ops/overload.js";
import type { Session, SessionRegistry } from "../server/sessions/session.js";
import type { Peer } from "../server/edge/peer.js";
import type { QuestRecord } from "../server/persistence/quest-store.js";
import type { SessionArrival } from "../server/session-lifecycle.js";
import type { ChatService } from "../server/talk/chat.js";
import type { PartyRoom } from "../server/social/parties.js";
import type { PartyLinkRoom } from "./party-link.js";
import type { SocialRoom } from "../server/social/social-room.js";
import type { TradeRoom } from "../server/social/trades.js";
import type { Doors } from "../server/world/doors.js";
import type { SpectateGame } from "../server/http/spectate-route.js";
import type { SpectatorRoom } from "../server/spectators/spectator-room.js";
import type { World } from "../server/world/world.js";
import type { SavedPlace } from "../server/persistence/character-saver.js";
import type { DungeonPlace } from "../server/persistence/character-store.js";

export interface RegionGame extends ApiGame, SpectateGame {
  /** The tick last run: a region sets it to the world's tick at start, and when it rejoins the timeline. */
  tick: number;
  readonly nextWindow: number;
  /** Moves the clock on to a later tick, owing the steps of the windows it passes over (Game.jumpClock). */
  jumpClock(tick: number): { owed: number; lost: number };
  readonly metrics: Metrics;
  readonly eventLoopDelay: EventLoopDelay;
  /** The governor whose wish the world's stretch takes (world-dilation.ts). */
  readonly overload: OverloadGovernor;
  /** The entities: ghosts of the neighbours' are placed among them (ghosts.ts). */
  readonly entities: EntityStore;
  /** Blows across a border (strikes.ts), wounded creatures arriving (npc-link.ts). */
  readonly combat: CombatRoom;
  /** Doors on a border (door-link.ts). */
  readonly doors: Doors;
  /** Chat relayed between regions (chat-relay.ts), lines told to players. */
  readonly chat: ChatService;
  /**
   * Private lines across regions (chat-relay.ts), friends' comings and goings, the other regions' players
   * (players-online.ts), and the social state a handoff carries.
   */
  readonly social: Pick<
    SocialRoom,
    | "deliverRemote"
    | "remoteAnswered"
    | "remote"
    | "elsewhere"
    | "friendCameOrWent"
    | "befriendedHere"
    | "carried"
    | "adopt"
    | "keyOf"
    | "settled"
  >;
  /** Parties whose members play in several regions (party-link.ts). */
  readonly parties: PartyLinkRoom & Pick<PartyRoom, "homeOf" | "handOver" | "adopted">;
  /** Trades with a player of another region (trade-link.ts). */
  readonly trades: Pick<TradeRoom, "fromHome" | "fromAway" | "elsewhere" | "active">;
  /** Mutes carried in a handoff; the admin API. */
  readonly admin: AdminService;
  /** What a player carries over in a handoff, and a door's key. */
  readonly items: Pick<ItemRoom, "holds" | "carrying" | "settled" | "stats">;
  /** Creatures crossing borders (npc-link.ts). */
  readonly npcs: Pick<
    NpcRoom,
    "size" | "awake" | "stats" | "lastTick" | "values" | "release" | "adopt" | "awayDied" | "get" | "foreignDeath"
  >;
  /**
   * The spectators watching through a gateway (the console's Follow): each is handed on with the entity its
   * camera follows when that entity crosses a border, or to the region whose ground its free camera looks at
   * (spectator-handoff.ts).
   */
  readonly spectators: Pick<SpectatorRoom, "cameraTargets" | "adopt" | "release" | "size">;
  /** The sessions in play: who stands where, and the session of a token or an entity. */
  readonly sessions: Pick<SessionRegistry, "byTokenValue" | "byEntityId" | "size" | "values">;

  /** One tick of the world (the region's own loop calls it, on the world's clock). */
  step(): void;
  /** Whether the NPCs spent think budget in the last entity tick (the loop's governor asks). */
  npcsThinking(): boolean;
  /** The stretch in force (the world's, set by the region) and the ticks its loop skipped. */
  appliedStretch: () => number;
  skippedTicks: () => number;
  /** The ghosts of the neighbours' players: creatures by a border wake for them. */
  otherPlayers: () => Iterable<StoredEntity>;

  /**
   * A datagram from a gateway's client; a gateway's link to a client closed (the client left); a
   * gateway lost (its clients' sessions wait to be bound again through another gateway).
   */
  receive(datagram: Uint8Array, peer: Peer): void;
  /** A client's datagram the region its session left sent back through the gateway (a step late in it is owed). */
  receiveRerouted(datagram: Uint8Array, peer: Peer): void;
  linkClosed(peerKey: string): void;
  linkLost(peerKey: string): void;
  /** A session handed over from another region starts here; one handed on stops here. */
  adoptSession(arrival: SessionArrival, peer: Peer, nowMs: number): Session;
  releaseSession(session: Session): void;
  /** The quests a handoff of `session` carries (its arrival gives them to the new region's game). */
  questsOf(session: Session): QuestRecord[];
  /** Where a session's player is saved — in a dungeon level, or on its way back into one — which a handoff carries. */
  placeOf(session: Session): SavedPlace;
  /** A session adopted here whose player was below (or on its way below): taken back down (cluster-levels.ts). */
  arrivedAt(session: Session, dungeon: DungeonPlace | null, restored: boolean): void;
  /** The world (the API's view of it), and its dungeon level slots: no border there (cluster-levels.ts). */
  readonly world: ApiGame["world"] & Pick<World, "levelSlots">;
  /** The session of an account in play here (a login elsewhere asks it to end). */
  sessionOfAccount(accountId: number): Session | undefined;

  /** A tile of the world, and a change of one told to the clients holding its chunk. */
  tileAt(x: number, y: number): number;
  setTile(x: number, y: number, tileId: number): boolean;

  /** Stops, saves every character in play and closes the database. */
  shutdown(): void;
}
