// What a gateway adds (issue 19): Ping → Pong round trips of a client on UDP loopback, straight to one
// server process, and through a gateway to the region holding its session (two more TCP hops on
// loopback). Also Redis commands per second of the idle cluster with those clients in it, from INFO.
// Run: npx tsx bench/cluster-latency.ts [pings]   (not part of npm run bench)
import { cpus, loadavg } from "node:os";
import { redisCommands } from "./server/processes.js";
import { startTestCluster } from "../test/support/cluster-process.js";
import { startServerOnTestMap } from "../test/support/test-server.js";
import { UdpTestClient } from "../test/support/udp-client.js";
import { HEADER_LAYOUT, PACKET_PONG } from "../ts/protocol/header.js";

const PINGS = Number(process.argv[2] ?? 2000);

async function roundTrips(client: UdpTestClient, count: number): Promise<number[]> {
  const out: number[] = [];
  for (let index = 0; index < count; index++) {
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
    client.ping(BigInt(index + 1));
    out.push((await pong) - sentAt);
    // Under the session's 60 datagrams/s (game-options.ts): a faster ping would be rate-limited, not answered.
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return out.sort((a, b) => a - b);
}

const percentile = (sorted: number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor((sorted.length * p) / 100))];

async function bound(httpPort: number, nick: string): Promise<UdpTestClient> {
  const client = (await UdpTestClient.connect(httpPort, nick)).sign();
  client.action(0, 0);
  await client.waitFor("its first state", () => client.lastState(), 5000);
  return client;
}

const single = await startServerOnTestMap();
const cluster = await startTestCluster();
try {
  const direct = await bound(single.server.httpPort, "Direct");
  const through = await bound(cluster.ready.gateways[0].httpPort, "Through");
  await new Promise((resolve) => setTimeout(resolve, 1000)); // the handoff at the spawn is done
  // Interleaved in rounds, so both see the same load.
  const directMs: number[] = [];
  const gatewayMs: number[] = [];
  for (let round = 0; round < 10; round++) {
    directMs.push(...(await roundTrips(direct, PINGS / 10)));
    gatewayMs.push(...(await roundTrips(through, PINGS / 10)));
  }
  directMs.sort((a, b) => a - b);
  gatewayMs.sort((a, b) => a - b);
  const commandsBefore = await redisCommands(cluster.ready.redis);
  await new Promise((resolve) => setTimeout(resolve, 10_000));
  const commandsPerSecond = ((await redisCommands(cluster.ready.redis)) - commandsBefore - 1) / 10;
  const row = (name: string, sorted: number[]) =>
    `${name.padEnd(18)} p50 ${percentile(sorted, 50).toFixed(3)} ms  p99 ${percentile(sorted, 99).toFixed(3)} ms  max ${sorted[sorted.length - 1].toFixed(3)} ms`;
  process.stdout.write(
    [
      `${PINGS} pings each, ${cpus().length} cores, load ${loadavg()
        .map((l) => l.toFixed(2))
        .join(" ")}`,
      row("one process", directMs),
      row("through gateway", gatewayMs),
      `gateway adds: p50 ${(percentile(gatewayMs, 50) - percentile(directMs, 50)).toFixed(3)} ms, p99 ${(percentile(gatewayMs, 99) - percentile(directMs, 99)).toFixed(3)} ms`,
      `redis commands/s (2 regions, 1 gateway, 1 player): ${commandsPerSecond.toFixed(1)}`,
      "",
    ].join("\n"),
  );
  direct.close();
  through.close();
} finally {
  await cluster.stop();
  await single.close();
}
