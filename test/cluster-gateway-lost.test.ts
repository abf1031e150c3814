// A gateway lost (issue 41; docs/scaling.md § A gateway lost), for real: the launcher with its own
// redis-server, PostgreSQL, two regions and two gateways (test/support/cluster-process.ts), on a map with a
// chest by the spawn, and a signed protocol client on real UDP. It joins through gateway 0 — whose answer
// lists both gateways — takes a dagger from the chest and walks; gateway 0 is killed with SIGKILL; the
// client goes on through gateway 1 with its next signed ActionPacket: the same session (token, entity id),
// where it stood, the dagger in its bag, and it walks on. Bots joined through gateway 0 (started again on its
// ports) move to gateway 1 by themselves when gateway 0 is stopped, in their sessions; and a client core on
// a signed WebSocket, as the browser's, moves on as soon as gateway 0, killed, closes it. (Before, the region ended every session of a
// gateway whose link closed, and a gateway dropped every datagram of a session it had not routed.)
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { postgresSkipReason } from "../ts/cluster/postgres-process.js";
import { ACTION_DX, ACTION_DY } from "../ts/protocol/action.js";
import type { ItemStack } from "../ts/protocol/tlv.js";
import { ENTITY_TYPE_CHEST } from "../ts/item-types.js";
import WebSocket from "ws";
import { Swarm } from "../ts/bots/swarm.js";
import { connectGuest, GameClient, gatewayBaseUrl, signedTransport } from "../ts/client/core/index.js";
import { connectWebSocket } from "../ts/client/transport/connect.js";
import { loadCore } from "../ts/wasm/node.js";
import {
  BORDER_X,
  clusterSkipReason,
  partHealth,
  startedAgain,
  startTestCluster,
  type TestCluster,
  until,
} from "./support/cluster-process.js";
import { postJson } from "./support/game-harness.js";
import { bagOf, itemDef, itemRequest } from "./support/item-client.js";
import { writeNpcMap } from "./support/npc-map.js";
import { type Joined, UdpTestClient } from "./support/udp-client.js";
import { walkSteps } from "./support/walk.js";

const skip = clusterSkipReason() ?? postgresSkipReason();
if (skip !== null) process.stderr.write(`test/cluster-gateway-lost.test.ts skipped: ${skip}\n`);

const WEST = ACTION_DX.findIndex((dx, code) => code > 0 && dx === -1 && ACTION_DY[code] === 0);
const SOUTH = ACTION_DX.findIndex((dx, code) => code > 0 && dx === 0 && ACTION_DY[code] === 1);
const DAGGER = itemDef({ id: 2, name: "dagger", kind: "weapon", damage: 9 });
const SPAWN = { x: 40, y: 35 };

describe.skipIf(skip !== null)("a gateway lost: its clients go on through another, in the same session", () => {
  let cluster: TestCluster;
  const clients: UdpTestClient[] = [];

  beforeAll(async () => {
    const map = writeNpcMap({
      width: 80,
      height: 70,
      spawn: SPAWN,
      kinds: [],
      spawns: [],
      items: [DAGGER],
      chests: [{ name: "box", x: SPAWN.x + 1, y: SPAWN.y, items: "dagger" }],
    });
    cluster = await startTestCluster(2, [], map);
  }, 120_000);

  afterAll(async () => {
    for (const client of clients) client.close();
    await cluster?.stop();
  }, 20_000);

  const health = (name: string) => partHealth(cluster.ready.gateways[1].httpPort, name);

  it("a client of a gateway killed with SIGKILL re-attaches through the other with its session, place and bag", async () => {
    const [g0, g1] = cluster.ready.gateways;
    const answer = await postJson(g0.httpPort, "/api/guest", { nick: "Wanda" });
    expect(answer.status).toBe(200);
    const joined = answer.body as unknown as Joined & { gateways: { httpPort: number; udpPort: number }[] };
    // The join's answer lists the gateways, its own first.
    expect(joined.gateways).toEqual([
      { httpPort: g0.httpPort, udpPort: g0.udpPort },
      { httpPort: g1.httpPort, udpPort: g1.udpPort },
    ]);
    const before = (await UdpTestClient.withSession(joined)).sign();
    clients.push(before);
    await before.placed();
    const chest = await before.waitFor("the chest in view", () => before.inView(ENTITY_TYPE_CHEST)[0]?.id, 5000);
    expect(await itemRequest(before, 1, "take", { container: chest, slot: 0 })).toBe("ok");
    const bag: ItemStack[] = [{ slot: 0, itemId: DAGGER.id, count: 1 }];
    expect(await bagOf(before)).toEqual(bag);
    const stood = await walkSteps(before, [WEST, WEST, SOUTH]);
    expect(stood).toEqual({ x: SPAWN.x - 2, y: SPAWN.y + 1 });
    expect(stood.x).toBeGreaterThan(BORDER_X); // region 1's ground, behind either gateway

    const gateway0 = await health("gateway 0");
    process.kill(gateway0.pid!, "SIGKILL");
    const killedAt = performance.now();
    // The region has seen its link to gateway 0 close (before, it ended that gateway's sessions then).
    await until(
      "region 1 sees gateway 0's link close",
      async () => (await cluster.regionStatus(1)).gatewayLinksLost === 1,
    );
    expect((await cluster.regionStatus(1)).positions.some((p) => p.id === joined.entityId)).toBe(true);
    // Its next signed ActionPacket, to gateway 1 (the answer's second), on the same session.
    const after = (await UdpTestClient.withSession({ ...joined, udpPort: joined.gateways[1].udpPort })).continueFrom(
      before,
    );
    clients.push(after);
    before.close();
    await after.placed();
    process.stderr.write(
      `test/cluster-gateway-lost: re-attached through gateway 1 ${Math.round(performance.now() - killedAt)} ms after the kill\n`,
    );
    expect(after.position()).toEqual(stood);
    expect(await bagOf(after)).toEqual(bag);
    // Still the one player of that name, in region 1, and it walks on.
    const region1 = await cluster.regionStatus(1);
    expect(region1.positions.filter((p) => p.id === joined.entityId)).toEqual([{ id: joined.entityId, ...stood }]);
    expect(await walkSteps(after, [WEST])).toEqual({ x: stood.x - 1, y: stood.y });
    const gateway1 = (await (await fetch(`http://127.0.0.1:${g1.httpPort}/api/gateway`)).json()) as {
      sessionsFound: number;
    };
    expect(gateway1.sessionsFound).toBe(1);
    // The killed gateway is started again, on its ports.
    await startedAgain(g1.httpPort, gateway0);
  }, 90_000);

  it("bots move to the other gateway when theirs stops answering, in the same sessions", async () => {
    const swarm = new Swarm({
      count: 2,
      http: `http://127.0.0.1:${cluster.ready.gateways[0].httpPort}`,
      server: null,
      behaviour: "wander",
      goal: null,
      netsim: null,
      seed: 41,
      nickPrefix: "mover",
      joinParallel: 2,
      updateMs: 20,
      loadCore: () => loadCore(),
    });
    try {
      swarm.start();
      await swarm.joinAll();
      await until("both bots playing", async () => swarm.bots.every((bot) => bot.client.state === "playing"));
      const sessions = swarm.bots.map((bot) => ({ token: bot.client.session.token, entityId: bot.client.ownEntityId }));
      expect(swarm.bots.every((bot) => (bot.client.session.gateways?.length ?? 0) === 2)).toBe(true);

      // Gateway 0 stopped (SIGSTOP: it answers nothing and is not started again) until the bots moved.
      const gateway0 = await health("gateway 0");
      process.kill(gateway0.pid!, "SIGSTOP");
      try {
        await until(
          "both bots playing through gateway 1",
          async () => swarm.bots.every((bot) => bot.client.stats.gatewayMoves >= 1 && bot.client.state === "playing"),
          20_000,
        ).catch((error: unknown) => {
          const states = swarm.bots.map((bot) => ({
            state: bot.client.state,
            moves: bot.client.stats.gatewayMoves,
            reconnects: bot.client.stats.reconnects,
            lastLoss: bot.client.lastLoss,
          }));
          throw new Error(`${String(error)}: ${JSON.stringify(states)}`);
        });
      } finally {
        process.kill(gateway0.pid!, "SIGCONT");
      }
      // The same sessions, never rejoined, and the region holds each bot once.
      expect(swarm.bots.map((bot) => ({ token: bot.client.session.token, entityId: bot.client.ownEntityId }))).toEqual(
        sessions,
      );
      expect(swarm.bots.map((bot) => bot.client.stats.reconnects)).toEqual([0, 0]);
      const held = [...(await cluster.regionStatus(0)).positions, ...(await cluster.regionStatus(1)).positions];
      for (const { entityId } of sessions) expect(held.filter((p) => p.id === entityId)).toHaveLength(1);
    } finally {
      swarm.stop();
    }
  }, 90_000);

  it("a browser's link, a signed WebSocket, goes on through the other gateway when its own, killed, closes it", async () => {
    // The client core as the page runs it (ts/client/main.ts): its links signed, its moves to the next
    // gateway at that gateway's own address; Node's WebSocket stands in for the page's.
    const gateway0 = await until(
      "gateway 0 up",
      async () => {
        const part = await health("gateway 0");
        return part.state === "up" && part;
      },
      30_000,
    );
    const joinedThrough = `http://127.0.0.1:${cluster.ready.gateways[0].httpPort}`;
    const open = (base: string, key: Uint8Array | undefined) =>
      connectWebSocket(base, { WebSocket: WebSocket as unknown as typeof globalThis.WebSocket }).then((link) =>
        signedTransport(link, key),
      );
    const connection = await connectGuest(joinedThrough, "Wes", (session) => open(joinedThrough, session.key));
    const client = GameClient.create({
      core: await loadCore(),
      ...connection,
      moveTo: (session, gateway) => open(gatewayBaseUrl(joinedThrough, gateway), session.key),
    });
    const driver = setInterval(() => client.update(), 20);
    try {
      await until("playing over the WebSocket", async () => client.state === "playing" && client.confirmed !== null);
      expect(client.transportName).toBe("websocket");
      const entityId = client.ownEntityId;
      // Killed: its WebSocket closes, and the link goes on through gateway 1 without waiting out the 3 s of
      // silence a frozen gateway costs.
      process.kill(gateway0.pid!, "SIGKILL");
      const killedAt = performance.now();
      await until(
        "moved to gateway 1",
        async () => client.stats.gatewayMoves === 1 && client.state === "playing",
        10_000,
      );
      process.stderr.write(
        `test/cluster-gateway-lost: a WebSocket client went on through gateway 1 ${Math.round(performance.now() - killedAt)} ms after the kill\n`,
      );
      expect(client.stats.reconnects).toBe(0);
      expect(client.ownEntityId).toBe(entityId);
      const held = [...(await cluster.regionStatus(0)).positions, ...(await cluster.regionStatus(1)).positions];
      expect(held.filter((p) => p.id === entityId)).toHaveLength(1);
      await startedAgain(cluster.ready.gateways[1].httpPort, gateway0);
    } finally {
      clearInterval(driver);
      client.close();
    }
  }, 60_000);
});
