// Who may try a password now (issue 17 item 6, issue 41; docs/server.md §
// HTTP limits). Three backoffs (failure-backoff.ts), each checked before any
// password is hashed:
//
//   - an account from one address: `pairFailures` free, then the wait doubles
//     with each further failure. Bounds one guesser at one account, whatever
//     else it does; a right password from that address clears it.
//   - an address, at any names: `addressFailures` free. Bounds a sweep of many
//     names from one address. A success does not clear it, so logging into
//     one's own account buys an address no more guesses at others'.
//   - an account, from anywhere: `accountFailures` free. Bounds a guesser with
//     many addresses. A success does not clear it either.
//
// The address and account holds keep back only addresses the account does not
// know (known-addresses.ts: the one that registered it, those that logged into
// it). So failures from elsewhere can never keep an owner out of its account
// from an address it plays from: there only the first backoff holds, and only
// failures from that very address at that very account feed it. A guesser's
// addresses are strangers to the account and meet all three; the bound on a
// brute force is as before (the soak: docs/security.md).
import { accountNameKey } from "./account-rules.js";
import { BACKOFF_FIRST_MS, FailureBackoff } from "./failure-backoff.js";
import type { KnownAddresses } from "./known-addresses.js";

export interface LoginLimitOptions {
  /** Failures at one account from one address before that pair waits. */
  pairFailures: number;
  /** Failures from one address, at any names, before it waits (where the account does not know it). */
  addressFailures: number;
  /** Failures at one account, from anywhere, before the addresses it does not know wait. */
  accountFailures: number;
  /** The first wait; each further failure doubles it (up to 15 min). */
  firstWaitMs?: number;
}

/** A login that must wait: how long, and whose failures hold it. */
export interface LoginHold {
  waitMs: number;
  cause: "from this address" | "for this account";
}

/** Keys in each table; beyond it the longest-untouched is forgotten (a flood of fresh keys cannot grow memory). */
const MAX_KEYS = 100_000;

export class LoginLimits {
  private readonly pairs: FailureBackoff;
  private readonly addresses: FailureBackoff;
  private readonly accounts: FailureBackoff;

  constructor(
    options: LoginLimitOptions,
    readonly known: KnownAddresses,
  ) {
    const firstMs = options.firstWaitMs ?? BACKOFF_FIRST_MS;
    this.pairs = new FailureBackoff(options.pairFailures, MAX_KEYS, firstMs);
    this.addresses = new FailureBackoff(options.addressFailures, MAX_KEYS, firstMs);
    this.accounts = new FailureBackoff(options.accountFailures, MAX_KEYS, firstMs);
  }

  /** Whether a login of account `name` from `address` must wait now, and why; null when it may try. */
  holdOf(name: string, address: string, nowMs: number): LoginHold | null {
    const account = accountNameKey(name);
    const pairWait = this.pairs.waitMs(pairKey(account, address), nowMs);
    if (pairWait > 0) return { waitMs: pairWait, cause: "from this address" };
    const addressWait = this.addresses.waitMs(address, nowMs);
    const accountWait = this.accounts.waitMs(account, nowMs);
    if (addressWait === 0 && accountWait === 0) return null;
    // Asked only while a hold stands (a stranger's failures caused it): one lookup, in memory or SQLite.
    if (this.known.has(account, address)) return null;
    return addressWait > 0
      ? { waitMs: Math.max(addressWait, accountWait), cause: "from this address" }
      : { waitMs: accountWait, cause: "for this account" };
  }

  /** A wrong password (or a name with no account) for `name` from `address`. */
  failed(name: string, address: string, nowMs: number): void {
    const account = accountNameKey(name);
    this.pairs.fail(pairKey(account, address), nowMs);
    this.addresses.fail(address, nowMs);
    this.accounts.fail(account, nowMs);
  }

  /** The right password for `name` from `address`: that pair starts afresh, and the account knows the address. */
  succeeded(name: string, address: string, nowMs: number): void {
    const account = accountNameKey(name);
    this.pairs.succeed(pairKey(account, address));
    this.known.add(account, address, nowMs);
  }

  /** The account `name` was registered from `address`: the account knows it from the start. */
  registered(name: string, address: string, nowMs: number): void {
    this.known.add(accountNameKey(name), address, nowMs);
  }
}

function pairKey(account: string, address: string): string {
  return `${account}\n${address}`;
}
