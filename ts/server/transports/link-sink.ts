// What the browser transports (WebRTC data channel, WebSocket) share: where
// their links deliver datagrams, what they may ask of the game, and the one
// rule that closes links nobody uses. docs/transports.md explains the design.
import type { Peer } from "../edge/peer.js";

/** Where a transport hands what its links carry. */
export interface LinkSink {
  /** One inbound datagram from `peer`: binary, at most MAX_DATAGRAM_BYTES. */
  datagram(datagram: Uint8Array, peer: Peer): void;
  /** The link behind `peer` has closed: nothing more arrives from it, and sends to it go nowhere. */
  closed(peer: Peer): void;
}

/** What a transport needs to know about the game, and nothing more. */
export interface LinkPolicy {
  /** Whether some session is currently bound to the link with this peer key. */
  isBound(peerKey: string): boolean;
  /** Counts an inbound message dropped at the transport's edge (shown in /api/status and /metrics). */
  drop(reason: string): void;
}

/** A link's binding state, tracked by its transport for `unboundTooLong`. */
export interface ReapableLink {
  readonly key: string;
  /** When the link was last seen carrying no session; undefined while a session is bound to it. */
  unboundSinceMs: number | undefined;
}

/**
 * The one rule that frees browser links: a link that carries no live session for `graceMs` is closed.
 * It covers a connection that never sends a valid token, a peer connection that never opens (half-open),
 * a link whose session moved to another transport, and one whose session was evicted — so the number
 * of links is bounded by the sessions plus what can be opened within one grace period.
 */
export function unboundTooLong(link: ReapableLink, policy: LinkPolicy, nowMs: number, graceMs: number): boolean {
  if (policy.isBound(link.key)) {
    link.unboundSinceMs = undefined;
    return false;
  }
  link.unboundSinceMs ??= nowMs;
  return nowMs - link.unboundSinceMs >= graceMs;
}
