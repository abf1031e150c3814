// The recent chat, for the operators' console (issue 43): the last CHAT_LOG_LINES lines players posted for
// everyone to hear, with who said them (entity id and nick, so an operator can mute or kick beside a line).
// A ring of fixed size: a busy world's chat never grows it. Private and party lines are not kept (they
// were not said to everyone), nor lines refused (a muted or rate-limited player's). Read only by the admin
// API; what a line does in the world does not depend on it.

/** Lines kept. */
export const CHAT_LOG_LINES = 500;

export interface LoggedLine {
  /** Wall clock. */
  atMs: number;
  entityId: number;
  nick: string;
  text: string;
}

export class ChatLog {
  private readonly lines: (LoggedLine | undefined)[];
  private next = 0;

  constructor(
    readonly capacity = CHAT_LOG_LINES,
    private readonly now: () => number = Date.now,
  ) {
    this.lines = new Array<LoggedLine | undefined>(capacity);
  }

  add(entityId: number, nick: string, text: string): void {
    this.lines[this.next] = { atMs: this.now(), entityId, nick, text };
    this.next = (this.next + 1) % this.capacity;
  }

  /** The newest `limit` lines whose nick or text holds `query` (any case; all without one), newest first. */
  recent(limit: number, query = ""): LoggedLine[] {
    const needle = query.toLowerCase();
    const found: LoggedLine[] = [];
    for (let i = 1; i <= this.capacity && found.length < limit; i++) {
      const line = this.lines[(this.next - i + this.capacity) % this.capacity];
      if (line === undefined) break;
      if (needle === "" || line.nick.toLowerCase().includes(needle) || line.text.toLowerCase().includes(needle)) {
        found.push(line);
      }
    }
    return found;
  }
}
