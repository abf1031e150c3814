// The one impairment core: a single direction of a link that delays, jitters, drops and duplicates datagrams,
// seeded so a run can be repeated. DOM-free and transport-agnostic — the UDP proxy, the server's --netsim
// wrapping of WebRTC/WebSocket links and the in-process bots all use this class. Model: docs/netsim.md.

import { type Clock, realClock, type TimerHandle } from "./clock.js";
import { DeliveryQueue } from "./delivery-queue.js";
import { checkLinkProfile, type LinkProfile } from "./profile.js";
import { SeededRandom } from "./rng.js";

/** Snapshot of what a link has done. While the link is open, received + duplicated = forwarded + dropped + overflowed + queued. */
export interface LinkCounts {
  /** Datagrams handed to send(). */
  received: number;
  /** Deliveries made, duplicates included. */
  forwarded: number;
  /** Datagrams lost to the loss setting. */
  dropped: number;
  /** Extra copies made by the duplication setting. */
  duplicated: number;
  /** Copies discarded because the in-flight queue was full. */
  overflowed: number;
  /** Copies in flight now. */
  queued: number;
  /** Bytes in flight now. */
  queuedBytes: number;
}

export interface ImpairedLinkOptions {
  /** Time source and timers; defaults to the platform clock. Pass a VirtualClock to run on virtual time. */
  clock?: Clock;
  /** In-flight copies beyond this are discarded and counted as overflowed. Default 4096. */
  maxQueuedDatagrams?: number;
  /** In-flight bytes beyond this are discarded and counted as overflowed. Default 4 MiB. */
  maxQueuedBytes?: number;
}

export const DEFAULT_MAX_QUEUED_DATAGRAMS = 4096;
export const DEFAULT_MAX_QUEUED_BYTES = 4 * 1024 * 1024;

/** Receives each datagram a link delivers; the array is the link's own copy and is not touched again. */
export type DeliverDatagram = (datagram: Uint8Array) => void;

function checkLimit(name: string, value: number): number {
  if (!Number.isInteger(value) || value < 1) throw new RangeError(`${name} must be a positive integer, got ${value}`);
  return value;
}

/**
 * One direction of an impaired link. send() takes a datagram (copied at once, so the caller may reuse its
 * buffer); deliver is called later — or synchronously from send() when the datagram's delay is 0 — with the
 * link's copy. Deliveries happen in order of due time, ties in send order, so reordering comes only from jitter.
 * An exception thrown by deliver propagates to whoever triggered the delivery (send() or the timer); the link
 * stays consistent and delivers the rest later.
 */
export class ImpairedLink {
  private currentProfile: LinkProfile;
  private readonly random: SeededRandom;
  private readonly deliver: DeliverDatagram;
  private readonly clock: Clock;
  private readonly maxQueuedDatagrams: number;
  private readonly maxQueuedBytes: number;
  private readonly queue = new DeliveryQueue();
  private nextSequence = 0;
  private timer: TimerHandle | undefined;
  private timerDueMs = Number.POSITIVE_INFINITY;
  private delivering = false;
  private closed = false;

  private received = 0;
  private forwarded = 0;
  private dropped = 0;
  private duplicated = 0;
  private overflowed = 0;
  private queuedBytes = 0;

  /**
   * @param profile what this direction does to datagrams (validated; throws ProfileError when out of range)
   * @param seed any integer; the same seed and the same sequence of sends give the same fate to every datagram
   * @param deliver called with each delivered datagram
   */
  constructor(profile: LinkProfile, seed: number, deliver: DeliverDatagram, options: ImpairedLinkOptions = {}) {
    checkLinkProfile(profile);
    this.currentProfile = profile;
    this.random = new SeededRandom(seed);
    this.deliver = deliver;
    this.clock = options.clock ?? realClock;
    this.maxQueuedDatagrams = checkLimit(
      "maxQueuedDatagrams",
      options.maxQueuedDatagrams ?? DEFAULT_MAX_QUEUED_DATAGRAMS,
    );
    this.maxQueuedBytes = checkLimit("maxQueuedBytes", options.maxQueuedBytes ?? DEFAULT_MAX_QUEUED_BYTES);
  }

  /** The profile applied to datagrams sent from now on. */
  get profile(): LinkProfile {
    return this.currentProfile;
  }

  /** Changes the impairment for datagrams sent from now on; those already in flight keep their due times. */
  setProfile(profile: LinkProfile): void {
    checkLinkProfile(profile);
    this.currentProfile = profile;
  }

  /** A snapshot of the link's counters. */
  get counts(): LinkCounts {
    return {
      received: this.received,
      forwarded: this.forwarded,
      dropped: this.dropped,
      duplicated: this.duplicated,
      overflowed: this.overflowed,
      queued: this.queue.size,
      queuedBytes: this.queuedBytes,
    };
  }

  /** True after close(). */
  get isClosed(): boolean {
    return this.closed;
  }

  /** Passes a datagram into the link. Ignored after close(). */
  send(datagram: Uint8Array): void {
    if (this.closed) return;
    this.received++;
    const profile = this.currentProfile;
    // Always four draws per datagram, whatever the profile: changing one setting (say loss) then leaves the
    // other decisions of a seeded run (which datagrams are duplicated, every delay) exactly as they were.
    const lossRoll = this.random.nextFloat();
    const duplicateRoll = this.random.nextFloat();
    const delayRoll = this.random.nextFloat();
    const duplicateDelayRoll = this.random.nextFloat();
    if (lossRoll * 100 < profile.lossPercent) {
      this.dropped++;
      return;
    }
    const now = this.clock.nowMs();
    this.enqueue(new Uint8Array(datagram), now + sampleDelayMs(profile, delayRoll));
    if (duplicateRoll * 100 < profile.duplicatePercent) {
      this.duplicated++;
      this.enqueue(new Uint8Array(datagram), now + sampleDelayMs(profile, duplicateDelayRoll));
    }
    this.deliverDue();
  }

  /** Discards everything in flight, cancels the timer and ignores later sends. Counters keep their values. */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.queue.clear();
    this.queuedBytes = 0;
    this.cancelTimer();
  }

  private enqueue(copy: Uint8Array, dueMs: number): void {
    if (this.queue.size >= this.maxQueuedDatagrams || this.queuedBytes + copy.byteLength > this.maxQueuedBytes) {
      this.overflowed++;
      return;
    }
    this.queuedBytes += copy.byteLength;
    this.queue.push({ dueMs, sequence: this.nextSequence++, datagram: copy });
  }

  private deliverDue(): void {
    // A deliver callback that sends on this same link only enqueues; the outer loop picks the datagram up.
    if (this.delivering) return;
    this.delivering = true;
    try {
      for (;;) {
        const head = this.queue.peek();
        if (this.closed || head === undefined || head.dueMs > this.clock.nowMs()) break;
        this.queue.pop();
        this.queuedBytes -= head.datagram.byteLength;
        this.forwarded++;
        this.deliver(head.datagram);
      }
    } finally {
      this.delivering = false;
      this.armTimer();
    }
  }

  private armTimer(): void {
    const head = this.closed ? undefined : this.queue.peek();
    if (head === undefined) {
      this.cancelTimer();
      return;
    }
    // A pending timer due no later than the head will wake us in time (and re-arm from there).
    if (this.timer !== undefined && this.timerDueMs <= head.dueMs) return;
    this.cancelTimer();
    this.timerDueMs = head.dueMs;
    this.timer = this.clock.setTimer(() => {
      this.timer = undefined;
      this.timerDueMs = Number.POSITIVE_INFINITY;
      this.deliverDue();
    }, head.dueMs - this.clock.nowMs());
  }

  private cancelTimer(): void {
    if (this.timer === undefined) return;
    this.clock.clearTimer(this.timer);
    this.timer = undefined;
    this.timerDueMs = Number.POSITIVE_INFINITY;
  }
}

/** One datagram's delay: uniform in [delay - jitter, delay + jitter], floored at 0. roll is uniform in [0, 1). */
export function sampleDelayMs(profile: LinkProfile, roll: number): number {
  if (profile.jitterMs === 0) return profile.delayMs;
  return Math.max(0, profile.delayMs + (2 * roll - 1) * profile.jitterMs);
}
