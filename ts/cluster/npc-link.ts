// Creatures across borders (docs/scaling.md § Creatures across borders): a creature is simulated by the
// region whose ground it stands on, as a player is. Once it walks more than the handoff margin onto a
// neighbour's ground (layout.ts handoffTarget, the players' rule), its region takes it out of its NPC
// room (NpcRoom.release: as it stands — hp, energy, what it chases) and sends it on its link to that
// neighbour (FRAME_NPC_HANDOFF), which drops its ghost of it and takes it into its own room
// (NpcRoom.adopt). One ordered link, removed before it is sent, added when it arrives: a creature is
// never simulated by two regions at once.
//
// Its spawn stays where it is (the region of the spawn's ground, its "home"), and still counts it while
// it is away, so the spawn does not fill its place. The region holding it tells the home where it is
// (FRAME_NPC_HELD, numbered by hops so a late notice cannot undo a newer one) and, when it dies there,
// that it died (FRAME_NPC_DIED): the home's spawn then replaces it after its respawn time, as for a
// creature that died at home. So a creature is only handed to its home or to a region linked to its home.
//
// A link lost means a process died (links are loopback or LAN TCP between live processes): the home
// counts its creatures away in that region as dead (they died with it), and a region drops the creatures
// it holds of that home's spawns (a home that restarted filled its spawns again, under the same ids).
import type { RegionGame } from "./region-game.js";
import type { NpcKind } from "../server/content/npc-kinds.js";
import type { NpcSpawnSpec } from "../server/content/npc-spawns.js";
import type { GhostTable } from "./ghosts.js";
import type { Npc } from "../server/npc/npc.js";
import { NPC_STATES, type NpcTransfer } from "../server/npc/npc-crossing.js";
import type { NpcRoom } from "../server/npc/npc-room.js";
import {
  type ClusterLayout,
  distanceToRegion,
  HANDOFF_MARGIN_TILES,
  handoffTarget,
  neighboursOf,
  regionOfTile,
} from "./layout.js";
import { FRAME_NPC_DIED, FRAME_NPC_HANDOFF, FRAME_NPC_HELD, FrameError, type FrameSink } from "./link-frames.js";

/** The longest creature name a handoff may carry (a kind's name is far shorter). */
const NAME_MAX = 64;

export interface NpcLinkPorts {
  readonly npcs: Pick<NpcRoom, "values" | "release" | "adopt" | "awayDied" | "get" | "foreignDeath">;
  /** Whether entity `id` stands in this region's store (its own or a ghost). */
  readonly hasEntity: (id: number) => boolean;
  /** The ghosts of this region (ghosts.ts): a creature arriving replaces its ghost here. */
  readonly dropGhost: (id: number) => void;
  readonly kindOf: (name: string) => NpcKind | undefined;
  /** The home region of the spawn with map object id `spawnId` (the region of its ground), if the map has it. */
  readonly homeOf: (spawnId: number) => number | undefined;
  /** The combat room: a wounded creature regenerates where it arrives. */
  readonly woundedArrived: (entity: Npc["entity"]) => void;
  readonly layout: ClusterLayout;
  readonly region: number;
  /** This region's link to neighbour `region`, if it is up. */
  readonly linkTo: (region: number) => FrameSink | undefined;
  /** Whether a creature standing on (x, y) is never handed over: in a dungeon level (cluster-levels.ts). Absent: none. */
  readonly staysAt?: (x: number, y: number) => boolean;
}

export interface NpcLinkStats {
  handedOut: number;
  handedIn: number;
  /** Crossings put off, counted at each broadcast tick a creature waits: the target's link down, or the target not linked to its home. */
  held: number;
  /** Creatures of spawns here that died away, as their holders reported. */
  diedAway: number;
  /** Creatures of other regions' spawns that died here, reported (or queued while the home's link is down). */
  diedHere: number;
  /** Creatures away in a region whose link was lost, counted dead at home; creatures of a lost home dropped here. */
  lostWithLinks: number;
  droppedWithHome: number;
  /** A creature arriving under an id taken here (a race with a restarted home): counted as dead. */
  idTaken: number;
}

export class NpcLink {
  readonly stats: NpcLinkStats = {
    handedOut: 0,
    handedIn: 0,
    held: 0,
    diedAway: 0,
    diedHere: 0,
    lostWithLinks: 0,
    droppedWithHome: 0,
    idTaken: 0,
  };
  /** Creatures of spawns here, away: entity id → the region holding it and the hops of that notice. */
  private readonly awayIn = new Map<number, { region: number; hops: number }>();
  /** Creatures of other regions' spawns held here: entity id → the hops it made (its crossings so far). */
  private readonly heldHops = new Map<number, number>();
  /** Deaths not told yet, their home's link being down: home → entity ids. */
  private readonly untold = new Map<number, number[]>();
  /** Each region's neighbours (layout.ts): a creature may cross only to a region linked to its home. */
  private readonly neighbours: Set<number>[];
  /** This tick's creatures past the margin and where each goes (collected first: a release changes the room). */
  private readonly crossing: [Npc, number][] = [];

  constructor(private readonly ports: NpcLinkPorts) {
    const { layout } = ports;
    this.neighbours = Array.from({ length: layout.regionCount }, (_, r) => new Set(neighboursOf(layout, r)));
    ports.npcs.foreignDeath = (npc) => this.diedHere(npc);
  }

  /** Creatures away from spawns here now, for /api/cluster. */
  get away(): number {
    return this.awayIn.size;
  }

  /** Creatures of other regions' spawns held here now. */
  get holding(): number {
    return this.heldHops.size;
  }

  /**
   * After a tick in which creatures moved: hands each one that stands past the margin on a neighbour's
   * ground to it, and tells the homes of deaths that waited for their link. `moved` is told each creature
   * handed on and where (a spectator following it goes with it: spectator-handoff.ts).
   */
  handOff(moved?: (entityId: number, target: number) => void): void {
    const { layout, region } = this.ports;
    this.tellUntold();
    const crossing = this.crossing;
    crossing.length = 0;
    for (const npc of this.ports.npcs.values()) {
      const e = npc.entity;
      if (this.ports.staysAt?.(e.x, e.y) === true) continue;
      const target = handoffTarget(layout, region, e.x, e.y);
      if (target >= 0 && target !== region && e.hp > 0) crossing.push([npc, target]);
    }
    for (const [npc, target] of crossing) {
      const e = npc.entity;
      const home = this.ports.homeOf(npc.spawnId) ?? region;
      const link = this.ports.linkTo(target);
      if (link === undefined || (home !== target && !this.neighbours[target].has(home))) {
        this.stats.held++;
        continue;
      }
      const hops = (this.heldHops.get(e.id) ?? 0) + 1;
      const transfer = this.ports.npcs.release(e.id);
      if (transfer === undefined) continue;
      this.heldHops.delete(e.id);
      if (home === region) this.awayIn.set(e.id, { region: target, hops });
      link.sendJson(FRAME_NPC_HANDOFF, 0, { npc: transfer, hops });
      this.stats.handedOut++;
      moved?.(e.id, target);
    }
    crossing.length = 0;
  }

  /** A FRAME_NPC_HANDOFF from a neighbour: the creature stands here from now on. */
  onHandoff(payload: unknown): void {
    const { npc: transfer, hops } = (payload ?? {}) as { npc?: unknown; hops?: unknown };
    if (!Number.isInteger(hops) || (hops as number) < 1) throw new FrameError("npc handoff: bad hops");
    const t = this.checked(transfer);
    const kind = this.ports.kindOf(t.kind);
    if (kind === undefined) throw new FrameError(`npc handoff: unknown kind ${JSON.stringify(t.kind)}`);
    const home = this.ports.homeOf(t.spawn);
    if (home === undefined) throw new FrameError(`npc handoff: no spawn ${t.spawn} on the map`);
    this.ports.dropGhost(t.id);
    if (this.ports.hasEntity(t.id)) {
      // Taken here (a home restarted and gave the id out again while this one crossed): it cannot stand
      // beside the other, so it is counted dead, and its home's spawn replaces it.
      this.stats.idTaken++;
      this.reportDeath(home, t.id);
      return;
    }
    const npc = this.ports.npcs.adopt(t, kind);
    this.ports.woundedArrived(npc.entity);
    this.stats.handedIn++;
    if (home === this.ports.region) {
      this.awayIn.delete(t.id);
      return;
    }
    this.heldHops.set(t.id, hops as number);
    this.ports.linkTo(home)?.sendJson(FRAME_NPC_HELD, 0, { id: t.id, hops });
  }

  /** A FRAME_NPC_HELD from `from`: a creature of a spawn here is held there now (unless a newer notice said otherwise). */
  onHeld(from: number, payload: unknown): void {
    const { id, hops } = (payload ?? {}) as { id?: unknown; hops?: unknown };
    if (!Number.isInteger(id) || !Number.isInteger(hops)) throw new FrameError("npc held: bad fields");
    const away = this.awayIn.get(id as number);
    if (away === undefined || away.hops >= (hops as number)) return;
    away.region = from;
    away.hops = hops as number;
  }

  /** A FRAME_NPC_DIED: a creature of a spawn here died where it was; the spawn replaces it. */
  onDied(payload: unknown): void {
    const { id } = (payload ?? {}) as { id?: unknown };
    if (!Number.isInteger(id)) throw new FrameError("npc died: bad id");
    if (!this.awayIn.delete(id as number)) return; // settled already (its holder's link was lost)
    if (this.ports.npcs.awayDied(id as number)) this.stats.diedAway++;
  }

  /**
   * This region's link to `lost` is gone (the process died, or is restarting): its creatures of spawns
   * here died with it, and the creatures held here of its spawns go (a restarted home fills its spawns
   * again). Deaths not yet told to it are forgotten for the same reason.
   */
  linkLost(lost: number): void {
    for (const [id, away] of [...this.awayIn]) {
      if (away.region !== lost) continue;
      this.awayIn.delete(id);
      if (this.ports.npcs.awayDied(id)) this.stats.lostWithLinks++;
    }
    for (const id of [...this.heldHops.keys()]) {
      const npc = this.ports.npcs.get(id);
      if (npc === undefined || this.ports.homeOf(npc.spawnId) !== lost) continue;
      this.heldHops.delete(id);
      this.ports.npcs.release(id);
      this.stats.droppedWithHome++;
    }
    this.untold.delete(lost);
  }

  private diedHere(npc: Npc): void {
    const id = npc.entity.id;
    this.heldHops.delete(id);
    const home = this.ports.homeOf(npc.spawnId);
    if (home === undefined || home === this.ports.region) return;
    this.stats.diedHere++;
    this.reportDeath(home, id);
  }

  private reportDeath(home: number, id: number): void {
    const link = this.ports.linkTo(home);
    if (link !== undefined) {
      link.sendJson(FRAME_NPC_DIED, 0, { id });
      return;
    }
    const queue = this.untold.get(home);
    if (queue === undefined) this.untold.set(home, [id]);
    else queue.push(id);
  }

  private tellUntold(): void {
    if (this.untold.size === 0) return;
    for (const [home, ids] of this.untold) {
      const link = this.ports.linkTo(home);
      if (link === undefined) continue;
      for (const id of ids) link.sendJson(FRAME_NPC_DIED, 0, { id });
      this.untold.delete(home);
    }
  }

  /** The transfer a neighbour sent, checked field by field: FrameError for anything else. */
  private checked(value: unknown): NpcTransfer {
    const t = (value ?? {}) as Record<string, unknown>;
    const ints = [
      "id",
      "typeId",
      "x",
      "y",
      "hp",
      "hpMax",
      "elo",
      "flags",
      "spawn",
      "homeX",
      "homeY",
      "energy",
      "state",
      "targetId",
      "calmFor",
    ] as const;
    for (const key of ints) if (!Number.isInteger(t[key])) throw new FrameError(`npc handoff: bad ${key}`);
    const n = t as unknown as NpcTransfer;
    if (typeof n.name !== "string" || n.name.length > NAME_MAX || typeof n.kind !== "string") {
      throw new FrameError("npc handoff: bad name or kind");
    }
    if (n.hp < 1 || n.hp > n.hpMax || n.state < 0 || n.state >= NPC_STATES || n.energy < 0 || n.calmFor < 0) {
      throw new FrameError("npc handoff: a field out of range");
    }
    const { layout, region } = this.ports;
    if (distanceToRegion(layout, region, n.x, n.y) > HANDOFF_MARGIN_TILES) {
      throw new FrameError("npc handoff: the creature does not stand on this region's ground");
    }
    return n;
  }
}

/**
 * The link of region `region`'s game: `spawns` are the map's (every region's: a spawn's home is the
 * region of its ground), `ghosts` the region's ghost table, `linkTo` its links to its neighbours.
 */
export function npcLinkFor(
  game: Pick<RegionGame, "npcs" | "entities" | "combat">,
  kinds: readonly NpcKind[],
  spawns: readonly NpcSpawnSpec[],
  ghosts: GhostTable,
  layout: ClusterLayout,
  region: number,
  linkTo: (region: number) => FrameSink | undefined,
  staysAt?: (x: number, y: number) => boolean,
): NpcLink {
  const homes = new Map(spawns.map((spawn) => [spawn.objectId, regionOfTile(layout, spawn.x, spawn.y)]));
  const kindsByName = new Map(kinds.map((kind) => [kind.name, kind]));
  return new NpcLink({
    npcs: game.npcs,
    hasEntity: (id) => game.entities.get(id) !== undefined,
    dropGhost: (id) => ghosts.drop(id),
    kindOf: (name) => kindsByName.get(name),
    homeOf: (spawnId) => homes.get(spawnId),
    woundedArrived: (entity) => game.combat.woundedArrived(entity),
    layout,
    region,
    linkTo,
    staysAt,
  });
}
