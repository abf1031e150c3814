// TLV metadata (tag u8, len u8, value) carried by entity entries and entity
// details (docs/protocol.md § TLV metadata). Known tags have fixed value
// formats and appear at most once; unknown tags are skipped so the server can
// add tags without breaking older clients. A block must be filled exactly by
// its TLVs. Readers here assume a block that validateTlvs accepted.
import { readU16, readU32, writeU16, writeU32 } from "./bytes.js";
import { textProblem, utf8ByteLength, writeUtf8 } from "./text.js";
import { type DecodeError, EncodeError, checkRoom, decodeError, isIntegerIn } from "./errors.js";

export const TLV_STATUS_EFFECTS = 0x01;
export const TLV_WEAPON = 0x02;
export const TLV_ARMOR = 0x03;
/** UTF-8 player nick; project addition, see docs/protocol.md. */
export const TLV_NAME = 0x04;
/**
 * A container's contents: version u32, capacity u8, then (slot u8, item_id u16, count u16) per
 * stack; project addition (issue 14), see docs/protocol.md § TLV metadata.
 */
export const TLV_INVENTORY = 0x05;
/** One stack lying on the ground: item_id u16, count u16; project addition (issue 14). */
export const TLV_ITEM = 0x06;
/**
 * A player's chosen look: u16, an index into the player looks the clients draw (the tunic colours of
 * the sprite sheet); project addition (issue 18), see docs/protocol.md § TLV metadata.
 */
export const TLV_APPEARANCE = 0x07;
/**
 * A player's quests, in its own EntityDetail: `catalogue_version` u16 (the texts at GET /api/quests), then
 * per quest `quest` u8, `state` u8 (1 active, 2 ready to hand in, 3 done), `progress` u16, `goal` u16;
 * project addition (issue 38), see docs/protocol.md § 18.7.
 */
export const TLV_QUESTS = 0x08;
/**
 * Which creature kinds have something for this player, in its own EntityDetail: per kind `type_id` u16,
 * `mark` u8 (1 a quest to take, 2 a quest to hand in); project addition (issue 38).
 */
export const TLV_QUEST_MARKS = 0x09;
/**
 * A player's level, inline in its EntityEntry (so over its head for everyone in view): u8, 1 … 255;
 * project addition (issue 39), see docs/protocol.md § 18.8.
 */
export const TLV_LEVEL = 0x0a;
/**
 * A player's experience, in its own EntityDetail: `xp` u32 (all it has), `level_xp` u32 (where its level
 * began), `next_xp` u32 (where the next begins; 0 at the highest level); project addition (issue 39).
 */
export const TLV_PROGRESS = 0x0b;
/**
 * The player's party, in its own EntityDetail: per other member `entity_id` u32 (0 while away), `hp` u16,
 * `hp_max` u16, `x` u16, `y` u16, `flags` u8 (PARTY_LEADER, PARTY_AWAY), `name_len` u8 and the name;
 * empty when the player is in no party. Project addition (issue 39), see docs/protocol.md § 18.9.
 */
export const TLV_PARTY = 0x0c;
/** Bytes of one party member before its name, and the flags it may carry. */
export const PARTY_MEMBER_HEAD_BYTES = 14;
export const PARTY_LEADER = 1;
export const PARTY_AWAY = 2;
/** The highest tag this build knows: 0x01 … TLV_LAST_KNOWN have fixed formats. */
export const TLV_LAST_KNOWN = TLV_PARTY;
/** Bytes of the quests value before its entries (catalogue_version u16), and of one entry. */
export const QUESTS_HEADER_BYTES = 2;
export const QUEST_ENTRY_BYTES = 6;
/** Entries one quests value holds at most: (255 − 2) / 6. */
export const QUESTS_MAX = 42;
/** Bytes of one entry of a quest_marks value, and the most entries one holds (255 / 3). */
export const QUEST_MARK_BYTES = 3;
export const QUEST_MARKS_MAX = 85;
/** Bytes of the inventory value before its stacks: version u32, capacity u8. */
export const INVENTORY_HEADER_BYTES = 5;
/** Bytes of one stack in an inventory value: slot u8, item_id u16, count u16. */
export const INVENTORY_STACK_BYTES = 5;
/** Stacks one inventory value holds at most: (255 − 5) / 5. */
export const INVENTORY_STACKS_MAX = 50;
/** Value length of the item tag. */
export const ITEM_VALUE_BYTES = 4;
/** Value length of the level tag (u8) and of the progress tag (three u32s). */
export const LEVEL_VALUE_BYTES = 1;
export const PROGRESS_VALUE_BYTES = 12;
/** Slots above the bag: where the equipped weapon and armor are listed in an inventory value. */
export const SLOT_WEAPON = 250;
export const SLOT_ARMOR = 251;
/** Longest name value in bytes of UTF-8. */
export const NAME_MAX_BYTES = 32;
/** Longest value any TLV can carry (its len is a u8). */
export const TLV_VALUE_MAX_BYTES = 255;
/** A TLV is tag u8, len u8, then len bytes of value; offsets are relative to the TLV. */
export const TLV_TAG_OFFSET = 0;
export const TLV_LENGTH_OFFSET = 1;
/** tag and len: where the value starts. */
export const TLV_HEADER_BYTES = 2;
/** Value length of the u16 tags (status_effects, weapon, armor, appearance). */
export const TLV_U16_VALUE_BYTES = 2;
/** Names of the known tags by tag number, as the Tlv `kind` and the packet tool spell them. */
export const TLV_TAG_NAMES: Readonly<
  Record<
    number,
    | "status_effects"
    | "weapon"
    | "armor"
    | "name"
    | "inventory"
    | "item"
    | "appearance"
    | "quests"
    | "quest_marks"
    | "party"
    | "level"
    | "progress"
  >
> = {
  [TLV_STATUS_EFFECTS]: "status_effects",
  [TLV_WEAPON]: "weapon",
  [TLV_ARMOR]: "armor",
  [TLV_NAME]: "name",
  [TLV_INVENTORY]: "inventory",
  [TLV_ITEM]: "item",
  [TLV_APPEARANCE]: "appearance",
  [TLV_QUESTS]: "quests",
  [TLV_QUEST_MARKS]: "quest_marks",
  [TLV_PARTY]: "party",
  [TLV_LEVEL]: "level",
  [TLV_PROGRESS]: "progress",
};

/** One stack of an inventory value: `count` (≥ 1) of catalogue item `itemId` (≥ 1) in `slot`. */
export interface ItemStack {
  slot: number;
  itemId: number;
  count: number;
}

/** One quest of a player: its number (1 … 255), state (1 active, 2 ready, 3 done), progress and goal. */
export interface QuestEntry {
  quest: number;
  state: number;
  progress: number;
  goal: number;
}

/** Another member of the player's party, as its own EntityDetail lists them. */
export interface PartyMember {
  /** The member's entity here; 0 while the member is away (disconnected, within the grace period). */
  entityId: number;
  hp: number;
  hpMax: number;
  /** Where the member stands (the last place seen while away). */
  x: number;
  y: number;
  /** PARTY_LEADER, PARTY_AWAY. */
  flags: number;
  name: string;
}

/** A creature kind with something for the player: 1 a quest to take, 2 one to hand in. */
export interface QuestMark {
  typeId: number;
  mark: number;
}

export type Tlv =
  | { kind: "status_effects"; value: number }
  | { kind: "weapon"; value: number }
  | { kind: "armor"; value: number }
  | { kind: "name"; value: string }
  /** A container's contents; `version` grows with every change, so a reader keeps the newest. */
  | { kind: "inventory"; version: number; capacity: number; stacks: ItemStack[] }
  | { kind: "item"; itemId: number; count: number }
  /** A player's look (index into the clients' player looks). */
  | { kind: "appearance"; value: number }
  /** A player's quests (its own EntityDetail only); `catalogueVersion` names the texts they refer to. */
  | { kind: "quests"; catalogueVersion: number; quests: QuestEntry[] }
  /** The kinds with a quest for the player to take or hand in (its own EntityDetail only). */
  | { kind: "quest_marks"; marks: QuestMark[] }
  /** The other members of the player's party (its own EntityDetail only); empty: in no party. */
  | { kind: "party"; members: PartyMember[] }
  /** A player's level (1 … 255), inline in its entries. */
  | { kind: "level"; value: number }
  /**
   * A player's experience (its own EntityDetail only): all of it, where its level began and where the next
   * begins (0: the highest level), so a client draws the bar without knowing the curve.
   */
  | { kind: "progress"; xp: number; levelXp: number; nextXp: number }
  /** A tag this build does not know (never 0x01..TLV_LAST_KNOWN), kept as raw bytes. */
  | { kind: "unknown"; tag: number; bytes: Uint8Array };

/**
 * Why the UTF-8 in bytes[start..end) is not an acceptable name, or null.
 * Rejects ill-formed UTF-8 (overlongs, surrogates, > U+10FFFF) and C0/C1
 * control characters, which would break log lines and the HUD.
 */
export function nameProblem(bytes: Uint8Array, start: number, end: number): string | null {
  if (end - start < 1 || end - start > NAME_MAX_BYTES) return `name must be 1..${NAME_MAX_BYTES} bytes of UTF-8`;
  return textProblem(bytes, start, end, false);
}

/** Checks that bytes[start..end) is a sequence of well-formed TLVs filling it exactly; null when it is. */
export function validateTlvs(bytes: Uint8Array, start: number, end: number): DecodeError | null {
  let seen = 0; // bit per known tag
  let at = start;
  while (at < end) {
    if (at + TLV_HEADER_BYTES > end) {
      return decodeError("tlv_overrun", at, "TLV tag without a length byte at the end of the block");
    }
    const tag = bytes[at + TLV_TAG_OFFSET];
    const length = bytes[at + TLV_LENGTH_OFFSET];
    const valueStart = at + TLV_HEADER_BYTES;
    if (valueStart + length > end) {
      const lengthAt = at + TLV_LENGTH_OFFSET;
      return decodeError("tlv_overrun", lengthAt, `TLV 0x${tag.toString(16)} len ${length} runs past the block`);
    }
    if (tag >= TLV_STATUS_EFFECTS && tag <= TLV_LAST_KNOWN) {
      if ((seen & (1 << tag)) !== 0) return decodeError("duplicate_tlv", at, `TLV ${TLV_TAG_NAMES[tag]} repeated`);
      seen |= 1 << tag;
      if (tag === TLV_INVENTORY) {
        const problem = inventoryProblem(bytes, valueStart, length);
        if (problem !== null) return decodeError(problem.code, problem.at, problem.message);
      } else if (tag === TLV_ITEM) {
        if (length !== ITEM_VALUE_BYTES) {
          return decodeError("bad_tlv_length", at + TLV_LENGTH_OFFSET, `TLV item has len ${length}, expected 4`);
        }
        if (readU16(bytes, valueStart) === 0 || readU16(bytes, valueStart + 2) === 0) {
          return decodeError("bad_item", valueStart, "TLV item needs an item_id and a count of at least 1");
        }
      } else if (tag === TLV_NAME) {
        const problem = nameProblem(bytes, valueStart, valueStart + length);
        if (problem !== null) return decodeError("bad_name", valueStart, problem);
      } else if (tag === TLV_PARTY) {
        const problem = partyProblem(bytes, valueStart, length);
        if (problem !== null) return decodeError(problem.code, problem.at, problem.message);
      } else if (tag === TLV_QUESTS || tag === TLV_QUEST_MARKS) {
        const problem =
          tag === TLV_QUESTS ? questsProblem(bytes, valueStart, length) : marksProblem(bytes, valueStart, length);
        if (problem !== null) return decodeError(problem.code, problem.at, problem.message);
      } else if (tag === TLV_LEVEL || tag === TLV_PROGRESS) {
        const problem =
          tag === TLV_LEVEL ? levelProblem(bytes, valueStart, length) : progressProblem(bytes, valueStart, length);
        if (problem !== null) return decodeError(problem.code, problem.at, problem.message);
      } else if (length !== TLV_U16_VALUE_BYTES) {
        return decodeError(
          "bad_tlv_length",
          at + TLV_LENGTH_OFFSET,
          `TLV ${TLV_TAG_NAMES[tag]} has len ${length}, expected ${TLV_U16_VALUE_BYTES}`,
        );
      }
    }
    at = valueStart + length;
  }
  return null;
}

/** Why an inventory value at bytes[start..start+length) is malformed, or null. */
function inventoryProblem(
  bytes: Uint8Array,
  start: number,
  length: number,
): { code: "bad_tlv_length" | "bad_item"; at: number; message: string } | null {
  if (length < INVENTORY_HEADER_BYTES || (length - INVENTORY_HEADER_BYTES) % INVENTORY_STACK_BYTES !== 0) {
    return {
      code: "bad_tlv_length",
      at: start - TLV_HEADER_BYTES + TLV_LENGTH_OFFSET,
      message: `TLV inventory has len ${length}, expected 5 + 5 per stack`,
    };
  }
  const capacity = bytes[start + 4];
  let lastSlot = -1;
  for (let at = start + INVENTORY_HEADER_BYTES; at < start + length; at += INVENTORY_STACK_BYTES) {
    const slot = bytes[at];
    if (slot <= lastSlot) return { code: "bad_item", at, message: "inventory slots must be listed in rising order" };
    if (slot >= capacity && slot !== SLOT_WEAPON && slot !== SLOT_ARMOR) {
      return { code: "bad_item", at, message: `inventory slot ${slot} is outside the capacity ${capacity}` };
    }
    if (readU16(bytes, at + 1) === 0 || readU16(bytes, at + 3) === 0) {
      return { code: "bad_item", at, message: "an inventory stack needs an item_id and a count of at least 1" };
    }
    lastSlot = slot;
  }
  return null;
}

/** Why a quests value at bytes[start..start+length) is malformed, or null. */
function questsProblem(
  bytes: Uint8Array,
  start: number,
  length: number,
): { code: "bad_tlv_length" | "bad_quest"; at: number; message: string } | null {
  if (length < QUESTS_HEADER_BYTES || (length - QUESTS_HEADER_BYTES) % QUEST_ENTRY_BYTES !== 0) {
    return {
      code: "bad_tlv_length",
      at: start - TLV_HEADER_BYTES + TLV_LENGTH_OFFSET,
      message: `TLV quests has len ${length}, expected 2 + 6 per quest`,
    };
  }
  let last = 0;
  for (let at = start + QUESTS_HEADER_BYTES; at < start + length; at += QUEST_ENTRY_BYTES) {
    const quest = bytes[at];
    const state = bytes[at + 1];
    if (quest <= last) return { code: "bad_quest", at, message: "quests must be listed by rising number from 1" };
    if (state < 1 || state > 3)
      return { code: "bad_quest", at: at + 1, message: `quest state ${state} is not 1, 2 or 3` };
    if (readU16(bytes, at + 2) > readU16(bytes, at + 4)) {
      return { code: "bad_quest", at: at + 2, message: "a quest's progress is above its goal" };
    }
    last = quest;
  }
  return null;
}

/** Why a quest_marks value at bytes[start..start+length) is malformed, or null. */
function marksProblem(
  bytes: Uint8Array,
  start: number,
  length: number,
): { code: "bad_tlv_length" | "bad_quest"; at: number; message: string } | null {
  if (length % QUEST_MARK_BYTES !== 0) {
    return {
      code: "bad_tlv_length",
      at: start - TLV_HEADER_BYTES + TLV_LENGTH_OFFSET,
      message: `TLV quest_marks has len ${length}, expected 3 per kind`,
    };
  }
  let last = -1;
  for (let at = start; at < start + length; at += QUEST_MARK_BYTES) {
    const typeId = readU16(bytes, at);
    const mark = bytes[at + 2];
    if (typeId <= last) return { code: "bad_quest", at, message: "quest marks must be listed by rising type_id" };
    if (mark < 1 || mark > 2) return { code: "bad_quest", at: at + 2, message: `quest mark ${mark} is not 1 or 2` };
    last = typeId;
  }
  return null;
}

/** Why a party value at bytes[start..start+length) is malformed, or null. */
function partyProblem(
  bytes: Uint8Array,
  start: number,
  length: number,
): { code: "bad_tlv_length" | "bad_name"; at: number; message: string } | null {
  const end = start + length;
  for (let at = start; at < end;) {
    if (at + PARTY_MEMBER_HEAD_BYTES > end)
      return { code: "bad_tlv_length", at, message: "TLV party ends inside a member's fixed fields" };
    const nameLength = bytes[at + PARTY_MEMBER_HEAD_BYTES - 1];
    const nameStart = at + PARTY_MEMBER_HEAD_BYTES;
    if (nameStart + nameLength > end)
      return { code: "bad_tlv_length", at: nameStart - 1, message: "TLV party: a member's name runs past the value" };
    const problem = nameProblem(bytes, nameStart, nameStart + nameLength);
    if (problem !== null) return { code: "bad_name", at: nameStart, message: `party member: ${problem}` };
    at = nameStart + nameLength;
  }
  return null;
}

/** Why a level value at bytes[start..start+length) is malformed, or null. */
function levelProblem(
  bytes: Uint8Array,
  start: number,
  length: number,
): { code: "bad_tlv_length" | "bad_progress"; at: number; message: string } | null {
  if (length !== LEVEL_VALUE_BYTES) {
    const at = start - TLV_HEADER_BYTES + TLV_LENGTH_OFFSET;
    return { code: "bad_tlv_length", at, message: `TLV level has len ${length}, expected ${LEVEL_VALUE_BYTES}` };
  }
  return bytes[start] === 0 ? { code: "bad_progress", at: start, message: "a level is at least 1" } : null;
}

/** Why a progress value at bytes[start..start+length) is malformed, or null. */
function progressProblem(
  bytes: Uint8Array,
  start: number,
  length: number,
): { code: "bad_tlv_length" | "bad_progress"; at: number; message: string } | null {
  if (length !== PROGRESS_VALUE_BYTES) {
    const at = start - TLV_HEADER_BYTES + TLV_LENGTH_OFFSET;
    return { code: "bad_tlv_length", at, message: `TLV progress has len ${length}, expected ${PROGRESS_VALUE_BYTES}` };
  }
  const xp = readU32(bytes, start);
  if (readU32(bytes, start + 4) > xp) {
    return { code: "bad_progress", at: start + 4, message: "a level cannot begin above the experience held" };
  }
  const next = readU32(bytes, start + 8);
  if (next !== 0 && next <= xp) {
    return { code: "bad_progress", at: start + 8, message: "the next level must begin above the experience held" };
  }
  return null;
}

function badTlv(message: string): never {
  throw new EncodeError("bad_tlv", message);
}

const nameScratch = new Uint8Array(NAME_MAX_BYTES * 3);

/** The tag of a u16-valued kind. */
function u16Tag(kind: "status_effects" | "weapon" | "armor" | "appearance"): number {
  switch (kind) {
    case "status_effects":
      return TLV_STATUS_EFFECTS;
    case "weapon":
      return TLV_WEAPON;
    case "armor":
      return TLV_ARMOR;
    case "appearance":
      return TLV_APPEARANCE;
  }
}

/** Encoded length of `tlvs` after checking them as validateTlvs would; throws EncodeError. */
export function tlvsByteLength(tlvs: readonly Tlv[]): number {
  let length = 0;
  let seen = 0;
  for (let index = 0; index < tlvs.length; index++) {
    const tlv = tlvs[index];
    let tag: number;
    switch (tlv.kind) {
      case "status_effects":
      case "weapon":
      case "armor":
      case "appearance":
        tag = u16Tag(tlv.kind);
        if (!isIntegerIn(tlv.value, 0, 0xffff)) badTlv(`${tlv.kind} value must be a u16, got ${String(tlv.value)}`);
        length += TLV_HEADER_BYTES + TLV_U16_VALUE_BYTES;
        break;
      case "name": {
        tag = TLV_NAME;
        const bytes = typeof tlv.value === "string" ? utf8ByteLength(tlv.value) : -1;
        if (bytes < 0) badTlv("name must be a string of well-formed UTF-16");
        if (bytes < 1 || bytes > NAME_MAX_BYTES)
          badTlv(`name must be 1..${NAME_MAX_BYTES} bytes of UTF-8, got ${bytes}`);
        const problem = nameProblem(nameScratch, 0, writeUtf8(tlv.value, nameScratch, 0));
        if (problem !== null) badTlv(`name: ${problem}`);
        length += TLV_HEADER_BYTES + bytes;
        break;
      }
      case "inventory": {
        tag = TLV_INVENTORY;
        const { version, capacity, stacks } = tlv;
        if (!isIntegerIn(version, 0, 0xffffffff)) badTlv(`inventory version must be a u32, got ${String(version)}`);
        if (!isIntegerIn(capacity, 0, 0xff)) badTlv(`inventory capacity must be a u8, got ${String(capacity)}`);
        if (!Array.isArray(stacks) || stacks.length > INVENTORY_STACKS_MAX) {
          badTlv(`inventory holds at most ${INVENTORY_STACKS_MAX} stacks`);
        }
        let lastSlot = -1;
        for (const stack of stacks) {
          const { slot, itemId, count } = stack;
          if (!isIntegerIn(slot, lastSlot + 1, 0xff)) badTlv("inventory slots must be u8s in rising order");
          if (slot >= capacity && slot !== SLOT_WEAPON && slot !== SLOT_ARMOR) {
            badTlv(`inventory slot ${slot} is outside the capacity ${capacity}`);
          }
          if (!isIntegerIn(itemId, 1, 0xffff) || !isIntegerIn(count, 1, 0xffff)) {
            badTlv("an inventory stack needs an item_id and a count of 1..65535");
          }
          lastSlot = slot;
        }
        length += TLV_HEADER_BYTES + INVENTORY_HEADER_BYTES + stacks.length * INVENTORY_STACK_BYTES;
        break;
      }
      case "item":
        tag = TLV_ITEM;
        if (!isIntegerIn(tlv.itemId, 1, 0xffff) || !isIntegerIn(tlv.count, 1, 0xffff)) {
          badTlv("item needs an item_id and a count of 1..65535");
        }
        length += TLV_HEADER_BYTES + ITEM_VALUE_BYTES;
        break;
      case "quests": {
        tag = TLV_QUESTS;
        if (!isIntegerIn(tlv.catalogueVersion, 0, 0xffff)) badTlv("quests catalogue_version must be a u16");
        if (!Array.isArray(tlv.quests) || tlv.quests.length > QUESTS_MAX) badTlv(`quests holds at most ${QUESTS_MAX}`);
        let last = 0;
        for (const entry of tlv.quests) {
          if (!isIntegerIn(entry.quest, last + 1, 0xff)) badTlv("quests must be u8s by rising number from 1");
          if (!isIntegerIn(entry.state, 1, 3)) badTlv("a quest's state must be 1, 2 or 3");
          if (!isIntegerIn(entry.goal, 0, 0xffff) || !isIntegerIn(entry.progress, 0, entry.goal)) {
            badTlv("a quest's goal must be a u16 and its progress 0..goal");
          }
          last = entry.quest;
        }
        length += TLV_HEADER_BYTES + QUESTS_HEADER_BYTES + tlv.quests.length * QUEST_ENTRY_BYTES;
        break;
      }
      case "quest_marks": {
        tag = TLV_QUEST_MARKS;
        if (!Array.isArray(tlv.marks) || tlv.marks.length > QUEST_MARKS_MAX) {
          badTlv(`quest_marks holds at most ${QUEST_MARKS_MAX}`);
        }
        let last = -1;
        for (const entry of tlv.marks) {
          if (!isIntegerIn(entry.typeId, last + 1, 0xffff)) badTlv("quest marks must be u16 type_ids, rising");
          if (!isIntegerIn(entry.mark, 1, 2)) badTlv("a quest mark must be 1 or 2");
          last = entry.typeId;
        }
        length += TLV_HEADER_BYTES + tlv.marks.length * QUEST_MARK_BYTES;
        break;
      }
      case "party": {
        tag = TLV_PARTY;
        if (!Array.isArray(tlv.members)) badTlv("party members must be a list");
        let value = 0;
        for (const member of tlv.members) {
          if (!isIntegerIn(member.entityId, 0, 0xffffffff)) badTlv("a party member's entity_id must be a u32");
          for (const field of [member.hp, member.hpMax, member.x, member.y])
            if (!isIntegerIn(field, 0, 0xffff)) badTlv("a party member's hp, hp_max, x and y must be u16s");
          if (!isIntegerIn(member.flags, 0, 0xff)) badTlv("a party member's flags must be a u8");
          const bytes = typeof member.name === "string" ? utf8ByteLength(member.name) : -1;
          if (bytes < 1 || bytes > NAME_MAX_BYTES) badTlv(`a party member's name must be 1..${NAME_MAX_BYTES} bytes`);
          const problem = nameProblem(nameScratch, 0, writeUtf8(member.name, nameScratch, 0));
          if (problem !== null) badTlv(`party member name: ${problem}`);
          value += PARTY_MEMBER_HEAD_BYTES + bytes;
        }
        if (value > TLV_VALUE_MAX_BYTES) badTlv(`party value of ${value} bytes exceeds ${TLV_VALUE_MAX_BYTES}`);
        length += TLV_HEADER_BYTES + value;
        break;
      }
      case "level":
        tag = TLV_LEVEL;
        if (!isIntegerIn(tlv.value, 1, 0xff)) badTlv(`level must be 1..255, got ${String(tlv.value)}`);
        length += TLV_HEADER_BYTES + LEVEL_VALUE_BYTES;
        break;
      case "progress": {
        tag = TLV_PROGRESS;
        const { xp, levelXp, nextXp } = tlv;
        if (![xp, levelXp, nextXp].every((value) => isIntegerIn(value, 0, 0xffffffff))) {
          badTlv("progress xp, level_xp and next_xp must be u32s");
        }
        if (levelXp > xp) badTlv("progress level_xp must not be above xp");
        if (nextXp !== 0 && nextXp <= xp) badTlv("progress next_xp must be 0 or above xp");
        length += TLV_HEADER_BYTES + PROGRESS_VALUE_BYTES;
        break;
      }
      case "unknown":
        tag = 0;
        if (!isIntegerIn(tlv.tag, 0, 0xff) || (tlv.tag >= TLV_STATUS_EFFECTS && tlv.tag <= TLV_LAST_KNOWN)) {
          badTlv(
            `unknown TLV tag must be a u8 outside 0x01..0x${TLV_LAST_KNOWN.toString(16).padStart(2, "0")}, got ${String(tlv.tag)}`,
          );
        }
        if (!(tlv.bytes instanceof Uint8Array) || tlv.bytes.length > TLV_VALUE_MAX_BYTES) {
          badTlv(`TLV value must be a Uint8Array of at most ${TLV_VALUE_MAX_BYTES} bytes`);
        }
        length += TLV_HEADER_BYTES + tlv.bytes.length;
        break;
      default:
        badTlv(`unknown TLV kind ${String((tlv as { kind: unknown }).kind)}`);
    }
    if (tag !== 0) {
      if ((seen & (1 << tag)) !== 0) badTlv(`TLV ${tlv.kind} repeated`);
      seen |= 1 << tag;
    }
  }
  return length;
}

/** Writes TLVs that tlvsByteLength accepted; returns bytes written. */
export function writeTlvs(tlvs: readonly Tlv[], out: Uint8Array, offset: number): number {
  let at = offset;
  for (let index = 0; index < tlvs.length; index++) {
    const tlv = tlvs[index];
    switch (tlv.kind) {
      case "status_effects":
      case "weapon":
      case "armor":
      case "appearance":
        out[at + TLV_TAG_OFFSET] = u16Tag(tlv.kind);
        out[at + TLV_LENGTH_OFFSET] = TLV_U16_VALUE_BYTES;
        writeU16(out, at + TLV_HEADER_BYTES, tlv.value);
        at += TLV_HEADER_BYTES + TLV_U16_VALUE_BYTES;
        break;
      case "name": {
        out[at + TLV_TAG_OFFSET] = TLV_NAME;
        const length = writeUtf8(tlv.value, out, at + TLV_HEADER_BYTES);
        out[at + TLV_LENGTH_OFFSET] = length;
        at += TLV_HEADER_BYTES + length;
        break;
      }
      case "inventory": {
        out[at + TLV_TAG_OFFSET] = TLV_INVENTORY;
        out[at + TLV_LENGTH_OFFSET] = INVENTORY_HEADER_BYTES + tlv.stacks.length * INVENTORY_STACK_BYTES;
        let value = at + TLV_HEADER_BYTES;
        writeU32(out, value, tlv.version);
        out[value + 4] = tlv.capacity;
        value += INVENTORY_HEADER_BYTES;
        for (const stack of tlv.stacks) {
          out[value] = stack.slot;
          writeU16(out, value + 1, stack.itemId);
          writeU16(out, value + 3, stack.count);
          value += INVENTORY_STACK_BYTES;
        }
        at = value;
        break;
      }
      case "item":
        out[at + TLV_TAG_OFFSET] = TLV_ITEM;
        out[at + TLV_LENGTH_OFFSET] = ITEM_VALUE_BYTES;
        writeU16(out, at + TLV_HEADER_BYTES, tlv.itemId);
        writeU16(out, at + TLV_HEADER_BYTES + 2, tlv.count);
        at += TLV_HEADER_BYTES + ITEM_VALUE_BYTES;
        break;
      case "quests": {
        out[at + TLV_TAG_OFFSET] = TLV_QUESTS;
        out[at + TLV_LENGTH_OFFSET] = QUESTS_HEADER_BYTES + tlv.quests.length * QUEST_ENTRY_BYTES;
        let value = at + TLV_HEADER_BYTES;
        writeU16(out, value, tlv.catalogueVersion);
        value += QUESTS_HEADER_BYTES;
        for (const entry of tlv.quests) {
          out[value] = entry.quest;
          out[value + 1] = entry.state;
          writeU16(out, value + 2, entry.progress);
          writeU16(out, value + 4, entry.goal);
          value += QUEST_ENTRY_BYTES;
        }
        at = value;
        break;
      }
      case "quest_marks": {
        out[at + TLV_TAG_OFFSET] = TLV_QUEST_MARKS;
        out[at + TLV_LENGTH_OFFSET] = tlv.marks.length * QUEST_MARK_BYTES;
        let value = at + TLV_HEADER_BYTES;
        for (const entry of tlv.marks) {
          writeU16(out, value, entry.typeId);
          out[value + 2] = entry.mark;
          value += QUEST_MARK_BYTES;
        }
        at = value;
        break;
      }
      case "party": {
        out[at + TLV_TAG_OFFSET] = TLV_PARTY;
        let value = at + TLV_HEADER_BYTES;
        for (const member of tlv.members) {
          writeU32(out, value, member.entityId);
          writeU16(out, value + 4, member.hp);
          writeU16(out, value + 6, member.hpMax);
          writeU16(out, value + 8, member.x);
          writeU16(out, value + 10, member.y);
          out[value + 12] = member.flags;
          const nameBytes = writeUtf8(member.name, out, value + PARTY_MEMBER_HEAD_BYTES);
          out[value + 13] = nameBytes;
          value += PARTY_MEMBER_HEAD_BYTES + nameBytes;
        }
        out[at + TLV_LENGTH_OFFSET] = value - at - TLV_HEADER_BYTES;
        at = value;
        break;
      }
      case "level":
        out[at + TLV_TAG_OFFSET] = TLV_LEVEL;
        out[at + TLV_LENGTH_OFFSET] = LEVEL_VALUE_BYTES;
        out[at + TLV_HEADER_BYTES] = tlv.value;
        at += TLV_HEADER_BYTES + LEVEL_VALUE_BYTES;
        break;
      case "progress":
        out[at + TLV_TAG_OFFSET] = TLV_PROGRESS;
        out[at + TLV_LENGTH_OFFSET] = PROGRESS_VALUE_BYTES;
        writeU32(out, at + TLV_HEADER_BYTES, tlv.xp);
        writeU32(out, at + TLV_HEADER_BYTES + 4, tlv.levelXp);
        writeU32(out, at + TLV_HEADER_BYTES + 8, tlv.nextXp);
        at += TLV_HEADER_BYTES + PROGRESS_VALUE_BYTES;
        break;
      case "unknown":
        out[at + TLV_TAG_OFFSET] = tlv.tag;
        out[at + TLV_LENGTH_OFFSET] = tlv.bytes.length;
        out.set(tlv.bytes, at + TLV_HEADER_BYTES);
        at += TLV_HEADER_BYTES + tlv.bytes.length;
        break;
    }
  }
  return at - offset;
}

/** Validates and writes a TLV block; returns its length. Throws EncodeError. */
export function encodeTlvs(tlvs: readonly Tlv[], out: Uint8Array, offset = 0): number {
  checkRoom(out, offset, tlvsByteLength(tlvs));
  return writeTlvs(tlvs, out, offset);
}

const utf8 = new TextDecoder("utf-8");

/** The TLVs of a validated block, in wire order; copies values out of the datagram. */
export function decodeTlvs(bytes: Uint8Array, start: number, end: number): Tlv[] {
  const tlvs: Tlv[] = [];
  for (let at = start; at < end; at += TLV_HEADER_BYTES + bytes[at + TLV_LENGTH_OFFSET]) {
    const tag = bytes[at + TLV_TAG_OFFSET];
    const valueStart = at + TLV_HEADER_BYTES;
    const valueEnd = valueStart + bytes[at + TLV_LENGTH_OFFSET];
    // Only the u16 tags have two value bytes to read; others may end the datagram earlier.
    const u16 =
      (tag >= TLV_STATUS_EFFECTS && tag <= TLV_ARMOR) || tag === TLV_APPEARANCE ? readU16(bytes, valueStart) : 0;
    if (tag === TLV_STATUS_EFFECTS) tlvs.push({ kind: "status_effects", value: u16 });
    else if (tag === TLV_WEAPON) tlvs.push({ kind: "weapon", value: u16 });
    else if (tag === TLV_ARMOR) tlvs.push({ kind: "armor", value: u16 });
    else if (tag === TLV_APPEARANCE) tlvs.push({ kind: "appearance", value: u16 });
    else if (tag === TLV_NAME) tlvs.push({ kind: "name", value: utf8.decode(bytes.subarray(valueStart, valueEnd)) });
    else if (tag === TLV_INVENTORY) tlvs.push(readInventory(bytes, valueStart, valueEnd));
    else if (tag === TLV_QUESTS) tlvs.push(readQuests(bytes, valueStart, valueEnd));
    else if (tag === TLV_PARTY) tlvs.push(readParty(bytes, valueStart, valueEnd));
    else if (tag === TLV_QUEST_MARKS) {
      const marks: QuestMark[] = [];
      for (let mark = valueStart; mark < valueEnd; mark += QUEST_MARK_BYTES) {
        marks.push({ typeId: readU16(bytes, mark), mark: bytes[mark + 2] });
      }
      tlvs.push({ kind: "quest_marks", marks });
    } else if (tag === TLV_ITEM) {
      tlvs.push({ kind: "item", itemId: readU16(bytes, valueStart), count: readU16(bytes, valueStart + 2) });
    } else if (tag === TLV_LEVEL) tlvs.push({ kind: "level", value: bytes[valueStart] });
    else if (tag === TLV_PROGRESS) {
      tlvs.push({
        kind: "progress",
        xp: readU32(bytes, valueStart),
        levelXp: readU32(bytes, valueStart + 4),
        nextXp: readU32(bytes, valueStart + 8),
      });
    } else tlvs.push({ kind: "unknown", tag, bytes: bytes.slice(valueStart, valueEnd) });
  }
  return tlvs;
}

/** The inventory value at bytes[start..end) of a validated block. */
function readInventory(bytes: Uint8Array, start: number, end: number): Tlv {
  const stacks: ItemStack[] = [];
  for (let at = start + INVENTORY_HEADER_BYTES; at < end; at += INVENTORY_STACK_BYTES) {
    stacks.push({ slot: bytes[at], itemId: readU16(bytes, at + 1), count: readU16(bytes, at + 3) });
  }
  return { kind: "inventory", version: readU32(bytes, start), capacity: bytes[start + 4], stacks };
}

/** The party value at bytes[start..end) of a validated block. */
function readParty(bytes: Uint8Array, start: number, end: number): Tlv {
  const members: PartyMember[] = [];
  for (let at = start; at < end;) {
    const nameStart = at + PARTY_MEMBER_HEAD_BYTES;
    const nameEnd = nameStart + bytes[at + 13];
    members.push({
      entityId: readU32(bytes, at),
      hp: readU16(bytes, at + 4),
      hpMax: readU16(bytes, at + 6),
      x: readU16(bytes, at + 8),
      y: readU16(bytes, at + 10),
      flags: bytes[at + 12],
      name: utf8.decode(bytes.subarray(nameStart, nameEnd)),
    });
    at = nameEnd;
  }
  return { kind: "party", members };
}

/** The quests value at bytes[start..end) of a validated block. */
function readQuests(bytes: Uint8Array, start: number, end: number): Tlv {
  const quests: QuestEntry[] = [];
  for (let at = start + QUESTS_HEADER_BYTES; at < end; at += QUEST_ENTRY_BYTES) {
    quests.push({
      quest: bytes[at],
      state: bytes[at + 1],
      progress: readU16(bytes, at + 2),
      goal: readU16(bytes, at + 4),
    });
  }
  return { kind: "quests", catalogueVersion: readU16(bytes, start), quests };
}

/** Offset of the value of the first TLV with `tag` in a validated block, or -1. */
export function findTlv(bytes: Uint8Array, start: number, end: number, tag: number): number {
  for (let at = start; at < end; at += TLV_HEADER_BYTES + bytes[at + TLV_LENGTH_OFFSET]) {
    if (bytes[at + TLV_TAG_OFFSET] === tag) return at + TLV_HEADER_BYTES;
  }
  return -1;
}

/** The u16 value of status_effects / weapon / armor in a validated block, or -1 when absent. */
export function readTlvU16(bytes: Uint8Array, start: number, end: number, tag: number): number {
  const at = findTlv(bytes, start, end, tag);
  return at < 0 ? -1 : readU16(bytes, at);
}

/** The name in a validated block, or null when absent. */
export function readTlvName(bytes: Uint8Array, start: number, end: number): string | null {
  const at = findTlv(bytes, start, end, TLV_NAME);
  const length = at < 0 ? 0 : bytes[at - TLV_HEADER_BYTES + TLV_LENGTH_OFFSET];
  return at < 0 ? null : utf8.decode(bytes.subarray(at, at + length));
}
