// One message log for the side panel, in the order things happened: the play
// session's own lines (connection, who came near) and the lines of features
// layered on it (chat, interaction hints). The session rebuilds its log every
// frame; this watches it and takes each line it has not seen yet, so both kinds
// interleave as they arrived. The session's log only grows at its end and drops
// its oldest lines at a cap, so its newest lines are found as the suffix that
// follows the longest overlap with what was seen the frame before.
import type { HudLine } from "../render/hud.js";

export class LogMerge {
  private readonly merged: HudLine[] = [];
  private seen: string[] = [];
  /** Goes up whenever `lines` changes. */
  version = 0;

  constructor(readonly limit = 64) {}

  get lines(): readonly HudLine[] {
    return this.merged;
  }

  /** Takes the session log's lines that arrived since the last call. */
  observe(session: readonly HudLine[]): void {
    const keys = session.map(keyOf);
    const previous = this.seen;
    this.seen = keys;
    if (keys.length === previous.length && keys.every((key, index) => key === previous[index])) return;
    // The smallest shift k such that previous[k..] is a prefix of keys: how many old lines fell off the front.
    let shift = 0;
    while (shift < previous.length && !isPrefix(previous, shift, keys)) shift++;
    for (let index = previous.length - shift; index < session.length; index++) this.add(session[index]);
  }

  add(line: HudLine): void {
    this.merged.push(line);
    if (this.merged.length > this.limit) this.merged.splice(0, this.merged.length - this.limit);
    this.version++;
  }
}

function keyOf(line: HudLine): string {
  return `${line.colour}:${line.text}`;
}

function isPrefix(previous: readonly string[], shift: number, keys: readonly string[]): boolean {
  if (previous.length - shift > keys.length) return false;
  for (let index = shift; index < previous.length; index++) if (previous[index] !== keys[index - shift]) return false;
  return true;
}
