// A gateway finding the region of a session it does not route (docs/scaling.md § A gateway lost): the
// client of a gateway that died sends its next ActionPacket to another gateway, which knows nothing of
// its token. The directory does (`session:<token>`: the region holding it, written at the join and at
// every handoff), so the gateway asks it and routes the session from then on; the region, not the
// gateway, decides whether the packet may move the session (its tag and a fresh sequence, protocol.md
// § 6.1). Asking costs a Redis round trip, so it is bounded: one question per token at a time, a token
// the directory did not know is not asked about again for a while, and each source address may make
// only a few questions a second (a flood of made-up tokens costs its sender, not Redis).
import { KeyedRateLimiter } from "../server/edge/rate-limit.js";

/** Questions per second a source address may make (and its burst). */
const LOOKUPS_PER_SECOND = 4;
const LOOKUP_BURST = 8;
/** A token the directory did not know is not asked about again for this long. */
const UNKNOWN_FOR_MS = 2_000;
/** The most tokens remembered as unknown, and questions out at once. */
const MAX_UNKNOWN = 10_000;
const MAX_PENDING = 1_000;

export interface RouteFinderStats {
  /** Questions asked, sessions found, tokens the directory did not know, questions refused by the limits. */
  asked: number;
  found: number;
  unknown: number;
  limited: number;
}

export class RouteFinder {
  readonly stats: RouteFinderStats = { asked: 0, found: 0, unknown: 0, limited: 0 };
  /** The questions out, by token: a second asker for the same token shares the first one's. */
  private readonly pending = new Map<string, Promise<number | null>>();
  /** Tokens the directory did not know, and until when they are not asked about. */
  private readonly unknownUntil = new Map<string, number>();
  private readonly limiter = new KeyedRateLimiter(LOOKUPS_PER_SECOND, LOOKUP_BURST, 100_000);

  constructor(
    /** The region holding session `tokenHex` (the directory's `sessionOf`), or null when none does. */
    private readonly regionOf: (tokenHex: string) => Promise<number | null>,
  ) {}

  /**
   * Asks for the region of session `tokenHex`, unless the limits say no: `found` runs with it once known
   * (not at all when no region holds it, or the question failed). `source` is the asker's address key.
   * A datagram arriving while its token's question is out is dropped (the client sends another).
   */
  find(tokenHex: string, source: string, nowMs: number, found: (region: number) => void): void {
    if (this.pending.has(tokenHex)) return;
    void this.region(tokenHex, source, nowMs).then((region) => {
      if (region !== null) found(region);
    });
  }

  /**
   * The region of session `tokenHex`, or null when no region holds it, the question failed or the limits
   * refused it; a question already out for the token is shared (a browser's WebRTC signalling asks so:
   * gateway.ts).
   */
  region(tokenHex: string, source: string, nowMs: number): Promise<number | null> {
    const out = this.pending.get(tokenHex);
    if (out !== undefined) return out;
    const until = this.unknownUntil.get(tokenHex);
    if (until !== undefined) {
      if (until > nowMs) return Promise.resolve(null);
      this.unknownUntil.delete(tokenHex);
    }
    if (this.pending.size >= MAX_PENDING || !this.limiter.take(source, nowMs)) {
      this.stats.limited++;
      return Promise.resolve(null);
    }
    this.stats.asked++;
    const question = this.regionOf(tokenHex)
      .then(
        (region) => {
          if (region === null) this.forget(tokenHex, nowMs);
          else this.stats.found++;
          return region;
        },
        () => {
          this.forget(tokenHex, nowMs);
          return null;
        },
      )
      .finally(() => this.pending.delete(tokenHex));
    this.pending.set(tokenHex, question);
    return question;
  }

  private forget(tokenHex: string, nowMs: number): void {
    this.stats.unknown++;
    if (this.unknownUntil.size >= MAX_UNKNOWN) {
      // The oldest entry goes first (a Map keeps insertion order).
      const oldest = this.unknownUntil.keys().next().value;
      if (oldest !== undefined) this.unknownUntil.delete(oldest);
    }
    this.unknownUntil.set(tokenHex, nowMs + UNKNOWN_FOR_MS);
  }
}
