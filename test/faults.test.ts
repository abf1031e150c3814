// Fault cases on top of the bad-link convergence tests (docs/netcode.md § Fault
// cases): every in-flight action lost, several ticks of entity updates lost in a
// row, a 3 s blackout, and the server restarting. Each walks the course (start →
// goal 30 tiles away behind two walls) with a clean client walking the same
// route at the same moment as its baseline, and checks the same invariants as
// the convergence tests every round: the prediction never in a wall, the chunk
// neighbourhood complete within 2 s of every crossing, and at the end predicted
// = confirmed = the server's position = the goal.
import { describe, expect, it } from "vitest";
import type { GameClient, Transport } from "../ts/client/core/index.js";
import { ACTION_NOOP } from "../ts/protocol/action.js";
import { decodePacket, type PacketView } from "../ts/protocol/index.js";
import {
  COURSE_GOAL,
  COURSE_START,
  driveUntil,
  formatWalk,
  joinCourse,
  serverPosition,
  walkTogether,
  Watch,
  CourseServer,
} from "./convergence-support.js";

const course = new CourseServer();

/** Same bound as the convergence tests: a correction costs at most one replan, plus this slack per goal. */
const REPLAN_SLACK = 2;

/** A transport that drops the datagrams `drop` picks (decoded), in one direction, while `active()`. */
function dropping(
  udp: Transport,
  direction: "up" | "down",
  active: () => boolean,
  drop: (packet: PacketView) => boolean,
  counter: { dropped: number },
): Transport {
  const picks = (datagram: Uint8Array) => {
    if (!active()) return false;
    const decoded = decodePacket(datagram);
    if (!decoded.ok || !drop(decoded.packet)) return false;
    counter.dropped++;
    return true;
  };
  return {
    name: udp.name,
    send: (datagram) => {
      if (direction === "up" && picks(datagram)) return;
      udp.send(datagram);
    },
    onDatagram: (handler) =>
      udp.onDatagram((datagram) => {
        if (direction === "down" && picks(datagram)) return;
        handler(datagram);
      }),
    close: () => udp.close(),
  };
}

/** Whether an upstream packet is a scheduled movement step (target_tick > 0, not a NOOP). */
function isScheduledStep(packet: PacketView): boolean {
  return packet.type === "action" && packet.targetTick > 0 && packet.action !== ACTION_NOOP;
}

/** Joins a clean baseline and a client whose UDP link goes through `fault`; both stand on the start. */
async function pair(nick: string, fault: (udp: Transport) => Transport, options = {}) {
  const clean = await joinCourse(course.baseUrl, `${nick}-ok`);
  const faulty = await joinCourse(course.baseUrl, nick, { fault, options });
  course.clients.push(clean.client, faulty.client);
  expect(clean.client.confirmed).toEqual(COURSE_START);
  expect(faulty.client.confirmed).toEqual(COURSE_START);
  return { clean: clean.client, faulty: faulty.client };
}

function walkersOf(...walking: GameClient[]) {
  return walking.map((client) => ({ client, goal: COURSE_GOAL, watch: new Watch(() => course.server, client) }));
}

function expectAtGoal(client: GameClient) {
  expect(client.predicted).toEqual(COURSE_GOAL);
  expect(client.confirmed).toEqual(COURSE_GOAL);
  expect(serverPosition(course.server, client)).toEqual(COURSE_GOAL);
}

// First, and alone on the server: it needs a view in which nothing else changes, or another player's move
// would bring a fresh update and hide whether the client asks for the lost one itself.
// Both ways of carrying entities: the seed's (State + EntityPackets, a keep-alive asks for a lost update) and
// entity deltas (P-21: one StateDelta per broadcast against the newest list acknowledged, so the next one
// repeats what a lost one said).
const CARRIERS = [
  { deltas: false, compact: false, name: "seed packets", lostType: "entity" },
  { deltas: true, compact: false, name: "entity deltas", lostType: "state_delta" },
  { deltas: true, compact: true, name: "compact deltas", lostType: "state_delta_compact" },
] as const;

describe.each(CARRIERS)("the last entity update lost ($name)", ({ deltas, compact, lostType }) => {
  it("while nothing changes any more: the client recovers it (seed: its keep-alive has it re-sent), and the walk completes", async () => {
    // Dropped from the moment the last step is sent until 1 s later: the server executes the final steps,
    // sends the arrival once (lost), and then skips every unchanged update — only the client can ask. Without
    // the keep-alive the goal would never be confirmed, and the walk would time out.
    let dropUntilMs = -Infinity;
    let dropFromMs = NaN;
    let walking: GameClient | null = null;
    const lost = { dropped: 0 };
    const joined = await joinCourse(
      course.baseUrl,
      compact ? "lost-last-cmp" : deltas ? "lost-last-delta" : "lost-last-update",
      {
        options: { entityDeltas: deltas, compactDeltas: compact },
        fault: (udp) =>
          dropping(
            udp,
            "down",
            () => {
              if (walking && dropUntilMs === -Infinity && walking.goal !== null && walking.route.length === 0) {
                dropFromMs = performance.now();
                dropUntilMs = dropFromMs + 1000;
              }
              return performance.now() < dropUntilMs;
            },
            (packet) => packet.type === lostType,
            lost,
          ),
      },
    );
    const client = joined.client;
    course.clients.push(client);
    walking = client;
    const [walk] = await walkTogether(walkersOf(client));
    console.log(
      formatWalk("last entity update lost", walk) + ` (${lost.dropped} entity datagrams dropped in the last 1 s)`,
    );
    expect(lost.dropped).toBeGreaterThanOrEqual(1);
    // A delta session needs no keep-alive: the server repeats the changes until the client acknowledges them.
    if (!deltas) expect(walk.keepAlives).toBeGreaterThanOrEqual(1);
    expect(walk.corrections).toBe(0);
    expectAtGoal(client);
  }, 60_000);
});

describe.concurrent("fault cases", () => {
  it("every in-flight action lost for 1 s: the acks expire the lost steps and the walk goes on", async ({ expect }) => {
    const LOST_MS = 1000;
    let window = { fromMs: Infinity, toMs: Infinity };
    const lost = { dropped: 0 };
    const { clean, faulty } = await pair("lost-steps", (udp) =>
      dropping(
        udp,
        "up",
        () => performance.now() >= window.fromMs && performance.now() < window.toMs,
        isScheduledStep,
        lost,
      ),
    );
    const startMs = performance.now();
    // From 1.5 s into the walk: the steps already on the way, and all sent for the next second, vanish.
    window = { fromMs: startMs + 1500, toMs: startMs + 1500 + LOST_MS };
    const [cleanWalk, walk] = await walkTogether(walkersOf(clean, faulty));
    const boundMs = 1.5 * cleanWalk.timeMs + LOST_MS;
    console.log(
      formatWalk(`all actions lost ${LOST_MS} ms`, walk, cleanWalk.timeMs, boundMs) + ` (${lost.dropped} steps)`,
    );
    expect(lost.dropped).toBeGreaterThanOrEqual(5); // 6 windows in a second, one step each
    // Each lost step is a surprise the acks reveal (several at once when acks coalesce), and nothing else is.
    expect(walk.corrections).toBeGreaterThanOrEqual(1);
    expect(walk.corrections).toBeLessThanOrEqual(lost.dropped);
    expect(walk.replans).toBeLessThanOrEqual(walk.corrections + REPLAN_SLACK);
    expect(walk.timeMs).toBeLessThanOrEqual(boundMs);
    expectAtGoal(faulty);
  }, 60_000);

  it.each(CARRIERS)(
    "entity updates of 6 ticks lost in a row, mid-walk ($name): no correction, the cursor catches up",
    async ({ deltas, compact, lostType }) => {
      // From 1.5 s into the walk, every entity datagram of the next 6 ticks that carry one (the server skips
      // unchanged updates, so while walking that is about one tick per 6 Hz window: a second of updates).
      const LOST_TICKS = 6;
      let fromMs = Infinity;
      const lostTicks = new Set<number>();
      const lostAtMs: number[] = [];
      const lost = { dropped: 0 };
      const { clean, faulty } = await pair(
        compact ? "lost-compact" : deltas ? "lost-deltas" : "lost-ents",
        (udp) =>
          dropping(
            udp,
            "down",
            () => performance.now() >= fromMs,
            (packet) => {
              if (packet.type !== lostType) return false;
              if (!lostTicks.has(packet.tick)) {
                if (lostTicks.size >= LOST_TICKS) return false;
                lostTicks.add(packet.tick);
              }
              lostAtMs.push(performance.now());
              return true;
            },
            lost,
          ),
        { entityDeltas: deltas, compactDeltas: compact },
      );
      fromMs = performance.now() + 1500;
      const [cleanWalk, walk] = await walkTogether(walkersOf(clean, faulty));
      const lostSpanMs = lostAtMs[lostAtMs.length - 1] - lostAtMs[0];
      const boundMs = 1.5 * cleanWalk.timeMs + lostSpanMs;
      console.log(
        formatWalk(`entity updates of ${LOST_TICKS} ticks lost`, walk, cleanWalk.timeMs, boundMs) +
          ` (${lost.dropped} datagrams over ${Math.round(lostSpanMs)} ms)`,
      );
      expect(lostTicks.size).toBe(LOST_TICKS);
      // Nothing went wrong upstream: every step the client predicted is one the server made.
      expect(walk.corrections).toBe(0);
      expect(walk.replans).toBe(0);
      expect(walk.maxPending).toBeLessThanOrEqual(faulty.options.maxPendingSteps);
      expect(walk.timeMs).toBeLessThanOrEqual(boundMs);
      expectAtGoal(faulty);
    },
    60_000,
  );

  it("a 3 s blackout both ways mid-walk: recovers on the same session, no reconnect", async ({ expect }) => {
    const BLACKOUT_MS = 3000;
    let window = { fromMs: Infinity, toMs: Infinity };
    const lostUp = { dropped: 0 };
    const lostDown = { dropped: 0 };
    const { clean, faulty } = await pair("blackout", (udp) => {
      const dark = () => performance.now() >= window.fromMs && performance.now() < window.toMs;
      return dropping(
        dropping(udp, "up", dark, () => true, lostUp),
        "down",
        dark,
        () => true,
        lostDown,
      );
    });
    const session = faulty.session;
    const entityId = faulty.ownEntityId;
    const startMs = performance.now();
    window = { fromMs: startMs + 1500, toMs: startMs + 1500 + BLACKOUT_MS };
    const states = new Set<string>();
    const [cleanWalk, walk] = await walkTogether(walkersOf(clean, faulty), {
      during: () => states.add(faulty.state),
    });
    const boundMs = 1.5 * cleanWalk.timeMs + BLACKOUT_MS;
    console.log(
      formatWalk(`blackout ${BLACKOUT_MS} ms`, walk, cleanWalk.timeMs, boundMs) +
        ` (${lostUp.dropped} datagrams up, ${lostDown.dropped} down)`,
    );
    // Both ways for 3 s. Down: the client's default is compact deltas (P-25), which the server sends at least at
    // the idle rate (3 a second: nothing it hears from the client changes the view) — 9 at least. Up: a Ping a
    // second, and the steps, hellos and acknowledgements the client goes on sending.
    expect(lostDown.dropped).toBeGreaterThanOrEqual(9);
    expect(lostUp.dropped).toBeGreaterThanOrEqual(3);
    expect([...states]).toEqual(["playing"]); // silence below the 10 s timeout is not a disconnect
    expect(faulty.stats.reconnects).toBe(0);
    expect(faulty.session).toBe(session);
    expect(faulty.ownEntityId).toBe(entityId);
    expect(walk.replans).toBeLessThanOrEqual(walk.corrections + REPLAN_SLACK);
    expect(walk.timeMs).toBeLessThanOrEqual(boundMs);
    expectAtGoal(faulty);
  }, 60_000);
});

describe("the server restarting", () => {
  it("on the same ports: the client notices the silence, rejoins, and walks to the goal", async () => {
    const client = (await joinCourse(course.baseUrl, "phoenix", { options: { disconnectAfterMs: 2000 } })).client;
    course.clients.push(client);
    const firstEntity = client.ownEntityId;
    expect(client.setGoal(COURSE_GOAL.x, COURSE_GOAL.y)).toBe("planned");
    const watch = new Watch(() => course.server, client);
    await driveUntil(
      [client],
      "a few steps",
      () => client.stats.stepsSent >= 6,
      10_000,
      (nowMs) => watch.check(nowMs),
    );

    // Down for 3 s: the client's first rejoin (after 2 s of silence) is refused, the backed-off retry succeeds.
    const restartedAtMs = performance.now();
    await course.restart(3000);
    await driveUntil(
      [client],
      "playing on the restarted server",
      () => client.state === "playing" && client.confirmed !== null,
      20_000,
    );
    const rejoinMs = performance.now() - restartedAtMs;
    expect(client.stats.reconnects).toBe(1);
    expect(client.ownEntityId).not.toBe(firstEntity);
    expect(client.goal).toBeNull(); // a new session starts without the old intent
    expect(client.confirmed).toEqual(COURSE_START); // the restarted world spawned it afresh

    const [walk] = await walkTogether([{ client, goal: COURSE_GOAL, watch: new Watch(() => course.server, client) }]);
    console.log(
      `server restart: playing again ${(rejoinMs / 1000).toFixed(2)} s after the server went down (3 s down), ` +
        `then ${formatWalk("walk after restart", walk)}`,
    );
    expectAtGoal(client);
  }, 60_000);
});
