// Private and party lines (issue 39, docs/protocol.md § 14.6): ChatPackets like any other, told apart by
// their speaker name, as the presence lines are (§ 14.3). A nick holds only letters, digits, spaces and
// "_ . -" (ts/server/sessions/nick.ts), so a name with parentheses can never be a player's own: these
// forms cannot be forged by choosing a nick, and a client that knows none of this shows the line as
// "Ada (private): see you at the hall" — readable as it is.
import { NAME_MAX_BYTES } from "./tlv.js";
import { utf8ByteLength } from "./text.js";

/** What a tagged speaker name says about its line. */
export type SpeakerChannel =
  /** `nick` told this player privately: "Ada (private)". */
  | "private_from"
  /** This player's own private line to `nick`, echoed once it was delivered (or stored): "(to Ada)". */
  | "private_to"
  /** `nick` said it on the party channel: "Ada (party)". */
  | "party";

const FROM_SUFFIX = " (private)";
const PARTY_SUFFIX = " (party)";
const TO_PREFIX = "(to ";
const TO_SUFFIX = ")";
/** What a nick too long for its tag is cut to end with. */
const CUT = "…";

/**
 * The speaker name of a line on `channel` with `nick` as its other party. The name is at most
 * NAME_MAX_BYTES: a nick too long to carry its tag is cut (at a character) and ends with "…" — the
 * server keeps who it was for a reply, so the cut costs only the display.
 */
export function taggedSpeaker(channel: SpeakerChannel, nick: string): string {
  const [before, after] = channel === "private_to" ? [TO_PREFIX, TO_SUFFIX] : ["", suffixOf(channel)];
  const room = NAME_MAX_BYTES - utf8ByteLength(before) - utf8ByteLength(after);
  return before + fitted(nick, room) + after;
}

/** The channel and other party a tagged speaker name names, or null for any other name. */
export function speakerChannel(name: string): { channel: SpeakerChannel; nick: string } | null {
  if (name.startsWith(TO_PREFIX) && name.endsWith(TO_SUFFIX) && name.length > TO_PREFIX.length + TO_SUFFIX.length)
    return { channel: "private_to", nick: name.slice(TO_PREFIX.length, -TO_SUFFIX.length) };
  for (const channel of ["private_from", "party"] as const) {
    const suffix = suffixOf(channel);
    if (name.endsWith(suffix) && name.length > suffix.length && !name.startsWith("("))
      return { channel, nick: name.slice(0, -suffix.length) };
  }
  return null;
}

function suffixOf(channel: "private_from" | "party"): string {
  return channel === "party" ? PARTY_SUFFIX : FROM_SUFFIX;
}

/** `nick` if it fits `room` bytes of UTF-8, else its longest prefix of whole characters that fits with "…". */
function fitted(nick: string, room: number): string {
  if (utf8ByteLength(nick) <= room) return nick;
  let out = "";
  let bytes = utf8ByteLength(CUT);
  for (const character of nick) {
    const size = utf8ByteLength(character);
    if (bytes + size > room) break;
    out += character;
    bytes += size;
  }
  return out + CUT;
}
