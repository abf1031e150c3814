// Display names of the players and NPCs in view. Names are not in the 12 Hz entity
// updates (they would cost bytes every time); the client asks once per entity
// with an EntityQueryPacket and reads the `name` TLV of the EntityDetail
// answer. Queries are retransmitted after a timeout (protocol: Reliability,
// "Lost EntityQueryPacket / EntityDetailPacket") a bounded number of times, a
// few at a time so a crowd cannot trip the server's per-session rate limit.
// Entity ids are never reused while a server runs, so a cached name stays right.

export const QUERY_RETRANSMIT_MS = 250;
export const QUERY_MAX_TRIES = 5;
/** Queries in flight at once. */
const IN_FLIGHT_MAX = 4;
/** After giving up, try again this much later (the server may have been overloaded). */
const GIVE_UP_PAUSE_MS = 10_000;
/** Names remembered; the oldest are forgotten first. */
const NAMES_KEPT = 1024;

interface Query {
  sentAtMs: number;
  tries: number;
}

export class NameDirectory {
  private readonly known = new Map<number, string>();
  private readonly queries = new Map<number, Query>();
  private readonly wanted: number[] = [];
  /** Entities that answered without a name: not asked again. */
  private readonly nameless = new Set<number>();
  /** Queries sent, retransmits included. */
  sent = 0;

  constructor(
    readonly retransmitMs = QUERY_RETRANSMIT_MS,
    readonly maxTries = QUERY_MAX_TRIES,
  ) {}

  get names(): ReadonlyMap<number, string> {
    return this.known;
  }

  /** Notes that entity `id` is in view and its name is wanted. */
  want(id: number): void {
    if (this.known.has(id) || this.nameless.has(id) || this.queries.has(id) || this.wanted.includes(id)) return;
    this.wanted.push(id);
  }

  /** Entity ids to query now: timed-out queries first, then new ones, never more than IN_FLIGHT_MAX in flight. */
  due(nowMs: number): number[] {
    const out: number[] = [];
    let inFlight = 0;
    for (const [id, query] of this.queries) {
      if (query.tries >= this.maxTries) {
        if (nowMs - query.sentAtMs >= GIVE_UP_PAUSE_MS) this.queries.delete(id);
        continue;
      }
      if (nowMs - query.sentAtMs >= this.retransmitMs) {
        query.sentAtMs = nowMs;
        query.tries++;
        out.push(id);
      }
      inFlight++;
    }
    while (inFlight < IN_FLIGHT_MAX && this.wanted.length > 0) {
      const id = this.wanted.shift()!;
      if (this.known.has(id)) continue;
      this.queries.set(id, { sentAtMs: nowMs, tries: 1 });
      out.push(id);
      inFlight++;
    }
    this.sent += out.length;
    return out;
  }

  /** An EntityDetail answered for `id`; `name` is its name TLV, or null if it has none. */
  receive(id: number, name: string | null): void {
    this.queries.delete(id);
    if (name === null) {
      this.nameless.add(id);
      if (this.nameless.size > NAMES_KEPT) this.nameless.delete(this.nameless.values().next().value!);
      return;
    }
    this.known.delete(id);
    this.known.set(id, name);
    if (this.known.size > NAMES_KEPT) this.known.delete(this.known.keys().next().value!);
  }

  /** Forgets queries in flight (a new session), keeping the names learnt. */
  resetQueries(): void {
    this.queries.clear();
    this.wanted.length = 0;
  }
}
