// "X joined" notices, coalesced: the joins of one second go out together, one
// line per listener naming the joins near it — "Ada joined", "Ada and Bo
// joined", "Ada, Bo and 7 others joined". A burst of joins (a bus of players,
// or a flood) costs each bystander one line a second instead of one per join
// (issue 17 item 3: 255 joins once sent a bystander 510 lines in 14 s). The
// window is counted in the world's ticks, not the machine's time, so a replay
// watched at any speed announces the same joins and leaves at the same ticks.
import { CHAT_SPEAKER_PRESENCE } from "../protocol/chat.js";
import type { ChatService } from "./talk/chat.js";
import type { Session, SessionRegistry } from "./sessions/session.js";

/** How long the first join of a batch waits for others before the batch is announced, in seconds of the world. */
export const JOIN_NOTICE_WINDOW_SECONDS = 1;
/** Names a line spells out before it counts the rest as "N others". */
const NAMES_SPELLED = 2;

interface PendingJoin {
  readonly session: Session;
  readonly nick: string;
  readonly x: number;
  readonly y: number;
}

export class JoinNotices {
  private pending: PendingJoin[] = [];
  private firstAtTick = 0;

  constructor(
    private readonly ports: {
      readonly sessions: Pick<SessionRegistry, "values">;
      readonly chat: Pick<ChatService, "tell">;
    },
    /** Listeners within this many tiles (Chebyshev) of a join hear of it. */
    private readonly radius: number,
    /** The world's ticks a second. */
    private readonly tickHz: number,
  ) {}

  /** Queues `session`'s join at tick `tick`, where its player stands now. */
  add(session: Session, tick: number): void {
    if (this.pending.length === 0) this.firstAtTick = tick;
    this.pending.push({ session, nick: session.nick, x: session.entity.x, y: session.entity.y });
  }

  /**
   * Drops `session`'s join if it has not been announced yet; true if it was pending. A player who
   * leaves within the window is then announced neither joining nor leaving.
   */
  cancel(session: Session): boolean {
    const index = this.pending.findIndex((join) => join.session === session);
    if (index < 0) return false;
    this.pending.splice(index, 1);
    return true;
  }

  /** Announces the batch once its window has passed at `tick`: one line per listener that has any join near it. */
  flush(tick: number): void {
    if (this.pending.length === 0 || tick - this.firstAtTick < JOIN_NOTICE_WINDOW_SECONDS * this.tickHz) return;
    const batch = this.pending;
    this.pending = [];
    const names: string[] = [];
    for (const listener of this.ports.sessions.values()) {
      names.length = 0;
      const { x, y } = listener.entity;
      for (const join of batch) {
        if (Math.abs(join.x - x) <= this.radius && Math.abs(join.y - y) <= this.radius) names.push(join.nick);
      }
      if (names.length > 0) this.ports.chat.tell(listener, joinLine(names), CHAT_SPEAKER_PRESENCE);
    }
  }
}

/** "Ada joined", "Ada and Bo joined", "Ada, Bo and Cy joined", "Ada, Bo and 7 others joined". */
export function joinLine(names: readonly string[]): string {
  if (names.length === 1) return `${names[0]} joined`;
  if (names.length === 2) return `${names[0]} and ${names[1]} joined`;
  if (names.length === NAMES_SPELLED + 1) return `${names[0]}, ${names[1]} and ${names[2]} joined`;
  return `${names.slice(0, NAMES_SPELLED).join(", ")} and ${names.length - NAMES_SPELLED} others joined`;
}
