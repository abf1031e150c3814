// Chat across regions (issue 19, docs/scaling.md § Chat): how long a line takes from the PUBLISH of the
// region that said it to the message at each of three other regions' subscriber connections, on a
// private redis-server on loopback — the path ts/cluster/chat-relay.ts uses. Lines are paced at 1 ms,
// far above what players may say (1 line/s each, ts/server/sessions/chat-channel.ts), to see Redis's own cost.
// Run: npx tsx bench/chat-relay-latency.ts [lines]   (not part of npm run bench)
import { loadavg } from "node:os";
import { Redis } from "ioredis";
import { startRedis } from "../ts/cluster/redis-process.js";

const LINES = Number(process.argv[2] ?? 2000);
const SUBSCRIBERS = 3;

const redis = await startRedis();
try {
  const publisher = new Redis(redis.url);
  const latencies: number[] = [];
  const subscribers = await Promise.all(
    Array.from({ length: SUBSCRIBERS }, async () => {
      const subscriber = new Redis(redis.url);
      subscriber.on("message", (_channel: string, message: string) => {
        const { sentAt } = JSON.parse(message) as { sentAt: number };
        latencies.push(performance.now() - sentAt);
      });
      await subscriber.subscribe("fc:chat");
      return subscriber;
    }),
  );
  const text = "a line of ordinary length, as players type them in the caves";
  for (let index = 0; index < LINES; index++) {
    const line = { speakerEntityId: 2 ** 24 + 1, speakerName: "Speaker", text };
    await publisher.publish("fc:chat", JSON.stringify({ from: 0, line, sentAt: performance.now() }));
    await new Promise((resolve) => setTimeout(resolve, 1));
  }
  while (latencies.length < LINES * SUBSCRIBERS) await new Promise((resolve) => setTimeout(resolve, 10));
  latencies.sort((a, b) => a - b);
  const at = (p: number) => latencies[Math.min(latencies.length - 1, Math.floor((latencies.length * p) / 100))];
  const info = await publisher.info("stats");
  process.stdout.write(
    `${JSON.stringify({
      lines: LINES,
      subscribers: SUBSCRIBERS,
      p50Ms: Number(at(50).toFixed(3)),
      p99Ms: Number(at(99).toFixed(3)),
      maxMs: Number(latencies[latencies.length - 1].toFixed(3)),
      redisCommands: Number(/total_commands_processed:(\d+)/.exec(info)?.[1]),
      load: loadavg().map((n) => Number(n.toFixed(1))),
    })}\n`,
  );
  for (const subscriber of subscribers) subscriber.disconnect();
  publisher.disconnect();
} finally {
  await redis.stop();
}
