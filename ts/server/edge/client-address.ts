// Whose request this is, behind a reverse proxy (docs/server.md § Behind a
// reverse proxy). Behind an HTTPS proxy every TCP connection comes from the
// proxy, so without this every per-address limit (guest joins, registrations,
// logins, WebSocket connections, address bans, the join source a UDP client's
// proof relies on) counted all players as one: one abuser got everyone refused,
// and a ban of one banned all.
//
// The rule, for every place that asks "which address is this": only when the
// TCP peer is a trusted proxy is X-Forwarded-For read, and then the right-most
// entry that is not itself a trusted proxy is the client. Each proxy appends
// the address it received the request from, so the entries right of that one
// were written by proxies we trust; everything left of it was sent by the
// client and can say anything. A header from any other peer is ignored. A
// malformed entry met on the way falls back to the peer's own address.
//
// `Forwarded:` (RFC 7239) is not read: a proxy that sets only one of the two
// headers passes the other through from the client untouched, so honouring
// both would let a client forge its address in whichever one its proxy leaves
// alone. nginx, Caddy and HAProxy all write X-Forwarded-For.
import type { IncomingMessage } from "node:http";
import { BlockList, isIP } from "node:net";

/** One --trusted-proxy: an address and how many of its leading bits name the range. */
export interface ProxyRange {
  address: string;
  prefix: number;
  family: "ipv4" | "ipv6";
}

/** "ADDRESS[/PREFIX]" → its range (a bare address is /32 or /128); throws with the reason when malformed. */
export function parseTrustedProxy(text: string): ProxyRange {
  const [address, prefixText, extra] = text.trim().split("/");
  const version = isIP(address);
  if (version === 0 || extra !== undefined) {
    throw new Error(`a trusted proxy must be an IPv4 or IPv6 address with an optional /PREFIX, got "${text}"`);
  }
  const bits = version === 4 ? 32 : 128;
  const prefix = prefixText === undefined ? bits : Number(prefixText);
  if (prefixText !== undefined && (!/^\d{1,3}$/.test(prefixText) || prefix > bits)) {
    throw new Error(`the prefix of trusted proxy "${text}" must be 0..${bits}`);
  }
  return { address, prefix, family: version === 4 ? "ipv4" : "ipv6" };
}

/**
 * One X-Forwarded-For entry → a bare address, or null when it is none. Besides a bare IPv4 or IPv6
 * address, "[IPv6]", "[IPv6]:port" and "IPv4:port" are read (some proxies add the client's port).
 */
export function forwardedEntry(entry: string): string | null {
  const text = entry.trim();
  if (isIP(text) !== 0) return text;
  const bracketed = /^\[([^\]]+)\](?::\d{1,5})?$/.exec(text);
  if (bracketed && isIP(bracketed[1]) === 6) return bracketed[1];
  const withPort = /^([\d.]+):\d{1,5}$/.exec(text);
  if (withPort && isIP(withPort[1]) === 4) return withPort[1];
  return null;
}

/** The address a request or upgrade came from, by the rule above; `malformed` counts headers that fell back. */
export class ClientAddresses {
  private readonly trusted = new BlockList();
  private readonly enabled: boolean;
  /** Each request's answer, so a request asked about by several limits is read (and counted) once. */
  private readonly answered = new WeakMap<IncomingMessage, string>();
  /** X-Forwarded-For headers from a trusted proxy that could not be read (the peer's address was used). */
  malformed = 0;

  constructor(
    ranges: readonly ProxyRange[] = [],
    /** Told of the first malformed header only: a broken proxy would otherwise log once per request. */
    private readonly onFirstMalformed: (fields: Record<string, unknown>) => void = () => {},
  ) {
    for (const range of ranges) this.trusted.addSubnet(range.address, range.prefix, range.family);
    this.enabled = ranges.length > 0;
  }

  /** Whether `address` (as a socket reports it, v4-mapped or not) is one of the trusted proxies. */
  isTrusted(address: string): boolean {
    if (!this.enabled) return false;
    const version = isIP(address);
    if (version === 0) return false;
    return this.trusted.check(address, version === 4 ? "ipv4" : "ipv6");
  }

  /** The client's address for `req`: from X-Forwarded-For when the peer is a trusted proxy, else the peer's. */
  of(req: IncomingMessage): string {
    const peer = req.socket.remoteAddress ?? "";
    if (!this.isTrusted(peer)) return peer;
    let client = this.answered.get(req);
    if (client === undefined) {
      client = this.fromHeader(req, peer);
      this.answered.set(req, client);
    }
    return client;
  }

  private fromHeader(req: IncomingMessage, peer: string): string {
    // Node joins repeated X-Forwarded-For headers with ", ", in the order they came (typed as maybe a list).
    const header = [req.headers["x-forwarded-for"] ?? []].flat().join(",");
    if (header.trim() === "") return peer;
    const entries = header.split(",");
    let client = peer;
    for (let i = entries.length - 1; i >= 0; i--) {
      const address = forwardedEntry(entries[i]);
      if (address === null) return this.fellBack(peer, header);
      client = address;
      if (!this.isTrusted(address)) return client;
    }
    // Every entry is a trusted proxy: the left-most is the furthest hop known.
    return client;
  }

  private fellBack(peer: string, header: string): string {
    this.malformed++;
    if (this.malformed === 1) {
      this.onFirstMalformed({ peer, header: header.slice(0, 200), note: "further ones are only counted" });
    }
    return peer;
  }
}
