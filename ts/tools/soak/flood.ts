// The soak's UDP flood: many sockets on many loopback addresses (everything in
// 127.0.0.0/8 reaches a server on 127.0.0.1, which is as far as spoofing goes
// without raw sockets), a quarter of the traffic from the honest bots' own
// address 127.0.0.1 (a shared NAT, or a spoofer who knows it: issue 17 item 7),
// paced to a fixed rate. Every socket counts what comes back: none of these
// addresses ever proves it receives, so the server may send them at most 3×
// what they sent, and only challenges.
import { createSocket, type Socket } from "node:dgram";
import { once } from "node:events";
import { SeededRandom } from "../../netsim/rng.js";
import {
  forgedWithToken,
  mutate,
  randomDatagram,
  randomToken,
  type SignedSession,
  signedKeepAlive,
  validClientPacket,
} from "./forge.js";

const ROUND_MS = 10;
/** At most this much of a second's sending in one round, so a stalled process does not burst. */
const MAX_ROUND_FRACTION = 1 / 20;
/** Share of the flood sent from 127.0.0.1, the address the honest bots play from. */
const SHARED_ADDRESS_SHARE = 0.25;
/** Captured honest datagrams kept for replay. */
const CAPTURE_RING = 512;

export const FLOOD_KINDS = ["random", "mutated", "replayed", "stolenToken", "signedUnproven"] as const;
export type FloodKind = (typeof FLOOD_KINDS)[number];

export interface FloodCounters {
  sent: Record<FloodKind, number>;
  datagramsSent: number;
  bytesSent: number;
  datagramsReceived: number;
  bytesReceived: number;
  /** Of the datagrams received: challenges (22-byte Pongs with a cookie). */
  challengesReceived: number;
  sendErrors: number;
  sockets: number;
  addresses: number;
}

export interface FloodConfig {
  udpPort: number;
  rate: number;
  sources: number;
  socketsPerSource: number;
  seed: number;
}

/** Loopback address of flood source `index`: 0 is the bots' 127.0.0.1, the rest 127.0.2.1, 127.0.2.2, … */
export function floodSourceAddress(index: number): string {
  return index === 0 ? "127.0.0.1" : `127.0.2.${index}`;
}

interface FloodSocket {
  socket: Socket;
  shared: boolean;
}

export class Flood {
  readonly counters: FloodCounters = {
    sent: { random: 0, mutated: 0, replayed: 0, stolenToken: 0, signedUnproven: 0 },
    datagramsSent: 0,
    bytesSent: 0,
    datagramsReceived: 0,
    bytesReceived: 0,
    challengesReceived: 0,
    sendErrors: 0,
    sockets: 0,
    addresses: 0,
  };
  private readonly rng: SeededRandom;
  private readonly shared: FloodSocket[] = [];
  private readonly others: FloodSocket[] = [];
  private readonly captured: Uint8Array[] = [];
  private capturedNext = 0;
  private stolenTokens: bigint[] = [];
  private readonly ownSessions: SignedSession[] = [];
  private timer: NodeJS.Timeout | undefined;
  private startMs = 0;

  private constructor(private readonly config: FloodConfig) {
    this.rng = new SeededRandom(config.seed);
  }

  /** Binds every socket (port 0 on each source address). */
  static async open(config: FloodConfig): Promise<Flood> {
    const flood = new Flood(config);
    for (let source = 0; source < config.sources; source++) {
      for (let index = 0; index < config.socketsPerSource; index++) {
        const socket = createSocket("udp4");
        socket.on("error", () => flood.counters.sendErrors++);
        socket.on("message", (message) => flood.received(message));
        socket.bind(0, floodSourceAddress(source));
        await once(socket, "listening");
        (source === 0 ? flood.shared : flood.others).push({ socket, shared: source === 0 });
      }
    }
    flood.counters.sockets = flood.shared.length + flood.others.length;
    flood.counters.addresses = config.sources;
    return flood;
  }

  /** Honest datagrams copied as the bots sent them, to be replayed byte for byte. */
  capture(datagrams: readonly Uint8Array[]): void {
    for (const datagram of datagrams) {
      if (this.captured.length < CAPTURE_RING) this.captured.push(datagram);
      else this.captured[this.capturedNext] = datagram;
      this.capturedNext = (this.capturedNext + 1) % CAPTURE_RING;
    }
  }

  /** The honest bots' session tokens (every datagram shows them in the clear). */
  steal(tokens: readonly bigint[]): void {
    this.stolenTokens = [...tokens];
  }

  /** A session whose key the attacker holds (its own guest join). */
  own(session: SignedSession): void {
    this.ownSessions.push(session);
  }

  start(): void {
    this.startMs = performance.now();
    this.timer = setInterval(() => this.round(), ROUND_MS);
  }

  stop(): void {
    clearInterval(this.timer);
    this.timer = undefined;
  }

  async close(): Promise<void> {
    this.stop();
    await Promise.all(
      [...this.shared, ...this.others].map(({ socket }) => new Promise<void>((resolve) => socket.close(resolve))),
    );
  }

  private received(message: Buffer): void {
    const counters = this.counters;
    counters.datagramsReceived++;
    counters.bytesReceived += message.length;
    if (message.length === 22 && message[3] === 7) counters.challengesReceived++;
  }

  private round(): void {
    const rate = this.config.rate;
    const owed = Math.floor(((performance.now() - this.startMs) * rate) / 1000) - this.counters.datagramsSent;
    const count = Math.min(owed, Math.ceil(rate * MAX_ROUND_FRACTION));
    for (let index = 0; index < count; index++) this.sendOne();
  }

  private sendOne(): void {
    const rng = this.rng;
    const fromShared = this.shared.length > 0 && (this.others.length === 0 || rng.nextFloat() < SHARED_ADDRESS_SHARE);
    const pool = fromShared ? this.shared : this.others;
    const { socket } = pool[Math.floor(rng.nextFloat() * pool.length)];
    const [kind, datagram] = this.next();
    const counters = this.counters;
    counters.sent[kind]++;
    counters.datagramsSent++;
    counters.bytesSent += datagram.length;
    socket.send(datagram, this.config.udpPort, "127.0.0.1");
  }

  /** The next hostile datagram: random 25 %, mutated 25 %, replayed 20 %, stolen token 20 %, signed 10 %. */
  private next(): [FloodKind, Uint8Array] {
    const rng = this.rng;
    const roll = rng.nextFloat();
    const stolen = this.stolenTokens;
    const token = () => (stolen.length > 0 ? stolen[Math.floor(rng.nextFloat() * stolen.length)] : randomToken(rng));
    if (roll < 0.25) return ["random", randomDatagram(rng)];
    if (roll < 0.7 && roll >= 0.5 && this.captured.length > 0) {
      return ["replayed", this.captured[Math.floor(rng.nextFloat() * this.captured.length)]];
    }
    if (roll < 0.7) {
      const template =
        this.captured.length > 0 && rng.nextFloat() < 0.5
          ? this.captured[Math.floor(rng.nextFloat() * this.captured.length)]
          : validClientPacket(rng, token());
      return ["mutated", mutate(rng, template)];
    }
    if (roll < 0.9 || this.ownSessions.length === 0) return ["stolenToken", forgedWithToken(rng, token())];
    const session = this.ownSessions[Math.floor(rng.nextFloat() * this.ownSessions.length)];
    return ["signedUnproven", signedKeepAlive(session)];
  }
}
