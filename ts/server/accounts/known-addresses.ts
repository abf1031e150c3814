// The addresses each account is played from (issue 41): the source that
// registered it and every source that logged into it with the right password.
// The login limits (login-limits.ts) let such an address through the holds
// that failures from elsewhere put on an account or an address, so a guesser
// who knows a name cannot lock its owner out.
//
// Kept in memory (bounded, the longest-unused forgotten first) and, in one
// process, in SQLite (login-address-store.ts), so a restart does not make the
// owner a stranger while someone guesses at its name. A cluster's regions keep
// them in memory only (docs/scaling.md).

/** Where known addresses outlive the process: the SQLite store of one process. */
export interface KnownAddressStore {
  /** Whether `address` registered or logged into the account whose name key is `accountKey`. */
  has(accountKey: string, address: string): boolean;
  /** Remembers that `address` registered or logged into the account `accountKey` at `nowMs`. */
  add(accountKey: string, address: string, nowMs: number): void;
}

/** Known pairs held in memory; beyond it the longest-unused is forgotten there (a store still has it). */
export const KNOWN_ADDRESSES_IN_MEMORY = 100_000;
/** Pairs the store said it does not know, held so a flood of guesses does not ask it again and again. */
const UNKNOWN_IN_MEMORY = 10_000;

export class KnownAddresses {
  /** "accountKey\naddress" of the known pairs, in order of last use. */
  private readonly known = new Map<string, true>();
  /**
   * Pairs the store did not know, apart from `known` so that a flood of strangers' guesses can never
   * push a known pair out of memory (with no store, memory is all there is).
   */
  private readonly unknown = new Map<string, true>();

  constructor(
    private readonly store: KnownAddressStore | null = null,
    private readonly maxKnown = KNOWN_ADDRESSES_IN_MEMORY,
  ) {}

  /** Whether `address` ever registered or logged into the account `accountKey`. */
  has(accountKey: string, address: string): boolean {
    const pair = `${accountKey}\n${address}`;
    if (this.known.has(pair)) {
      touch(this.known, pair, this.maxKnown);
      return true;
    }
    if (this.store === null || this.unknown.has(pair)) return false;
    if (this.store.has(accountKey, address)) {
      touch(this.known, pair, this.maxKnown);
      return true;
    }
    touch(this.unknown, pair, UNKNOWN_IN_MEMORY);
    return false;
  }

  /** `address` registered or logged into the account `accountKey` (with the right password). */
  add(accountKey: string, address: string, nowMs: number): void {
    const pair = `${accountKey}\n${address}`;
    this.unknown.delete(pair);
    touch(this.known, pair, this.maxKnown);
    this.store?.add(accountKey, address, nowMs);
  }

  /** Known pairs held in memory. */
  get size(): number {
    return this.known.size;
  }
}

/** Puts `key` last in `map` (Map order is the eviction order), dropping the first beyond `max`. */
function touch(map: Map<string, true>, key: string, max: number): void {
  map.delete(key);
  if (map.size >= max) map.delete(map.keys().next().value as string);
  map.set(key, true);
}
