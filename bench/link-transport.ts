// Which transport carries the cluster's game traffic (issue 19: "game traffic between gateways and
// regions may go over direct sockets rather than through the broker if that is faster; measure it", and
// NATS against Redis for the handoffs): a gateway's datagrams to a region and back, three ways —
//  - direct: the cluster's own TCP links (link-frames.ts FrameWriter / FrameReader), what is built;
//  - redis:  Redis pub/sub (ioredis), a channel per process, as if every datagram went through the broker;
//  - nats:   NATS core pub/sub (@nats-io/transport-node against Debian's nats-server), the same; the
//            client lives in bench/nats with its own lock file, installed on first use (npm ci --prefix
//            bench/nats), because it declares Node >= 22 and the main install stays quiet on Node 20.
// Two figures each, between two real processes (this one the "gateway", a child the "region", which
// echoes every message back on its own connection):
//  - latency: 2000 round trips of one 60-byte datagram (an ActionPacket's size), a ping every 2 ms;
//  - throughput: 100,000 datagrams sent as fast as the transport takes them, the region echoing a count
//    every 1000; datagrams per second end to end, and the CPU both processes (and the broker) spent per
//    datagram. One region holding 2000 players receives ~16 datagrams per player-second from gateways and
//    sends ~30: ~92,000 a second.
// Writes bench/results/link-transport.json (`npx tsx bench/report.ts` puts it in REPORT.md).
// Run: npx tsx bench/link-transport.ts [--only direct,redis,nats]   (not part of npm run bench)
import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { once } from "node:events";
import { createConnection, createServer, type Socket } from "node:net";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { writeFileSync } from "node:fs";
import { parseArgs } from "node:util";
import { Redis } from "ioredis";
import { gitCommit, machineNow } from "./lib/harness.js";
import type { SuiteResult } from "./lib/results.js";
import { cpuSeconds, loadAverages, tasksetWorks } from "./server/processes.js";
import { FrameReader, FrameWriter, FRAME_DATA } from "../ts/cluster/link-frames.js";
import { findRedisServer, freePort, startRedis } from "../ts/cluster/redis-process.js";

const ROOT = new URL("..", import.meta.url).pathname;
const DATAGRAM_BYTES = 60;
const PINGS = 2000;
const BLAST = 100_000;
const COUNT_EVERY = 1000;
const TRANSPORTS = ["direct", "redis", "nats"] as const;
type TransportName = (typeof TRANSPORTS)[number];

/** One side's connection: send a datagram, and be told of each one that arrives. */
interface Link {
  send(payload: Uint8Array): void;
  onMessage(handler: (payload: Uint8Array) => void): void;
  close(): Promise<void>;
}

async function directLink(role: "gateway" | "region", port: number): Promise<Link> {
  let socket: Socket;
  if (role === "region") {
    socket = createConnection({ host: "127.0.0.1", port });
    await once(socket, "connect");
  } else {
    const server = createServer();
    server.listen(port, "127.0.0.1");
    [socket] = (await once(server, "connection")) as [Socket];
    server.close();
  }
  socket.setNoDelay(true);
  const writer = new FrameWriter(socket);
  let handler: (payload: Uint8Array) => void = () => {};
  const reader = new FrameReader((_kind, _client, payload) => handler(payload));
  socket.on("data", (chunk: Buffer) => reader.push(chunk));
  return {
    send: (payload) => writer.send(FRAME_DATA, 7, payload),
    onMessage: (h) => (handler = h),
    close: async () => void socket.destroy(),
  };
}

async function redisLink(role: "gateway" | "region", url: string): Promise<Link> {
  const pub = new Redis(url, { enableAutoPipelining: true });
  const sub = new Redis(url);
  const inbox = role === "region" ? "link:region" : "link:gateway";
  const outbox = role === "region" ? "link:gateway" : "link:region";
  let handler: (payload: Uint8Array) => void = () => {};
  sub.on("messageBuffer", (_channel: Buffer, message: Buffer) => handler(message));
  await sub.subscribe(inbox);
  return {
    send: (payload) => void pub.publish(outbox, Buffer.from(payload.buffer, payload.byteOffset, payload.length)),
    onMessage: (h) => (handler = h),
    close: async () => {
      pub.disconnect();
      sub.disconnect();
    },
  };
}

const NATS_DIR = join(ROOT, "bench/nats");

/** Whether bench/nats/node_modules holds the NATS client; installs it (npm ci) when not. */
function ensureNats(): string | null {
  const installed = () => existsSync(join(NATS_DIR, "node_modules/@nats-io/transport-node/package.json"));
  if (installed()) return null;
  process.stderr.write(
    "nats: installing the NATS client once: npm ci --prefix bench/nats (not part of the main install)\n",
  );
  const result = spawnSync("npm", ["ci", "--prefix", NATS_DIR, "--no-audit", "--no-fund"], {
    stdio: ["ignore", "inherit", "inherit"],
    timeout: 300_000,
  });
  if (result.status === 0 && installed()) return null;
  return `npm ci --prefix bench/nats failed (${result.error?.message ?? `exit ${result.status}`})`;
}

// Loaded by path, not by a static import, so that the main type-check and install never need the NATS
// client (bench/nats has its own package and tsconfig, like bench/colyseus).
async function natsLink(role: "gateway" | "region", url: string): Promise<Link> {
  const module = (await import(pathToFileURL(join(NATS_DIR, "nats-link.ts")).href)) as {
    natsLink(role: "gateway" | "region", url: string): Promise<Link>;
  };
  return module.natsLink(role, url);
}

function open(name: TransportName, role: "gateway" | "region", address: string): Promise<Link> {
  if (name === "direct") return directLink(role, Number(address));
  if (name === "redis") return redisLink(role, address);
  return natsLink(role, address);
}

// The child: the "region", echoing each datagram (latency) or a count every COUNT_EVERY (throughput).
const { values } = parseArgs({
  options: {
    role: { type: "string" },
    transport: { type: "string" },
    address: { type: "string" },
    only: { type: "string" },
  },
});
if (values.role === "region") {
  const link = await open(values.transport as TransportName, "region", values.address!);
  let received = 0;
  let blasting = false;
  const count = new Uint8Array(DATAGRAM_BYTES);
  link.onMessage((payload) => {
    if (payload[0] === 1) return link.send(payload); // a ping: straight back
    if (payload[0] === 2) {
      blasting = true;
      received = 0;
      return;
    }
    if (!blasting) return;
    received++;
    if (received % COUNT_EVERY === 0) {
      count[0] = 3;
      new DataView(count.buffer).setUint32(4, received);
      link.send(count);
    }
  });
  process.stdout.write("ready\n");
  process.stdin.resume();
  process.stdin.on("end", () => void link.close().then(() => process.exit(0)));
} else {
  await main();
}

interface Row {
  transport: TransportName;
  p50: number;
  p99: number;
  perSecond: number;
  cpuUsPerDatagram: number;
  brokerCpuUsPerDatagram: number | null;
}

async function measure(name: TransportName, address: string, brokerPid: number | null): Promise<Row> {
  const args = [
    "--import",
    "tsx",
    new URL(import.meta.url).pathname,
    "--role",
    "region",
    "--transport",
    name,
    "--address",
    address,
  ];
  const [command, argv] = tasksetWorks ? ["taskset", ["-c", "0", process.execPath, ...args]] : [process.execPath, args];
  const child: ChildProcess = spawn(command, argv, { stdio: ["pipe", "pipe", "inherit"] });
  const linkPromise = open(name, "gateway", address);
  const [line] = (await once(child.stdout!, "data")) as [Buffer];
  if (!line.toString().startsWith("ready")) throw new Error(`${name}: the region side said ${line.toString()}`);
  const link = await linkPromise;
  try {
    // Latency.
    const times: number[] = [];
    const ping = new Uint8Array(DATAGRAM_BYTES);
    ping[0] = 1;
    let answered: (() => void) | null = null;
    link.onMessage((payload) => {
      if (payload[0] === 1) answered?.();
    });
    for (let i = 0; i < PINGS; i++) {
      const sent = performance.now();
      await new Promise<void>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`${name}: no echo within 2 s`)), 2000);
        answered = () => {
          clearTimeout(timer);
          resolve();
        };
        link.send(ping);
      });
      times.push(performance.now() - sent);
      await new Promise((resolve) => setTimeout(resolve, 2));
    }
    times.sort((a, b) => a - b);
    // Throughput: the region counts what arrived; the gateway keeps at most 20,000 unacknowledged in flight.
    const start = new Uint8Array(DATAGRAM_BYTES);
    start[0] = 2;
    link.send(start);
    await new Promise((resolve) => setTimeout(resolve, 100));
    let counted = 0;
    let wake: (() => void) | null = null;
    link.onMessage((payload) => {
      if (payload[0] !== 3) return;
      counted = new DataView(payload.buffer, payload.byteOffset, payload.length).getUint32(4);
      wake?.();
    });
    const datagram = new Uint8Array(DATAGRAM_BYTES);
    datagram[0] = 4;
    const cpu0 = cpuSeconds(process.pid) + cpuSeconds(child.pid!);
    const broker0 = brokerPid === null ? 0 : cpuSeconds(brokerPid);
    const t0 = performance.now();
    for (let sent = 0; sent < BLAST;) {
      while (sent < BLAST && sent - counted < 20_000) {
        link.send(datagram);
        sent++;
        if (sent % 500 === 0) await new Promise((resolve) => setImmediate(resolve));
      }
      if (sent < BLAST) await new Promise<void>((resolve) => ((wake = resolve), setTimeout(resolve, 50)));
    }
    const deadline = performance.now() + 60_000;
    while (counted < BLAST && performance.now() < deadline) {
      await new Promise<void>((resolve) => ((wake = resolve), setTimeout(resolve, 50)));
    }
    if (counted < BLAST) throw new Error(`${name}: only ${counted} of ${BLAST} arrived within 60 s`);
    const seconds = (performance.now() - t0) / 1000;
    const cpu = cpuSeconds(process.pid) + cpuSeconds(child.pid!) - cpu0;
    const broker = brokerPid === null ? null : cpuSeconds(brokerPid) - broker0;
    return {
      transport: name,
      p50: times[Math.floor(PINGS * 0.5)],
      p99: times[Math.floor(PINGS * 0.99)],
      perSecond: BLAST / seconds,
      cpuUsPerDatagram: (cpu * 1e6) / BLAST,
      brokerCpuUsPerDatagram: broker === null ? null : (broker * 1e6) / BLAST,
    };
  } finally {
    await link.close();
    child.stdin!.end();
    await Promise.race([once(child, "exit"), new Promise((resolve) => setTimeout(resolve, 3000))]);
    child.kill("SIGKILL");
  }
}

async function main(): Promise<void> {
  const only = values.only === undefined ? [...TRANSPORTS] : (values.only.split(",") as TransportName[]);
  for (const name of only) {
    if (!TRANSPORTS.includes(name)) {
      process.stderr.write(`--only takes ${TRANSPORTS.join(", ")}; got ${name}\n`);
      process.exit(2);
    }
  }
  const loadBefore = loadAverages();
  const machine = machineNow(loadBefore[0]);
  if (tasksetWorks) spawnSync("taskset", ["-a", "-p", "-c", "1", String(process.pid)]);
  const rows: Row[] = [];
  const skipped: string[] = [];
  for (const name of only) {
    if (name === "direct") {
      rows.push(await measure("direct", String(await freePort()), null));
    } else if (name === "redis") {
      const found = findRedisServer();
      if (found.path === null) {
        skipped.push(`redis: ${found.reason}`);
        continue;
      }
      const redis = await startRedis();
      if (tasksetWorks) spawnSync("taskset", ["-a", "-p", "-c", "0", String(redis.child.pid!)]);
      try {
        rows.push(await measure("redis", redis.url, redis.child.pid!));
      } finally {
        await redis.stop();
      }
    } else {
      const which = spawnSync("sh", ["-c", "command -v nats-server"], { encoding: "utf8" });
      if (which.status !== 0) {
        skipped.push("nats: nats-server is not installed (Debian: apt-get install nats-server)");
        continue;
      }
      const notInstalled = ensureNats();
      if (notInstalled !== null) {
        skipped.push(`nats: ${notInstalled}`);
        continue;
      }
      const port = await freePort();
      const nats = spawn(which.stdout.trim(), ["-a", "127.0.0.1", "-p", String(port)], { stdio: "ignore" });
      if (tasksetWorks) spawnSync("taskset", ["-a", "-p", "-c", "0", String(nats.pid)]);
      try {
        await new Promise((resolve) => setTimeout(resolve, 500));
        rows.push(await measure("nats", `127.0.0.1:${port}`, nats.pid!));
      } finally {
        nats.kill("SIGTERM");
      }
    }
    process.stderr.write(`${name} done\n`);
  }
  const loadAfter = loadAverages();
  const f = (n: number, d = 3) => n.toFixed(d);
  const suite: SuiteResult = {
    suite: "link-transport",
    title: "Gateway ↔ region traffic: direct TCP links against Redis and NATS pub/sub",
    date: new Date().toISOString(),
    command: `npx tsx bench/link-transport.ts ${process.argv.slice(2).join(" ")}`.trim(),
    quick: false,
    gitCommit: gitCommit(),
    machine: { ...machine, loadEnd: loadAfter[0] },
    timing: `wall clock; ${PINGS} round trips of a ${DATAGRAM_BYTES}-byte datagram a ping every 2 ms, then ${BLAST.toLocaleString("en")} datagrams one way as fast as taken; CPU from /proc (utime + stime) of both ends and the broker; the "region" and the broker ${tasksetWorks ? 'pinned to core 0, the "gateway" to core 1' : "unpinned"}`,
    tables: [
      {
        title: "Per transport",
        columns: [
          "transport",
          "round trip p50 ms",
          "p99 ms",
          "datagrams/s one way",
          "CPU µs per datagram (both ends)",
          "broker CPU µs per datagram",
        ],
        rows: rows.map((r) => [
          r.transport,
          f(r.p50),
          f(r.p99),
          f(r.perSecond, 0),
          f(r.cpuUsPerDatagram, 2),
          r.brokerCpuUsPerDatagram === null ? "—" : f(r.brokerCpuUsPerDatagram, 2),
        ]),
        note: "A region holding 2000 players gets ~32,000 datagrams a second from its gateways and sends ~60,000 (16 in and 30 out per player-second).",
      },
    ],
    charts: [],
    targets: [],
    notes: [
      "Not part of `npm run bench`: it needs redis-server and nats-server (each row is skipped, and said so, without its server).",
      ...skipped.map((reason) => `Skipped: ${reason}.`),
    ],
    raw: rows,
  };
  writeFileSync(join(ROOT, "bench/results/link-transport.json"), `${JSON.stringify(suite, null, 1)}\n`);
  for (const r of rows) {
    process.stdout.write(
      `${r.transport.padEnd(6)} rtt p50 ${f(r.p50)} p99 ${f(r.p99)} ms | ${f(r.perSecond, 0)} datagrams/s | ${f(r.cpuUsPerDatagram, 2)} µs CPU per datagram` +
        (r.brokerCpuUsPerDatagram === null ? "" : ` + broker ${f(r.brokerCpuUsPerDatagram, 2)}`) +
        "\n",
    );
  }
  for (const reason of skipped) process.stdout.write(`skipped ${reason}\n`);
  process.stdout.write(`load ${loadBefore[0]} / ${loadAfter[0]}\n`);
}
