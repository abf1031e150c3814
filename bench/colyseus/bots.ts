// Load generator for the Colyseus row of the server suite: N wandering bots in one process, each a
// Colyseus SDK client (its own WebSocket) in the "world" room of bench/colyseus/server.ts, with the
// traffic of bench/server/bots.ts: one move message per movement window (6 per second) in a random
// direction that changes every 1.5–2.5 s, and a ping once a second (the SDK's room.ping). The room
// pushes the chunks a bot needs (it has no manifest to request them from) and the SDK decodes every
// state patch into the bot's copy of its view, as a Colyseus game client does.
//
// usage: node --import tsx bench/colyseus/bots.ts --endpoint ws://127.0.0.1:PORT --count N
//        [--warmup S] [--measure S] [--seed N]
// stdout: JSON lines {"event":"joined"|"measure-start"|"measure-end"|"result", ...}, as bench/server/bots.ts.
import { Client, type Room } from "@colyseus/sdk";
import { parseArgs } from "node:util";
import { TICK_HZ } from "../../ts/constants.js";
import { ACTION_MAX, ACTION_N } from "../../ts/protocol/action.js";
import { windowPeriodMs } from "../../ts/window.js";
import { mulberry32 } from "../lib/data.js";

/** The room's message names (bench/colyseus/world-room.ts; not imported: that module loads the server). */
const MESSAGE_MOVE = "m";
const MESSAGE_CHUNK = "c";

const { values } = parseArgs({
  options: {
    endpoint: { type: "string" },
    count: { type: "string", default: "100" },
    warmup: { type: "string", default: "5" },
    measure: { type: "string", default: "20" },
    seed: { type: "string", default: "1" },
  },
});
const endpoint = values.endpoint!;
const count = Number(values.count);
const warmupMs = Number(values.warmup) * 1000;
const measureMs = Number(values.measure) * 1000;
const random = mulberry32(Number(values.seed));
const WINDOW_MS = windowPeriodMs(TICK_HZ);
const PING_INTERVAL_MS = 1000;
const TURN_AFTER_MIN_MS = 1500;
const TURN_AFTER_SPREAD_MS = 1000;
const JOIN_CONCURRENCY = 16;

function randomDirection(): number {
  return ACTION_N + Math.floor(random() * (ACTION_MAX - ACTION_N + 1));
}

function emit(event: string, fields: Record<string, unknown> = {}): void {
  process.stdout.write(JSON.stringify({ event, timeMs: performance.now(), ...fields }) + "\n");
}

/** The SDK's Node WebSocket (the ws package), for counting what arrives on it. */
interface WebSocketLike {
  on(event: "message", listener: (data: ArrayBuffer | Buffer) => void): void;
}

let measuring = false;
const totals = { messagesIn: 0, bytesIn: 0, patches: 0, chunks: 0, messagesOut: 0, pongs: 0 };

class Bot {
  direction = randomDirection();
  nextTurnMs: number;
  nextMoveMs: number;
  nextPingMs: number;

  constructor(
    readonly room: Room,
    nowMs: number,
  ) {
    this.nextMoveMs = nowMs + random() * WINDOW_MS;
    this.nextPingMs = nowMs + random() * PING_INTERVAL_MS;
    this.nextTurnMs = nowMs + TURN_AFTER_MIN_MS + random() * TURN_AFTER_SPREAD_MS;
    room.onStateChange(() => {
      if (measuring) totals.patches++;
    });
    room.onMessage(MESSAGE_CHUNK, () => {
      if (measuring) totals.chunks++;
    });
    // The WebSocket payload bytes as received (the harness counts the IP level from the kernel's TCP counters).
    const ws = (room.connection.transport as unknown as { ws: WebSocketLike }).ws;
    ws.on("message", (data: ArrayBuffer | Buffer) => {
      if (!measuring) return;
      totals.messagesIn++;
      totals.bytesIn += data.byteLength;
    });
  }

  step(now: number): void {
    if (now >= this.nextPingMs) {
      this.nextPingMs += PING_INTERVAL_MS;
      this.room.ping(() => {
        if (measuring) totals.pongs++;
      });
      if (measuring) totals.messagesOut++;
    }
    if (now < this.nextMoveMs) return;
    this.nextMoveMs += WINDOW_MS;
    if (now >= this.nextTurnMs) {
      this.direction = randomDirection();
      this.nextTurnMs = now + TURN_AFTER_MIN_MS + random() * TURN_AFTER_SPREAD_MS;
    }
    this.room.send(MESSAGE_MOVE, this.direction);
    if (measuring) totals.messagesOut++;
  }
}

const client = new Client(endpoint);
const bots: Bot[] = [];
let next = 0;
await Promise.all(
  Array.from({ length: JOIN_CONCURRENCY }, async () => {
    while (next < count) {
      next++;
      const room = await client.joinOrCreate("world");
      bots.push(new Bot(room, performance.now()));
    }
  }),
);
emit("joined", { bots: bots.length });

const timer = setInterval(() => {
  const now = performance.now();
  for (const bot of bots) bot.step(now);
}, 10);

let cpuStart = process.cpuUsage();
let measureStartMs = 0;
setTimeout(() => {
  measuring = true;
  measureStartMs = performance.now();
  cpuStart = process.cpuUsage();
  emit("measure-start");
  setTimeout(() => {
    measuring = false;
    const seconds = (performance.now() - measureStartMs) / 1000;
    const cpu = process.cpuUsage(cpuStart);
    emit("measure-end");
    clearInterval(timer);
    const perBotPerSecond = (value: number) => value / bots.length / seconds;
    emit("result", {
      bots: bots.length,
      seconds,
      botProcessCpuPercent: (cpu.user + cpu.system) / 1e4 / seconds,
      perBot: {
        messagesInPerSecond: perBotPerSecond(totals.messagesIn),
        wsPayloadBytesInPerSecond: perBotPerSecond(totals.bytesIn),
        patchesPerSecond: perBotPerSecond(totals.patches),
        chunkPerSecond: perBotPerSecond(totals.chunks),
        messagesOutPerSecond: perBotPerSecond(totals.messagesOut),
        pongsPerSecond: perBotPerSecond(totals.pongs),
      },
    });
    // The harness reads the server's TCP counters when it sees measure-end: keep the connections open a
    // while longer, so none has closed (and dropped out of the sums) by then. Leaving is not measured.
    setTimeout(() => process.exit(0), 2000);
  }, measureMs);
}, warmupMs);
