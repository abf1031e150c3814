// Issue 41, the cluster heals itself (docs/scaling.md § Healing), for real: the launcher with its own
// redis-server, PostgreSQL, two regions and a gateway (test/support/cluster-process.ts), protocol
// clients on real UDP. A region killed with SIGKILL again and again — its restarts killed too, so they
// fail — is tried again until it is back, with its players; the redis-server killed with SIGKILL is
// restarted, the log says so in a line per process instead of hundreds, the regions write the directory
// again, a player plays on and a new one joins, and chat crosses the border again; its PostgreSQL and a
// gateway killed with SIGKILL are started again too, and the regions reconnect to the store.
import { execFileSync } from "node:child_process";
import { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ACTION_DX, ACTION_DY } from "../ts/protocol/action.js";
import type { PartHealth } from "../ts/cluster/supervisor.js";
import { postgresSkipReason } from "../ts/cluster/postgres-process.js";
import { hearLine, post } from "./support/chat-lines.js";
import { BORDER_X, clusterSkipReason, startTestCluster, type TestCluster, until } from "./support/cluster-process.js";
import { UdpTestClient } from "./support/udp-client.js";
import { walkSteps as walk } from "./support/walk.js";

const skip = clusterSkipReason() ?? postgresSkipReason();
if (skip !== null) process.stderr.write(`test/cluster-heal.test.ts skipped: ${skip}\n`);

const WEST = ACTION_DX.findIndex((dx, code) => code > 0 && dx === -1 && ACTION_DY[code] === 0);
const EAST = ACTION_DX.findIndex((dx, code) => code > 0 && dx === 1 && ACTION_DY[code] === 0);

/** The launcher's children whose command line names `what` (pid list). */
function childrenOf(launcher: number, what: string): number[] {
  const out = execFileSync("ps", ["-o", "pid=,args=", "--ppid", String(launcher)], { encoding: "utf8" });
  return out
    .split("\n")
    .filter((line) => line.includes(what))
    .map((line) => Number(line.trim().split(/\s+/)[0]));
}

/** How many lines of `text` contain `part`. */
const linesWith = (text: string, part: string) => text.split("\n").filter((line) => line.includes(part)).length;

describe.skipIf(skip !== null)("a cluster that heals itself", () => {
  let cluster: TestCluster;
  const clients: UdpTestClient[] = [];
  const gatewayHttp = () => cluster.ready.gateways[0].httpPort;
  const health = async (name: string): Promise<PartHealth> => {
    const answer = (await (await fetch(`http://127.0.0.1:${gatewayHttp()}/api/cluster`)).json()) as {
      health: PartHealth[];
    };
    return answer.health.find((part) => part.name === name)!;
  };
  const playing = async (nick: string) => {
    const client = await (await UdpTestClient.connect(gatewayHttp(), nick)).sign().placed();
    clients.push(client);
    return client;
  };
  /** A keep-alive every 200 ms, as a client sends, while `during` runs. */
  const keptAlive = async <T>(client: UdpTestClient, during: () => Promise<T>): Promise<T> => {
    const timer = setInterval(() => client.action(0, 0), 200);
    try {
      return await during();
    } finally {
      clearInterval(timer);
    }
  };

  beforeAll(async () => {
    cluster = await startTestCluster(2);
  }, 90_000);

  afterAll(async () => {
    for (const client of clients) client.close();
    await cluster?.stop();
  }, 20_000);

  it("a region killed again and again, its restarts killed too, is tried again until it is back with its player", async () => {
    const east = await playing("Stayer"); // at the spawn: region 1's ground
    const at = east.position()!;
    expect(at.x).toBeGreaterThan(BORDER_X + 2);
    const first = await health("region 1");
    expect(first.state).toBe("up");
    // Its checkpoint holds the player (written every second) before the kill.
    await new Promise((resolve) => setTimeout(resolve, 1500));
    const logBefore = cluster.process.stderr().length;
    process.kill(first.pid!, "SIGKILL");
    // Each restart is killed before it is ready, twice: those restarts fail, and are tried again.
    const killed = new Set([first.pid!]);
    await keptAlive(east, () =>
      until(
        "two restarts killed while starting",
        async () => {
          for (const pid of childrenOf(cluster.process.pid, "--region 1")) {
            if (killed.has(pid)) continue;
            killed.add(pid);
            process.kill(pid, "SIGKILL");
          }
          return killed.size >= 3;
        },
        30_000,
      ),
    );
    const down = await health("region 1");
    expect(down.state).not.toBe("up");
    const back = await keptAlive(east, () =>
      until(
        "region 1 up again",
        async () => {
          const now = await health("region 1");
          return now.state === "up" && now;
        },
        30_000,
      ),
    );
    expect(back.restarts).toBe(1);
    expect(back.failedStarts).toBeGreaterThanOrEqual(2);
    expect(killed.has(back.pid!)).toBe(false);
    // One line per change of state: ended, did not restart, up again — not one per failed try.
    const log = cluster.process.stderr().slice(logBefore);
    expect(linesWith(log, "a part of the cluster ended: restarting it")).toBe(1);
    expect(linesWith(log, "a part of the cluster did not restart")).toBe(1);
    expect(linesWith(log, "a part of the cluster is up again")).toBe(1);
    // The player is back where it stood (the region's checkpoint), in the same session, and walks.
    const statesNow = east.states.length;
    await keptAlive(east, () =>
      east.waitFor("the player back", () => east.states.length > statesNow + 5 && east.position(), 20_000),
    );
    expect(east.position()).toEqual(at);
    expect(await walk(east, [EAST])).toEqual({ x: at.x + 1, y: at.y });
  }, 90_000);

  it("the redis-server killed: restarted, the log not flooded, the directory written again, play and joins go on", async () => {
    const west = clients[0];
    // West of the border: region 0's.
    const start = west.position()!;
    const end = await walk(
      west,
      Array.from({ length: start.x - BORDER_X + 3 }, () => WEST),
    );
    expect(end.x).toBeLessThan(BORDER_X - 2);
    const redisBefore = await health("redis-server");
    const logBefore = cluster.process.stderr().length;
    process.kill(redisBefore.pid!, "SIGKILL");
    // Players play on meanwhile: a step is simulated without Redis.
    const moved = await walk(west, [WEST]);
    expect(moved).toEqual({ x: end.x - 1, y: end.y });
    const redisBack = await until(
      "the redis-server restarted",
      async () => {
        const now = await health("redis-server");
        return now.state === "up" && now.restarts === 1 && now;
      },
      20_000,
    );
    expect(redisBack.pid).not.toBe(redisBefore.pid);
    // The regions register again, and write down the entities they hold (the directory from the processes).
    const redis = new Redis(cluster.ready.redis);
    try {
      await until("both regions in the directory again", async () => {
        const [zero, one] = await redis.mget("fc:region:0", "fc:region:1");
        return zero !== null && one !== null;
      });
      await until(
        "the player's owner written again",
        async () => (await redis.get(`fc:owner:${west.joined.entityId}`)) === "0",
      );
      expect(await redis.get("fc:clock")).not.toBeNull();
      expect(await redis.get("fc:layout")).not.toBeNull();
    } finally {
      redis.disconnect();
    }
    // A new player joins (region 1's ground), the first one walks on, and chat crosses the border again.
    const newcomer = await playing("Newcomer");
    expect(newcomer.position()!.x).toBeGreaterThan(BORDER_X);
    expect(await walk(west, [EAST])).toEqual(end);
    post(newcomer, 1, "hello across the border");
    const heard = await hearLine(west, "the newcomer's line in region 0", (line) =>
      line.text.includes("hello across the border"),
    );
    expect(heard.text).toContain("hello across the border");
    // The log: a line per process that lost Redis and one when it was back, not one per failed command.
    const log = cluster.process.stderr().slice(logBefore);
    expect(log).not.toContain("Unhandled error event");
    const processes = cluster.ready.regions.length + cluster.ready.gateways.length;
    expect(linesWith(log, "Redis unreachable")).toBeLessThanOrEqual(processes);
    expect(linesWith(log, "Redis is back")).toBeLessThanOrEqual(processes);
    expect(log.split("\n").length).toBeLessThan(20);
  }, 60_000);

  it("its PostgreSQL and a gateway killed with SIGKILL are started again, and the regions reconnect to the store", async () => {
    const postgresBefore = await health("postgres");
    const gatewayBefore = await health("gateway 1");
    process.kill(postgresBefore.pid!, "SIGKILL");
    process.kill(gatewayBefore.pid!, "SIGKILL");
    const up = (name: string) => async () => {
      const now = await health(name);
      return now.state === "up" && now.restarts === 1 && now;
    };
    const postgresBack = await until("PostgreSQL started again", up("postgres"), 30_000);
    expect(postgresBack.pid).not.toBe(postgresBefore.pid);
    const gatewayBack = await until("gateway 1 started again", up("gateway 1"), 30_000);
    expect(gatewayBack.pid).not.toBe(gatewayBefore.pid);
    // Each region has connected to the store again (its current port: region 1 was restarted above).
    const redis = new Redis(cluster.ready.redis);
    try {
      for (const region of [0, 1]) {
        await until(
          `region ${region} connected to the store again`,
          async () => {
            const endpoint = JSON.parse((await redis.get(`fc:region:${region}`)) ?? "null") as {
              httpPort: number;
            } | null;
            if (endpoint === null) return false;
            const status = (await (await fetch(`http://127.0.0.1:${endpoint.httpPort}/api/cluster`)).json()) as {
              store: { up: boolean; back: number };
            };
            return status.store.up && status.store.back >= 1;
          },
          20_000,
        );
      }
    } finally {
      redis.disconnect();
    }
    // An account is created and played: the store writes again.
    const registered = await fetch(`http://127.0.0.1:${gatewayHttp()}/api/register`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ name: "Afterwards", password: "long enough", nick: "After" }),
    });
    expect(registered.status).toBe(200);
    // /metrics names every part, in base units, counters in _total.
    const metrics = await (await fetch(`http://127.0.0.1:${gatewayHttp()}/metrics`)).text();
    expect(metrics).toContain('caves_cluster_part_up{part="postgres",kind="postgres"} 1');
    expect(metrics).toContain('caves_cluster_part_restarts_total{part="gateway 1",kind="gateway"} 1');
    expect(metrics).toContain('caves_cluster_part_restarts_total{part="region 1",kind="region"} 1');
  }, 60_000);
});
