// A region's room (docs/scaling.md § Regions, docs/recording.md § In a cluster): everything that reaches the
// region's Game from its links, other than its clients' datagrams (which the Game records itself) — a
// gateway's client links opened and closed, players handed here or restored after a restart, ghosts of the
// neighbours' entities, blows, doors and creatures across the borders, links that come and go — and what the
// region does to its Game after a tick (players handed on, creatures crossing), and its clock set on the
// world's timeline. Each is recorded at this room's door the moment it is applied (region-recording.ts), so
// a replay drives the same room with the recorded inputs and no sockets (region-replay.ts): what it would
// send goes nowhere. The sockets, the directory and the world's clock stay in region.ts.
import { performance } from "node:perf_hooks";
import { isValidAction, readActionTokenHigh, readActionTokenLow } from "../protocol/action.js";
import type { Logger } from "../server/ops/log.js";
import type { Peer } from "../server/edge/peer.js";
import type { Session } from "../server/sessions/session.js";
import type { NpcKind } from "../server/content/npc-kinds.js";
import type { NpcSpawnSpec } from "../server/content/npc-spawns.js";
import type { DoorSpec } from "../server/map/map-doors.js";
import type { ClusterLevels } from "./cluster-levels.js";
import { DoorLink } from "./door-link.js";
import { GhostTable } from "./ghosts.js";
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
import type { ClusterLayout } from "./layout.js";
import {
  FRAME_CLOSE,
  FRAME_DATA,
  FRAME_DOOR_ANSWER,
  FRAME_DOOR_TILES,
  FRAME_DOOR_USE,
  FRAME_GHOSTS,
  FRAME_HANDOFF,
  FRAME_NPC_DIED,
  FRAME_NPC_HANDOFF,
  FRAME_NPC_HELD,
  FRAME_OPEN,
  FRAME_REROUTE,
  FRAME_STRIKE,
  FRAME_STRIKE_ANSWER,
  FrameError,
  type FrameSink,
  jsonOf,
} from "./link-frames.js";
import { type NpcLink, npcLinkFor } from "./npc-link.js";
import type { RegionGame } from "./region-game.js";
import {
  LINK_GATEWAY_LINKED,
  LINK_GATEWAY_LOST,
  LINK_NEIGHBOUR_LINKED,
  LINK_NEIGHBOUR_LOST,
  ORIGIN_GATEWAY,
  ORIGIN_NEIGHBOUR,
  type RegionInputs,
} from "./region-recording.js";
import { isSpectatorHandoff, type SpectatorHandoff, spectatorArrivalOf } from "./spectator-handoff.js";
import { StrikeLink } from "./strikes.js";

/** Client links one gateway may open here (a gateway is trusted, but its memory here is bounded still). */
const MAX_PEERS_PER_GATEWAY = 65_536;

/** A gateway's link here: its client links (virtual peers) and the sessions handed off from them. */
export interface GatewayLink {
  readonly id: string;
  /**
   * This link's number among the gateway links this region accepted: part of its clients' peer keys, so
   * the clients of a gateway started again (numbered from 1 again) never share a key — nor a bound link
   * or a proven address — with its last life's.
   */
  readonly serial: number;
  readonly writer: FrameSink;
  readonly peers: Map<number, Peer>;
  /** Clients whose session left this region, and when: their datagrams go back to the gateway. */
  readonly tombstones: Map<number, number>;
}

/** What the region around the room does when a player comes or goes (its directory, its list of players, its bans). */
export interface RegionRoomHost {
  /** A player handed here (or restored after a restart) plays here now. */
  arrived(session: Session, state: HandoffState): void;
  /** A player was handed on to `target`. */
  handedOn(session: Session, target: number): void;
}

export interface RegionRoomOptions {
  readonly game: RegionGame;
  readonly region: number;
  readonly layout: ClusterLayout;
  /** The whole map's creature kinds and spawns (a creature's home is the region of its spawn) and doors. */
  readonly npcKinds: readonly NpcKind[];
  readonly npcSpawns: readonly NpcSpawnSpec[];
  readonly doors: readonly DoorSpec[];
  readonly levels: ClusterLevels;
  /** Where the inputs are recorded; null: not recorded (a replay, or recording off). */
  readonly inputs: RegionInputs | null;
  /** Whether a region's shared store holds accounts (without one, accounts stay in region 0). */
  readonly sharedAccounts: boolean;
  readonly host: RegionRoomHost;
  readonly log: Logger;
}

/**
 * A handoff the gateway sent back (no link to its target: that region is down) is not tried again for this
 * long. Without it a player standing on a region's ground, or on its stairs down — a login below a level whose
 * region is down (cluster-levels.ts) — was released and adopted again every tick until that region was back.
 */
export const HANDOFF_RETRY_MS = 1000;
/** A player waiting on a down region's stairs is told so again after this long (not at every retry). */
const HANDOFF_WAIT_TOLD_MS = 30_000;
/**
 * Dialog ids a session may be given between two checkpoints (a second apart) and still not be given again after
 * a restart from the checkpoint: far more windows than a player opens in a second.
 */
export const DIALOG_IDS_AFTER_CHECKPOINT = 1000;
/** A region more ticks than this behind the world's timeline (after a stall) jumps to it (RegionRoom.keepUp). */
export const MAX_TICKS_BEHIND = 2;

export function newRegionStats() {
  return {
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
    /** Of stepsLost: no room in the owed queue (the rest were beyond the horizon); and lost at a restore from the checkpoint. */
    stepsLostOwedFull: 0,
    stepsLostAtRestore: 0,
    /** The longest owed queue a handoff or a checkpoint brought here. */
    owedCarriedMax: 0,
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
}

export class RegionRoom {
  readonly stats = newRegionStats();
  readonly ghosts: GhostTable;
  readonly strikes: StrikeLink;
  readonly doorLink: DoorLink;
  readonly npcLink: NpcLink;
  /** The gateways linked here, by id (a gateway started again replaces its last life's link). */
  readonly gateways = new Map<string, GatewayLink>();
  /** Where each virtual peer (by key) came from: the handoff answers on the same link. */
  readonly peerLinks = new Map<string, { link: GatewayLink; client: number }>();
  /**
   * What this region held when it last died (its checkpoint), adopted again as each comes back (region.ts
   * fills it at start and clears it after CHECKPOINT_TTL_MS); empty in a replay, where a restore is an arrival.
   */
  readonly restorable = new Map<string, HandoffState>();
  /** The neighbours this region has a link to (what it sends them goes there). */
  private readonly neighbours = new Map<number, FrameSink>();
  private readonly gatewaysBySerial = new Map<number, GatewayLink>();
  private gatewayLinkSerial = 0;
  /** The world's timeline at this moment (region.ts, once this region has joined it); null: not yet, or a replay. */
  private timeline: (() => number) | null = null;
  private readonly game: RegionGame;
  private readonly region: number;
  private readonly inputs: RegionInputs | null;

  constructor(private readonly options: RegionRoomOptions) {
    const { game, layout, region, levels } = options;
    this.game = game;
    this.region = region;
    this.inputs = options.inputs;
    levels.placed(game.world.levelSlots);
    const linkTo = (n: number) => this.neighbours.get(n);
    const ghosts = (this.ghosts = new GhostTable(game.entities));
    this.strikes = new StrikeLink(game.combat, ghosts, linkTo);
    this.doorLink = new DoorLink({
      doors: game.doors,
      ghosts,
      layout,
      region,
      specs: options.doors,
      linkTo,
      holds: (session, key) => game.items.holds(session, key),
      tileAt: (x, y) => game.tileAt(x, y),
      setTile: (x, y, tile) => game.setTile(x, y, tile),
      sessionOf: (id) => game.sessions.byEntityId(id),
      tell: (session, text, speaker) => game.chat.tell(session, text, speaker),
    });
    // Creatures cross borders as players do; each spawn's home is the region of its ground.
    this.npcLink = npcLinkFor(
      game,
      options.npcKinds,
      options.npcSpawns,
      ghosts,
      layout,
      region,
      linkTo,
      // A dungeon level's creatures stay in it: it is no border (cluster-levels.ts).
      (x, y) => levels.inLevel(x, y),
    );
    // A creature by a border wakes for a player across it, as in one process.
    game.otherPlayers = () => ghosts.players();
  }

  /** The link to neighbour `n`, while there is one. */
  linkTo(n: number): FrameSink | undefined {
    return this.neighbours.get(n);
  }

  // ---- The door: each input recorded, then applied.

  /** A gateway said hello on a link: its clients' links come over it from now on. */
  gatewayLinked(id: string, writer: FrameSink): GatewayLink {
    const link: GatewayLink = { id, serial: ++this.gatewayLinkSerial, writer, peers: new Map(), tombstones: new Map() };
    this.inputs?.link(LINK_GATEWAY_LINKED, link.serial, id);
    this.gateways.set(id, link);
    this.gatewaysBySerial.set(link.serial, link);
    return link;
  }

  /** The gateway link of serial `serial` (a replay's frames name their link by it). */
  gatewayOf(serial: number): GatewayLink | undefined {
    return this.gatewaysBySerial.get(serial);
  }

  /**
   * A gateway's link closed (it stopped or died): its clients' sessions stay, unbound, until each client binds
   * its own again through another gateway (a signed ActionPacket; docs/scaling.md § A gateway lost) or the
   * session timeout ends it.
   */
  gatewayLost(link: GatewayLink): void {
    this.inputs?.link(LINK_GATEWAY_LOST, link.serial, link.id);
    this.stats.gatewayLinksLost++;
    this.gatewaysBySerial.delete(link.serial);
    // A gateway started again may have linked anew before this close was seen: that link stays.
    if (this.gateways.get(link.id) === link) this.gateways.delete(link.id);
    for (const peer of link.peers.values()) {
      this.peerLinks.delete(peer.key);
      this.game.linkLost(peer.key);
    }
  }

  /** A link to neighbour `n` opened (this region dialed it): blows, doors and creatures can go there. */
  neighbourLinked(n: number, writer: FrameSink): void {
    this.inputs?.link(LINK_NEIGHBOUR_LINKED, n, "");
    this.neighbours.set(n, writer);
  }

  /** The link to neighbour `n` is gone: creatures that crossed between us are settled (npc-link.ts). */
  neighbourLost(n: number): void {
    this.inputs?.link(LINK_NEIGHBOUR_LOST, n, "");
    this.neighbours.delete(n);
    this.npcLink.linkLost(n);
  }

  /** A frame from a gateway's link (throws FrameError for one that breaks the link's rules). */
  gatewayFrame(link: GatewayLink, kind: number, client: number, payload: Uint8Array, nowMs: number): void {
    this.keepUp();
    const { game, stats } = this;
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
        this.inputs?.frame(ORIGIN_GATEWAY, link.serial, kind, client, nowMs, payload);
        const key = `gw:${link.id}/${link.serial}:${client}`;
        const peer: Peer = {
          key,
          address,
          transport,
          send: (datagram) => link.writer.send(FRAME_DATA, client, datagram),
        };
        link.peers.set(client, peer);
        this.peerLinks.set(key, { link, client });
        return;
      }
      case FRAME_DATA:
      case FRAME_REROUTE: {
        // The Game records its datagrams itself (at its datagram handler's door).
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
        if (this.restorable.size > 0 && isValidAction(payload)) this.restore(link, client, payload, nowMs);
        game.receive(payload, peer);
        return;
      }
      case FRAME_CLOSE: {
        const peer = link.peers.get(client);
        if (peer === undefined) return;
        this.inputs?.frame(ORIGIN_GATEWAY, link.serial, kind, client, nowMs, payload);
        link.peers.delete(client);
        link.tombstones.delete(client);
        this.peerLinks.delete(peer.key);
        game.linkClosed(peer.key);
        return;
      }
      case FRAME_HANDOFF: {
        const state = jsonOf(payload, "handoff");
        // A spectator is no input of the world (docs/server.md § Spectators): not recorded.
        if (isSpectatorHandoff(state)) return this.arriveSpectator(link, client, state, nowMs);
        this.inputs?.frame(ORIGIN_GATEWAY, link.serial, kind, client, nowMs, payload);
        return this.arrive(link, client, state as HandoffState, nowMs);
      }
      default:
        throw new FrameError(`gateway frame of kind ${kind}`);
    }
  }

  /** A frame from neighbour `from`'s link (throws FrameError for one that breaks the link's rules). */
  neighbourFrame(from: number, kind: number, client: number, payload: Uint8Array, nowMs: number): void {
    this.keepUp();
    this.inputs?.frame(ORIGIN_NEIGHBOUR, from, kind, client, nowMs, payload);
    const { strikes, doorLink, npcLink } = this;
    switch (kind) {
      case FRAME_GHOSTS:
        this.ghosts.apply(from, jsonOf(payload, "ghosts"));
        // The frame's client field is the tick it was published after (region.ts's publishGhosts).
        this.stats.ghostFramesIn++;
        this.stats.ghostLagTicks[Math.min(2, Math.max(0, this.game.tick - client))]++;
        return;
      case FRAME_STRIKE:
        return strikes.onStrike(from, jsonOf(payload, "strike"));
      case FRAME_STRIKE_ANSWER:
        return strikes.onAnswer(jsonOf(payload, "strike answer"));
      case FRAME_DOOR_USE:
        return doorLink.onUse(from, jsonOf(payload, "door use"));
      case FRAME_DOOR_ANSWER:
        return doorLink.onAnswer(jsonOf(payload, "door answer"));
      case FRAME_DOOR_TILES:
        return doorLink.onCells(from, jsonOf(payload, "door tiles"));
      case FRAME_NPC_HANDOFF:
        return npcLink.onHandoff(jsonOf(payload, "npc handoff"));
      case FRAME_NPC_HELD:
        return npcLink.onHeld(from, jsonOf(payload, "npc held"));
      case FRAME_NPC_DIED:
        return npcLink.onDied(jsonOf(payload, "npc died"));
      default:
        throw new FrameError(`region frame of kind ${kind}`);
    }
  }

  /** Players whose last handoff came back (target down), by entity id: the tick of the next try, when last told. */
  private readonly handoffsHeld = new Map<number, { retryAtTick: number; toldAtTick: number }>();

  private ticksOf(ms: number): number {
    return Math.ceil((ms * this.game.options.tickHz) / 1000);
  }

  /**
   * A handoff of `session` came back: the next try waits HANDOFF_RETRY_MS; one pulled below is told why it
   * waits (again after HANDOFF_WAIT_TOLD_MS). Held handoffs long past their retry are forgotten here, on the
   * world's ticks (a replay holds the same).
   */
  private bounced(session: Session): void {
    const { game } = this;
    this.stats.handoffsBounced++;
    const forgetAfter = this.ticksOf(HANDOFF_WAIT_TOLD_MS);
    for (const [id, held] of this.handoffsHeld)
      if (game.tick - held.retryAtTick > forgetAfter) this.handoffsHeld.delete(id);
    const id = session.entity.id;
    const held = this.handoffsHeld.get(id);
    const toldAtTick = held?.toldAtTick ?? -Infinity;
    const tell =
      this.options.levels.pulledTo(session.entity.x, session.entity.y) >= 0 && game.tick - toldAtTick >= forgetAfter;
    this.handoffsHeld.set(id, {
      retryAtTick: game.tick + this.ticksOf(HANDOFF_RETRY_MS),
      toldAtTick: tell ? game.tick : toldAtTick,
    });
    if (tell) {
      game.chat.tell(
        session,
        "The level below is held by a part of the world that is not answering: you wait on the stairs and go down once it is back.",
      );
    }
  }

  /**
   * After a tick: `session` stands on `target`'s ground — it goes there through its gateway, unless an item
   * change or its friends are still being written or read (it goes a tick or so later, with them).
   */
  handOff(session: Session, target: number): void {
    const at = session.peer === null ? undefined : this.peerLinks.get(session.peer.key);
    if (at === undefined) return; // not behind a gateway link (yet): it stays
    const held = this.handoffsHeld.get(session.entity.id);
    if (held !== undefined && this.game.tick < held.retryAtTick) return; // its last try came back: not yet again
    // An item change of its own still being written: it goes once that is applied (a tick or so later),
    // so what a guest carries over is what it holds, and an account's bag is read after its last write.
    if (!this.game.items.settled(session)) {
      this.stats.handoffsWaitedForItems++;
      return;
    }
    // Its friends and ignores still being read from the shared store: it goes once they are, with them.
    if (!this.game.social.settled(session)) {
      this.stats.handoffsWaitedForSocial++;
      return;
    }
    this.handOn(session, target);
  }

  /** Hands `session` on to `target` (the decision made: a replay takes it from the recording). */
  handOn(session: Session, target: number): void {
    this.inputs?.handOff(session.entity.id, target);
    const at = session.peer === null ? undefined : this.peerLinks.get(session.peer.key);
    const state = this.stateOf(session, target);
    // A member of a party at home here plays on in the region it goes to (before its session is released).
    this.game.parties.handOver(session, target);
    this.game.releaseSession(session);
    this.options.host.handedOn(session, target);
    if (at !== undefined) {
      at.link.tombstones.set(at.client, performance.now());
      at.link.writer.sendJson(FRAME_HANDOFF, at.client, state);
    }
    this.stats.handoffsOut++;
  }

  /** After a broadcast tick: the creatures past the margin go to their neighbours (`moved` told each). */
  creaturesCross(moved?: (entityId: number, target: number) => void): void {
    this.inputs?.creaturesCross(this.game.tick);
    this.npcLink.handOff(moved);
  }

  /** The region joins the world's timeline at `tick` (its start: the tick before the first it runs). */
  startAt(tick: number): void {
    this.inputs?.clockSet(tick, false);
    this.game.tick = tick;
  }

  /**
   * From now on this region keeps up with the world's timeline (`timeline`: the world's tick at this moment):
   * before each tick, and before it applies any frame (keepUp). Not in a replay: the recorded jumps drive it.
   */
  followTimeline(timeline: () => number): void {
    this.timeline = timeline;
  }

  /**
   * More than MAX_TICKS_BEHIND ticks behind the world's timeline (a stall: the machine gave the process no time,
   * or it was stopped in the middle of its work): the clock jumps to it before anything else is applied. Not at
   * the next tick only: a Node process back from a stall reads its sockets before it runs its overdue timers, so
   * a handoff taken first met a clock seconds behind, and the steps it carried, for the world's next windows,
   * were beyond this clock's horizon: dropped (issue 41). Each jump is recorded where it happens, between frames.
   */
  keepUp(): void {
    if (this.timeline === null) return;
    const worldTick = Math.floor(this.timeline());
    // The tick loop runs worldTick next: the jump stops one short of it.
    if (worldTick - this.game.tick > MAX_TICKS_BEHIND) this.rejoin(worldTick - 1);
  }

  /** Behind the world's timeline after a stall: the clock jumps to `tick`, the windows passed over owed (Game.jumpClock). */
  rejoin(tick: number): void {
    this.inputs?.clockSet(tick, true);
    this.stats.ticksRejoined += tick - this.game.tick;
    const { owed, lost } = this.game.jumpClock(tick);
    this.stats.stepsOwedAtRejoin += owed;
    this.stats.stepsLostAtRejoin += lost;
  }

  /**
   * What this region writes down of `session` for region `to`: a handoff, or (with `checkpointMs`, the
   * machine's wall clock: the checkpoint is written beside the ticks, no input of the world, so it reads
   * nothing off the world's tape) its own checkpoint.
   */
  stateOf(session: Session, to: number, checkpointMs?: number): HandoffState {
    const game = this.game;
    return handoffStateOf(
      session,
      this.region,
      to,
      game.nextWindow,
      game.items.carrying(session),
      game.tick,
      game.admin.muteStateOf(session, checkpointMs),
      game.questsOf(session),
      game.social.carried(session),
      game.parties.homeOf(session),
      game.placeOf(session),
    );
  }

  /** Whether a session's player may be handed on (without a shared store, accounts stay in region 0). */
  mayCross(session: Session): boolean {
    return session.accountId === null || this.options.sharedAccounts;
  }

  // ---- Applying.

  /** A session handed here by the gateway (from a neighbour, or back to us when its target was down). */
  private arrive(link: GatewayLink, client: number, state: HandoffState, nowMs: number): void {
    const { game, stats } = this;
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
    this.ghosts.drop(arrival.entity.id);
    const session = game.adoptSession(arrival, peer, nowMs);
    const restored = restoreSession(
      session,
      below === null ? state : { ...state, steps: [], owed: [] },
      game.nextWindow,
    );
    game.arrivedAt(session, below?.dungeon ?? null, state.from === this.region);
    // Back from the gateway: the region it was handed to is down.
    if (state.from === this.region) this.bounced(session);
    // An operator's mute goes where the player goes (and survives this region's restart: the checkpoint).
    if (mute !== null) game.admin.restoreMute(session, mute);
    // Its ignores, friends and last teller come with it.
    game.social.adopt(session, social);
    // Still in its party: back at its home, or mirrored here for it (parties.ts).
    game.parties.adopted(session, partyHome);
    link.tombstones.delete(client);
    stats.handoffsIn++;
    stats.stepsCarried += restored.steps;
    stats.stepsMovedWindow += restored.moved;
    stats.stepsLost += restored.lost;
    stats.stepsLostOwedFull += restored.lostOwedFull;
    if (state.from === state.to) stats.stepsLostAtRestore += restored.lost;
    stats.owedCarriedMax = Math.max(stats.owedCarriedMax, state.owed?.length ?? 0);
    stats.stepsDoubled += restored.doubled;
    this.options.host.arrived(session, state);
  }

  /** A spectator handed here with the entity it follows (or back to us when its target was down). */
  private arriveSpectator(link: GatewayLink, client: number, state: SpectatorHandoff, nowMs: number): void {
    const peer = link.peers.get(client);
    if (peer === undefined) throw new FrameError("spectator handoff for a client never opened");
    const arrival = spectatorArrivalOf(state);
    link.tombstones.delete(client);
    try {
      this.game.spectators.adopt(arrival, peer, nowMs);
      this.stats.spectatorsIn++;
    } catch (error) {
      // Not the link's fault (a token in play here already): the page finds its link silent and joins again.
      this.stats.spectatorsRefused++;
      this.options.log.warn("a spectator handed here was refused", { error: String(error) });
    }
  }

  /**
   * After a restart: the first ActionPacket of a session this region held when it died (its checkpoint
   * in Redis, at most REFRESH_MS old) adopts it again on the link it arrives by, where it stood then —
   * the same session, token and entity; the steps since the checkpoint are lost (what the client
   * predicted is corrected, as after any lost steps). Recorded as an arrival from this region to itself.
   */
  private restore(link: GatewayLink, client: number, payload: Uint8Array, nowMs: number): void {
    const low = readActionTokenLow(payload);
    const high = readActionTokenHigh(payload);
    const tokenHex = ((BigInt(high >>> 0) << 32n) | BigInt(low >>> 0)).toString(16).padStart(16, "0");
    const state = this.restorable.get(tokenHex);
    if (state === undefined || this.game.sessions.byTokenValue(BigInt(`0x${tokenHex}`)) !== undefined) return;
    this.restorable.delete(tokenHex);
    // The windows opened since the checkpoint (at most REFRESH_MS old) had ids past the one it holds: skip them.
    const dialogs = Math.min(0xffffffff, (state.dialogs ?? 1) + DIALOG_IDS_AFTER_CHECKPOINT);
    const arrival = { ...state, from: this.region, to: this.region, dialogs };
    try {
      this.inputs?.frame(
        ORIGIN_GATEWAY,
        link.serial,
        FRAME_HANDOFF,
        client,
        nowMs,
        Buffer.from(JSON.stringify(arrival)),
      );
      this.arrive(link, client, arrival, nowMs);
      this.stats.restored++;
    } catch (error) {
      this.options.log.warn("checkpoint: a session could not be restored", { error: String(error) });
    }
  }
}
