// Nick rules, shared by guest play and (later) registration.
import { NAME_MAX_BYTES } from "../protocol/tlv.js";

export const NICK_MAX_CHARS = 16;

/** The normalised nick, or a human-readable reason it is refused. */
export function checkNick(raw: string): { ok: true; nick: string } | { ok: false; reason: string } {
  const nick = raw.normalize("NFC").trim().replace(/\s+/g, " ");
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
  return { ok: true, nick };
}
