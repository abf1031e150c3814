// Attacks across a border (docs/scaling.md § Attacks across a border): a bump onto a ghost — a
// neighbour's entity seen here — is a blow at an entity whose hp lives in the neighbour. It is not
// resolved here: the combat room hands it to `strike`, which sends it on this region's link to the
// owner (FRAME_STRIKE). The owner resolves it with its own combat room and the same rule as any blow
// (CombatRoom.strikeFrom: foe rule, formula, death) against the attacker's ghost there — with the
// attacker's weapon damage and level as its own region knows them — and answers on its link back
// (FRAME_STRIKE_ANSWER) with the attacker's events, rating and the experience a kill earned it, which
// this region's room tells and gives the attacker's player (CombatRoom.strikeAnswered). One frame each way on ordered links, each
// handled once: the blow lands once. A creature provoked across the border chases the attacker's
// ghost, and its own bumps come back the same way.
import type { CombatRoom, RemoteCombat, StrikeOutcome } from "../server/combat/combat-room.js";
import type { GhostTable } from "./ghosts.js";
import { FRAME_STRIKE, FRAME_STRIKE_ANSWER, FrameError, type FrameSink } from "./link-frames.js";

export interface StrikeStats {
  sent: number;
  /** Blows at a ghost whose owner had no link from here (not landed). */
  unsent: number;
  resolved: number;
  refused: number;
  answered: number;
  /** Answers for an attacker no longer here (handed off meanwhile) or malformed. */
  answersDropped: number;
}

export class StrikeLink implements RemoteCombat {
  readonly stats: StrikeStats = { sent: 0, unsent: 0, resolved: 0, refused: 0, answered: 0, answersDropped: 0 };

  constructor(
    private readonly combat: CombatRoom,
    private readonly ghosts: GhostTable,
    /** This region's link to neighbour `region`, if it is up. */
    private readonly linkTo: (region: number) => FrameSink | undefined,
  ) {
    combat.remote = this;
  }

  isRemote(entity: { id: number }): boolean {
    return this.ghosts.isGhost(entity.id);
  }

  strike(attacker: { id: number }, defender: { id: number }, weapon: number, level: number): void {
    const owner = this.ghosts.ownerOf(defender.id);
    const link = owner === null ? undefined : this.linkTo(owner);
    if (link === undefined) {
      this.stats.unsent++;
      return;
    }
    this.stats.sent++;
    link.sendJson(FRAME_STRIKE, 0, { attacker: attacker.id, target: defender.id, weapon, level });
  }

  /** A FRAME_STRIKE from neighbour `from`: resolved here if its attacker is that neighbour's ghost here. */
  onStrike(from: number, payload: unknown): void {
    const fields = (payload ?? {}) as { attacker?: unknown; target?: unknown; weapon?: unknown; level?: unknown };
    const { attacker, target, weapon } = fields;
    // An older process sends no level: its attackers fought at level 1.
    const level = fields.level ?? 1;
    if (![attacker, target, weapon, level].every((n) => Number.isInteger(n))) {
      throw new FrameError("strike: bad fields");
    }
    const ghost = this.ghosts.ownerOf(attacker as number) === from ? this.ghosts.get(attacker as number) : undefined;
    const outcome =
      ghost === undefined ? null : this.combat.strikeFrom(ghost, target as number, weapon as number, level as number);
    if (outcome === null) {
      this.stats.refused++;
      return;
    }
    this.stats.resolved++;
    const link = this.linkTo(from);
    if (link === undefined) return; // the blow landed; its report to the attacker is lost with the link
    link.sendJson(FRAME_STRIKE_ANSWER, 0, { attacker, ...outcome });
  }

  /** A FRAME_STRIKE_ANSWER: the attacker's events, for its player here. */
  onAnswer(payload: unknown): void {
    const { attacker, events, attackerElo, xp } = (payload ?? {}) as { attacker?: unknown } & Partial<StrikeOutcome>;
    if (!Number.isInteger(attacker)) throw new FrameError("strike answer: bad attacker");
    const ok = this.combat.strikeAnswered(attacker as number, {
      events: events as number[],
      attackerElo: attackerElo as number,
      ...(xp !== undefined ? { xp } : {}),
    });
    if (ok) this.stats.answered++;
    else this.stats.answersDropped++;
  }
}
