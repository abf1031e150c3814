// Where the quest givers stand, for the minimap (issue 38: "markers over quest givers' heads and on the
// minimap"). The server says which creature kinds have a quest for this player (the `quest_marks` of the
// own EntityDetail, quests.ts) but places creatures only in view, so the page remembers where it last saw
// each creature of a giving kind — givers mostly stand at their post — and the minimap draws the mark of
// its kind as it is now: a giver seen once still shows "a quest to hand in" when the player comes back
// with the goal met, from the other end of the cave.
import { MARK_HAND_IN, MARK_OFFER } from "./quests.js";

/** Givers remembered at most (the oldest seen is forgotten first). */
export const QUEST_GIVERS_MAX = 64;

/** One remembered giver and the mark its kind has now. */
export interface GiverMark {
  readonly entityId: number;
  readonly x: number;
  readonly y: number;
  readonly mark: typeof MARK_OFFER | typeof MARK_HAND_IN;
}

export class QuestGivers {
  /** Entity id → its kind and where it was last seen (Map order: least recently seen first). */
  private readonly seen = new Map<number, { typeId: number; x: number; y: number }>();
  /** Kinds that have had a mark for this player: their creatures are remembered. */
  private readonly givingKinds = new Set<number>();

  /** Looks at the entities in view: remembers (or moves) each creature of a kind that gives quests. */
  observe(
    entities: Iterable<{ id: number; typeId: number; x: number; y: number }>,
    markOf: (typeId: number) => number,
  ): boolean {
    let changed = false;
    for (const entity of entities) {
      if (markOf(entity.typeId) !== 0) this.givingKinds.add(entity.typeId);
      if (!this.givingKinds.has(entity.typeId)) continue;
      const known = this.seen.get(entity.id);
      if (known?.x === entity.x && known.y === entity.y && known.typeId === entity.typeId) continue;
      this.seen.delete(entity.id);
      if (this.seen.size >= QUEST_GIVERS_MAX) this.seen.delete(this.seen.keys().next().value as number);
      this.seen.set(entity.id, { typeId: entity.typeId, x: entity.x, y: entity.y });
      changed = true;
    }
    return changed;
  }

  /** The remembered givers whose kind has a mark now, with that mark. */
  marks(markOf: (typeId: number) => number): GiverMark[] {
    const marks: GiverMark[] = [];
    for (const [entityId, giver] of this.seen) {
      const mark = markOf(giver.typeId);
      if (mark === MARK_OFFER || mark === MARK_HAND_IN) marks.push({ entityId, x: giver.x, y: giver.y, mark });
    }
    return marks;
  }

  /** Forgets everything (a new session: other entity ids). */
  reset(): void {
    this.seen.clear();
    this.givingKinds.clear();
  }
}
