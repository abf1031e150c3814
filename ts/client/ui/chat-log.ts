// What chat puts in the side panel's message log: one line per chat event,
// "speaker: text" with the speaker's current nick from the name lookups (the
// name the line carried when the speaker is unknown to us, "system" for entity
// 0 without a name), and the refusals in plain words. The HUD font has only
// printable ASCII: foldForFont takes accents off before a line is drawn there
// (the log panel is HTML and shows the text as it came).
import type { ChatEvent } from "../core/chat.js";
import type { HudLine } from "../render/hud.js";
import * as P from "../render/palette.js";
import { PRESENCE_SPEAKER } from "./log-channels.js";
import { speakerChannel } from "../../protocol/chat-speakers.js";

/** "é" → "e": letters with marks lose the marks; the font draws other non-ASCII as '?'. */
export function foldForFont(text: string): string {
  return text.normalize("NFD").replace(/\p{M}/gu, "");
}

/** The speaker as the log names them. */
export function speakerLabel(speakerEntityId: number, speakerName: string, names: ReadonlyMap<number, string>): string {
  if (speakerEntityId === 0) return speakerName || "system";
  return names.get(speakerEntityId) ?? (speakerName || `#${speakerEntityId}`);
}

export function chatLogLine(event: ChatEvent, names: ReadonlyMap<number, string>): HudLine {
  switch (event.kind) {
    case "line": {
      // The server's join and leave lines say who themselves: "Ada joined", not "presence: Ada joined".
      if (event.speakerEntityId === 0 && event.speakerName === PRESENCE_SPEAKER)
        return { text: event.text, colour: P.CHAT_PRESENCE };
      // A private or party line: who it is from or to, as its tagged name says (its speaker may be gone).
      const tagged = speakerChannel(event.speakerName);
      if (tagged !== null) {
        if (tagged.channel === "party") return { text: `[party] ${tagged.nick}: ${event.text}`, colour: P.CHAT_PARTY };
        const way = tagged.channel === "private_from" ? "from" : "to";
        return { text: `${way} ${tagged.nick}: ${event.text}`, colour: P.CHAT_PRIVATE };
      }
      const speaker = speakerLabel(event.speakerEntityId, event.speakerName, names);
      const colour = event.speakerEntityId === 0 ? P.CHAT_SYSTEM : P.CHAT_PLAYER;
      return { text: `${speaker}: ${event.text}`, colour };
    }
    case "missed":
      return { text: `(${event.count} chat line${event.count === 1 ? "" : "s"} missed)`, colour: P.CHAT_PROBLEM };
    case "not_posted":
      return {
        text: event.reason === "rate_limited" ? `Too fast, not sent: ${event.text}` : `Not posted: ${event.text}`,
        colour: P.CHAT_PROBLEM,
      };
    case "unsent":
      return {
        text: `${event.count} chat line${event.count === 1 ? "" : "s"} may not have been sent (connection lost)`,
        colour: P.CHAT_PROBLEM,
      };
  }
}

/** Why the chat box did not send a line, in words for the player. */
export function chatInputProblem(problem: "empty" | "too_long" | "bad_text" | "busy", bytes: number): string {
  switch (problem) {
    case "empty":
      return "Nothing to send.";
    case "too_long":
      return `Too long: ${bytes} bytes, at most 200. Shorten it.`;
    case "bad_text":
      return "That text has characters chat cannot carry.";
    case "busy":
      return "Earlier lines are still on their way; wait a moment.";
  }
}
