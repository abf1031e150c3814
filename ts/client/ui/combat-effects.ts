// Floating damage numbers and hit flashes (issue 13), as bookkeeping the frame
// reads: which number floats over which entity since when, and which sprite
// flashes. Two sources feed it:
//  - the CombatFeed's notices, for the blows this player took part in (they
//    name the amount and tell a miss, which hp cannot);
//  - the hp drops between entity updates, for every other fight in view (the
//    server tells a blow only to those in it; hp is in everyone's updates).
// A blow must float once, whichever source tells it first: a notice marks its
// target's hp as explained down to target_hp, so the update that shows that
// drop adds nothing; a drop shown from an update (its notice lost, or late)
// marks it shown, so a late notice for it adds no second number. Notices are
// cosmetic and may be lost (docs/protocol.md § CombatPacket): then the drop
// still floats, from the updates. Bounded: at most FLOATERS_MAX numbers live.
import type { CombatNotice } from "../core/combat.js";
import * as P from "../render/palette.js";

/** How long a number floats, and how far it rises meanwhile. */
export const FLOAT_MS = 900;
export const FLOAT_RISE_PX = 10;
/** How long a struck sprite is drawn in the flash colour. */
export const FLASH_MS = 150;
/** Numbers alive at once; the oldest give way (a big fight in view stays readable and bounded). */
export const FLOATERS_MAX = 48;
/** How long a mark (explained by a notice, shown from an update) waits for the other source. */
export const MATCH_MS = 1500;

export interface Floater {
  readonly entityId: number;
  readonly text: string;
  readonly colour: number;
  readonly bornMs: number;
}

interface HpMark {
  hp: number;
  untilMs: number;
}

/** The slice of an entity the effects read. */
export interface HpEntity {
  readonly hp: number;
  readonly hpMax: number;
}

export class CombatEffects {
  private readonly live: Floater[] = [];
  private readonly flashUntil = new Map<number, number>();
  private readonly lastHp = new Map<number, number>();
  /** Notices seen whose drop no update has shown yet: the lowest target_hp they reached. */
  private readonly explained = new Map<number, HpMark>();
  /** Drops shown from updates: a notice arriving later for them is not shown again. */
  private readonly shown = new Map<number, HpMark>();
  /** Numbers floated since the start (the debug overlay shows it; tests read it). */
  floated = 0;

  /** A blow this player took part in (CombatFeed.listen). */
  notice(notice: CombatNotice, ownId: number, nowMs: number): void {
    const target = notice.targetId;
    if (notice.kind === "miss") {
      this.float(target, "miss", P.COMBAT_MISS, nowMs);
      return;
    }
    if (notice.kind !== "hit") return;
    const shown = this.shown.get(target);
    if (shown !== undefined && shown.untilMs >= nowMs && shown.hp <= notice.targetHp) return;
    const mark = this.explained.get(target);
    const hp = mark !== undefined && mark.untilMs >= nowMs ? Math.min(mark.hp, notice.targetHp) : notice.targetHp;
    this.explained.set(target, { hp, untilMs: nowMs + MATCH_MS });
    const colour = target === ownId ? P.COMBAT_TAKEN : notice.attackerId === ownId ? P.COMBAT_DEALT : P.COMBAT_OTHER;
    this.float(target, String(notice.amount), colour, nowMs);
    this.flashUntil.set(target, nowMs + FLASH_MS);
  }

  /** A new entity update was adopted: each hp drop no notice explained floats. */
  observe(entities: ReadonlyMap<number, HpEntity>, ownId: number, nowMs: number): void {
    for (const [id, entity] of entities) {
      const previous = this.lastHp.get(id);
      this.lastHp.set(id, entity.hp);
      if (previous === undefined || entity.hp >= previous) continue;
      const mark = this.explained.get(id);
      const live = mark !== undefined && mark.untilMs >= nowMs;
      // Notices took it down to mark.hp: only what lies below that (and below the last update) is news.
      const from = live ? Math.min(previous, mark.hp) : previous;
      if (live && entity.hp <= mark.hp) this.explained.delete(id);
      const drop = from - entity.hp;
      if (drop <= 0) continue;
      this.shown.set(id, { hp: entity.hp, untilMs: nowMs + MATCH_MS });
      this.float(id, String(drop), id === ownId ? P.COMBAT_TAKEN : P.COMBAT_OTHER, nowMs);
      this.flashUntil.set(id, nowMs + FLASH_MS);
    }
    for (const id of this.lastHp.keys()) {
      if (entities.has(id)) continue;
      this.lastHp.delete(id);
      this.explained.delete(id);
      this.shown.delete(id);
      this.flashUntil.delete(id);
    }
  }

  /** The numbers floating at `nowMs`, oldest first (expired ones are dropped here). */
  floaters(nowMs: number): readonly Floater[] {
    let expired = 0;
    while (expired < this.live.length && nowMs - this.live[expired].bornMs >= FLOAT_MS) expired++;
    if (expired > 0) this.live.splice(0, expired);
    return this.live;
  }

  /** Whether entity `id` is drawn in the flash colour at `nowMs`. */
  flashing(id: number, nowMs: number): boolean {
    const until = this.flashUntil.get(id);
    return until !== undefined && nowMs < until;
  }

  /** A new session sees the world afresh. */
  reset(): void {
    this.live.length = 0;
    this.flashUntil.clear();
    this.lastHp.clear();
    this.explained.clear();
    this.shown.clear();
  }

  private float(entityId: number, text: string, colour: number, nowMs: number): void {
    this.floated++;
    this.live.push({ entityId, text, colour, bornMs: nowMs });
    if (this.live.length > FLOATERS_MAX) this.live.splice(0, this.live.length - FLOATERS_MAX);
  }
}

/** How far above its entity a number born at `bornMs` is drawn at `nowMs`, in pixels. */
export function floaterRisePx(bornMs: number, nowMs: number): number {
  const progress = Math.min(1, Math.max(0, (nowMs - bornMs) / FLOAT_MS));
  return Math.round(progress * FLOAT_RISE_PX);
}
