// The UDP proxy: sits between game clients and the server and impairs the traffic both ways through the
// impairment core. Each client source address gets its own upstream socket (so the server still sees
// distinct clients) and its own pair of seeded links. This is the I/O shell; the decisions live in ImpairedLink.

import dgram from "node:dgram";
import { lookup } from "node:dns/promises";
import { createImpairedDuplex, type ImpairedDuplex } from "./duplex.js";
import type { LinkCounts } from "./impairment.js";
import { checkLinkProfile, type DuplexProfile, PERFECT_DUPLEX } from "./profile.js";
import { deriveSeed, randomSeed } from "./rng.js";

/** A host name or IP address plus a UDP port. */
export interface HostPort {
  host: string;
  port: number;
}

export interface UdpProxyOptions {
  /** Where clients send to. Port 0 picks a free port (read it from the result). */
  listen: HostPort;
  /** The real server. Resolved once at start. */
  server: HostPort;
  /** Impairment per direction; default: none. */
  profile?: DuplexProfile;
  /** Seed for every link; default: random (reported in the result so the run can be repeated). */
  seed?: number;
  /** A client mapping with no datagram from its client for this long is removed. Default 30,000. */
  idleTimeoutMs?: number;
  /** Datagrams from a new client address beyond this many live mappings are dropped. Default 256. */
  maxClients?: number;
  /** Per link and direction: in-flight datagram limit. Default 4096. */
  maxQueuedDatagramsPerLink?: number;
  /** Per link and direction: in-flight byte limit. Default 1 MiB. */
  maxQueuedBytesPerLink?: number;
}

/** Counters of a whole proxy; up and down sum the links of every client seen, live or expired. */
export interface ProxyCounts {
  up: LinkCounts;
  down: LinkCounts;
  /** Live client mappings. */
  clients: number;
  /** Client mappings created since start. */
  clientsOpened: number;
  /** Client mappings removed for being idle. */
  clientsExpired: number;
  /** Datagrams dropped because they came from a new client while maxClients mappings were live. */
  clientsRejected: number;
  /** Datagrams that reached an upstream socket from somewhere other than the server (ignored). */
  strayDatagrams: number;
  /** Sends the operating system refused (e.g. datagram too large). */
  sendErrors: number;
}

export interface UdpProxy {
  /** The address the proxy listens on (resolved, e.g. "127.0.0.1"). */
  readonly address: string;
  /** The port the proxy listens on (the real one when 0 was asked for). */
  readonly port: number;
  /** The server address datagrams are forwarded to (resolved). */
  readonly server: HostPort;
  /** The seed in use. */
  readonly seed: number;
  /** The profile applied to datagrams from now on. */
  readonly profile: DuplexProfile;
  /** Changes the impairment of every live and future client link, for datagrams sent from now on. */
  setProfile(profile: DuplexProfile): void;
  /** A snapshot of the counters. */
  counts(): ProxyCounts;
  /** Upstream ports in use, one per live client mapping (for diagnostics and tests). */
  upstreamPorts(): number[];
  /** Closes every socket and timer; in-flight datagrams are discarded. Safe to call twice. */
  close(): Promise<void>;
}

export const DEFAULT_IDLE_TIMEOUT_MS = 30_000;
export const DEFAULT_MAX_CLIENTS = 256;
export const DEFAULT_PROXY_MAX_QUEUED_BYTES = 1024 * 1024;

interface ClientMapping {
  readonly address: string;
  readonly port: number;
  readonly upstream: dgram.Socket;
  readonly links: ImpairedDuplex;
  lastHeardMs: number;
}

function emptyCounts(): LinkCounts {
  return { received: 0, forwarded: 0, dropped: 0, duplicated: 0, overflowed: 0, queued: 0, queuedBytes: 0 };
}

function addCounts(total: LinkCounts, part: LinkCounts): void {
  total.received += part.received;
  total.forwarded += part.forwarded;
  total.dropped += part.dropped;
  total.duplicated += part.duplicated;
  total.overflowed += part.overflowed;
  total.queued += part.queued;
  total.queuedBytes += part.queuedBytes;
}

function checkPort(what: string, port: number, allowZero: boolean): void {
  if (!Number.isInteger(port) || port < (allowZero ? 0 : 1) || port > 65535) {
    throw new RangeError(`${what} port must be an integer from ${allowZero ? 0 : 1} to 65535, got ${port}`);
  }
}

function checkPositiveInteger(what: string, value: number): number {
  if (!Number.isInteger(value) || value < 1) throw new RangeError(`${what} must be a positive integer, got ${value}`);
  return value;
}

function socketType(family: number): dgram.SocketType {
  return family === 6 ? "udp6" : "udp4";
}

function closeSocket(socket: dgram.Socket): Promise<void> {
  return new Promise((resolve) => {
    try {
      socket.close(() => resolve());
    } catch {
      resolve(); // already closed
    }
  });
}

/**
 * Starts a proxy: binds the listen socket, then forwards client -> server ("up") and server -> client ("down")
 * through per-client impaired links. Rejects if the server host cannot be resolved or the listen address
 * cannot be bound.
 */
export async function startUdpProxy(options: UdpProxyOptions): Promise<UdpProxy> {
  checkPort("listen", options.listen.port, true);
  checkPort("server", options.server.port, false);
  let profile = options.profile ?? PERFECT_DUPLEX;
  checkLinkProfile(profile.up);
  checkLinkProfile(profile.down);
  const seed = (options.seed ?? randomSeed()) >>> 0;
  const idleTimeoutMs = checkPositiveInteger("idleTimeoutMs", options.idleTimeoutMs ?? DEFAULT_IDLE_TIMEOUT_MS);
  const maxClients = checkPositiveInteger("maxClients", options.maxClients ?? DEFAULT_MAX_CLIENTS);
  const linkOptions = {
    maxQueuedDatagrams: options.maxQueuedDatagramsPerLink,
    maxQueuedBytes: options.maxQueuedBytesPerLink ?? DEFAULT_PROXY_MAX_QUEUED_BYTES,
  };

  const serverResolved = await lookup(options.server.host);
  const server: HostPort = { host: serverResolved.address, port: options.server.port };
  const listenResolved = await lookup(options.listen.host);
  const listenSocket = dgram.createSocket(socketType(listenResolved.family));
  await new Promise<void>((resolve, reject) => {
    const onError = (error: Error) => {
      listenSocket.close();
      reject(error);
    };
    listenSocket.once("error", onError);
    listenSocket.bind(options.listen.port, listenResolved.address, () => {
      listenSocket.off("error", onError);
      resolve();
    });
  });
  const bound = listenSocket.address();

  const mappings = new Map<string, ClientMapping>();
  const retiredUp = emptyCounts();
  const retiredDown = emptyCounts();
  let clientsOpened = 0;
  let clientsExpired = 0;
  let clientsRejected = 0;
  let strayDatagrams = 0;
  let sendErrors = 0;
  let closing: Promise<void> | undefined;
  const pendingSocketCloses = new Set<Promise<void>>();

  const onSent = (error: Error | null) => {
    if (error) sendErrors++;
  };
  // Socket-level errors (rare for UDP after bind) must not crash the proxy; the counters make them visible.
  listenSocket.on("error", () => sendErrors++);

  function openMapping(key: string, address: string, port: number): ClientMapping {
    const index = clientsOpened++;
    const upstream = dgram.createSocket(socketType(serverResolved.family));
    const mapping: ClientMapping = {
      address,
      port,
      upstream,
      links: createImpairedDuplex(
        profile,
        deriveSeed(seed, index),
        (datagram) => upstream.send(datagram, server.port, server.host, onSent),
        (datagram) => listenSocket.send(datagram, port, address, onSent),
        linkOptions,
      ),
      lastHeardMs: performance.now(),
    };
    upstream.on("message", (datagram, from) => {
      if (from.address !== server.host || from.port !== server.port) {
        strayDatagrams++;
        return;
      }
      mapping.links.down.send(datagram);
    });
    upstream.on("error", () => {
      sendErrors++;
      retireMapping(key, mapping);
    });
    // Sends issued before the bind completes are queued by node:dgram, so the first datagram is not lost.
    upstream.bind(0, serverResolved.family === 6 ? "::" : "0.0.0.0");
    mappings.set(key, mapping);
    return mapping;
  }

  function retireMapping(key: string, mapping: ClientMapping): void {
    if (mappings.get(key) !== mapping) return;
    mappings.delete(key);
    mapping.links.close();
    addCounts(retiredUp, mapping.links.up.counts);
    addCounts(retiredDown, mapping.links.down.counts);
    const closed = closeSocket(mapping.upstream);
    pendingSocketCloses.add(closed);
    void closed.then(() => pendingSocketCloses.delete(closed));
  }

  listenSocket.on("message", (datagram, from) => {
    if (closing) return;
    const key = `${from.address} ${from.port}`;
    let mapping = mappings.get(key);
    if (mapping === undefined) {
      if (mappings.size >= maxClients) {
        clientsRejected++;
        return;
      }
      mapping = openMapping(key, from.address, from.port);
    }
    mapping.lastHeardMs = performance.now();
    mapping.links.up.send(datagram);
  });

  const sweepIntervalMs = Math.max(10, Math.min(1000, Math.floor(idleTimeoutMs / 4)));
  const sweepTimer = setInterval(() => {
    const now = performance.now();
    for (const [key, mapping] of mappings) {
      if (now - mapping.lastHeardMs >= idleTimeoutMs) {
        clientsExpired++;
        retireMapping(key, mapping);
      }
    }
  }, sweepIntervalMs);

  return {
    address: bound.address,
    port: bound.port,
    server,
    seed,
    get profile() {
      return profile;
    },
    setProfile(next: DuplexProfile) {
      checkLinkProfile(next.up);
      checkLinkProfile(next.down);
      profile = next;
      for (const mapping of mappings.values()) {
        mapping.links.setProfile(next);
      }
    },
    counts() {
      const up = { ...retiredUp };
      const down = { ...retiredDown };
      for (const mapping of mappings.values()) {
        addCounts(up, mapping.links.up.counts);
        addCounts(down, mapping.links.down.counts);
      }
      return {
        up,
        down,
        clients: mappings.size,
        clientsOpened,
        clientsExpired,
        clientsRejected,
        strayDatagrams,
        sendErrors,
      };
    },
    upstreamPorts() {
      const ports: number[] = [];
      for (const mapping of mappings.values()) {
        try {
          ports.push(mapping.upstream.address().port);
        } catch {
          // not bound yet
        }
      }
      return ports;
    },
    close() {
      closing ??= (async () => {
        clearInterval(sweepTimer);
        for (const [key, mapping] of [...mappings]) retireMapping(key, mapping);
        await Promise.all([closeSocket(listenSocket), ...pendingSocketCloses]);
      })();
      return closing;
    },
  };
}
