// Issue 41, Redis lost (docs/scaling.md § Healing), with a Redis the launcher does not own (`--redis URL`,
// which it does not restart): while it is gone players play on and a new guest joins and plays; when
// it returns — empty, as a restarted Redis without persistence is — the regions write the directory
// again from what they hold: their endpoints, the world's epoch (the same as before) and clock, and the
// owner of every player.
import { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ACTION_DX, ACTION_DY } from "../ts/protocol/action.js";
import { type RedisProcess, startRedis } from "../ts/cluster/redis-process.js";
import { clusterSkipReason, startTestCluster, type TestCluster, until } from "./support/cluster-process.js";
import { UdpTestClient } from "./support/udp-client.js";
import { walkSteps as walk } from "./support/walk.js";

const skip = clusterSkipReason();
if (skip !== null) process.stderr.write(`test/cluster-redis-external.test.ts skipped: ${skip}\n`);

const EAST = ACTION_DX.findIndex((dx, code) => code > 0 && dx === 1 && ACTION_DY[code] === 0);

describe.skipIf(skip !== null)("a cluster whose external Redis goes away and returns empty", () => {
  let redis: RedisProcess;
  let cluster: TestCluster;
  const clients: UdpTestClient[] = [];
  const playing = async (nick: string) => {
    const client = await (await UdpTestClient.connect(cluster.ready.gateways[0].httpPort, nick)).sign().placed();
    clients.push(client);
    return client;
  };

  beforeAll(async () => {
    redis = await startRedis();
    cluster = await startTestCluster(1, ["--redis", redis.url]);
  }, 90_000);

  afterAll(async () => {
    for (const client of clients) client.close();
    await cluster?.stop();
    await redis?.stop();
  }, 20_000);

  it("plays on and takes joins while it is gone, and is written again from the processes when it returns", async () => {
    const first = await playing("Before");
    const reader = new Redis(redis.url);
    const epoch = await reader.get("fc:epoch");
    reader.disconnect();
    expect(epoch).not.toBeNull();
    const { port, dir } = redis;
    const gone = redis.ended;
    redis.child.kill("SIGKILL");
    await gone;

    // A guest joins and plays; the first player walks on.
    const during = await playing("During");
    const at = during.position()!;
    expect(await walk(during, [EAST])).toEqual({ x: at.x + 1, y: at.y });
    const firstAt = first.position()!;
    expect(await walk(first, [EAST])).toEqual({ x: firstAt.x + 1, y: firstAt.y });

    // It returns empty, on the same port: the regions write their part again.
    redis = await startRedis(10_000, { port, dir });
    const again = new Redis(redis.url);
    try {
      const owner = (id: number) => again.get(`fc:owner:${id}`);
      await until(
        "the directory written again",
        async () => {
          const [zero, one, clock, epochNow] = await again.mget("fc:region:0", "fc:region:1", "fc:clock", "fc:epoch");
          return zero !== null && one !== null && clock !== null && epochNow !== null;
        },
        15_000,
      );
      expect(await again.get("fc:epoch")).toBe(epoch);
      // Both players stand on region 1's ground (the spawn): written down as its.
      await until("both players' owners", async () => {
        const owners = await Promise.all([owner(first.joined.entityId), owner(during.joined.entityId)]);
        return owners.every((o) => o === "1");
      });
    } finally {
      again.disconnect();
    }
    // And play goes on after.
    expect(await walk(during, [EAST])).toEqual({ x: at.x + 2, y: at.y });
  }, 60_000);
});
