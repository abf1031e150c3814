// Experience and levels (issue 39; docs/combat.md § Experience and levels): what a player's experience
// makes of it. The rules are ts/progression.ts's; this applies them to a player entity — its hp max, the
// `level` TLV every client in view reads over its head — and tells the player its own progress (the
// `progress` TLV of its own EntityDetail, pushed after every gain as the bag and the quests are).
//
// Experience comes from a kill of a creature (the combat room, with the kind's worth), a quest handed in
// and a script's grant (the scripting room). A player's kill of a player is worth none: the rating is
// what a fight between players moves. Nothing here draws a random number or reads a clock.
import { addXp, hpMaxAtLevel, levelForXp, nextLevelXp, xpForLevel } from "../../progression.js";
import type { Tlv } from "../../protocol/tlv.js";
import { ENTITY_TYPE_PLAYER, type Entity, type EntityStore, type StoredEntity } from "../entities/entities.js";
import type { Logger } from "../ops/log.js";
import type { Session } from "../sessions/session.js";

/** The level of `entity`: a player's follows its experience; anything else fights at level 1. */
export function levelOf(entity: Pick<Entity, "typeId" | "xp">): number {
  return entity.typeId === ENTITY_TYPE_PLAYER ? levelForXp(entity.xp) : 1;
}

/**
 * Makes a player entity what its experience says: its hp max the level's (hp raised by as much as the
 * max grew while it lives, and never above it), and its `level` TLV in its meta (replaced, never changed
 * in place: the broadcast re-encodes meta by identity). Returns whether anything changed; the caller
 * tells the entity store.
 */
export function applyLevel(entity: Entity): boolean {
  const level = levelForXp(entity.xp);
  const hpMax = hpMaxAtLevel(level);
  const shown = entity.meta.find((tlv) => tlv.kind === "level");
  if (entity.hpMax === hpMax && shown?.kind === "level" && shown.value === level) return false;
  if (entity.hp > 0) entity.hp = Math.min(hpMax, entity.hp + Math.max(0, hpMax - entity.hpMax));
  entity.hpMax = hpMax;
  const levelTlv: Tlv = { kind: "level", value: level };
  entity.meta =
    shown === undefined
      ? [...entity.meta, levelTlv]
      : entity.meta.map((tlv) => (tlv.kind === "level" ? levelTlv : tlv));
  return true;
}

/** The `progress` TLV of a player holding `xp`: all of it, where its level began, where the next begins. */
export function progressTlv(xp: number): Tlv {
  const level = levelForXp(xp);
  return { kind: "progress", xp, levelXp: xpForLevel(level), nextXp: nextLevelXp(level) };
}

export interface ExperiencePorts {
  readonly entities: Pick<EntityStore, "changed">;
  /** Whose player gained: its own detail goes to its session. */
  readonly sessions: { byEntityId(entityId: number): Session | undefined };
  /** The player's own EntityDetail again (with its progress), as after a bag or quest change. */
  readonly details: { send(session: Session, entity: StoredEntity): void };
  readonly log: Logger;
}

export interface ExperienceStats {
  /** Gains made, the experience they gave, and the levels they reached. */
  gains: number;
  xp: number;
  levelUps: number;
}

export class Experience {
  readonly stats: ExperienceStats = { gains: 0, xp: 0, levelUps: 0 };

  constructor(private readonly ports: ExperiencePorts) {}

  /**
   * `player` gains `amount` experience (a whole number ≥ 0; nothing for a creature or a ghost of another
   * process's player): its level and hp max follow, and its client is told its progress. Returns the
   * experience it gained (0 at XP_MAX).
   */
  gain(player: StoredEntity, amount: number, why: string): number {
    // Only a player in play here: a creature has no experience, and a ghost's is its own process's.
    const session = this.ports.sessions.byEntityId(player.id);
    if (session === undefined || session.entity !== player || !(amount > 0)) return 0;
    const before = player.xp;
    player.xp = addXp(before, amount);
    const gained = player.xp - before;
    if (gained === 0) return 0;
    this.stats.gains++;
    this.stats.xp += gained;
    const levelBefore = levelForXp(before);
    if (applyLevel(player)) this.ports.entities.changed(player);
    const level = levelForXp(player.xp);
    if (level > levelBefore) {
      this.stats.levelUps += level - levelBefore;
      this.ports.log.info("player reached a level", { entityId: player.id, level, xp: player.xp, why });
    }
    this.ports.details.send(session, player);
    return gained;
  }

  /** The `progress` TLV of `session`'s own EntityDetail. */
  detailTlv(session: Session, entity: StoredEntity): Tlv | null {
    return entity === session.entity ? progressTlv(entity.xp) : null;
  }
}
