// The combat room: bump to attack, HP, death and respawn, server-authoritative
// and in one place (docs/combat.md).
//
// A step THE movement rule allows into a tile holding a foe (combat-rules.ts:
// a living creature; a living player where PvP holds at both tiles) is an
// attack instead of a move. Players' steps come from the movement window
// (movement.ts), creatures' from the NPC room's entity ticks (npc/); both ask
// `bump` after apply_moves answered, so an attack obeys exactly the rule a
// step obeys — no corner cutting on diagonals, one action per window for a
// player, one per ACTION_COST of energy for a creature — and no new packet or
// action code was needed for it. A flood of ActionPackets cannot attack faster
// than anyone can walk: each window holds one action.
//
// Each blow is resolved by the formula (formula.ts) with the room's seeded
// stream; a hit lowers the defender's hp (which every client sees in its next
// EntityPacket), and the blow is told to the players involved in a
// CombatPacket (protocol/combat.ts) at the end of the tick. At 0 hp:
//  - a creature stays in view as a corpse (hp 0) for CORPSE_SECONDS, then the
//    NPC room removes it and its spawn brings a new one after its respawn time;
//  - a player lies dead for PLAYER_RESPAWN_SECONDS (its actions are ignored),
//    then stands at a spawn point with full HP.
// A kill is an Elo game the killer won (formula.ts: eloAfterKill); a creature's
// rating is its kind's and does not move. A player's kill of a creature is worth
// the kind's experience (experience.ts), and a player's level adds a little to
// its blows. HP regenerates out of combat. Spectators (the onlookers) are told
// the blows near their cameras, as a bystander there would see them; being
// watched changes nothing of a fight.
import {
  CORPSE_SECONDS,
  PLAYER_RESPAWN_SECONDS,
  REGEN_DELAY_SECONDS,
  REGEN_PER_SECOND,
  isFoe,
} from "../../combat-rules.js";
import {
  COMBAT_EVENT_BYTES,
  COMBAT_EVENT_KINDS,
  COMBAT_EVENTS_MAX,
  COMBAT_HEADER_BYTES,
  COMBAT_HIT,
  COMBAT_KILL,
  COMBAT_MISS,
  writeCombatEventFields,
  writeCombatHeader,
} from "../../protocol/combat.js";
import { mulberry32 } from "../../random.js";
import type { Clock } from "../ops/clock.js";
import type { Egress, EgressTarget } from "../edge/egress.js";
import { ENTITY_TYPE_PLAYER, type EntityStore, type StoredEntity } from "../entities/entities.js";
import type { Logger } from "../ops/log.js";
import type { NpcRoom } from "../npc/npc-room.js";
import { killXpOf, type NpcKind, NPC_XP_MAX } from "../content/npc-kinds.js";
import { LEVEL_MAX } from "../../progression.js";
import type { Experience } from "./experience.js";
import { levelOf } from "./experience.js";
import { eloAfterKill, resolveBlow } from "./formula.js";
import type { PvpRule } from "./pvp-rule.js";

/** Damage of a player's bare hands: the weapon TLV's item data replaces it once items exist (issue 14). */
export const UNARMED_DAMAGE = 6;
/** Fields per queued event in a player's outbox: kind, attacker, target, amount, target hp. */
const EVENT_FIELDS = 5;
/** The largest value of each event field as a CombatPacket carries it (protocol/combat.ts): an answer is checked against them. */
const EVENT_FIELD_MAX = [COMBAT_EVENT_KINDS.length - 1, 0xffffffff, 0xffffffff, 0xffff, 0xffff];
/** Events kept per player per tick; more are cosmetic and dropped (counted). */
const OUTBOX_EVENTS_MAX = COMBAT_EVENTS_MAX;
/** Fields per blow kept for the onlookers: an event's five, then the tile the target stands on (x, y). */
export const BLOW_FIELDS = EVENT_FIELDS + 2;
/** Blows kept for the onlookers per tick (a battle of thousands is bounded; beyond, they are not shown). */
const BLOWS_SEEN_MAX = 4096;

/** What combat asks of the item room (ItemRoom.weaponDamage, armorValue, dropLootOf). */
export interface CombatItems {
  /** A player's equipped weapon damage; null: bare hands. */
  weaponDamage(entity: StoredEntity): number | null;
  armorValue(entity: StoredEntity): number;
  /** A creature of kind `typeId` died at (x, y): its loot table rolls, and what falls lies there. */
  /** `killer` (a player, or absent): whose party shares the loot by turns (social/parties.ts). */
  dropLootOf(typeId: number, x: number, y: number, killer?: StoredEntity): void;
}

export interface CombatPorts {
  readonly entities: Pick<EntityStore, "inSquare" | "get" | "move" | "changed">;
  /** The creatures: their kinds (natural weapons), provoking, and removal once a corpse has lain. */
  readonly npcs: Pick<NpcRoom, "get" | "provoke" | "kill">;
  /** The sessions in play: whose client a player's blows go to, and the players that regenerate each second. */
  readonly sessions: {
    byEntityId(entityId: number): (EgressTarget & { readonly entity: StoredEntity }) | undefined;
    values(): Iterable<{ readonly entity: StoredEntity }>;
  };
  /** Where a dead player stands again. */
  readonly spawns: readonly { readonly x: number; readonly y: number }[];
  readonly pvp: PvpRule;
  readonly egress: Egress;
  readonly clock: Pick<Clock, "tick">;
  readonly log: Logger;
  /** The item room (../items/item-room.ts): what players wield, and the loot of the dead. */
  readonly items?: CombatItems;
  /** The content scripts (../scripting/script-room.ts): a creature a player killed (quests count kills). */
  readonly scripts?: { onKill(killer: StoredEntity, victim: StoredEntity): void };
  /** Players' experience (experience.ts): what a kill of a creature is worth goes to its killer. */
  readonly experience?: Pick<Experience, "gain">;
  /** Who watches the fights without a part in them (the spectators, ../spectators/). */
  readonly onlookers?: CombatOnlookers;
}

/** Sessions with no body told the blows near them (../spectators/spectator-room.ts). */
export interface CombatOnlookers {
  /** Whether any watches now: blows are kept for them only then. */
  readonly watching: boolean;
  /** The tick's blows, in the order they fell, BLOW_FIELDS numbers each (EVENT_FIELDS, then x, y). */
  see(tick: number, blows: readonly number[]): void;
}

/**
 * Foes whose authority is another process (a cluster region's ghosts of its neighbour's entities,
 * ts/cluster/strikes.ts): a blow at one is not resolved here but sent to its owner, which resolves it
 * with this same room's rule (`strikeFrom`) and answers with the events for the attacker
 * (`strikeAnswered`). So a blow across a border lands once, where the defender's hp lives.
 */
export interface RemoteCombat {
  isRemote(entity: StoredEntity): boolean;
  /** Sends `attacker`'s blow at the remote `defender`, with the attacker's weapon damage and level as they are here. */
  strike(attacker: StoredEntity, defender: StoredEntity, weapon: number, level: number): void;
}

/** What the owner of a defender answers a remote blow with. */
export interface StrikeOutcome {
  /** The events for the attacker's player: kind, attacker, target, amount, target hp, EVENT_FIELDS each. */
  readonly events: number[];
  /** The attacker's rating after the blow (a kill moves it). */
  readonly attackerElo: number;
  /** The experience the blow earned the attacker (a kill of a creature); absent from an older process: none. */
  readonly xp?: number;
}

/** How far the owner accepts a remote attacker from its defender: adjacent, or one step behind its ghost. */
export const REMOTE_STRIKE_REACH = 2;

export interface CombatOptions {
  /** Seed of the hit rolls: the same seed and the same inputs, the same fight. */
  seed: number;
  tickHz: number;
}

export interface CombatStats {
  attacks: number;
  hits: number;
  misses: number;
  damage: number;
  kills: { players: number; npcs: number };
  respawns: number;
  /** Events beyond a player's per-tick outbox (cosmetic, not sent). */
  eventsDropped: number;
  packetsSent: number;
}

interface DeadPlayer {
  readonly entity: StoredEntity;
  readonly respawnTick: number;
}

interface Corpse {
  readonly entityId: number;
  readonly removeTick: number;
}

export class CombatRoom {
  readonly stats: CombatStats = {
    attacks: 0,
    hits: 0,
    misses: 0,
    damage: 0,
    kills: { players: 0, npcs: 0 },
    respawns: 0,
    eventsDropped: 0,
    packetsSent: 0,
  };
  private readonly random: () => number;
  /** The tick each entity last dealt or took a blow (regeneration waits REGEN_DELAY after it). */
  private readonly lastBlowTick = new Map<number, number>();
  /** Creatures below full hp: the only ones regeneration visits. */
  private readonly woundedNpcs = new Map<number, StoredEntity>();
  /** Dead players in order of death (and so of respawn). */
  private readonly dead: DeadPlayer[] = [];
  private readonly deadIds = new Set<number>();
  private readonly corpses: Corpse[] = [];
  /** Per player entity id: its queued events, EVENT_FIELDS numbers each; reused tick after tick. */
  private readonly outboxes = new Map<number, number[]>();
  /** The player entity ids with events queued this tick. */
  private readonly outboxUsed: number[] = [];
  /** The tick's blows for the onlookers, BLOW_FIELDS numbers each (kept only while someone watches). */
  private readonly seen: number[] = [];
  private readonly scratch: StoredEntity[] = [];
  private respawnCursor = 0;
  /** Blows across a process border (RemoteCombat); null in one process. */
  remote: RemoteCombat | null = null;
  readonly remoteStats = { strikesOut: 0, strikesIn: 0, strikesRefused: 0, answersIn: 0, answersRefused: 0 };
  /** While a remote blow is resolved: the attacker whose events (and experience) are collected for its owner. */
  private capturing: { attackerId: number; events: number[]; xp: number } | null = null;
  private readonly respawnTicks: number;
  private readonly corpseTicks: number;
  private readonly regenDelayTicks: number;

  constructor(
    private readonly ports: CombatPorts,
    private readonly options: CombatOptions,
  ) {
    this.random = mulberry32(options.seed);
    this.respawnTicks = Math.round(PLAYER_RESPAWN_SECONDS * options.tickHz);
    this.corpseTicks = Math.round(CORPSE_SECONDS * options.tickHz);
    this.regenDelayTicks = Math.round(REGEN_DELAY_SECONDS * options.tickHz);
  }

  /** Entities that dealt or took a blow within the regeneration delay: the fights going on. */
  get fighting(): number {
    return this.lastBlowTick.size;
  }

  /** Players lying dead, waiting to respawn. */
  get deadPlayers(): number {
    return this.dead.length;
  }

  /**
   * A creature arrived wounded from another region (a cluster, ts/cluster/npc-link.ts): it regenerates
   * here as it would have there. Its last blow's time stays behind: it starts regenerating at the next round.
   */
  woundedArrived(creature: StoredEntity): void {
    if (creature.hp > 0 && creature.hp < creature.hpMax) this.woundedNpcs.set(creature.id, creature);
  }

  /** Whether `entity` is a dead player: its actions are ignored until it respawns. */
  isDown(entity: StoredEntity): boolean {
    return this.deadIds.has(entity.id);
  }

  /**
   * `attacker`'s step to (x, y), which THE rule allowed, meets a foe there: the step becomes an
   * attack on it and the attacker stays. Returns whether it did (the caller then does not move).
   * The foe is the lowest-id one on the tile, so the choice does not depend on bucket order.
   */
  bump(attacker: StoredEntity, x: number, y: number): boolean {
    const scratch = this.scratch;
    const count = this.ports.entities.inSquare(x, y, 0, scratch, false);
    if (count === 0) return false;
    const byPlayer = attacker.typeId === ENTITY_TYPE_PLAYER;
    const pvpFrom = byPlayer && this.ports.pvp.allowsAt(attacker.x, attacker.y);
    let foe: StoredEntity | null = null;
    for (let i = 0; i < count; i++) {
      const other = scratch[i];
      if (other === attacker || (foe !== null && other.id > foe.id)) continue;
      const otherIsPlayer = other.typeId === ENTITY_TYPE_PLAYER;
      // A creature's foes are players; a player's are creatures, and players where PvP holds at both tiles.
      const hostileTo = byPlayer
        ? isFoe(
            other.typeId,
            other.hp,
            other.flags,
            otherIsPlayer && pvpFrom && this.ports.pvp.allowsAt(other.x, other.y),
          )
        : otherIsPlayer && other.hp > 0;
      if (hostileTo) foe = other;
    }
    if (foe === null) return false;
    if (this.remote?.isRemote(foe) === true) {
      // The blow is the defender's owner's to resolve; the step is spent here all the same.
      this.remoteStats.strikesOut++;
      this.lastBlowTick.set(attacker.id, this.ports.clock.tick);
      this.remote.strike(attacker, foe, this.weaponOf(attacker), levelOf(attacker));
      return true;
    }
    this.attack(attacker, foe);
    return true;
  }

  /**
   * A blow from another process at `defenderId`, owned here: `attacker` is the attacker's ghost here,
   * `weapon` its weapon damage and `level` its level as its owner knows them. Resolved by the rule a blow
   * here obeys (the foe rule, the formula, death), with the reach widened by one step for a ghost a
   * broadcast behind. Returns the attacker's events, rating and experience earned for its owner, or null
   * when the blow cannot land (no such defender here, not a foe now, out of reach), counted.
   */
  strikeFrom(attacker: StoredEntity, defenderId: number, weapon: number, level = 1): StrikeOutcome | null {
    const defender = this.ports.entities.get(defenderId);
    const byPlayer = attacker.typeId === ENTITY_TYPE_PLAYER;
    const defenderIsPlayer = defender?.typeId === ENTITY_TYPE_PLAYER;
    const hostile =
      defender !== undefined &&
      this.remote?.isRemote(defender) !== true &&
      Number.isInteger(weapon) &&
      weapon >= 0 &&
      Number.isInteger(level) &&
      level >= 1 &&
      level <= LEVEL_MAX &&
      Math.max(Math.abs(defender.x - attacker.x), Math.abs(defender.y - attacker.y)) <= REMOTE_STRIKE_REACH &&
      (byPlayer
        ? isFoe(
            defender.typeId,
            defender.hp,
            defender.flags,
            defenderIsPlayer &&
              this.ports.pvp.allowsAt(attacker.x, attacker.y) &&
              this.ports.pvp.allowsAt(defender.x, defender.y),
          )
        : defenderIsPlayer && defender.hp > 0);
    if (!hostile) {
      this.remoteStats.strikesRefused++;
      return null;
    }
    this.remoteStats.strikesIn++;
    const captured = { attackerId: attacker.id, events: [] as number[], xp: 0 };
    this.capturing = captured;
    try {
      this.attack(attacker, defender, weapon, level);
    } finally {
      this.capturing = null;
    }
    return { events: captured.events, attackerElo: attacker.elo, xp: captured.xp };
  }

  /**
   * The owner's answer to a blow `attackerId` (a player or creature here) struck across the border:
   * its events go to the attacker's player as if the blow had been struck here, and a kill's rating and
   * experience are kept. False (nothing changed) when the attacker is not here any more or the answer is
   * malformed.
   */
  strikeAnswered(attackerId: number, outcome: StrikeOutcome): boolean {
    const attacker = this.ports.entities.get(attackerId);
    const { events, attackerElo } = outcome;
    const xp = outcome.xp ?? 0;
    if (
      attacker === undefined ||
      this.remote?.isRemote(attacker) === true ||
      !Array.isArray(events) ||
      events.length % EVENT_FIELDS !== 0 ||
      events.length > OUTBOX_EVENTS_MAX * EVENT_FIELDS ||
      !events.every((n, i) => Number.isInteger(n) && n >= 0 && n <= EVENT_FIELD_MAX[i % EVENT_FIELDS]) ||
      !Number.isInteger(attackerElo) ||
      !(Number.isInteger(xp) && xp >= 0 && xp <= NPC_XP_MAX)
    ) {
      this.remoteStats.answersRefused++;
      return false;
    }
    this.remoteStats.answersIn++;
    this.lastBlowTick.set(attacker.id, this.ports.clock.tick);
    if (attacker.typeId === ENTITY_TYPE_PLAYER) {
      attacker.elo = attackerElo;
      this.ports.entities.changed(attacker);
      for (let f = 0; f < events.length; f += EVENT_FIELDS) {
        this.queueFields(attacker.id, events[f], events[f + 1], events[f + 2], events[f + 3], events[f + 4]);
      }
      if (xp > 0) this.ports.experience?.gain(attacker, xp, "kill");
    }
    return true;
  }

  /** One blow of `attacker` at `defender` (adjacent, by the caller's rule). */
  private attack(
    attacker: StoredEntity,
    defender: StoredEntity,
    weapon = this.weaponOf(attacker),
    level = levelOf(attacker),
  ): void {
    const tick = this.ports.clock.tick;
    const stats = this.stats;
    stats.attacks++;
    const armor = this.armorOf(defender);
    const blow = resolveBlow(attacker.elo, defender.elo, weapon, armor, this.random(), this.random(), level);
    this.lastBlowTick.set(attacker.id, tick);
    this.lastBlowTick.set(defender.id, tick);
    // A creature turns on whoever attacks it (a guard only then); a wanderer just takes it.
    const npc = this.ports.npcs.get(defender.id);
    if (npc !== undefined && attacker.typeId === ENTITY_TYPE_PLAYER && npc.kind.behaviour !== "wander") {
      this.ports.npcs.provoke(defender.id, attacker.id);
    }
    if (!blow.hit) {
      stats.misses++;
      this.tell(COMBAT_MISS, attacker, defender, 0);
      return;
    }
    stats.hits++;
    const damage = Math.min(defender.hp, blow.damage);
    stats.damage += damage;
    defender.hp -= damage;
    this.ports.entities.changed(defender);
    if (npc !== undefined) this.woundedNpcs.set(defender.id, defender);
    this.tell(COMBAT_HIT, attacker, defender, blow.damage);
    if (defender.hp === 0) this.die(defender, attacker, npc?.kind);
  }

  /** `victim` fell to `killer`'s blow; `victimKind` is its kind when it is a creature. */
  private die(victim: StoredEntity, killer: StoredEntity, victimKind: NpcKind | undefined): void {
    const victimIsNpc = victimKind !== undefined;
    const tick = this.ports.clock.tick;
    const killerIsPlayer = killer.typeId === ENTITY_TYPE_PLAYER;
    const rated = eloAfterKill(killer.elo, victim.elo);
    // Only players' ratings move: a creature's is its kind's, and its next life starts from it.
    const gain = killerIsPlayer ? rated.killer - killer.elo : victim.elo - rated.victim;
    if (killerIsPlayer) killer.elo = rated.killer;
    if (!victimIsNpc) victim.elo = rated.victim;
    this.ports.entities.changed(killer);
    this.ports.entities.changed(victim);
    this.tell(COMBAT_KILL, killer, victim, Math.max(0, gain));
    if (victimIsNpc) {
      this.stats.kills.npcs++;
      this.ports.items?.dropLootOf(victim.typeId, victim.x, victim.y, killerIsPlayer ? killer : undefined);
      if (killerIsPlayer) {
        // Experience is the killer's owner's to give: a remote attacker's goes back with its events.
        const xp = killXpOf(victimKind);
        if (this.capturing !== null && killer.id === this.capturing.attackerId) this.capturing.xp += xp;
        else this.ports.experience?.gain(killer, xp, "kill");
        this.ports.scripts?.onKill(killer, victim);
      }
      this.woundedNpcs.delete(victim.id);
      this.corpses.push({ entityId: victim.id, removeTick: tick + this.corpseTicks });
    } else {
      this.stats.kills.players++;
      this.dead.push({ entity: victim, respawnTick: tick + this.respawnTicks });
      this.deadIds.add(victim.id);
      this.ports.log.info("player died", { entityId: victim.id, killer: killer.id, elo: victim.elo });
    }
  }

  /**
   * End of a tick: corpses lain long enough are removed (their spawns bring new ones), dead
   * players whose time is up stand again, HP regenerates once a second, and the tick's blows go to
   * the players who took part in them.
   */
  endTick(tick: number): void {
    const corpses = this.corpses;
    let removed = 0;
    while (removed < corpses.length && corpses[removed].removeTick <= tick) {
      this.ports.npcs.kill(corpses[removed].entityId);
      this.lastBlowTick.delete(corpses[removed].entityId);
      removed++;
    }
    if (removed > 0) corpses.splice(0, removed);
    const dead = this.dead;
    let risen = 0;
    while (risen < dead.length && dead[risen].respawnTick <= tick) this.respawn(dead[risen++].entity);
    if (risen > 0) dead.splice(0, risen);
    if (tick % this.options.tickHz === 0) this.regenerate(tick);
    this.flush(tick);
  }

  /**
   * A player adopted from another process (a handoff, a region's checkpoint) dead — it died there, or in the
   * second before its region was killed — lies dead here a whole respawn delay and stands up at a spawn. Its
   * death was that process's: before, no process counted it dead, and it never stood up (the chaos run's
   * players with hp 0 to its end).
   */
  adoptedDead(entity: StoredEntity, tick: number): void {
    if (entity.hp > 0 || this.deadIds.has(entity.id)) return;
    // Every entry waits respawnTicks from a tick no later than this one: the list stays in respawn order.
    this.dead.push({ entity, respawnTick: tick + this.respawnTicks });
    this.deadIds.add(entity.id);
  }

  private respawn(entity: StoredEntity): void {
    this.deadIds.delete(entity.id);
    // A player who left while dead is gone from the store: nothing to stand up (its saved hp 0 respawns it at login).
    if (this.ports.entities.get(entity.id) !== entity) return;
    const spawns = this.ports.spawns;
    const spot = spawns[this.respawnCursor++ % spawns.length];
    this.ports.entities.move(entity, spot.x, spot.y);
    entity.hp = entity.hpMax;
    this.ports.entities.changed(entity);
    this.lastBlowTick.delete(entity.id);
    this.stats.respawns++;
    this.ports.log.info("player respawned", { entityId: entity.id, x: spot.x, y: spot.y });
  }

  /** Once a second: everyone alive, wounded and out of combat for REGEN_DELAY regains a little. */
  private regenerate(tick: number): void {
    // A blow older than the delay no longer holds anything back: forgetting it keeps the map to the
    // entities fighting now (a player who left mid-fight leaves no entry behind).
    for (const [id, last] of this.lastBlowTick) if (tick - last >= this.regenDelayTicks) this.lastBlowTick.delete(id);
    for (const { entity: player } of this.ports.sessions.values()) {
      if (player.hp > 0 && player.hp < player.hpMax) this.regenerateOne(player, tick);
    }
    for (const [id, npc] of this.woundedNpcs) {
      if (this.ports.entities.get(id) !== npc || npc.hp === 0) {
        this.woundedNpcs.delete(id);
        continue;
      }
      if (this.regenerateOne(npc, tick)) this.woundedNpcs.delete(id);
    }
  }

  /** Regenerates one entity if it is out of combat; returns whether it is at full hp. */
  private regenerateOne(entity: StoredEntity, tick: number): boolean {
    const last = this.lastBlowTick.get(entity.id);
    if (last !== undefined && tick - last < this.regenDelayTicks) return false;
    entity.hp = Math.min(entity.hpMax, entity.hp + Math.max(1, Math.round(entity.hpMax * REGEN_PER_SECOND)));
    this.ports.entities.changed(entity);
    if (entity.hp === entity.hpMax) this.lastBlowTick.delete(entity.id);
    return entity.hp === entity.hpMax;
  }

  private weaponOf(entity: StoredEntity): number {
    if (entity.typeId === ENTITY_TYPE_PLAYER) return this.ports.items?.weaponDamage(entity) ?? UNARMED_DAMAGE;
    return this.ports.npcs.get(entity.id)?.kind.attack ?? 0;
  }

  private armorOf(entity: StoredEntity): number {
    if (entity.typeId === ENTITY_TYPE_PLAYER) return this.ports.items?.armorValue(entity) ?? 0;
    return this.ports.npcs.get(entity.id)?.kind.armor ?? 0;
  }

  /** Queues an event for each player who took part (attacker, target), and keeps it for the onlookers. */
  private tell(kind: number, attacker: StoredEntity, target: StoredEntity, amount: number): void {
    if (attacker.typeId === ENTITY_TYPE_PLAYER) this.queue(attacker.id, kind, attacker, target, amount);
    if (target.typeId === ENTITY_TYPE_PLAYER && target !== attacker)
      this.queue(target.id, kind, attacker, target, amount);
    if (this.ports.onlookers?.watching === true && this.seen.length < BLOWS_SEEN_MAX * BLOW_FIELDS) {
      this.seen.push(kind, attacker.id, target.id, Math.min(0xffff, amount), target.hp, target.x, target.y);
    }
  }

  private queue(playerId: number, kind: number, attacker: StoredEntity, target: StoredEntity, amount: number): void {
    const fields = [kind, attacker.id, target.id, Math.min(0xffff, amount), target.hp] as const;
    if (this.capturing !== null && playerId === this.capturing.attackerId) {
      // A remote attacker's events: its owner tells its player.
      this.capturing.events.push(...fields);
      return;
    }
    this.queueFields(playerId, ...fields);
  }

  private queueFields(
    playerId: number,
    kind: number,
    attackerId: number,
    targetId: number,
    amount: number,
    targetHp: number,
  ): void {
    let box = this.outboxes.get(playerId);
    if (box === undefined) {
      box = [];
      this.outboxes.set(playerId, box);
    }
    if (box.length === 0) this.outboxUsed.push(playerId);
    if (box.length >= OUTBOX_EVENTS_MAX * EVENT_FIELDS) {
      this.stats.eventsDropped++;
      return;
    }
    box.push(kind, attackerId, targetId, amount, targetHp);
  }

  /** One CombatPacket per player with events this tick, written into the outbound slab; the onlookers' blows. */
  private flush(tick: number): void {
    const seen = this.seen;
    if (seen.length > 0) {
      this.ports.onlookers?.see(tick, seen);
      seen.length = 0;
    }
    const used = this.outboxUsed;
    if (used.length === 0) return;
    const { egress, sessions, entities } = this.ports;
    for (let u = 0; u < used.length; u++) {
      const playerId = used[u];
      const box = this.outboxes.get(playerId)!;
      const session = sessions.byEntityId(playerId);
      if (session !== undefined && session.peer !== null && box.length > 0) {
        sendCombatEvents(egress, session, tick, box, EVENT_FIELDS, box.length / EVENT_FIELDS);
        this.stats.packetsSent++;
      }
      box.length = 0;
      // A player gone from play keeps no outbox.
      if (entities.get(playerId) === undefined) this.outboxes.delete(playerId);
    }
    used.length = 0;
  }
}

/**
 * Sends `session` one CombatPacket of `tick` holding `count` events (1 … COMBAT_EVENTS_MAX) taken from
 * `fields`, `stride` numbers apart, each starting with an event's five (kind, attacker, target, amount,
 * target hp), written into the outbound slab.
 */
export function sendCombatEvents(
  egress: Egress,
  session: EgressTarget,
  tick: number,
  fields: readonly number[],
  stride: number,
  count: number,
): void {
  const size = COMBAT_HEADER_BYTES + count * COMBAT_EVENT_BYTES;
  const slab = egress.slab;
  slab.reserve(size);
  writeCombatHeader(slab.bytes, slab.at, 0, tick, count);
  let at = slab.at + COMBAT_HEADER_BYTES;
  for (let f = 0, e = 0; e < count; f += stride, e++, at += COMBAT_EVENT_BYTES) {
    writeCombatEventFields(slab.bytes, at, fields[f], fields[f + 1], fields[f + 2], fields[f + 3], fields[f + 4]);
  }
  egress.sendWritten(session, size);
}
