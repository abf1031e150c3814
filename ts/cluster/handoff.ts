// A session moving between region processes (docs/scaling.md § Handoff): everything the old region
// knew of it, written once when it stops simulating it, read once by the new region that starts.
// The scheduled steps travel as (window, action) pairs and are offered again at the new region, so a
// step is executed once — at its window, or (when the handoff reached the new region after that window)
// owed: run at the next windows in the order carried, the client's later steps behind it (schedule.ts).
// Steps still owed from an earlier handoff travel first, in order.
import { ACTION_WINDOW_HORIZON } from "../constants.js";
import { XP_MAX } from "../progression.js";
import type { Tlv } from "../protocol/tlv.js";
import type { MuteState } from "../server/admin/admin-service.js";
import type { ChatChannelState } from "../server/sessions/chat-channel.js";
import type { StoredContainer } from "../server/persistence/item-store.js";
import { QUEST_STATES, type QuestRecord, type QuestState } from "../server/persistence/quest-store.js";
import { MAX_QUEST_GOAL, MAX_QUESTS } from "../server/scripting/quest-book.js";
import type { Session } from "../server/sessions/session.js";
import { MAX_FRIENDS, MAX_IGNORES, MAX_MAIL_PER_RECIPIENT } from "../server/persistence/social-store.js";
import type { CarriedSocial } from "../server/social/social-room.js";
import type { SessionArrival } from "../server/session-lifecycle.js";
import { ACTION_MAX, ACTION_NOOP } from "../protocol/action.js";
import { CARRIED_BEYOND_HORIZON, OWED_MAX } from "../server/entities/schedule.js";
import { nextWindowAfter, tickOfWindow } from "../window.js";
import { FrameError } from "./link-frames.js";
import type { SavedPlace } from "../server/persistence/character-saver.js";
import type { DungeonPlace } from "../server/persistence/character-store.js";
import { DUNGEON_MAX_DEPTH } from "../server/dungeon/generate-dungeon.js";

/** The JSON a HANDOFF frame carries. */
export interface HandoffState {
  readonly from: number;
  readonly to: number;
  /** The old region's tick when it let the session go: it may have broadcast to it up to this tick. */
  readonly tick: number;
  readonly tokenHex: string;
  readonly keyHex: string;
  readonly nick: string;
  /** The account whose character the session plays (its lease follows: pg-accounts.ts); null: a guest. */
  readonly accountId: number | null;
  readonly entity: {
    id: number;
    typeId: number;
    x: number;
    y: number;
    hp: number;
    hpMax: number;
    elo: number;
    flags: number;
    name: string;
    meta: Tlv[];
    /** The player's experience (its level TLV is in `meta`); absent from an older process: 0. */
    xp?: number;
  };
  readonly keyed: boolean;
  readonly announced: boolean;
  readonly joinSource: string | null;
  /** What the client reads (Session.reads); absent from an older process: none. */
  readonly reads?: number;
  readonly proven: boolean;
  readonly replay: { newest: number; received: number[] };
  readonly chat: ChatChannelState;
  /**
   * The session's next dialog id. Ids are unique per session (docs/protocol.md § Dialogs): its client answers a
   * window under an id it has answered already "closed", unseen. Absent (an older process): numbered from 1.
   */
  readonly dialogs?: number;
  /** The steps scheduled and not executed yet: [window, action]. */
  readonly steps: [number, number][];
  /** Steps owed from an earlier handoff (ActionSlots.owedSteps), oldest first; absent (an older process): none. */
  readonly owed?: number[];
  /**
   * What a guest carries, [slot, item id, count] (bag slots and the equipment slots); null for an
   * account, whose bag the new region reads from the shared store once the character's lease is there.
   */
  readonly carrying: { version: number; stacks: [number, number, number][] } | null;
  /** An operator's mute in force on it (admin/admin-service.ts), which follows it; absent or null: none. */
  readonly mute?: MuteState | null;
  /**
   * Its quests as the old region knew them, [quest, state, progress] (QuestBook.recordsFor): a guest's
   * live only here, an account's may not be written yet. Absent (an older process): the new region's store.
   */
  readonly quests?: [string, string, number][];
  /**
   * Its social state (SocialRoom.carried): ignores (a guest's live nowhere else), an account's friends as
   * read at its login, who last told it something. Absent (an older process): none.
   */
  readonly social?: CarriedSocial;
  /** The region its party lives in (PartyRoom.homeOf); absent or null: in no party. */
  readonly party?: number | null;
  /**
   * Its player is in a dungeon level, or on its way back into one (Game.placeOf): the map's stairs down it
   * came by (x, y) and the level's identity and its cell in it. The region arrived at puts it on those stairs
   * and takes it down to that cell (Game.arrivedAt; ts/cluster/cluster-levels.ts). Absent or null: on a map.
   */
  readonly below?: SavedPlace | null;
}

/**
 * The dungeon level a handoff's player is in or going back into, checked ({x, y}: the map's stairs it came
 * by; `dungeon`: the level and the cell); null for none. Throws FrameError on a malformed one.
 */
export function belowOf(state: HandoffState): { x: number; y: number; dungeon: DungeonPlace } | null {
  const below = state.below ?? null;
  if (below === null) return null;
  const place = below.dungeon;
  const tile = (n: unknown): n is number => Number.isInteger(n) && (n as number) >= 0 && (n as number) < 65_536;
  if (
    typeof below !== "object" ||
    !tile(below.x) ||
    !tile(below.y) ||
    typeof place !== "object" ||
    place === null ||
    !(Number.isInteger(place.seed) && place.seed >= 0 && place.seed <= 0xffffffff) ||
    !(Number.isInteger(place.depth) && place.depth >= 1 && place.depth <= DUNGEON_MAX_DEPTH) ||
    !(tile(place.size) && place.size > 0) ||
    !(tile(place.x) && place.x < place.size) ||
    !(tile(place.y) && place.y < place.size)
  ) {
    throw new FrameError("handoff: bad dungeon place");
  }
  return {
    x: below.x,
    y: below.y,
    dungeon: { seed: place.seed, depth: place.depth, size: place.size, x: place.x, y: place.y },
  };
}

/** The home region of the party a handoff carries, checked; null for none. Throws FrameError on a bad one. */
export function partyHomeOf(state: HandoffState): number | null {
  const home = state.party ?? null;
  if (home !== null && !(Number.isInteger(home) && home >= 0 && home < 65_536))
    throw new FrameError("handoff: bad party");
  return home;
}

/** Most ignores and friends a handoff carries (each list is bounded by MAX_IGNORES / MAX_FRIENDS). */
const MAX_CARRIED_SOCIAL = Math.max(MAX_IGNORES, MAX_FRIENDS);

/** The social state a handoff carries, checked; null when absent. Throws FrameError on a malformed one. */
export function socialOf(state: HandoffState): CarriedSocial | null {
  const social = state.social;
  if (social === undefined) return null;
  const shortText = (value: unknown): value is string => typeof value === "string" && value.length <= 200;
  const accountId = (value: unknown): value is number =>
    typeof value === "number" && Number.isSafeInteger(value) && value > 0;
  const last = social?.lastFrom;
  if (
    typeof social !== "object" ||
    social === null ||
    !Array.isArray(social.ignores) ||
    social.ignores.length > MAX_CARRIED_SOCIAL ||
    !social.ignores.every((entry) => Array.isArray(entry) && entry.length === 2 && entry.every(shortText)) ||
    !(
      social.friends === null ||
      (Array.isArray(social.friends) &&
        social.friends.length <= MAX_CARRIED_SOCIAL &&
        social.friends.every(
          (entry) => Array.isArray(entry) && entry.length === 2 && accountId(entry[0]) && shortText(entry[1]),
        ))
    ) ||
    !(
      social.delivering === undefined ||
      (Array.isArray(social.delivering) &&
        social.delivering.length <= MAX_MAIL_PER_RECIPIENT &&
        social.delivering.every(
          (entry) =>
            Array.isArray(entry) && entry.length === 2 && entry.every((n) => Number.isSafeInteger(n) && n >= 0),
        ))
    ) ||
    !(
      last === null ||
      (typeof last === "object" &&
        shortText(last.key) &&
        shortText(last.nick) &&
        (last.accountId === null || accountId(last.accountId)))
    )
  ) {
    throw new FrameError("handoff: bad social state");
  }
  return {
    ignores: social.ignores.map(([key, nick]) => [key, nick]),
    friends: social.friends === null ? null : social.friends.map(([id, nick]) => [id, nick]),
    lastFrom: last === null ? null : { key: last.key, nick: last.nick, accountId: last.accountId },
    delivering: (social.delivering ?? []).map(([id, seq]) => [id, seq]),
  };
}

/** Most quests a handoff carries (a world defines at most MAX_QUESTS; a player may keep some no longer defined). */
const MAX_CARRIED_QUESTS = 2 * MAX_QUESTS;

/** The quests a handoff carries, checked; undefined when absent. Throws FrameError on a malformed one. */
function questsOf(state: HandoffState): QuestRecord[] | undefined {
  const quests = state.quests;
  if (quests === undefined) return undefined;
  if (!Array.isArray(quests) || quests.length > MAX_CARRIED_QUESTS) throw new FrameError("handoff: bad quests");
  return quests.map((entry) => {
    if (
      !Array.isArray(entry) ||
      entry.length !== 3 ||
      typeof entry[0] !== "string" ||
      !/^[A-Za-z0-9_]{1,32}$/.test(entry[0]) ||
      !(QUEST_STATES as readonly unknown[]).includes(entry[1]) ||
      !(Number.isInteger(entry[2]) && entry[2] >= 0 && entry[2] <= MAX_QUEST_GOAL)
    ) {
      throw new FrameError("handoff: bad quest");
    }
    return { quest: entry[0], state: entry[1] as QuestState, progress: entry[2] };
  });
}

/** The longest mute reason a handoff carries (an operator's line). */
const MUTE_REASON_MAX = 500;

/** The mute a handoff carries, checked; null for none. Throws FrameError on a malformed one. */
export function muteOf(state: HandoffState): MuteState | null {
  const mute = state.mute ?? null;
  if (mute === null) return null;
  if (
    typeof mute !== "object" ||
    !(mute.untilMs === null || Number.isSafeInteger(mute.untilMs)) ||
    typeof mute.reason !== "string" ||
    mute.reason.length > MUTE_REASON_MAX
  ) {
    throw new FrameError("handoff: bad mute");
  }
  return { untilMs: mute.untilMs, reason: mute.reason };
}

/** Most stacks a handoff carries (a bag and two equipment slots, with room to spare). */
const MAX_CARRIED_STACKS = 64;

/**
 * What the old region writes down of `session` as it lets it go; `nextWindow` is its first unexecuted
 * window, `carrying` what it carries (ItemRoom.carrying: written down for a guest only).
 */
export function handoffStateOf(
  session: Session,
  from: number,
  to: number,
  nextWindow: number,
  carrying: StoredContainer,
  tick: number,
  mute: MuteState | null = null,
  quests: readonly QuestRecord[] = [],
  social?: CarriedSocial,
  party: number | null = null,
  below: SavedPlace | null = null,
): HandoffState {
  const entity = session.entity;
  const steps: [number, number][] = [];
  // Up to the horizon, and one past it: a step carried here early (schedule.ts) travels on with the rest.
  for (let window = nextWindow; window <= nextWindow + ACTION_WINDOW_HORIZON + CARRIED_BEYOND_HORIZON; window++) {
    const action = entity.slots.peek(window);
    if (action >= 0) steps.push([window, action]);
  }
  return {
    from,
    to,
    tick,
    tokenHex: session.tokenHex,
    keyHex: session.keyHex,
    nick: session.nick,
    accountId: session.accountId,
    entity: {
      id: entity.id,
      typeId: entity.typeId,
      x: entity.x,
      y: entity.y,
      hp: entity.hp,
      hpMax: entity.hpMax,
      elo: entity.elo,
      flags: entity.flags,
      name: entity.name,
      meta: entity.meta,
      xp: entity.xp,
    },
    keyed: session.keyed,
    announced: session.announced,
    joinSource: session.joinSource,
    reads: session.reads,
    proven: session.proof.proven,
    replay: session.replay.snapshot(),
    chat: session.chat.snapshot(),
    dialogs: session.dialogs.nextId,
    steps,
    owed: entity.slots.owedSteps(),
    carrying:
      session.accountId === null
        ? { version: carrying.version, stacks: carrying.stacks.map((stack) => [stack.slot, stack.itemId, stack.count]) }
        : null,
    mute,
    quests: quests.map((record) => [record.quest, record.state, record.progress]),
    social,
    party,
    below: below?.dungeon ? below : null,
  };
}

/** The arrival the new region's game adopts; throws FrameError on a state that is not one. */
export function arrivalOf(state: HandoffState): SessionArrival {
  if (!/^[0-9a-f]{16}$/.test(state.tokenHex) || !/^[0-9a-f]{64}$/.test(state.keyHex)) {
    throw new FrameError("handoff: bad token or key");
  }
  const e = state.entity;
  if (![e.id, e.typeId, e.x, e.y, e.hp, e.hpMax, e.elo, e.flags].every((n) => Number.isInteger(n))) {
    throw new FrameError("handoff: bad entity");
  }
  const xp = e.xp ?? 0;
  if (!(Number.isInteger(xp) && xp >= 0 && xp <= XP_MAX)) throw new FrameError("handoff: bad experience");
  const accountId = state.accountId ?? null;
  if (accountId !== null && !(Number.isSafeInteger(accountId) && accountId > 0)) {
    throw new FrameError("handoff: bad account id");
  }
  const carrying = state.carrying ?? null;
  if (
    carrying !== null &&
    !(
      Number.isSafeInteger(carrying.version) &&
      carrying.version > 0 &&
      Array.isArray(carrying.stacks) &&
      carrying.stacks.length <= MAX_CARRIED_STACKS &&
      carrying.stacks.every(
        (stack) =>
          Array.isArray(stack) &&
          stack.length === 3 &&
          stack.every((n) => Number.isInteger(n) && n >= 0 && n <= 0xffff) &&
          stack[2] > 0,
      )
    )
  ) {
    throw new FrameError("handoff: bad carried stacks");
  }
  return {
    token: BigInt(`0x${state.tokenHex}`),
    key: new Uint8Array(Buffer.from(state.keyHex, "hex")),
    nick: state.nick,
    entity: { ...e, meta: e.meta, xp },
    keyed: state.keyed,
    announced: state.announced,
    joinSource: state.joinSource,
    reads: readsOfHandoff(state.reads),
    proven: state.proven,
    accountId,
    carrying:
      carrying === null
        ? null
        : {
            version: carrying.version,
            stacks: carrying.stacks.map(([slot, itemId, count]) => ({ slot, itemId, count })),
          },
    quests: questsOf(state),
  };
}

/** The owed steps a handoff carries, checked (each a step's action code); absent is none. Throws FrameError. */
function owedOf(state: HandoffState): number[] {
  const owed = state.owed ?? [];
  if (
    !Array.isArray(owed) ||
    owed.length > OWED_MAX ||
    !owed.every((action) => Number.isInteger(action) && action > ACTION_NOOP && action <= ACTION_MAX)
  ) {
    throw new FrameError("handoff: bad owed steps");
  }
  return owed;
}

/**
 * Gives the adopted session what its game did not: its replay window, its chat numbers and its
 * scheduled steps (those owed first); returns how many steps it carried, how many of those run at a later
 * window than the one they were sent for (owed), how many were lost (no room) and how many would run twice.
 */
export function restoreSession(
  session: Session,
  state: HandoffState,
  nextWindow: number,
): { steps: number; moved: number; lost: number; doubled: number; lostOwedFull: number } {
  const owed = owedOf(state);
  // The old region may have broadcast to it up to its tick (not sooner than ours, when our clock lags).
  if (Number.isSafeInteger(state.tick)) session.quietThroughTick = state.tick;
  session.replay.restore(state.replay);
  session.chat.restore(state.chat);
  // Its windows go on under new ids: one numbered from 1 again came under an id its client had answered at the
  // old region, and was acknowledged "closed" unseen — a dismissal (a trade request "declined").
  session.dialogs.nextId = dialogIdOf(state);
  // What the old region ran: every window before this one (its windows run at the world's ticks).
  const oldNext = Number.isSafeInteger(state.tick) ? nextWindowAfter(state.tick) : -Infinity;
  let moved = 0;
  let lost = 0;
  let doubled = 0;
  /** Of the lost, those the owed queue had no room for (the rest: beyond this region's horizon). */
  let lostOwedFull = 0;
  const slots = session.entity.slots;
  for (const action of owed) {
    if (slots.owe(action)) {
      moved++;
    } else {
      lost++;
      lostOwedFull++;
    }
  }
  for (const [window, action] of state.steps) {
    // A carried step for a window the old region had run would run a second time here.
    if (window < oldNext) doubled++;
    const outcome = slots.offer(tickOfWindow(window), action, nextWindow, true);
    if (outcome === "late_owed") moved++;
    else if (outcome === "owed_dropped" || outcome === "beyond_horizon" || outcome === "late_dropped") lost++;
    if (outcome === "owed_dropped") lostOwedFull++;
  }
  return { steps: owed.length + state.steps.length, moved, lost, doubled, lostOwedFull };
}

/** The next dialog id a handoff carries, checked; absent (an older process) is 1. Throws FrameError on a bad one. */
function dialogIdOf(state: HandoffState): number {
  const next = state.dialogs ?? 1;
  if (!(Number.isInteger(next) && next >= 1 && next <= 0xffffffff)) throw new FrameError("handoff: bad dialog id");
  return next;
}

/** A handoff's `reads` bits, checked; absent (an older process) is none. Throws FrameError on a bad one. */
function readsOfHandoff(reads: unknown): number {
  if (reads === undefined) return 0;
  if (typeof reads !== "number" || !Number.isInteger(reads) || reads < 0 || reads > 0xffff) {
    throw new FrameError("handoff: bad reads");
  }
  return reads;
}
