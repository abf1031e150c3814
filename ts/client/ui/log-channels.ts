// The message log's channels (issue 18 item 1): every line belongs to one —
// chat (what players say, and what became of our own lines), system (the
// server's and the page's own words: the connection, hints, refusals, signs and
// doors), combat (the blows, issue 13) and presence (who joined or left the
// game) — and the log panel shows one view of them at a time. With 50 bots
// passing by, chat stays readable because nothing but chat is in the Chat view,
// and presence is in no view but System: it is collapsed there by the server (one
// line a second for a burst of joins) and never in All.
//
// Who walks into or out of view is not a log line at all: the side panel's
// "Near" list says who is here, and a line "X left" for a player who only
// walked off read like a quit.
import type { ChatEvent } from "../core/chat.js";
import { CHAT_SPEAKER_PRESENCE, CHAT_SPEAKER_SYSTEM } from "../../protocol/chat.js";
import { speakerChannel } from "../../protocol/chat-speakers.js";

export type LogChannel = "chat" | "private" | "party" | "system" | "combat" | "presence";
export type LogView = "all" | "chat" | "combat" | "system";
export const LOG_VIEWS: readonly LogView[] = ["all", "chat", "combat", "system"];
export const LOG_VIEW_LABELS: Readonly<Record<LogView, string>> = {
  all: "All",
  chat: "Chat",
  combat: "Combat",
  system: "System",
};

/** The speaker name of the server's "X joined" / "X left" lines: filed under presence, shown without it. */
export const PRESENCE_SPEAKER = CHAT_SPEAKER_PRESENCE;

const SHOWN_IN: Readonly<Record<LogView, ReadonlySet<LogChannel>>> = {
  all: new Set(["chat", "private", "party", "system", "combat"]),
  chat: new Set(["chat", "private", "party"]),
  combat: new Set(["combat"]),
  system: new Set(["system", "presence"]),
};

/** Whether `view` shows lines of `channel`. */
export function viewShows(view: LogView, channel: LogChannel): boolean {
  return SHOWN_IN[view].has(channel);
}

/** The view after `view` (the L key walks them in order). */
export function nextView(view: LogView): LogView {
  return LOG_VIEWS[(LOG_VIEWS.indexOf(view) + 1) % LOG_VIEWS.length];
}

/** The channel of a chat event: a player's line is chat; the server's own are system or presence. */
export function chatEventChannel(event: ChatEvent): LogChannel {
  if (event.kind !== "line") return "chat";
  // Private and party lines name their channel in the speaker name (protocol/chat-speakers.ts).
  const tagged = speakerChannel(event.speakerName);
  if (tagged !== null) return tagged.channel === "party" ? "party" : "private";
  if (event.speakerEntityId !== CHAT_SPEAKER_SYSTEM) return "chat";
  return event.speakerName === PRESENCE_SPEAKER ? "presence" : "system";
}

export interface ChannelLine {
  /** Rises by one per line, never reused: the panel appends the lines after the last it showed. */
  readonly seq: number;
  readonly channel: LogChannel;
  readonly text: string;
  /** RGB332, as the framebuffer palette has it (the panel turns it into CSS). */
  readonly colour: number;
}

/** Lines kept per channel: a flood of one (presence, combat) cannot push another's lines out. */
export const LINES_PER_CHANNEL = 200;

/**
 * Every channel's newest lines, in arrival order. Each channel has its own cap, so the Chat view's
 * scrollback is 200 chat lines however busy the others are.
 */
export class ChannelLog {
  private readonly channels = new Map<LogChannel, ChannelLine[]>();
  private nextSeq = 1;

  constructor(readonly perChannel = LINES_PER_CHANNEL) {}

  /** The newest line's seq (0 before any). */
  get lastSeq(): number {
    return this.nextSeq - 1;
  }

  add(channel: LogChannel, text: string, colour: number): ChannelLine {
    const line = { seq: this.nextSeq++, channel, text, colour };
    let lines = this.channels.get(channel);
    if (lines === undefined) this.channels.set(channel, (lines = []));
    lines.push(line);
    if (lines.length > this.perChannel) lines.splice(0, lines.length - this.perChannel);
    return line;
  }

  /** The lines `view` shows, oldest first; with `afterSeq`, only the ones newer than it. */
  linesOf(view: LogView, afterSeq = 0): ChannelLine[] {
    return this.collect((channel) => viewShows(view, channel), afterSeq);
  }

  /** Every channel's lines newer than `afterSeq`, oldest first. */
  since(afterSeq: number): ChannelLine[] {
    return this.collect(() => true, afterSeq);
  }

  private collect(wanted: (channel: LogChannel) => boolean, afterSeq: number): ChannelLine[] {
    const out: ChannelLine[] = [];
    for (const [channel, lines] of this.channels) {
      if (!wanted(channel)) continue;
      for (let index = lines.length - 1; index >= 0 && lines[index].seq > afterSeq; index--) out.push(lines[index]);
    }
    return out.sort((a, b) => a.seq - b.seq);
  }
}
