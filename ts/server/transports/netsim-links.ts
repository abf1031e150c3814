// --netsim: the server impairs its own links with the project's one impairment core (ts/netsim),
// so a browser — which cannot be put behind the UDP proxy — can be tested on a bad connection.
// One impaired duplex per link (peer key), in front of the datagram handler (up) and the
// peer's send (down). It wraps every transport: WebRTC, WebSocket and UDP alike.
import { createImpairedDuplex, deriveSeed, type DuplexProfile, type ImpairedDuplex } from "../../netsim/index.js";
import type { Peer } from "../edge/peer.js";
import type { LinkSink } from "./link-sink.js";

export interface NetsimLinksOptions {
  /** Links kept at most; beyond, the least recently created is dropped with its in-flight datagrams. */
  maxLinks: number;
  /** A link with no inbound datagram this long is dropped (UDP peers never announce that they left). */
  idleMs: number;
}

interface ImpairedLinkState {
  duplex: ImpairedDuplex;
  /** The transport's own peer: where down-link deliveries go. Replaced when a transport renews its handle. */
  raw: Peer;
  /** What the game sees: the same link, but its sends pass the down link first. */
  impaired: Peer;
  lastInboundMs: number;
}

export class NetsimLinks implements LinkSink {
  private readonly links = new Map<string, ImpairedLinkState>();

  /**
   * @param seed run seed; each link is seeded with deriveSeed(seed, peer key), so a link's datagram
   *   fates do not depend on which other links exist
   */
  constructor(
    readonly profile: DuplexProfile,
    readonly seed: number,
    private readonly next: LinkSink,
    private readonly options: NetsimLinksOptions = { maxLinks: 16_384, idleMs: 30_000 },
  ) {}

  get size(): number {
    return this.links.size;
  }

  datagram(datagram: Uint8Array, peer: Peer): void {
    const link = this.linkFor(peer);
    link.lastInboundMs = performance.now();
    link.duplex.up.send(datagram);
  }

  closed(peer: Peer): void {
    const link = this.links.get(peer.key);
    if (link) {
      link.duplex.close();
      this.links.delete(peer.key);
      this.next.closed(link.impaired);
    } else {
      this.next.closed(peer);
    }
  }

  /** Drops links idle for longer than the idle limit; call about once a second. */
  sweep(nowMs: number): void {
    for (const [key, link] of this.links) {
      if (nowMs - link.lastInboundMs > this.options.idleMs) {
        link.duplex.close();
        this.links.delete(key);
      }
    }
  }

  /** Drops every link and its in-flight datagrams (and their timers). */
  close(): void {
    for (const link of this.links.values()) link.duplex.close();
    this.links.clear();
  }

  private linkFor(peer: Peer): ImpairedLinkState {
    const existing = this.links.get(peer.key);
    if (existing) {
      existing.raw = peer;
      return existing;
    }
    if (this.links.size >= this.options.maxLinks) {
      const [oldestKey, oldest] = this.links.entries().next().value as [string, ImpairedLinkState];
      oldest.duplex.close();
      this.links.delete(oldestKey);
    }
    const link = {} as ImpairedLinkState;
    link.raw = peer;
    link.lastInboundMs = performance.now();
    link.duplex = createImpairedDuplex(
      this.profile,
      deriveSeed(this.seed, peer.key),
      (datagram) => this.next.datagram(datagram, link.impaired),
      (datagram) => link.raw.send(datagram),
    );
    link.impaired = {
      key: peer.key,
      address: peer.address,
      transport: peer.transport,
      send: (datagram) => link.duplex.down.send(datagram),
    };
    this.links.set(peer.key, link);
    return link;
  }
}
