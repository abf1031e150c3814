// When to ask the server for missing chunks (protocol: Reliability, "Lost
// ActionPacket" and "Lost ChunkPacket"). Every ActionPacket carries the cache
// list, so any of them is a request; a dedicated cache-ack (target_tick 0,
// NOOP) goes out only when chunks are missing and no ActionPacket has carried
// the list for `retransmitMs` — until they arrive. The server holds back a
// re-send for 150 ms, less than this timeout, so a lost chunk always comes again.

/** Within the protocol's 200–300 ms retransmit window. */
export const CHUNK_RETRANSMIT_MS = 250;

export class ChunkRequester {
  private lastListSentMs = -Infinity;
  private missingSinceMs = NaN;
  /** Dedicated cache-acks sent. */
  requests = 0;
  /** Of those, the ones sent because chunks stayed missing past a timeout. */
  retransmits = 0;

  constructor(readonly retransmitMs = CHUNK_RETRANSMIT_MS) {}

  /** Records that an ActionPacket carrying the cache list went out. */
  noteListSent(nowMs: number): void {
    this.lastListSentMs = nowMs;
  }

  /** Whether a dedicated cache-ack is due, given how many manifest chunks are missing. */
  due(missingCount: number, nowMs: number): boolean {
    if (missingCount === 0) {
      this.missingSinceMs = NaN;
      return false;
    }
    if (Number.isNaN(this.missingSinceMs)) this.missingSinceMs = nowMs;
    if (nowMs - this.lastListSentMs < this.retransmitMs) return false;
    this.requests++;
    if (nowMs - this.missingSinceMs >= this.retransmitMs) this.retransmits++;
    return true;
  }

  reset(): void {
    this.lastListSentMs = -Infinity;
    this.missingSinceMs = NaN;
  }
}
