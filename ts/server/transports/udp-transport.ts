// UDP transport: one socket feeding the one datagram handler. On Linux with
// native/udp-mmsg built, datagrams go out in sendmmsg batches and come in
// through recvmmsg (udp-mmsg.ts); elsewhere, or with backend "dgram", through
// node:dgram, one system call each. Peers are cached per source address
// (bounded) so a steady client does not allocate a new handle per datagram.
import { createSocket, type Socket } from "node:dgram";
import { lookup as dnsLookup } from "node:dns";
import { isIP } from "node:net";
import type { Peer } from "../edge/peer.js";
import {
  type MmsgStats,
  MmsgSocket,
  type SocketAddress,
  addressFamily,
  formatSocketAddress,
  socketAddress,
  udpMmsgBinding,
} from "./udp-mmsg.js";

const MAX_CACHED_PEERS = 16_384;

/**
 * The handler gets the datagram and its peer; the bytes may be a view of a
 * receive buffer that the next datagram overwrites: copy what you keep.
 */
export type DatagramSink = (datagram: Uint8Array, peer: Peer) => void;

/** "auto": batched where the native part is available, else dgram; "mmsg" insists on it. */
export type UdpBackend = "auto" | "mmsg" | "dgram";
export const UDP_BACKENDS: readonly UdpBackend[] = ["auto", "mmsg", "dgram"];

type LookupCallback = (error: Error | null, address: string, family: number) => void;

/**
 * dgram resolves the destination of every send through `lookup`; the default
 * (dns.lookup) answers an IP literal on the next tick, which costs a closure, a
 * nextTick and a deferred send per datagram. Peers are always IP literals, so
 * answer those at once; names (a --host given as a name) still go to DNS.
 */
function literalLookup(address: string, family: number, callback: LookupCallback): void {
  const literalFamily = isIP(address);
  if (literalFamily !== 0) callback(null, address, literalFamily);
  else dnsLookup(address, family, callback);
}

export interface UdpTransportOptions {
  /** Default "auto". */
  backend?: UdpBackend;
  /**
   * The batched socket's sendmmsg calls on a thread of its own at this niceness (udp-mmsg.ts,
   * docs/udp-batching.md § The send thread); null: on the event loop's thread. Default DEFAULT_SEND_THREAD.
   */
  sendThread?: { nice: number } | null;
  /**
   * The batched socket reads at most once per this many milliseconds (MmsgOpenOptions.receiveIntervalMs;
   * default 0: every readable event at once). node:dgram ignores it.
   */
  receiveIntervalMs?: number;
}

/**
 * The game server's receive interval (--udp-receive-interval), applied while the socket is busy
 * (udp-mmsg.ts RECEIVE_BUSY_PER_SECOND): at 2500–3000 players ~7,000–8,000 wake-ups a second became
 * ~400–460 and the server's CPU fell by 8 % (alternated pairs); an inbound datagram waits at most 2 ms
 * (docs/udp-batching.md § Receiving at an interval). A gateway, whose job is the relay's latency, keeps 0.
 */
export const DEFAULT_RECEIVE_INTERVAL_MS = 2;

/**
 * The send thread's default: on, at the tick's own priority. Lower, it starved where the two share a busy
 * core (docs/udp-batching.md § The send thread); the tick is spared anyway, since a burst is handed over
 * after it on one CPU.
 */
export const DEFAULT_SEND_THREAD: { nice: number } = { nice: 0 };

/** A cached UDP peer; `ipv4` is its address as a u32 (-1 for IPv6), for the batched socket's lookup. */
interface CachedPeer extends Peer {
  readonly port: number;
  readonly ipv4: number;
}

export class UdpTransport {
  /** Every cached peer by key, oldest first (the eviction order). */
  private readonly peers = new Map<string, CachedPeer>();
  /**
   * The latest peer seen from each source port, found without building the key
   * string (the port is a small-integer key); only a port shared by two
   * addresses falls back to `peers`.
   */
  private readonly peersByPort = new Map<number, CachedPeer>();
  private dgram: Socket | null = null;
  private mmsg: MmsgSocket | null = null;
  private inet6 = 10;

  private constructor(
    /** Which socket carries the datagrams. */
    readonly backend: "mmsg" | "dgram",
    /** Why the batched socket is not in use ("" when it is, or when dgram was asked for). */
    readonly fallbackReason: string,
  ) {}

  /** Binds host:port (port 0 picks a free one) and delivers every datagram to `sink`. */
  static async listen(
    host: string,
    port: number,
    sink: DatagramSink,
    options: UdpTransportOptions = {},
  ): Promise<UdpTransport> {
    const backend = options.backend ?? "auto";
    if (!UDP_BACKENDS.includes(backend)) throw new Error(`unknown UDP backend "${backend}" (auto, mmsg or dgram)`);
    let reason = "";
    if (backend !== "dgram") {
      const loaded = udpMmsgBinding();
      if (loaded.binding) {
        const transport = new UdpTransport("mmsg", "");
        const binding = loaded.binding;
        transport.inet6 = binding.constants.AF_INET6;
        const family = host.includes(":") ? 6 : 4;
        const literal = isIP(host) !== 0 ? host : (await dnsLookupAsync(host, family)).address;
        const sendThread = options.sendThread === undefined ? DEFAULT_SEND_THREAD : options.sendThread;
        transport.mmsg = MmsgSocket.open(
          binding,
          literal,
          port,
          (datagram, addresses, offset) => sink(datagram, transport.peerForSocketAddress(addresses, offset)),
          { ...(sendThread === null ? {} : { sendThread }), receiveIntervalMs: options.receiveIntervalMs ?? 0 },
        );
        return transport;
      }
      if (backend === "mmsg") throw new Error(`UDP backend "mmsg" is unavailable: ${loaded.reason}`);
      reason = loaded.reason;
    }
    const transport = new UdpTransport("dgram", reason);
    await transport.listenDgram(host, port, sink);
    return transport;
  }

  get port(): number {
    return this.mmsg ? this.mmsg.port : this.dgram!.address().port;
  }

  /** The batched socket's receive interval in ms (0 on dgram, which reads each datagram at once). */
  get receiveIntervalMs(): number {
    return this.mmsg ? this.mmsg.receiveIntervalMs : 0;
  }

  /** The batched socket's counters, or null on dgram. */
  get mmsgStats(): MmsgStats | null {
    return this.mmsg ? this.mmsg.stats : null;
  }

  close(): Promise<void> {
    if (this.mmsg) return this.mmsg.close();
    return new Promise((resolve) => this.dgram!.close(() => resolve()));
  }

  private async listenDgram(host: string, port: number, sink: DatagramSink): Promise<void> {
    const socket = createSocket({
      type: host.includes(":") ? "udp6" : "udp4",
      reuseAddr: false,
      lookup: literalLookup as never,
    });
    await new Promise<void>((resolve, reject) => {
      socket.once("error", reject);
      socket.bind(port, host, () => {
        socket.off("error", reject);
        resolve();
      });
    });
    // After binding, socket errors (e.g. ICMP unreachable on send) must not kill the server.
    socket.on("error", () => {});
    socket.on("message", (message, rinfo) => sink(message, this.dgramPeer(socket, rinfo.address, rinfo.port)));
    this.dgram = socket;
  }

  private dgramPeer(socket: Socket, address: string, port: number): Peer {
    const recent = this.peersByPort.get(port);
    if (recent !== undefined && recent.address === address) return recent;
    const key = `udp:${address}:${port}`;
    let peer = this.peers.get(key);
    if (!peer) {
      peer = new DgramPeer(socket, key, address, port);
      this.remember(peer);
    }
    this.peersByPort.set(port, peer);
    return peer;
  }

  private peerForSocketAddress(addresses: Uint8Array, offset: number): Peer {
    const port = (addresses[offset + 2] << 8) | addresses[offset + 3];
    const v4 = addressFamily(addresses, offset) !== this.inet6;
    // IPv4 clients of a dual-stack ("::") socket arrive as ::ffff:a.b.c.d: the same fast path.
    const at = v4 ? offset + 4 : isV4Mapped(addresses, offset) ? offset + 20 : -1;
    const ipv4 =
      at < 0
        ? -1
        : addresses[at] * 0x1000000 + ((addresses[at + 1] << 16) | (addresses[at + 2] << 8) | addresses[at + 3]);
    const recent = this.peersByPort.get(port);
    if (ipv4 >= 0 && recent !== undefined && recent.ipv4 === ipv4) return recent;
    const address = formatSocketAddress(addresses, offset, this.inet6);
    const key = `udp:${address}:${port}`;
    let peer = this.peers.get(key);
    if (!peer) {
      const to: SocketAddress = socketAddress(addresses, offset, v4 ? 16 : 28);
      peer = new MmsgPeer(this.mmsg!, key, address, port, ipv4, to);
      this.remember(peer);
    }
    this.peersByPort.set(port, peer);
    return peer;
  }

  /** Caches `peer`, evicting the oldest beyond MAX_CACHED_PEERS so a spoofing flood cannot grow memory. */
  private remember(peer: CachedPeer): void {
    if (this.peers.size >= MAX_CACHED_PEERS) {
      const oldest = this.peers.values().next().value as CachedPeer;
      this.peers.delete(oldest.key);
      if (this.peersByPort.get(oldest.port) === oldest) this.peersByPort.delete(oldest.port);
    }
    this.peers.set(peer.key, peer);
  }
}

/** Whether the sockaddr_in6 at `offset` holds an IPv4-mapped address (::ffff:a.b.c.d). */
function isV4Mapped(addresses: Uint8Array, offset: number): boolean {
  for (let i = offset + 8; i < offset + 18; i++) if (addresses[i] !== 0) return false;
  return addresses[offset + 18] === 0xff && addresses[offset + 19] === 0xff;
}

function dnsLookupAsync(host: string, family: number): Promise<{ address: string }> {
  return new Promise((resolve, reject) =>
    dnsLookup(host, family, (error, address) => (error ? reject(error) : resolve({ address }))),
  );
}

class DgramPeer implements CachedPeer {
  readonly transport = "udp";
  readonly ipv4 = -1;

  constructor(
    private readonly socket: Socket,
    readonly key: string,
    readonly address: string,
    readonly port: number,
  ) {}

  send(datagram: Uint8Array): void {
    this.socket.send(datagram, this.port, this.address);
  }
}

class MmsgPeer implements CachedPeer {
  readonly transport = "udp";

  constructor(
    private readonly socket: MmsgSocket,
    readonly key: string,
    readonly address: string,
    readonly port: number,
    readonly ipv4: number,
    private readonly to: SocketAddress,
  ) {}

  send(datagram: Uint8Array): void {
    this.socket.send(datagram, this.to);
  }

  sendFrom(bytes: Uint8Array, start: number, length: number): void {
    this.socket.sendFrom(bytes, start, length, this.to);
  }
}
