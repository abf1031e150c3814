// A region started again hands out no entity id its last life gave out (issue 41's chaos run): a player
// who joined through region 0 and walked on to region 1 keeps region 0's id there, and is in no checkpoint
// of region 0's; region 0 killed and started again gave the next newcomer that same id, so region 1 came to
// hold two entities under one id — its store lost track of one, and its broadcast crashed on the slot left
// behind. Real processes: the launcher with its redis-server, two regions, a gateway.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { postgresSkipReason } from "../ts/cluster/postgres-process.js";
import {
  clusterSkipReason,
  partHealth,
  startedAgain,
  startTestCluster,
  type TestCluster,
  until,
} from "./support/cluster-process.js";
import { UdpTestClient } from "./support/udp-client.js";

const skip = clusterSkipReason() ?? postgresSkipReason();
if (skip !== null) process.stderr.write(`test/cluster-entity-ids.test.ts skipped: ${skip}\n`);

describe.skipIf(skip !== null)("entity ids across a region's restart", () => {
  let cluster: TestCluster;
  const clients: UdpTestClient[] = [];
  const http = () => cluster.ready.gateways[0].httpPort;

  beforeAll(async () => {
    cluster = await startTestCluster(1);
  }, 90_000);

  afterAll(async () => {
    for (const client of clients) client.close();
    await cluster?.stop();
  }, 20_000);

  it("a newcomer after region 0's restart gets an id no earlier player holds", async () => {
    // Joined through region 0 (every join is), played on region 1's ground: region 0's id, region 1's session.
    const first = await (await UdpTestClient.connect(http(), "Earlier")).sign().placed();
    clients.push(first);
    const firstId = first.joined.entityId;
    expect(await cluster.ownerOf(firstId)).toBe(1);
    // A checkpoint of region 0's written after the join (every second), then region 0 killed.
    await new Promise((resolve) => setTimeout(resolve, 1500));
    const before = await partHealth(http(), "region 0");
    process.kill(before.pid!, "SIGKILL");
    await startedAgain(http(), before);
    const keepAlive = setInterval(() => first.action(0, 0), 200);
    try {
      // Region 0 answers joins once it has read the directory and its store ("the world is starting": 503).
      const later = await until("a join after the restart", () =>
        UdpTestClient.connect(http(), "Later").catch(() => null),
      );
      await later.sign().placed();
      clients.push(later);
      expect(later.joined.entityId).not.toBe(firstId);
      expect(later.joined.entityId).toBeGreaterThan(firstId);
    } finally {
      clearInterval(keepAlive);
    }
  }, 90_000);
});
