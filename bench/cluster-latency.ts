// What a gateway adds (issue 19): Ping → Pong round trips of clients on UDP loopback, straight to one
// server process, and through a gateway to the region holding their sessions (a process and two TCP
// hops more). Both servers run as their own processes pinned to core 0, the clients in this process on
// core 1, and the two paths are measured in alternating rounds so both see the same load.
//
// Two kinds of traffic, because on this kind of machine (a VM) a process woken from idle pays for the
// wake-up: ~0.1 ms each time a vCPU leaves its idle state (a loopback TCP echo: p50 0.05 ms with a ping
// every 2 ms, 0.24 ms with one every 20 ms):
//  - sparse: one client, a ping every 20 ms — every hop finds its process asleep (an empty world);
//  - steady: 20 clients taking turns, a ping every 2 ms in all — the processes stay awake, as a gateway
//    and a region serving players do.
// Also Redis commands per second of the idle cluster with those clients in it, from INFO.
// Writes bench/results/cluster-latency.json (`npx tsx bench/report.ts` puts it in REPORT.md).
// Run: npx tsx bench/cluster-latency.ts [--pings N]   (not part of npm run bench: it needs redis-server)
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { gitCommit, machineNow } from "./lib/harness.js";
import type { SuiteResult } from "./lib/results.js";
import { loadAverages, redisCommands, tasksetWorks } from "./server/processes.js";
import { startTestCluster } from "../test/support/cluster-process.js";
import { startServerProcess } from "../test/support/server-process.js";
import { writeTestMap } from "../test/support/test-map.js";
import { UdpTestClient } from "../test/support/udp-client.js";
import { HEADER_LAYOUT, PACKET_PONG } from "../ts/protocol/header.js";

const ROOT = new URL("..", import.meta.url).pathname;
const HELP = `usage: npx tsx bench/cluster-latency.ts [--pings N]

  --pings N   round trips per path and kind of traffic (default 2000)
`;
const { values } = parseArgs({ options: { pings: { type: "string", default: "2000" }, help: { type: "boolean" } } });
if (values.help) {
  process.stdout.write(HELP);
  process.exit(0);
}
const PINGS = Number(values.pings);
if (!Number.isInteger(PINGS) || PINGS < 100) {
  process.stderr.write(`--pings must be an integer ≥ 100, got ${values.pings}\n${HELP}`);
  process.exit(2);
}

interface Traffic {
  name: string;
  clients: number;
  gapMs: number;
  what: string;
}
const TRAFFIC: Traffic[] = [
  { name: "sparse", clients: 1, gapMs: 20, what: "one client, a ping every 20 ms: each hop wakes an idle process" },
  { name: "steady", clients: 20, gapMs: 2, what: "20 clients in turn, a ping every 2 ms: the processes stay awake" },
];

/** `count` round trips, the clients taking turns, `gapMs` between one Pong and the next Ping. */
async function roundTrips(clients: UdpTestClient[], count: number, gapMs: number, first: number): Promise<number[]> {
  const out: number[] = [];
  for (let index = 0; index < count; index++) {
    const client = clients[index % clients.length];
    // The Pong's arrival itself, not a poll of what was received.
    const pong = new Promise<number>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error("no pong within 1 s")), 1000);
      const onMessage = (message: Buffer) => {
        if (message[HEADER_LAYOUT.offset.packet_type] !== PACKET_PONG) return;
        clearTimeout(timer);
        client.socket.off("message", onMessage);
        resolve(performance.now());
      };
      client.socket.on("message", onMessage);
    });
    const sentAt = performance.now();
    client.ping(BigInt(first + index));
    out.push((await pong) - sentAt);
    // Each client stays under the session's 60 datagrams/s (game-options.ts): faster would be rate-limited.
    await new Promise((resolve) => setTimeout(resolve, gapMs));
  }
  return out;
}

const percentile = (sorted: number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor((sorted.length * p) / 100))];

async function bound(httpPort: number, nick: string): Promise<UdpTestClient> {
  const client = (await UdpTestClient.connect(httpPort, nick)).sign();
  client.action(0, 0);
  await client.waitFor("its first state", () => client.lastState(), 5000);
  return client;
}

/** `pid` and all its descendants, every thread, pinned to `core` (the servers' processes). */
function pinTree(pid: number, core: number): void {
  if (!tasksetWorks) return;
  spawnSync("taskset", ["-a", "-p", "-c", String(core), String(pid)]);
  const children = spawnSync("pgrep", ["-P", String(pid)], { encoding: "utf8" })
    .stdout.split("\n")
    .filter(Boolean);
  for (const child of children) pinTree(Number(child), core);
}

const loadBefore = loadAverages();
// Before this process is pinned to one core: the machine's cores, not this process's share.
const machine = machineNow(loadBefore[0]);
const dir = mkdtempSync(join(tmpdir(), "caves-latency-"));
const map = writeTestMap();
const children: import("node:child_process").ChildProcess[] = [];
const single = await startServerProcess(join(dir, "caves.db"), map.path, children);
const cluster = await startTestCluster();
const clients: UdpTestClient[] = [];
try {
  pinTree(single.child.pid!, 0);
  pinTree(cluster.process.pid, 0);
  if (tasksetWorks) spawnSync("taskset", ["-a", "-p", "-c", "1", String(process.pid)]);
  const direct: UdpTestClient[] = [];
  const through: UdpTestClient[] = [];
  const most = Math.max(...TRAFFIC.map((t) => t.clients));
  for (let i = 0; i < most; i++) {
    direct.push(await bound(single.httpPort, `Direct${i}`));
    through.push(await bound(cluster.ready.gateways[0].httpPort, `Through${i}`));
  }
  clients.push(...direct, ...through);
  // Keep every session alive (a session silent for 10 s ends) while the other kind of traffic runs.
  const keepAlive = setInterval(() => {
    for (const client of clients) client.action(client.lastState()!.tick + 4, 0);
  }, 2000);
  await new Promise((resolve) => setTimeout(resolve, 1000)); // the handoffs at the spawn are done
  const rows: { traffic: Traffic; direct: number[]; gateway: number[] }[] = [];
  let sequence = 1;
  for (const traffic of TRAFFIC) {
    const directMs: number[] = [];
    const gatewayMs: number[] = [];
    for (let round = 0; round < 10; round++) {
      directMs.push(...(await roundTrips(direct.slice(0, traffic.clients), PINGS / 10, traffic.gapMs, sequence)));
      sequence += PINGS / 10;
      gatewayMs.push(...(await roundTrips(through.slice(0, traffic.clients), PINGS / 10, traffic.gapMs, sequence)));
      sequence += PINGS / 10;
    }
    directMs.sort((a, b) => a - b);
    gatewayMs.sort((a, b) => a - b);
    rows.push({ traffic, direct: directMs, gateway: gatewayMs });
  }
  clearInterval(keepAlive);
  const commandsBefore = await redisCommands(cluster.ready.redis);
  await new Promise((resolve) => setTimeout(resolve, 10_000));
  const commandsPerSecond = ((await redisCommands(cluster.ready.redis)) - commandsBefore - 1) / 10;
  const loadAfter = loadAverages();

  const f = (n: number) => n.toFixed(3);
  const added = (row: (typeof rows)[number], p: number) => percentile(row.gateway, p) - percentile(row.direct, p);
  const steady = rows.find((row) => row.traffic.name === "steady")!;
  const load = `load ${loadBefore[0]} / ${loadAfter[0]}`;
  const suite: SuiteResult = {
    suite: "cluster-latency",
    title: "What a gateway adds: Ping → Pong through a gateway and a region, against one server process",
    date: new Date().toISOString(),
    command: `npx tsx bench/cluster-latency.ts ${process.argv.slice(2).join(" ")}`.trim(),
    quick: false,
    gitCommit: gitCommit(),
    machine: { ...machine, loadEnd: loadAfter[0] },
    timing: `wall clock per round trip (performance.now from the Ping's send to the Pong's arrival), ${PINGS} per path and kind of traffic in 10 alternating rounds; the servers ${tasksetWorks ? "pinned to core 0, the clients to core 1" : "unpinned (taskset does not work here)"}`,
    tables: [
      {
        title: "Round trips on UDP loopback (ms)",
        columns: ["traffic", "path", "p50", "p99", "max", "the gateway adds at p50 / p99"],
        rows: rows.flatMap((row) => [
          [
            row.traffic.name,
            "one server process",
            f(percentile(row.direct, 50)),
            f(percentile(row.direct, 99)),
            f(row.direct[row.direct.length - 1]),
            "",
          ],
          [
            row.traffic.name,
            "gateway → region",
            f(percentile(row.gateway, 50)),
            f(percentile(row.gateway, 99)),
            f(row.gateway[row.gateway.length - 1]),
            `${f(added(row, 50))} / ${f(added(row, 99))}`,
          ],
        ]),
        note: TRAFFIC.map((t) => `${t.name}: ${t.what}.`).join(" "),
      },
      {
        title: "Redis with the cluster idle",
        columns: ["regions", "gateways", "players", "commands/s"],
        rows: [[2, 1, clients.length / 2, commandsPerSecond.toFixed(1)]],
        note: "Region registrations every second, checkpoints, the gateway's session refresh every 5 s, owner refreshes every 10 s; no datagram touches Redis.",
      },
    ],
    charts: [],
    targets: [
      {
        target: "a gateway adds < 1 ms p99 on loopback (steady traffic)",
        measured: `${f(added(steady, 99))} ms at p99, ${f(added(steady, 50))} ms at p50 (${load})`,
        met: added(steady, 99) < 1,
      },
    ],
    notes: [
      "Not part of `npm run bench`: it needs redis-server.",
      "The sparse rows show this VM's wake-up cost: each hop through a process that was idle costs ~0.1–0.3 ms more than one already running; a gateway or region with players is never idle that long.",
    ],
    raw: {
      commandsPerSecond,
      rows: rows.map((row) => ({
        traffic: row.traffic,
        direct: { p50: percentile(row.direct, 50), p99: percentile(row.direct, 99) },
        gateway: { p50: percentile(row.gateway, 50), p99: percentile(row.gateway, 99) },
      })),
    },
  };
  writeFileSync(join(ROOT, "bench/results/cluster-latency.json"), `${JSON.stringify(suite, null, 1)}\n`);
  process.stdout.write(
    [
      `${PINGS} pings per path and traffic, ${load}`,
      ...rows.map(
        (row) =>
          `${row.traffic.name.padEnd(7)} one process p50 ${f(percentile(row.direct, 50))} p99 ${f(percentile(row.direct, 99))} | ` +
          `gateway p50 ${f(percentile(row.gateway, 50))} p99 ${f(percentile(row.gateway, 99))} | adds ${f(added(row, 50))} / ${f(added(row, 99))} ms`,
      ),
      `redis commands/s (2 regions, 1 gateway, ${clients.length / 2} players): ${commandsPerSecond.toFixed(1)}`,
      "",
    ].join("\n"),
  );
} finally {
  for (const client of clients) client.close();
  await cluster.stop();
  for (const child of children) child.kill("SIGTERM");
  map.dispose();
  rmSync(dir, { recursive: true, force: true });
}
