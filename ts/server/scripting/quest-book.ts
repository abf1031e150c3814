// Quests (docs/content.md § Quests): what the scripts define — an id, a title, what to do, a goal count,
// who gives it, what it needs done first, the reward — and where each player stands in each: not started,
// active (progress toward the goal), ready (the goal reached: hand it in to the giver), done. An account's
// quests are written to the store in the turn they change, before the player is told (a restart loses no
// step); a guest's live as long as its session. What the client sees: the `quests` TLV in the player's own
// EntityDetail (state and progress by quest number) and `quest_marks` (which kinds have something for it),
// with the texts at GET /api/quests (docs/protocol.md § 18.7).
import type { QuestMark, QuestEntry } from "../../protocol/tlv.js";
import type { QuestRecord, QuestState, QuestStorePort } from "../persistence/quest-store.js";
import type { Session } from "../sessions/session.js";

/** The most quests a world defines (the `quests` TLV carries at most this many of one player). */
export const MAX_QUESTS = 32;
/** The largest goal count of a quest. */
export const MAX_QUEST_GOAL = 10_000;

export interface QuestDefinition {
  /** The script's name for it ("rat_cull"): letters, digits, "_", at most 32. */
  readonly id: string;
  /** Its number on the wire (the order definitions came in, from 1). */
  readonly number: number;
  readonly title: string;
  /** What to do, as the quest log says it. */
  readonly text: string;
  /** How many of what it asks (kills, items): progress counts up to it. */
  readonly goal: number;
  /** The kind (by name) that gives it and takes it back; null when no creature does. */
  readonly giver: string | null;
  /** Quests that must be done before this one is offered. */
  readonly requires: readonly string[];
  /** The file that defined it. */
  readonly file: string;
}

/** Where one player stands in one quest. */
export interface QuestStanding {
  readonly state: QuestState | "none";
  readonly progress: number;
  readonly goal: number;
}

/** Client marks over a giver: 1 a quest to take, 2 a quest to hand in. */
export const MARK_OFFER = 1;
export const MARK_HAND_IN = 2;

export class QuestBook {
  private readonly definitions = new Map<string, QuestDefinition>();
  /** Bumped whenever the definitions change (a reload): the client fetches the texts again. */
  catalogueVersion = 1;
  /** Each player's working standing: what the next step builds on (scripts read it). */
  private readonly players = new WeakMap<Session, Map<string, QuestRecord>>();
  /**
   * Each player's told standing: what is written (an account's, in the store) and so what the client may
   * see. A shared store (a cluster's) answers a turn or more later; until then the working standing is
   * ahead of this one, and a detail sent meanwhile for another reason shows the last written step.
   */
  private readonly told = new WeakMap<Session, Map<string, { record: QuestRecord; write: number }>>();
  /** Numbers the writes, so a write answered late never hides a newer one already told. */
  private writes = 0;

  constructor(
    private readonly store: QuestStorePort | null,
    /** Told when a player's standing in quest `id` changed: its detail goes out again, scripts hear of it. */
    private readonly changed: (session: Session, id: string) => void,
  ) {}

  /** Replaces every definition (the scripts were (re)loaded); each keeps its number if it keeps its id. */
  define(definitions: readonly Omit<QuestDefinition, "number">[]): void {
    const before = new Map(this.definitions);
    this.definitions.clear();
    let next = Math.max(0, ...[...before.values()].map((quest) => quest.number)) + 1;
    for (const definition of definitions.slice(0, MAX_QUESTS)) {
      const number = before.get(definition.id)?.number ?? next++;
      this.definitions.set(definition.id, { ...definition, number });
    }
    this.catalogueVersion = (this.catalogueVersion % 0xffff) + 1;
  }

  get(id: string): QuestDefinition | undefined {
    return this.definitions.get(id);
  }

  values(): IterableIterator<QuestDefinition> {
    return this.definitions.values();
  }

  /** Where `session` stands in quest `id` (which must be defined). */
  standing(session: Session, id: string): QuestStanding {
    const quest = this.require(id);
    const record = this.recordsOf(session).get(id);
    return { state: record?.state ?? "none", progress: record?.progress ?? 0, goal: quest.goal };
  }

  /** Whether quest `id` may be started by `session` now: not started, and what it requires done. */
  offered(session: Session, id: string): boolean {
    const quest = this.require(id);
    const records = this.recordsOf(session);
    return !records.has(id) && quest.requires.every((required) => records.get(required)?.state === "done");
  }

  /** Starts quest `id`; false (nothing changed) when it was started before or is not offered. */
  start(session: Session, id: string): boolean {
    if (!this.offered(session, id)) return false;
    this.write(session, { quest: id, state: "active", progress: 0 });
    return true;
  }

  /**
   * Adds `amount` to an active quest's progress (capped at its goal); reaching the goal makes it ready to
   * hand in. Returns the new standing, or null when the quest is not active.
   */
  progress(session: Session, id: string, amount: number): QuestStanding | null {
    const quest = this.require(id);
    const record = this.recordsOf(session).get(id);
    if (record === undefined || record.state !== "active") return null;
    const progress = Math.min(quest.goal, record.progress + Math.max(0, Math.floor(amount)));
    this.write(session, { quest: id, state: progress >= quest.goal ? "ready" : "active", progress });
    return this.standing(session, id);
  }

  /**
   * Handing quest `id` in (it must be ready, or active when `early`), in two halves so it can land in one
   * transaction with its reward: `row` is what the item change writes with it (an account's quest, where
   * quests are kept; null for a guest), `apply` makes it so here and tells the player. Null when the quest
   * is not there to hand in.
   */
  handIn(
    session: Session,
    id: string,
    early = false,
  ): { row: ({ accountId: number } & QuestRecord) | null; apply: () => void } | null {
    const quest = this.require(id);
    const record = this.recordsOf(session).get(id);
    if (record === undefined || !(record.state === "ready" || (early && record.state === "active"))) return null;
    const done: QuestRecord = { quest: id, state: "done", progress: quest.goal };
    return {
      row: session.accountId !== null && this.store !== null ? { accountId: session.accountId, ...done } : null,
      apply: () => {
        this.recordsOf(session).set(id, done);
        this.tell(session, done, ++this.writes); // applied once its transaction is written
      },
    };
  }

  /**
   * The `quests` TLV entries of `session`: every quest it started that is still defined, by number, as
   * written (the told standing).
   */
  entries(session: Session): QuestEntry[] {
    const entries: QuestEntry[] = [];
    for (const [id, { record }] of this.toldOf(session)) {
      const quest = this.definitions.get(id);
      if (quest === undefined) continue;
      entries.push({
        quest: quest.number,
        state: record.state === "active" ? 1 : record.state === "ready" ? 2 : 3,
        progress: Math.min(record.progress, 0xffff),
        goal: Math.min(quest.goal, 0xffff),
      });
    }
    return entries.sort((a, b) => a.quest - b.quest);
  }

  /** The `quest_marks` of `session`: each giver kind with a quest to hand in (2) or to take (1). */
  marks(session: Session, typeIdOf: (kindName: string) => number | undefined): QuestMark[] {
    const byKind = new Map<number, number>();
    const told = this.toldOf(session);
    for (const quest of this.definitions.values()) {
      if (quest.giver === null) continue;
      const typeId = typeIdOf(quest.giver);
      if (typeId === undefined) continue;
      // From the told standing, like the `quests` TLV beside it.
      const state = told.get(quest.id)?.record.state;
      const offered = state === undefined && quest.requires.every((id) => told.get(id)?.record.state === "done");
      const mark = state === "ready" ? MARK_HAND_IN : offered ? MARK_OFFER : 0;
      if (mark > (byKind.get(typeId) ?? 0)) byKind.set(typeId, mark);
    }
    return [...byKind]
      .filter(([, mark]) => mark > 0)
      .map(([typeId, mark]) => ({ typeId, mark }))
      .sort((a, b) => a.typeId - b.typeId);
  }

  private require(id: string): QuestDefinition {
    const quest = this.definitions.get(id);
    if (quest === undefined) throw new Error(`no quest "${id}" is defined`);
    return quest;
  }

  /** The session's quests, read from the store the first time (an account's), or empty (a guest's). */
  private recordsOf(session: Session): Map<string, QuestRecord> {
    let records = this.players.get(session);
    if (records === undefined) {
      records = new Map();
      if (session.accountId !== null && this.store !== null) {
        for (const record of this.store.load(session.accountId)) records.set(record.quest, record);
      }
      this.players.set(session, records);
    }
    return records;
  }

  /** The told standing of `session` (docs above `told`): at first what the store read, which is written. */
  private toldOf(session: Session): Map<string, { record: QuestRecord; write: number }> {
    let told = this.told.get(session);
    if (told === undefined) {
      told = new Map([...this.recordsOf(session)].map(([id, record]) => [id, { record, write: 0 }]));
      this.told.set(session, told);
    }
    return told;
  }

  /** Makes `record` (write number `write`) what the player sees, unless a newer write is seen already. */
  private tell(session: Session, record: QuestRecord, write: number): void {
    const told = this.toldOf(session);
    if ((told.get(record.quest)?.write ?? -1) > write) return;
    told.set(record.quest, { record, write });
    this.changed(session, record.quest);
  }

  /**
   * Writes a quest's new standing (an account's to the store first), then tells the player. A shared
   * store (a cluster's) answers later: the standing holds here at once — the next step builds on it — and
   * the player hears of it, in its detail whatever sends it, once it is written; one the store refused is
   * said in the log, and the player is not told of a step that is not kept.
   */
  private write(session: Session, record: QuestRecord): void {
    this.toldOf(session); // what was written before this step, before the step changes the working standing
    const saved =
      session.accountId !== null && this.store !== null ? this.store.save(session.accountId, record) : undefined;
    this.recordsOf(session).set(record.quest, record);
    const write = ++this.writes;
    if (saved === undefined) return this.tell(session, record, write);
    saved.then(
      () => this.tell(session, record, write),
      // Refused (its lease elsewhere, the store closed): the store said why in the log; the player is not
      // told of a step that is not kept.
      () => {},
    );
  }

  /** Every quest `session` has started, as a handoff to another process carries them. */
  recordsFor(session: Session): QuestRecord[] {
    return [...this.recordsOf(session).values()];
  }

  /**
   * A session that came from another process with its quests (a handoff, a restored checkpoint): they
   * are its standing here — what that process knew, written or about to be — not what the store read.
   */
  adopt(session: Session, records: readonly QuestRecord[]): void {
    this.players.set(session, new Map(records.map((record) => [record.quest, record])));
    this.told.set(session, new Map(records.map((record) => [record.quest, { record, write: ++this.writes }])));
  }
}
