// Quests on the client (issue 38; docs/client.md § Quests): the player's quest log and the creatures
// with something for it, as the server last said in the player's own EntityDetail — the `quests` TLV
// (state and progress by quest number, and the version of the texts it refers to) and `quest_marks`
// (which kinds have a quest to take or hand in). Nothing here is predicted: the server decides, and
// pushes the own detail after every change. The texts come from GET /api/quests; `wantedCatalogue`
// says which version the log refers to, so the host fetches it when it holds another.
import type { EntityDetailView } from "../../protocol/entity-detail.js";
import { decodeTlvs, type QuestEntry, type QuestMark } from "../../protocol/tlv.js";

/** A quest's text as GET /api/quests serves it. */
export interface QuestText {
  readonly number: number;
  readonly id: string;
  readonly title: string;
  readonly text: string;
  readonly goal: number;
  /** What handing it in gives (absent from an older server). */
  readonly reward?: { readonly items: readonly { item: string; count: number }[]; readonly xp: number };
}

/** One line of the quest log: where the player stands, and the quest's words once known. */
export interface QuestLine extends QuestEntry {
  readonly title: string;
  readonly text: string;
  /** "Reward: 15 gold coin, 1 healing potion, 40 xp", or "" when it gives nothing (or is not known). */
  readonly reward: string;
}

/** The reward's words in the quest log. */
export function rewardWords(reward: QuestText["reward"]): string {
  if (reward === undefined) return "";
  const parts = reward.items.map(({ item, count }) => `${count} ${item}`);
  if (reward.xp > 0) parts.push(`${reward.xp} xp`);
  return parts.length > 0 ? `Reward: ${parts.join(", ")}` : "";
}

export const QUEST_ACTIVE = 1;
export const QUEST_READY = 2;
export const QUEST_DONE = 3;
/** Marks: a quest to take, a quest to hand in. */
export const MARK_OFFER = 1;
export const MARK_HAND_IN = 2;

export class QuestLog {
  private entries: readonly QuestEntry[] = [];
  private marksByType = new Map<number, number>();
  private texts = new Map<number, QuestText>();
  private textsVersion = -1;
  /** The catalogue version the newest quests TLV names (0: none seen). */
  private version = 0;
  /** Bumped on every change, so a host redraws only when it moved. */
  revision = 0;

  /** The player's own detail arrived: its quests and marks replace the ones held. */
  receiveOwnDetail(view: EntityDetailView): void {
    let quests: readonly QuestEntry[] | null = null;
    let marks: readonly QuestMark[] = [];
    for (const tlv of decodeTlvs(view.bytes, view.metaStart, view.metaEnd)) {
      if (tlv.kind === "quests") {
        quests = tlv.quests;
        this.version = tlv.catalogueVersion;
      } else if (tlv.kind === "quest_marks") marks = tlv.marks;
    }
    // A detail without a quests TLV is of a world without quests: nothing to show.
    this.entries = quests ?? [];
    this.marksByType = new Map(marks.map((mark) => [mark.typeId, mark.mark]));
    this.revision++;
  }

  /** The texts' version to fetch (GET /api/quests), or null when the ones held are current. */
  get wantedCatalogue(): number | null {
    return this.version !== 0 && this.version !== this.textsVersion ? this.version : null;
  }

  /** GET /api/quests answered. */
  receiveCatalogue(catalogue: { version: number; quests: readonly QuestText[] }): void {
    this.textsVersion = catalogue.version;
    this.texts = new Map(catalogue.quests.map((quest) => [quest.number, quest]));
    this.revision++;
  }

  /** The quest log: active and ready quests first, then those done, each with its words. */
  get lines(): QuestLine[] {
    return [...this.entries]
      .sort((a, b) => (a.state === QUEST_DONE ? 1 : 0) - (b.state === QUEST_DONE ? 1 : 0) || a.quest - b.quest)
      .map((entry) => {
        const text = this.texts.get(entry.quest);
        return {
          ...entry,
          title: text?.title ?? `Quest ${entry.quest}`,
          text: text?.text ?? "",
          reward: rewardWords(text?.reward),
        };
      });
  }

  /** The mark over creatures of type `typeId` for this player: MARK_OFFER, MARK_HAND_IN, or 0. */
  markOf(typeId: number): number {
    return this.marksByType.get(typeId) ?? 0;
  }

  /** A new session began: nothing is known of its quests yet. */
  reset(): void {
    this.entries = [];
    this.marksByType = new Map();
    this.version = 0;
    this.revision++;
  }
}
