// GameClient driven on a virtual clock against a scripted server: every
// datagram it receives is a real packet encoded by the protocol library, every
// datagram it sends is decoded and checked. Covers the sending decisions:
// binding, chunk retransmits, entity keep-alives, scheduling, retraction,
// corrections, names, disconnect and reconnect.
import { tickOfWindow, windowOfTick } from "../ts/window.js";
import { beforeEach, describe, expect, it } from "vitest";
import { GameClient, type GameClientOptions } from "../ts/client/core/game-client.js";
import { RttEstimator } from "../ts/client/core/rtt.js";
import { earliestWindow, leadMs } from "../ts/client/core/scheduler.js";
import type { GuestSession } from "../ts/client/core/session-api.js";
import type { Transport } from "../ts/client/core/transport.js";
import { chunkId, encodePing, encodeTileUpdate, type EntityEntry, type PingPacket } from "../ts/protocol/index.js";
import { loadCore } from "../ts/wasm/node.js";
import {
  chunkDatagram,
  entityUpdate,
  FLOOR,
  nameDatagram,
  player,
  pongDatagram,
  ScriptedLink,
  stateDatagram,
  TEST_WORLD,
  testSession,
  WALL,
} from "./client-core-support.js";

const N = 1, E = 2; // prettier-ignore
const TICK_MS = 1000 / 24;
/** The scripted world: 96×96 floor with a wall column at x = 44 for y 30..50. */
const tileAt = (x: number, y: number) => (x === 0 || y === 0 || x === 95 || y === 95 || (x === 44 && y >= 30 && y <= 50) ? WALL : FLOOR); // prettier-ignore

let nowMs = 0;

async function newClient(
  options: Partial<GameClientOptions> = {},
  reconnect?: () => Promise<{ session: GuestSession; transport: Transport }>,
) {
  const link = new ScriptedLink();
  const client = GameClient.create({
    core: await loadCore(),
    transport: link,
    session: testSession(),
    world: TEST_WORLD,
    now: () => nowMs,
    reconnect,
    options,
  });
  return { link, client };
}

/** One broadcast: the State for `tick` and its entity datagrams (unless `entities` is null: skipped). */
function broadcast(
  link: ScriptedLink,
  tick: number,
  entries: EntityEntry[],
  deliverEntities = true,
  ownId = 7,
): number {
  const update = entityUpdate(tick, entries);
  link.deliver(stateDatagram(tick, 1, 1, update.checksum, ownId));
  if (deliverEntities) link.deliver(...update.datagrams);
  return update.checksum;
}

function deliverAllChunks(link: ScriptedLink, except: (cx: number, cy: number) => boolean = () => false): void {
  for (let cy = 0; cy < 3; cy++)
    for (let cx = 0; cx < 3; cx++) if (!except(cx, cy)) link.deliver(chunkDatagram(cx, cy, 1, tileAt));
}

/** Brings a client to "playing" at (x, y), server tick `tick`, with all nine chunks. */
function startPlaying(link: ScriptedLink, client: GameClient, tick = 100, x = 40, y = 40): void {
  client.update(nowMs);
  deliverAllChunks(link);
  broadcast(link, tick, [player(7, x, y)]);
  expect(client.state).toBe("playing");
  expect(client.confirmed).toEqual({ x, y });
}

/** Answers the newest ping `afterMs` later, which becomes the client's RTT sample. */
function answerLastPing(link: ScriptedLink, client: GameClient, afterMs: number): void {
  const ping = link.sent.filter((packet): packet is PingPacket => packet.type === "ping").at(-1)!;
  nowMs += afterMs;
  link.deliver(pongDatagram(ping.timestampMs));
  expect(client.rttMs).toBeCloseTo(afterMs, 6);
}

const flush = () => new Promise((resolve) => setTimeout(resolve, 0));

beforeEach(() => {
  nowMs = 1000;
});

describe("binding and chunks", () => {
  it("binds the link with keep-alives until the first StatePacket, then pings once a second", async () => {
    const { link, client } = await newClient();
    expect(client.state).toBe("connecting");
    expect(link.sent).toHaveLength(0); // nothing before the first update
    client.update(nowMs);
    const hello = link.actions()[0];
    expect(hello).toMatchObject({ targetTick: 0, action: 0, authToken: 0x1122334455667788n });
    expect(hello.cache.every((entry) => entry.version === 0)).toBe(true);
    nowMs += 100;
    client.update(nowMs);
    expect(link.actions()).toHaveLength(1);
    nowMs += 150;
    client.update(nowMs);
    expect(link.actions()).toHaveLength(2);
    deliverAllChunks(link);
    broadcast(link, 100, [player(7, 40, 40)]);
    expect(client.state).toBe("playing");
    const before = link.sent.length;
    client.update(nowMs);
    expect(link.count("ping", before)).toBe(1);
    expect(link.actions(before)).toHaveLength(0); // chunks all held, entities confirmed: nothing to ask
    nowMs += 999;
    client.update(nowMs);
    expect(link.count("ping", before)).toBe(1);
    nowMs += 1;
    client.update(nowMs);
    expect(link.count("ping", before)).toBe(2);
  });

  it("asks for missing chunks with its cache list and retransmits every 250 ms until they arrive", async () => {
    const { link, client } = await newClient();
    client.update(nowMs); // hello at t0
    const missing = (cx: number, cy: number) => cx === 2 || cy === 2; // 5 of the 9 chunks never arrive
    deliverAllChunks(link, missing);
    nowMs += 50;
    broadcast(link, 100, [player(7, 40, 40)]);
    client.update(nowMs);
    expect(link.actions()).toHaveLength(1); // the hello's list is 50 ms old: wait
    nowMs += 200;
    client.update(nowMs);
    const request = link.actions()[1];
    expect(request.targetTick).toBe(0);
    const held = request.cache.filter((entry) => entry.version === 1);
    expect(held).toHaveLength(4);
    expect(request.cache.filter((entry) => entry.version === 0)).toHaveLength(5);
    expect(client.stats.chunkRetransmits).toBe(0);
    nowMs += 249;
    client.update(nowMs);
    expect(link.actions()).toHaveLength(2);
    nowMs += 1;
    client.update(nowMs);
    expect(link.actions()).toHaveLength(3);
    expect(client.stats.chunkRetransmits).toBe(1);
    for (let cy = 0; cy < 3; cy++) for (let cx = 0; cx < 3; cx++) if (missing(cx, cy)) link.deliver(chunkDatagram(cx, cy, 1, tileAt)); // prettier-ignore
    nowMs += 500;
    client.update(nowMs);
    expect(link.actions()).toHaveLength(3);
    expect(client.stats.chunksCached).toBe(9);
    expect(client.sim.getTile(44, 40)).toBe(WALL);
    expect(client.sim.getTile(80, 80)).toBe(FLOOR);
  });
});

describe("tile updates", () => {
  it("applies a tile update to the chunk held at its from_version, and ignores one for another version", async () => {
    const { link, client } = await newClient();
    startPlaying(link, client);
    const update = (fromVersion: number, toVersion: number, x: number, y: number, tileId: number) => {
      const out = new Uint8Array(1200);
      const size = encodeTileUpdate(
        {
          type: "tile_update",
          clientType: 0,
          chunkId: chunkId(1, 1),
          fromVersion,
          toVersion,
          changes: [{ tileIndex: (y - 32) * 32 + (x - 32), tileId }],
        },
        out,
      );
      return out.slice(0, size);
    };
    link.deliver(update(1, 2, 41, 40, WALL));
    expect(client.sim.getTile(41, 40)).toBe(WALL);
    expect(client.chunks.version(chunkId(1, 1))).toBe(2);
    link.deliver(update(1, 3, 42, 40, WALL)); // not the version held: ignored
    expect(client.sim.getTile(42, 40)).toBe(FLOOR);
    expect(client.chunks.version(chunkId(1, 1))).toBe(2);
    // The manifest now lists version 2: nothing is missing, nothing is requested.
    const before = link.sent.length;
    const entities = entityUpdate(102, [player(7, 40, 40)]);
    link.deliver(stateDatagram(102, 1, 1, entities.checksum, 7, (cx, cy) => (cx === 1 && cy === 1 ? 2 : 1)));
    for (let step = 0; step < 50; step++) client.update((nowMs += 10));
    expect(link.actions(before)).toHaveLength(0);
    client.setHeldAction(E); // and the new wall stops the walk
    for (let step = 0; step < 50; step++) client.update((nowMs += 10));
    expect(link.actions(before)).toHaveLength(0);
  });
});

describe("entity updates", () => {
  it("sends a keep-alive when entity datagrams stay missing past one more State, rate-limited", async () => {
    const { link, client } = await newClient();
    startPlaying(link, client);
    client.update(nowMs);
    const before = link.sent.length;
    nowMs += 2 * TICK_MS;
    broadcast(link, 102, [player(7, 41, 40)], false); // changed, and lost
    client.update(nowMs);
    expect(link.actions(before)).toHaveLength(0); // they may still come
    nowMs += 2 * TICK_MS;
    broadcast(link, 104, [player(7, 41, 40)], false); // unchanged: the server skipped it
    client.update(nowMs);
    expect(link.actions(before)).toHaveLength(1);
    expect(link.actions(before)[0]).toMatchObject({ targetTick: 0, action: 0 });
    nowMs += 100;
    client.update(nowMs);
    expect(link.actions(before)).toHaveLength(1);
    nowMs += 150;
    client.update(nowMs);
    expect(link.actions(before)).toHaveLength(2);
    expect(client.stats.keepAlives).toBe(2);
    expect(client.confirmed).toEqual({ x: 40, y: 40 });
    broadcast(link, 110, [player(7, 41, 40)]); // the re-send
    expect(client.confirmed).toEqual({ x: 41, y: 40 });
    nowMs += 250;
    client.update(nowMs);
    expect(link.actions(before)).toHaveLength(2);
  });
});

describe("scheduling", () => {
  it("puts each held-key step into the first window it can reach, one per window, at most eight in flight", async () => {
    const { link, client } = await newClient();
    startPlaying(link, client, 100, 10, 60);
    client.update(nowMs);
    answerLastPing(link, client, 20);
    const rtt = new RttEstimator();
    rtt.addSample(20);
    const lead = leadMs(rtt);
    const before = link.sent.length;
    client.setHeldAction(E);
    let lastTarget = 0;
    for (let step = 0; step < 250; step++) {
      nowMs += 10;
      const sentBefore = link.sent.length;
      client.update(nowMs);
      for (const action of link.actions(sentBefore)) {
        expect(action.action).toBe(E);
        const window = windowOfTick(action.targetTick);
        expect(Number.isInteger(window)).toBe(true);
        expect(window).toBe(earliestWindow(client.serverTick, lead, 24)); // the first reachable window
        expect(action.targetTick).toBe(lastTarget === 0 ? action.targetTick : lastTarget + 4); // the next window
        lastTarget = action.targetTick;
      }
    }
    // 2.5 s at 6 windows per second would be 15 steps; with no acks the prediction bound stops it at 8.
    expect(link.actions(before)).toHaveLength(8);
    expect(client.pending).toHaveLength(8);
    expect(client.predicted).toEqual({ x: 18, y: 60 });
  });

  it("validates each step at send time: walking into a wall sends nothing", async () => {
    const { link, client } = await newClient();
    startPlaying(link, client, 100, 43, 40);
    client.setHeldAction(E);
    const before = link.sent.length;
    for (let step = 0; step < 100; step++) client.update((nowMs += 10));
    expect(link.actions(before)).toHaveLength(0);
    expect(client.predicted).toEqual({ x: 43, y: 40 });
  });

  it("retracts a changed plan with NOOPs only for windows that can still be cancelled; the rest stay pending", async () => {
    const { link, client } = await newClient({ initialRttMs: 250 }); // a slow link: steps go out windows ahead
    startPlaying(link, client, 100, 10, 60);
    client.update(nowMs);
    client.setHeldAction(E);
    for (let step = 0; step < 100; step++) client.update((nowMs += 10)); // ends as the next ping goes out
    const scheduled = client.pending.map((step) => step.window);
    expect(scheduled.length).toBeGreaterThanOrEqual(5);
    // The first pong shows the link is fast: the lead shrinks and most scheduled windows are cancellable again.
    client.update(nowMs);
    answerLastPing(link, client, 20);
    const rtt = new RttEstimator();
    rtt.addSample(20);
    const earliest = earliestWindow(client.serverTick, leadMs(rtt), 24);
    expect(scheduled[0]).toBeLessThan(earliest);
    expect(scheduled.at(-1)!).toBeGreaterThanOrEqual(earliest);
    const before = link.sent.length;
    client.setHeldAction(0);
    client.update(nowMs);
    const noops = link.actions(before);
    const cancellable = scheduled.filter((window) => window >= earliest);
    expect(noops.map((packet) => packet.targetTick)).toEqual(cancellable.map(tickOfWindow));
    expect(noops.every((packet) => packet.action === 0)).toBe(true);
    // Zombies: too late to cancel, they will execute; the prediction keeps them.
    expect(client.pending.map((step) => step.window)).toEqual(scheduled.filter((window) => window < earliest));
    expect(client.predicted).toEqual({ x: 10 + client.pending.length, y: 60 });
    expect(client.stats.retractions).toBe(cancellable.length);
  });

  it("a key press moves exactly one tile, however short: released before the next update, or before its window", async () => {
    const { link, client } = await newClient({ initialRttMs: 250 }); // a slow link: the step is cancellable for long
    startPlaying(link, client, 100, 10, 60);
    client.update(nowMs);
    // A 30 ms tap between two updates: the key is down and up again before the loop looks.
    const before = link.sent.length;
    client.pressAction(E);
    client.setHeldAction(0);
    client.update((nowMs += 10));
    for (let step = 0; step < 20; step++) client.update((nowMs += 10));
    const sent = link.actions(before);
    expect(sent.filter((packet) => packet.action === E)).toHaveLength(1);
    expect(sent.filter((packet) => packet.action === 0)).toHaveLength(0); // never withdrawn
    expect(client.predicted).toEqual({ x: 11, y: 60 });
    // A 100 ms press: held across updates, then released while its one step is still cancellable.
    const second = link.sent.length;
    client.pressAction(E);
    client.setHeldAction(E);
    client.update((nowMs += 10));
    client.setHeldAction(0);
    for (let step = 0; step < 20; step++) client.update((nowMs += 10));
    const secondSent = link.actions(second);
    expect(secondSent.filter((packet) => packet.action === E)).toHaveLength(1);
    expect(secondSent.filter((packet) => packet.action === 0)).toHaveLength(0);
    expect(client.predicted).toEqual({ x: 12, y: 60 });
  });

  it("a long hold walks on and its release withdraws the walk's later steps, but never the press's first", async () => {
    const { link, client } = await newClient({ initialRttMs: 250 });
    startPlaying(link, client, 100, 10, 60);
    client.update(nowMs);
    const before = link.sent.length;
    client.pressAction(E);
    client.setHeldAction(E);
    for (let step = 0; step < 60; step++) client.update((nowMs += 10));
    const walked = link.actions(before).filter((packet) => packet.action === E);
    expect(walked.length).toBeGreaterThanOrEqual(3);
    client.setHeldAction(0);
    client.update((nowMs += 10));
    const withdrawn = link.actions(before).filter((packet) => packet.action === 0);
    expect(withdrawn.length).toBeGreaterThan(0);
    // The first step of the press is never among the withdrawn ones.
    expect(withdrawn.map((packet) => packet.targetTick)).not.toContain(walked[0].targetTick);
    expect(client.pending.map((step) => tickOfWindow(step.window))).toContain(walked[0].targetTick);
  });

  it("a tap into a wall sends nothing, like a held key into it", async () => {
    const { link, client } = await newClient();
    startPlaying(link, client, 100, 43, 40); // the wall column is at x = 44
    client.update(nowMs);
    const before = link.sent.length;
    client.pressAction(E);
    client.setHeldAction(0);
    for (let step = 0; step < 20; step++) client.update((nowMs += 10));
    expect(link.actions(before).filter((packet) => packet.action !== 0)).toHaveLength(0);
    // The press is spent: a later step goes wherever the keys say, not east.
    client.setHeldAction(N);
    client.update((nowMs += 200));
    expect(link.actions(before).filter((packet) => packet.action === E)).toHaveLength(0);
  });

  it("replaces a still-cancellable step with the new plan's step instead of sending a NOOP", async () => {
    const { link, client } = await newClient();
    startPlaying(link, client);
    client.update(nowMs);
    answerLastPing(link, client, 20);
    client.setHeldAction(E);
    const before = link.sent.length;
    client.update(nowMs);
    const [east] = link.actions(before);
    expect(east.action).toBe(E);
    client.setHeldAction(N);
    client.update(nowMs);
    const [, north] = link.actions(before);
    expect(north).toMatchObject({ action: N, targetTick: east.targetTick });
    expect(link.actions(before)).toHaveLength(2);
    expect(client.pending).toEqual([{ window: windowOfTick(east.targetTick), action: N }]);
    expect(client.predicted).toEqual({ x: 40, y: 39 });
  });

  it("counts a step the server did not execute as a correction; the prediction shifts back", async () => {
    const { link, client } = await newClient();
    startPlaying(link, client);
    client.update(nowMs);
    answerLastPing(link, client, 20);
    client.setHeldAction(E);
    const before = link.sent.length;
    client.update(nowMs);
    client.setHeldAction(0);
    const [step] = link.actions(before);
    expect(client.predicted).toEqual({ x: 41, y: 40 });
    broadcast(link, step.targetTick, [player(7, 40, 40)]); // its window passed, the server did not move us
    expect(client.pending).toHaveLength(0);
    expect(client.predicted).toEqual({ x: 40, y: 40 });
    expect(client.stats.corrections).toBe(1);
    broadcast(link, step.targetTick + 2, [player(7, 40, 40)]);
    expect(client.stats.corrections).toBe(1);
  });
});

describe("click-to-move", () => {
  it("routes around the wall with A*, keeps the keyboard in charge, and never predicts into a wall", async () => {
    const { link, client } = await newClient();
    startPlaying(link, client, 100, 40, 40);
    expect(client.setGoal(48, 40)).toBe("planned");
    expect(client.route.at(-1)).toEqual({ x: 48, y: 40 });
    expect(client.route.every((tile) => tileAt(tile.x, tile.y) === FLOOR)).toBe(true);
    expect(client.route.length).toBeGreaterThan(8); // around the wall's end, not through it
    expect(client.setGoal(48, 40)).toBe("unchanged");
    expect(client.setGoal(44, 40)).toBe("unreachable"); // a wall: a discrete click releases the goal
    expect(client.goal).toBeNull();
    expect(client.setGoal(48, 40)).toBe("planned");
    const before = link.sent.length;
    for (let step = 0; step < 60; step++) {
      client.update((nowMs += 10));
      const at = client.predicted!;
      expect(tileAt(at.x, at.y)).toBe(FLOOR);
    }
    expect(link.actions(before).length).toBeGreaterThan(0);
    client.setHeldAction(E); // keyboard override
    expect(client.goal).toBeNull();
    expect(client.route).toHaveLength(0);
  });
});

describe("changing the goal mid-walk", () => {
  it("plans from the committed tile and replaces the newest step with the new route's first, without a replan", async () => {
    const { link, client } = await newClient();
    startPlaying(link, client, 100, 10, 60);
    client.update(nowMs);
    answerLastPing(link, client, 20);
    expect(client.setGoal(30, 60)).toBe("planned");
    // Walk until a step has just gone out and another is still in flight.
    let sent: ReturnType<ScriptedLink["actions"]> = [];
    while (sent.length === 0 || client.pending.length < 2) {
      const before = link.sent.length;
      client.update((nowMs += 10));
      sent = link.actions(before);
    }
    const newest = client.pending.at(-1)!;
    expect(newest.action).toBe(E);
    const committed = { x: client.predicted!.x - 1, y: 60 }; // where the server ends up without the newest step
    // A goal further along the same line: a route planned from the prediction (past the step about to be
    // withdrawn) would start two tiles from where the server ends up, and need a replan.
    expect(client.setGoal(committed.x + 8, 60)).toBe("planned");
    const before = link.sent.length;
    client.update(nowMs);
    const [replacement, ...rest] = link.actions(before);
    expect(rest).toHaveLength(0); // no NOOP: the window got the new route's step instead
    expect(replacement.targetTick).toBe(tickOfWindow(newest.window));
    expect(replacement.action).toBe(E); // the route's first step from the committed tile, into the same window
    expect(client.pending.at(-1)).toEqual({ window: newest.window, action: replacement.action });
    for (let step = 0; step < 60; step++) client.update((nowMs += 10));
    expect(client.stats.replans).toBe(0);
    expect(client.stats.retractions).toBe(0);
  });
});

describe("names", () => {
  it("queries players in view, retransmits unanswered queries and learns names from the name TLV", async () => {
    const { link, client } = await newClient();
    startPlaying(link, client);
    broadcast(link, 102, [player(7, 40, 40), player(9, 42, 40)]);
    const before = link.sent.length;
    client.update(nowMs);
    const queried = () =>
      link.sent.slice(before).flatMap((packet) => (packet.type === "entity_query" ? [packet.entityId] : []));
    expect(queried()).toEqual([7, 9]);
    link.deliver(nameDatagram(9, "Bo"));
    nowMs += 250;
    client.update(nowMs);
    expect(queried()).toEqual([7, 9, 7]);
    link.deliver(nameDatagram(7, "Ada"));
    nowMs += 250;
    client.update(nowMs);
    expect(queried()).toEqual([7, 9, 7]);
    expect(Object.fromEntries(client.names)).toEqual({ 7: "Ada", 9: "Bo" });
  });
});

describe("connection", () => {
  it("counts undecodable datagrams and carries on", async () => {
    const { link, client } = await newClient();
    startPlaying(link, client);
    link.deliver(new Uint8Array([1, 2, 3]), new Uint8Array(200));
    expect(client.stats.decodeErrors).toBe(2);
    expect(client.state).toBe("playing");
  });

  it("hands packets it does not handle to the host and sends the host's own datagrams on the link", async () => {
    const link = new ScriptedLink();
    const others: string[] = [];
    const client = GameClient.create({
      core: await loadCore(),
      transport: link,
      session: testSession(),
      world: TEST_WORLD,
      now: () => nowMs,
      onOtherPacket: (packet) => others.push(packet.type),
    });
    startPlaying(link, client);
    const ping = new Uint8Array(14);
    encodePing({ type: "ping", clientType: 0, timestampMs: 5n }, ping);
    link.deliver(ping); // a type this core never expects from a server
    expect(others).toEqual(["ping"]);
    const before = client.stats.datagramsOut;
    client.sendDatagram(ping);
    expect(link.count("ping")).toBeGreaterThanOrEqual(1);
    expect(client.stats.datagramsOut).toBe(before + 1);
  });

  it("disconnects after 10 s without a StatePacket and reconnects through the host's factory, with backoff", async () => {
    const next = new ScriptedLink();
    let attempts = 0;
    const reconnect = async () => {
      attempts++;
      if (attempts === 1) throw new Error("server unreachable");
      return { session: testSession(8, 2n), transport: next };
    };
    const { link, client } = await newClient({}, reconnect);
    startPlaying(link, client);
    nowMs += 9999;
    client.update(nowMs);
    expect(client.state).toBe("playing");
    nowMs += 1;
    client.update(nowMs);
    expect(link.closed).toBe(true);
    expect(client.state).toBe("reconnecting");
    await flush();
    expect(client.state).toBe("disconnected");
    expect(client.lastLoss).toMatch(/unreachable/);
    nowMs += 999;
    client.update(nowMs);
    expect(attempts).toBe(1); // backoff: 1 s
    nowMs += 1;
    client.update(nowMs);
    expect(attempts).toBe(2);
    await flush();
    expect(client.state).toBe("connecting");
    expect(client.session.entityId).toBe(8);
    client.update(nowMs);
    expect(next.actions()[0]).toMatchObject({ targetTick: 0, authToken: 2n });
    broadcast(link, 300, [player(7, 40, 40)]); // the old link is deaf now
    expect(client.state).toBe("connecting");
    broadcast(next, 300, [player(8, 20, 20)], true, 8);
    expect(client.state).toBe("playing");
    expect(client.confirmed).toEqual({ x: 20, y: 20 });
    expect(client.stats.reconnects).toBe(1);
    expect(client.chunks.size).toBe(9); // world data survives the session
  });

  it("treats a transport that reports its own death as disconnected at once; close() is final", async () => {
    const { link, client } = await newClient();
    startPlaying(link, client);
    link.die("data channel closed");
    expect(client.state).toBe("disconnected");
    expect(client.lastLoss).toMatch(/data channel closed/);
    client.close();
    expect(client.state).toBe("closed");
    const before = link.sent.length;
    client.update((nowMs += 20_000));
    expect(link.sent.length).toBe(before);
  });
});
