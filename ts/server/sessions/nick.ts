// Nick rules, shared by guest play and registration. A nick is what other
// players read over a character and in chat, so it must be visible, must not
// impersonate the game's own voices, and must not pass for another player's.
import { rectifyConfusion } from "unicode-confusables";
import { NAME_MAX_BYTES } from "../../protocol/tlv.js";

export const NICK_MAX_CHARS = 16;
/** Combining marks allowed on one base character: enough for any script, not for "zalgo" towers. */
const MARKS_PER_BASE_MAX = 3;

/**
 * Names the server speaks with (system lines, signs, boards) or that claim
 * authority; compared by nickKey, so "Sуstem" or "ADMIN" are taken too.
 */
const RESERVED = ["system", "server", "admin", "administrator", "moderator", "notice board", "sign", "game master"];

/**
 * What two nicks that look alike have in common: NFKC (fullwidth and
 * compatibility forms become their plain letters), UTS #39 confusable
 * prototypes (Cyrillic "А" is Latin "A", "rn" looks like "m", "1" and "I" like
 * "l"), lower case, and no separators (so "Ada L" and "AdaL" are one name).
 */
export function nickKey(nick: string): string {
  // Prototypes before and after lower-casing: "I" looks like "l" only as a capital, "m" like "rn" only in lower case.
  const upper = rectifyConfusion(nick.normalize("NFKC").normalize("NFD"));
  return rectifyConfusion(upper.toLowerCase())
    .toLowerCase()
    .replace(/[\s_.\-]+/g, "");
}

const RESERVED_KEYS = new Set(RESERVED.map(nickKey));
const TOO_MANY_MARKS = new RegExp(`\\p{M}{${MARKS_PER_BASE_MAX + 1}}`, "u");

/** The normalised nick, or a human-readable reason it is refused. */
export function checkNick(raw: string): { ok: true; nick: string } | { ok: false; reason: string } {
  // NFKC: a fullwidth "Ａｄａ" is "Ada"; ligatures and other compatibility forms become what they stand for.
  const nick = raw.normalize("NFKC").trim().replace(/\s+/g, " ");
  if (nick.length === 0) return { ok: false, reason: "nick must not be empty" };
  if ([...nick].length > NICK_MAX_CHARS)
    return { ok: false, reason: `nick must be at most ${NICK_MAX_CHARS} characters` };
  // The nick travels in the `name` TLV of EntityDetail, which caps its UTF-8 length.
  if (Buffer.byteLength(nick, "utf8") > NAME_MAX_BYTES) {
    return { ok: false, reason: `nick must be at most ${NAME_MAX_BYTES} bytes of UTF-8` };
  }
  // Letters, digits, marks and a few separators: enough for real names in any
  // script, nothing that can spoof the UI (control, format or bidi characters).
  if (!/^[\p{L}\p{M}\p{N} _.\-]+$/u.test(nick)) {
    return { ok: false, reason: "nick may contain only letters, digits, spaces and _ . -" };
  }
  // Letters that draw nothing (U+3164 HANGUL FILLER, U+115F, U+FFA0, …) pass \p{L} but are invisible.
  if (/\p{Default_Ignorable_Code_Point}/u.test(nick)) {
    return { ok: false, reason: "nick must not contain invisible characters" };
  }
  if (!/^[\p{L}\p{N}]/u.test(nick)) return { ok: false, reason: "nick must start with a letter or a digit" };
  // Counted decomposed, so a precomposed "á" counts its accent too.
  if (TOO_MANY_MARKS.test(nick.normalize("NFD"))) {
    return { ok: false, reason: `nick may carry at most ${MARKS_PER_BASE_MAX} marks on one letter` };
  }
  if (RESERVED_KEYS.has(nickKey(nick))) return { ok: false, reason: `"${nick}" is reserved` };
  return { ok: true, nick };
}

/** The refusal of a nick that would pass for one in play. */
export function lookalikeMessage(nick: string, lookalike: string): string {
  return nick === lookalike
    ? `"${nick}" is playing now: choose another nick`
    : `"${nick}" looks too much like "${lookalike}", who is playing now: choose another nick`;
}
