// Issue 19's first slice, for real: a redis-server, two region processes and a gateway on loopback
// (test/support/cluster-process.ts), and protocol clients on real UDP. A client walking across the
// border keeps its session, its address and its scheduled steps and ends where the same walk ends on
// one process; it sees the other side before it crosses; two regions never both own an entity.
import { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ACTION_DX, ACTION_DY } from "../ts/protocol/action.js";
import { type ChatPostAckPacket, CHAT_STATUS_POSTED, CHAT_STATUS_RATE_LIMITED } from "../ts/protocol/index.js";
import { CHAT_BURST } from "../ts/server/sessions/chat-channel.js";
import {
  BORDER_X,
  clusterSkipReason,
  type RegionStatus,
  startTestCluster,
  type TestCluster,
} from "./support/cluster-process.js";
import { hearLine, lines, post } from "./support/chat-lines.js";
import { startServerOnTestMap } from "./support/test-server.js";
import { UdpTestClient } from "./support/udp-client.js";
import { walkSteps as walk } from "./support/walk.js";

const skip = clusterSkipReason();
if (skip !== null) process.stderr.write(`test/cluster.test.ts skipped: ${skip}\n`);

const WEST = ACTION_DX.findIndex((dx, code) => code > 0 && dx === -1 && ACTION_DY[code] === 0);
const EAST = ACTION_DX.findIndex((dx, code) => code > 0 && dx === 1 && ACTION_DY[code] === 0);

/** A signed client on the server or gateway at httpPort, bound and placed (its first entity update seen). */
async function playing(httpPort: number, nick: string): Promise<UdpTestClient> {
  return (await UdpTestClient.connect(httpPort, nick)).sign().placed();
}

function postAcks(client: UdpTestClient): ChatPostAckPacket[] {
  return client.received.flatMap(({ packet }) => (packet?.type === "chat_post_ack" ? [packet] : []));
}

/**
 * Posts `text` as `client`'s next line, and again under the next number while the answer is "rate limited"
 * (a refused line takes no token): it goes as soon as the limiter has a token, however long the refill.
 */
async function postWhenAllowed(client: UdpTestClient, text: string): Promise<void> {
  for (;;) {
    const seq = Math.max(0, ...postAcks(client).map((ack) => ack.seq)) + 1;
    post(client, seq, text);
    const answer = await client.waitFor(`the answer to line ${seq}`, () =>
      postAcks(client).find((ack) => ack.seq === seq),
    );
    if (answer.status !== CHAT_STATUS_RATE_LIMITED) return;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

/** The region whose /api/cluster lists entity `id` as owned now. */
function ownersOf(statuses: RegionStatus[], id: number): number[] {
  return statuses.filter((status) => status.owned.some((entry) => entry.id === id)).map((status) => status.region);
}

describe.skipIf(skip !== null)("a world of two regions behind a gateway", () => {
  let cluster: TestCluster;
  const clients: UdpTestClient[] = [];
  const gatewayHttp = () => cluster.ready.gateways[0].httpPort;

  beforeAll(async () => {
    cluster = await startTestCluster();
  }, 90_000);

  afterAll(async () => {
    for (const client of clients) client.close();
    await cluster?.stop();
  }, 15_000);

  it("a walk across the border keeps the session and its steps and ends where it ends on one process", async () => {
    const steps = Array.from({ length: 18 }, () => WEST);
    // The same walk on one process, for the reference.
    const single = await startServerOnTestMap();
    let expected: { x: number; y: number };
    let start: { x: number; y: number };
    try {
      const alone = await playing(single.server.httpPort, "Solo");
      start = alone.position()!;
      expected = await walk(alone, steps);
      alone.close();
    } finally {
      await single.close();
    }
    expect(expected.x).toBe(start.x - steps.length);

    const client = await playing(gatewayHttp(), "Walker");
    clients.push(client);
    // Joins go to region 0; the spawn (the map's centre) is region 1's ground: handed off at once.
    expect(client.position()).toEqual(start);
    expect(start.x).toBeGreaterThan(BORDER_X + 2);
    const statesBefore = client.states.length;
    const end = await walk(client, steps);
    expect(end).toEqual(expected);
    expect(end.x).toBeLessThan(BORDER_X - 2);
    // One session all along: the same token (never rejoined), the same socket and gateway port, still served.
    expect(client.states.length).toBeGreaterThan(statesBefore + 40);
    expect(client.udpPort).toBe(cluster.ready.gateways[0].udpPort);
    const [region0, region1] = await Promise.all([cluster.regionStatus(0), cluster.regionStatus(1)]);
    const id = client.joined.entityId;
    expect(ownersOf([region0, region1], id)).toEqual([0]);
    expect(region0.positions.find((p) => p.id === id)).toEqual({ id, ...end });
    // Handed 0 → 1 at the spawn, 1 → 0 at the border; the steps in flight crossed with it.
    expect(region1.handoffsIn).toBeGreaterThanOrEqual(1);
    expect(region1.handoffsOut).toBeGreaterThanOrEqual(1);
    expect(region0.claimConflicts + region1.claimConflicts).toBe(0);
  }, 60_000);

  it("a player sees one on the other side of the border before anyone crosses", async () => {
    const watcher = clients[0]; // west of the border, owned by region 0
    const other = await playing(gatewayHttp(), "Neighbour"); // at the spawn, region 1's ground
    clients.push(other);
    // Region 1's player walks to 3 tiles east of the border: still region 1's (the margin), in view of the watcher.
    const at = other.position()!;
    await walk(
      other,
      Array.from({ length: at.x - (BORDER_X + 2) }, () => WEST),
    );
    const statuses = await Promise.all([cluster.regionStatus(0), cluster.regionStatus(1)]);
    expect(ownersOf(statuses, other.joined.entityId)).toEqual([1]);
    expect(ownersOf(statuses, watcher.joined.entityId)).toEqual([0]);
    const seen = await watcher.waitFor("the neighbour in view", () => {
      watcher.action(0, 0); // a keep-alive: the entity list is re-sent
      const latest = watcher.latestEntities();
      return latest?.packets.flatMap((p) => p.entities).find((e) => e.id === other.joined.entityId);
    });
    expect(seen.x).toBe(BORDER_X + 2);
    // And the other way round.
    const back = await other.waitFor("the watcher in view", () => {
      other.action(0, 0);
      return other
        .latestEntities()
        ?.packets.flatMap((p) => p.entities)
        .find((e) => e.id === watcher.joined.entityId);
    });
    expect(back.x).toBe(watcher.position()!.x);
  }, 30_000);

  it("two regions never both own an entity over random walks along the border", async () => {
    const walker = clients[1]; // 2 tiles east of the border
    let seed = 19;
    const random = () => ((seed = (seed * 1103515245 + 12345) >>> 0) / 2 ** 32) as number;
    let x = walker.position()!.x;
    const steps: number[] = [];
    // 120 steps in runs of random length and direction, kept to x 24…40: they cross the border, and
    // dither on it, many times.
    let east = false;
    while (steps.length < 120) {
      const run = 1 + Math.floor(random() * 8);
      east = x <= 26 ? true : x >= 38 ? false : random() < 0.5;
      for (let index = 0; index < run && steps.length < 120 && x > 24 && x < 40; index++) {
        steps.push(east ? EAST : WEST);
        x += east ? 1 : -1;
      }
      if (x <= 24 || x >= 40) {
        steps.push(x <= 24 ? EAST : WEST);
        x += x <= 24 ? 1 : -1;
      }
    }
    const end = await walk(walker, steps);
    expect(end.x).toBe(x);
    const statuses = await Promise.all([cluster.regionStatus(0), cluster.regionStatus(1)]);
    const id = walker.joined.entityId;
    // Each region's periods of owning it, closed and open, never overlap the other's.
    const periods = statuses.flatMap((status) => [
      ...status.ownership.filter((o) => o.id === id).map((o) => ({ region: status.region, ...o })),
      ...status.owned.filter((o) => o.id === id).map((o) => ({ region: status.region, ...o, toMs: Infinity })),
    ]);
    periods.sort((a, b) => a.fromMs - b.fromMs);
    expect(periods.length).toBeGreaterThan(4); // it did cross, several times
    for (let index = 1; index < periods.length; index++) {
      expect(periods[index].region).not.toBe(periods[index - 1].region);
      expect(periods[index].fromMs).toBeGreaterThanOrEqual(periods[index - 1].toMs);
    }
    expect(ownersOf(statuses, id)).toHaveLength(1);
    // The directory's compare-and-set never found another owner written down.
    expect(statuses.reduce((sum, status) => sum + status.claimConflicts, 0)).toBe(0);
    // Beyond the hysteresis margin on either side, the owner is the ground's.
    if (end.x < BORDER_X - 2) expect(ownersOf(statuses, id)[0]).toBe(0);
    if (end.x > BORDER_X + 1) expect(ownersOf(statuses, id)[0]).toBe(1);
  }, 60_000);

  it("a chat line said in one region reaches a player in the other, under the same rate limit", async () => {
    // Fresh players (the earlier ones may have timed out standing idle): one walks west onto region 0's ground.
    const listener = await playing(gatewayHttp(), "Listener");
    clients.push(listener);
    await walk(
      listener,
      Array.from({ length: 18 }, () => WEST),
    );
    const speaker = await playing(gatewayHttp(), "Speaker"); // at the spawn: region 1's ground
    clients.push(speaker);
    const id = speaker.joined.entityId;
    for (let round = 0; ; round++) {
      const owners = ownersOf(await Promise.all([cluster.regionStatus(0), cluster.regionStatus(1)]), id);
      if (owners.length === 1 && owners[0] === 1) break;
      if (round > 100) throw new Error(`the speaker is owned by ${owners.join(", ") || "nobody"}, not region 1`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    expect(ownersOf([await cluster.regionStatus(0)], listener.joined.entityId)).toEqual([0]);

    // What is not a relayed line on the chat channel is dropped and counted; the relay keeps working.
    const redis = new Redis(cluster.ready.redis);
    await redis.publish("fc:chat", "not json");
    await redis.publish(
      "fc:chat",
      JSON.stringify({ from: 1, line: { speakerEntityId: 1, speakerName: "x", text: "" } }),
    );
    redis.disconnect();

    // A burst and one more, as fast as they go: the speaker's region posts the burst and refuses the rest,
    // and only the lines it posted reach the other region.
    for (let seq = 1; seq <= CHAT_BURST + 1; seq++) post(speaker, seq, `east ${seq}`);
    await speaker.waitFor("every post answered", () => postAcks(speaker).some((ack) => ack.seq === CHAT_BURST + 1));
    const statuses = new Map(postAcks(speaker).map((ack) => [ack.seq, ack.status]));
    expect(statuses.get(CHAT_BURST + 1)).toBe(CHAT_STATUS_RATE_LIMITED);
    const posted = [...statuses].filter(([, status]) => status === CHAT_STATUS_POSTED).map(([seq]) => `east ${seq}`);
    expect(posted).toHaveLength(CHAT_BURST);
    const heard = await listener.waitFor("the speaker's lines across the border", () => {
      const from = lines(listener).filter((line) => line.speakerEntityId === id);
      return from.length >= CHAT_BURST && from;
    });
    expect(heard.map((line) => line.text)).toEqual(posted);
    expect(heard.every((line) => line.speakerName === "Speaker")).toBe(true);

    // And the other way: region 0's player is heard in region 1.
    const nextSeq = Math.max(0, ...postAcks(listener).map((ack) => ack.seq)) + 1;
    post(listener, nextSeq, "west says hi");
    const back = await speaker.waitFor("the listener's line", () =>
      lines(speaker).find((line) => line.text === "west says hi"),
    );
    expect(back).toMatchObject({ speakerEntityId: listener.joined.entityId, speakerName: "Listener" });
    // Said once: each region's players got each line once (one sequence number each).
    expect(lines(listener).filter((line) => line.text === "east 1")).toHaveLength(1);
    expect(lines(speaker).filter((line) => line.text === "west says hi")).toHaveLength(1);
    const [status0, status1] = await Promise.all([cluster.regionStatus(0), cluster.regionStatus(1)]);
    expect(status0.chatRelay.dropped).toBe(2);
    expect(status1.chatRelay.dropped).toBe(1); // region 1 ignores what says it is its own
    expect(status0.chatRelay.received).toBeGreaterThanOrEqual(CHAT_BURST); // and any "left" line from region 1

    // A private line across the border (issue 39): delivered in the other region, echoed to its sender, and
    // the reply finds its way back; a nick nobody plays in any region is answered so after a moment.
    // The speaker spent its burst above: each of its lines goes once its limiter lets it.
    await postWhenAllowed(speaker, "/tell Listener meet me at the border");
    const whispered = await hearLine(
      listener,
      "the private line across the border",
      (line) => line.text === "meet me at the border",
    );
    expect(whispered.speakerName).toBe("Speaker (private)");
    await hearLine(
      speaker,
      "the echo",
      (line) => line.speakerName === "(to Listener)" && line.text === "meet me at the border",
    );
    post(listener, nextSeq + 1, "/r on my way");
    await hearLine(
      speaker,
      "the reply from the other region",
      (line) => line.speakerName === "Listener (private)" && line.text === "on my way",
    );
    await postWhenAllowed(speaker, "/tell Nobodyatall hello");
    await hearLine(
      speaker,
      "the answer that nobody has the nick",
      (line) => line.text === "Nobody called Nobodyatall is playing now.",
    );
  }, 40_000);
});

describe.skipIf(skip !== null)("an attack across the border (PvP on)", () => {
  let cluster: TestCluster;
  const clients: UdpTestClient[] = [];

  beforeAll(async () => {
    cluster = await startTestCluster(1, ["--pvp"]);
  }, 90_000);

  afterAll(async () => {
    for (const client of clients) client.close();
    await cluster?.stop();
  }, 15_000);

  it("a player bumping one whose authority is the neighbour region lands each blow once", async () => {
    const http = cluster.ready.gateways[0].httpPort;
    // West walks onto region 0's ground and back to the last column of it: region 0's (the margin).
    const west = await playing(http, "West");
    clients.push(west);
    const spawn = west.position()!;
    await walk(
      west,
      Array.from({ length: spawn.x - (BORDER_X - 4) }, () => WEST),
    );
    await walk(west, [EAST, EAST, EAST]);
    expect(west.position()).toEqual({ x: BORDER_X - 1, y: spawn.y });
    // East stops on the first column of region 1's ground, next to West.
    const east = await playing(http, "East");
    clients.push(east);
    await walk(
      east,
      Array.from({ length: spawn.x - BORDER_X }, () => WEST),
    );
    expect(east.position()).toEqual({ x: BORDER_X, y: spawn.y });
    const statuses = await Promise.all([cluster.regionStatus(0), cluster.regionStatus(1)]);
    expect(ownersOf(statuses, west.joined.entityId)).toEqual([0]);
    expect(ownersOf(statuses, east.joined.entityId)).toEqual([1]);
    const [before0, before1] = statuses;
    // Region 0 sees East (a ghost) before West swings.
    await west.waitFor("East in view", () =>
      west
        .latestEntities()
        ?.packets.flatMap((p) => p.entities)
        .some((e) => e.id === east.joined.entityId),
    );

    // Four bumps east: each an attack (West stays), resolved once by region 1, where East's hp lives.
    const BLOWS = 4;
    await walk(
      west,
      Array.from({ length: BLOWS }, () => EAST),
    );
    expect(west.position()).toEqual({ x: BORDER_X - 1, y: spawn.y });
    const blows = (client: UdpTestClient) =>
      client.received.flatMap(({ packet }) =>
        packet?.type === "combat"
          ? packet.events.filter((e) => e.attackerId === west.joined.entityId && e.targetId === east.joined.entityId)
          : [],
      );
    const seenByWest = await west.waitFor("the four blows' reports", () => blows(west).length >= BLOWS && blows(west));
    const seenByEast = await east.waitFor("the four blows taken", () => blows(east).length >= BLOWS && blows(east));
    expect(seenByWest).toEqual(seenByEast);
    expect(seenByWest).toHaveLength(BLOWS);
    const [after0, after1] = await Promise.all([cluster.regionStatus(0), cluster.regionStatus(1)]);
    expect(after0.strikes.sent - before0.strikes.sent).toBe(BLOWS);
    expect(after1.strikes.resolved - before1.strikes.resolved).toBe(BLOWS);
    expect(after1.combat.attacks - before1.combat.attacks).toBe(BLOWS);
    expect(after0.combat.attacks - before0.combat.attacks).toBe(0); // not resolved on the attacker's side too
    expect(after0.strikes.answered - before0.strikes.answered).toBe(BLOWS);
    // East's hp went down by exactly the damage of the hits, once each (no regeneration so soon after a blow).
    const damage = seenByWest.reduce((sum, e) => sum + (e.kind === 0 ? e.amount : 0), 0);
    expect(after1.combat.damage - before1.combat.damage).toBe(damage);
    expect(seenByWest[BLOWS - 1].targetHp).toBe(100 - damage);
    const hpSeen = await west.waitFor("East's hp in the ghost West sees", () => {
      const entry = west
        .latestEntities()
        ?.packets.flatMap((p) => p.entities)
        .find((e) => e.id === east.joined.entityId);
      return entry !== undefined && entry.hp === 100 - damage && entry;
    });
    expect(hpSeen.hp).toBe(100 - damage);
  }, 60_000);

  it("a region killed with SIGKILL is restarted and its players come back where they stood", async () => {
    const east = clients[1]; // region 1's, on the first column of its ground
    const redis = new Redis(cluster.ready.redis);
    try {
      const tokenHex = east.token.toString(16).padStart(16, "0");
      const endpoint = async () =>
        JSON.parse((await redis.get("fc:region:1")) ?? "null") as { pid: number; httpPort: number } | null;
      const before = (await endpoint())!;
      const at = east.position()!;
      // Its state is in region 1's checkpoint (written every second).
      for (let round = 0; !(await redis.hexists("fc:checkpoint:1", tokenHex)); round++) {
        if (round > 100) throw new Error("no checkpoint of the session");
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      const statesAtKill = east.states.length;
      process.kill(before.pid, "SIGKILL");
      // The client goes on as a client does (a keep-alive every 200 ms); the launcher restarts the region.
      const keepAlive = setInterval(() => east.action(0, 0), 200);
      try {
        let restarted: { pid: number; httpPort: number } | null = null;
        for (let round = 0; restarted === null; round++) {
          if (round > 600) throw new Error("region 1 was not restarted within 30 s");
          await new Promise((resolve) => setTimeout(resolve, 50));
          const now = await endpoint();
          if (now !== null && now.pid !== before.pid) restarted = now;
        }
        const back = await east.waitFor(
          "the player back in the restarted region",
          () => east.states.length > statesAtKill + 5 && east.position(),
          20_000,
        );
        // The same session (never rejoined), the same entity, where it stood at the checkpoint.
        expect(back).toEqual(at);
        const status = (await (await fetch(`http://127.0.0.1:${restarted.httpPort}/api/cluster`)).json()) as {
          restored: number;
          owned: { id: number }[];
        };
        expect(status.restored).toBeGreaterThanOrEqual(1);
        expect(status.owned.map((o) => o.id)).toContain(east.joined.entityId);
      } finally {
        clearInterval(keepAlive);
      }
      // And it is simulated again: a step moves it.
      const end = await walk(east, [EAST]);
      expect(end).toEqual({ x: at.x + 1, y: at.y });
    } finally {
      redis.disconnect();
    }
  }, 60_000);
});
