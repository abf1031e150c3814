// The message log's channels mirrored as text in the page, visually hidden:
// live regions a screen reader announces (the visible log panel is marked
// aria-hidden so nothing is read twice), and what tests read. #log holds every
// channel but combat, #combat-log the combat lines, newest last; rewritten only
// when the log grew.
import type { ChannelLog, LogChannel } from "./log-channels.js";

export class LogMirror {
  private shownSeq = -1;

  constructor(
    private readonly element: HTMLElement,
    private readonly log: ChannelLog,
    private readonly channels: ReadonlySet<LogChannel>,
  ) {}

  show(): void {
    if (this.log.lastSeq === this.shownSeq) return;
    const fresh = this.log.since(this.shownSeq < 0 ? 0 : this.shownSeq);
    this.shownSeq = this.log.lastSeq;
    if (!fresh.some((line) => this.channels.has(line.channel))) return;
    const doc = this.element.ownerDocument;
    const lines = this.log.since(0).filter((line) => this.channels.has(line.channel));
    this.element.replaceChildren(
      ...lines.map((line) => {
        const paragraph = doc.createElement("p");
        paragraph.textContent = line.text;
        return paragraph;
      }),
    );
  }
}
