// Load generator for the server-scale benchmark: N wandering bots in one
// process, each a real protocol client over UDP (its own socket and session).
// Each bot joins with POST /api/guest, reads State packets to know the tick,
// sends one ActionPacket move intent per movement window (6 per second) for
// the next window in a random direction that changes every 1.5–2.5 s,
// requests the chunks its manifest lists, checks the entity checksum and asks
// for a re-send on a mismatch, and pings once a second like the official
// client; it acknowledges chat messages (join/leave notices) as the official
// client does, so the server does not retransmit them. --idle bots never move
// (the sparse case).
//
// usage: node --import tsx bench/server/bots.ts --http http://127.0.0.1:PORT --count N
//        [--warmup S] [--measure S] [--idle] [--seed N]
// stdout: JSON lines {"event":"joined"|"measure-start"|"measure-end"|"result", ...}
import { createSocket, type Socket } from "node:dgram";
import { parseArgs } from "node:util";
import {
  type ChunkEntry,
  ENTITY_CHECKSUM_START,
  PACKET_CHAT,
  PACKET_CHUNK,
  PACKET_ENTITY,
  PACKET_PONG,
  PACKET_STATE,
  PACKET_TYPE_NAMES,
  createActionPacket,
  decodePacket,
  encodeAction,
  encodeChatAck,
  encodePing,
  entityChecksumUpdate,
} from "../../ts/protocol/index.js";
import { mulberry32 } from "../lib/data.js";

const { values } = parseArgs({
  options: {
    http: { type: "string" },
    count: { type: "string", default: "100" },
    warmup: { type: "string", default: "5" },
    measure: { type: "string", default: "20" },
    idle: { type: "boolean", default: false },
    seed: { type: "string", default: "1" },
  },
});
const httpBase = values.http!;
const count = Number(values.count);
const warmupMs = Number(values.warmup) * 1000;
const measureMs = Number(values.measure) * 1000;
const idle = values.idle!;
const random = mulberry32(Number(values.seed));
const IP_UDP_OVERHEAD = 28;
const WINDOW_MS = 1000 / 6;
const CHUNK_RETRY_MS = 250;
const HELLO_INTERVAL_MS = 250;

function emit(event: string, fields: Record<string, unknown> = {}): void {
  process.stdout.write(JSON.stringify({ event, timeMs: performance.now(), ...fields }) + "\n");
}

interface Counters {
  datagramsIn: number;
  bytesIn: number;
  state: number;
  entity: number;
  chunk: number;
  other: number;
  datagramsOut: number;
  bytesOut: number;
  checksumMismatches: number;
}
const zero = (): Counters => ({
  datagramsIn: 0,
  bytesIn: 0,
  state: 0,
  entity: 0,
  chunk: 0,
  other: 0,
  datagramsOut: 0,
  bytesOut: 0,
  checksumMismatches: 0,
});
let measuring = false;
const totals = zero();
/** Datagrams received per packet type (index = packet_type), during the window. */
const byType = new Array<number>(256).fill(0);

class Bot {
  readonly socket: Socket;
  readonly action = createActionPacket();
  readonly out = new Uint8Array(74);
  readonly pingOut = new Uint8Array(14);
  tick = 0;
  manifest: ChunkEntry[] = [];
  readonly held = new Map<number, number>();
  direction = 1 + Math.floor(random() * 8);
  nextTurnMs = 0;
  nextMoveMs = 0;
  nextPingMs = 0;
  lastChunkRequestMs = -Infinity;
  lastHelloMs = -Infinity;
  stateChecksum = ENTITY_CHECKSUM_START;
  heldChecksum = ENTITY_CHECKSUM_START;
  entityTick = -1;
  entityHash = ENTITY_CHECKSUM_START;
  sawState = false;
  /** Highest chat message number received in order, acknowledged like the official client does. */
  chatSeq = 0;
  readonly chatAckOut = new Uint8Array(18);

  constructor(
    token: bigint,
    readonly port: number,
    nowMs: number,
  ) {
    this.action.authToken = token;
    this.socket = createSocket("udp4");
    this.socket.on("message", (message) => this.receive(message));
    this.socket.on("error", () => {});
    this.nextMoveMs = nowMs + random() * WINDOW_MS;
    this.nextPingMs = nowMs + random() * 1000;
    this.nextTurnMs = nowMs + 1500 + random() * 1000;
  }

  send(bytes: Uint8Array): void {
    this.socket.send(bytes, this.port, "127.0.0.1");
    if (measuring) {
      totals.datagramsOut++;
      totals.bytesOut += bytes.length + IP_UDP_OVERHEAD;
    }
  }

  sendAction(targetTick: number, action: number): void {
    this.action.targetTick = targetTick;
    this.action.action = action;
    const cache = this.action.cache;
    for (let i = 0; i < 9; i++) {
      const entry = this.manifest[i];
      const version = entry ? this.held.get(entry.chunkId) : undefined;
      cache[i].chunkId = entry ? entry.chunkId : 0;
      cache[i].version = version !== undefined && entry && version === entry.version ? version : 0;
    }
    encodeAction(this.action, this.out, 0);
    this.send(this.out);
  }

  receive(message: Buffer): void {
    const bytes = new Uint8Array(message.buffer, message.byteOffset, message.length);
    const type = bytes[3];
    if (measuring) {
      totals.datagramsIn++;
      totals.bytesIn += bytes.length + IP_UDP_OVERHEAD;
      byType[type]++;
    }
    if (type === PACKET_STATE) {
      const result = decodePacket(bytes);
      if (!result.ok || result.packet.type !== "state") return;
      if (measuring) totals.state++;
      // The previous broadcast's entities have arrived by now (they follow their State); compare its checksum.
      if (this.sawState && this.stateChecksum !== this.heldChecksum) {
        if (measuring) totals.checksumMismatches++;
        this.sendAction(0, 0);
      }
      this.sawState = true;
      this.tick = result.packet.tick;
      this.manifest = result.packet.chunks;
      this.stateChecksum = result.packet.entityChecksum;
      const now = performance.now();
      let missing = false;
      for (const entry of this.manifest)
        if (entry.version !== 0 && this.held.get(entry.chunkId) !== entry.version) missing = true;
      if (missing && now - this.lastChunkRequestMs >= CHUNK_RETRY_MS) {
        this.lastChunkRequestMs = now;
        this.sendAction(0, 0);
      }
    } else if (type === PACKET_ENTITY) {
      const result = decodePacket(bytes);
      if (!result.ok || result.packet.type !== "entity") return;
      if (measuring) totals.entity++;
      if (result.packet.tick !== this.entityTick) {
        this.entityTick = result.packet.tick;
        this.entityHash = ENTITY_CHECKSUM_START;
      }
      this.entityHash = entityChecksumUpdate(this.entityHash, bytes);
      if (!result.packet.more) this.heldChecksum = this.entityHash;
    } else if (type === PACKET_CHUNK) {
      const result = decodePacket(bytes);
      if (!result.ok || result.packet.type !== "chunk") return;
      if (measuring) totals.chunk++;
      this.held.set(result.packet.chunkId, result.packet.version);
      if (this.held.size > 32) {
        const keep = new Set(this.manifest.map((entry) => entry.chunkId));
        for (const id of this.held.keys()) if (!keep.has(id)) this.held.delete(id);
      }
    } else if (type === PACKET_CHAT) {
      const result = decodePacket(bytes);
      if (!result.ok || result.packet.type !== "chat") return;
      // Messages below oldestSeq were dropped by the server and will never come: skip past them.
      this.chatSeq = Math.max(this.chatSeq, result.packet.oldestSeq - 1);
      if (result.packet.seq === this.chatSeq + 1) this.chatSeq = result.packet.seq;
      encodeChatAck(
        { type: "chat_ack", clientType: 0, authToken: this.action.authToken, seq: this.chatSeq },
        this.chatAckOut,
        0,
      );
      this.send(this.chatAckOut);
    } else if (type === PACKET_PONG) {
      if (measuring) totals.other++;
    } else if (measuring) totals.other++;
  }

  step(now: number): void {
    // Until the first State arrives the link may not be bound (a lost first datagram, a server still warming
    // up): repeat the binding ActionPacket like the official client's hello.
    if (!this.sawState && now - this.lastHelloMs >= HELLO_INTERVAL_MS) {
      this.lastHelloMs = now;
      this.sendAction(0, 0);
    }
    if (now >= this.nextPingMs) {
      this.nextPingMs += 1000;
      encodePing({ type: "ping", clientType: 0, timestampMs: 0n }, this.pingOut, 0);
      this.send(this.pingOut);
    }
    if (idle || !this.sawState || now < this.nextMoveMs) return;
    this.nextMoveMs += WINDOW_MS;
    if (now >= this.nextTurnMs) {
      this.direction = 1 + Math.floor(random() * 8);
      this.nextTurnMs = now + 1500 + random() * 1000;
    }
    // The next movement window after the newest tick seen: window w runs on tick 4w.
    const window = Math.floor(this.tick / 4) + 1;
    this.sendAction(window * 4, this.direction);
  }
}

async function join(index: number): Promise<{ token: bigint; port: number }> {
  for (let attempt = 0; ; attempt++) {
    const response = await fetch(`${httpBase}/api/guest`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ nick: `bot${index}` }),
    });
    if (response.ok) {
      const body = (await response.json()) as { token: string; udpPort: number };
      return { token: BigInt(`0x${body.token}`), port: body.udpPort };
    }
    if (attempt >= 5) throw new Error(`join ${index}: HTTP ${response.status} ${await response.text()}`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

const bots: Bot[] = [];
const JOIN_CONCURRENCY = 16;
let next = 0;
await Promise.all(
  Array.from({ length: JOIN_CONCURRENCY }, async () => {
    while (next < count) {
      const index = next++;
      const { token, port } = await join(index);
      const bot = new Bot(token, port, performance.now());
      bots.push(bot);
      await new Promise<void>((resolve) => bot.socket.bind(0, "127.0.0.1", () => resolve()));
      bot.lastHelloMs = performance.now();
      bot.sendAction(0, 0); // binds the session to this socket
    }
  }),
);
emit("joined", { bots: bots.length });

const timer = setInterval(() => {
  const now = performance.now();
  for (const bot of bots) bot.step(now);
}, 10);

const cpuStart = { value: process.cpuUsage() };
let measureStartMs = 0;
setTimeout(() => {
  measuring = true;
  measureStartMs = performance.now();
  cpuStart.value = process.cpuUsage();
  emit("measure-start");
  setTimeout(() => {
    measuring = false;
    const seconds = (performance.now() - measureStartMs) / 1000;
    const cpu = process.cpuUsage(cpuStart.value);
    emit("measure-end");
    clearInterval(timer);
    const perBotPerSecond = (value: number) => value / bots.length / seconds;
    emit("result", {
      bots: bots.length,
      idle,
      seconds,
      botProcessCpuPercent: (cpu.user + cpu.system) / 1e4 / seconds,
      perBot: {
        datagramsInPerSecond: perBotPerSecond(totals.datagramsIn),
        ipBytesInPerSecond: perBotPerSecond(totals.bytesIn),
        statePerSecond: perBotPerSecond(totals.state),
        entityPerSecond: perBotPerSecond(totals.entity),
        chunkPerSecond: perBotPerSecond(totals.chunk),
        datagramsOutPerSecond: perBotPerSecond(totals.datagramsOut),
        ipBytesOutPerSecond: perBotPerSecond(totals.bytesOut),
      },
      checksumMismatches: totals.checksumMismatches,
      datagramsInPerBotSecondByType: Object.fromEntries(
        byType.flatMap((n, type) => (n > 0 ? [[PACKET_TYPE_NAMES[type] ?? String(type), perBotPerSecond(n)]] : [])),
      ),
    });
    for (const bot of bots) bot.socket.close();
    setTimeout(() => process.exit(0), 100);
  }, measureMs);
}, warmupMs);
