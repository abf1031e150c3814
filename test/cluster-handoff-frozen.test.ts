// A handoff into a region that is frozen (issue 41: the chaos run's "1 step lost at a handoff"), for real: the
// launcher with its own redis-server, two regions and a gateway (test/support/cluster-process.ts), a signed
// protocol client on real UDP. Region 0 is stopped (SIGSTOP, as the chaos run freezes a part for 1–5 s) while
// the client, on region 1's ground, steps across the border: region 1 runs the step that takes it past the
// margin and hands it on with the step it had scheduled for the next window. The HANDOFF waits in region 0's
// socket until it is thawed (SIGCONT), and the carried step must run there.
//
// What this does not reach: a process stopped while it waits in epoll_wait wakes with EINTR, and Node then runs
// its overdue timers — the region's tick, which rejoins the world's timeline — before it reads its sockets. One
// stopped while it runs (or starved of CPU on a loaded machine) reads its sockets first, with its clock seconds
// behind: the steps carried were beyond its horizon and dropped. That order is the room's test
// (test/cluster-handoff-steps.test.ts, "a handoff taken by a region back from a stall"); so is a new region only
// a tick behind the old one (its timer fired a few ms later), whose horizon ended a window short of the old one's.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { TICK_HZ } from "../ts/constants.js";
import { ACTION_DX, ACTION_DY } from "../ts/protocol/action.js";
import { tickOfWindow, windowOfTick } from "../ts/window.js";
import {
  BORDER_X,
  clusterSkipReason,
  partHealth,
  startTestCluster,
  type TestCluster,
  until,
} from "./support/cluster-process.js";
import { UdpTestClient } from "./support/udp-client.js";
import { walkSteps } from "./support/walk.js";

const skip = clusterSkipReason();
if (skip !== null) process.stderr.write(`test/cluster-handoff-frozen.test.ts skipped: ${skip}\n`);

const WEST = ACTION_DX.findIndex((dx, code) => code > 0 && dx === -1 && ACTION_DY[code] === 0);
/** How long region 0 is stopped before the client crosses: far more than the horizon's 3 windows (0.5 s). */
const FROZEN_BEFORE_MS = 1500;

interface StepStats {
  handoffsIn: number;
  handoffsOut: number;
  stepsCarried: number;
  stepsMovedWindow: number;
  stepsLost: number;
  positions: { id: number; x: number; y: number }[];
}

describe.skipIf(skip !== null)("a handoff into a region that was frozen", () => {
  let cluster: TestCluster;
  const clients: UdpTestClient[] = [];

  beforeAll(async () => {
    cluster = await startTestCluster();
  }, 90_000);

  afterAll(async () => {
    for (const client of clients) client.close();
    await cluster?.stop();
  }, 20_000);

  const stats = async (region: number) => (await cluster.regionStatus(region)) as unknown as StepStats;

  it("runs the step the handoff carried once the region is thawed: none lost", async () => {
    const gatewayHttp = cluster.ready.gateways[0].httpPort;
    const client = await (await UdpTestClient.connect(gatewayHttp, "Frozen")).sign().placed();
    clients.push(client);
    const id = client.joined.entityId;
    // From the spawn (region 1's ground) to two tiles east of the margin: still region 1's.
    const start = client.position()!;
    const stood = await walkSteps(
      client,
      Array.from({ length: start.x - (BORDER_X - 2) }, () => WEST),
    );
    expect(stood).toEqual({ x: BORDER_X - 2, y: start.y });
    expect(await cluster.ownerOf(id)).toBe(1);
    const region0Before = await stats(0);

    const region0 = await partHealth(gatewayHttp, "region 0");
    process.kill(region0.pid!, "SIGSTOP");
    try {
      await new Promise((resolve) => setTimeout(resolve, FROZEN_BEFORE_MS));
      // Two steps west, for the windows two and three after the newest State (region 1 still serves it):
      // the first takes it past the margin (handed on after that window), the second travels in the handoff.
      const statesBefore = client.states.length;
      await client.waitFor("a fresh State from region 1", () => client.states.length > statesBefore);
      const first = windowOfTick(client.lastState()!.tick) + 2;
      client.action(tickOfWindow(first), WEST);
      client.action(tickOfWindow(first + 1), WEST);
      await until("region 1 hands the player on", async () => (await stats(1)).handoffsOut > 0);
      const region1 = await stats(1);
      expect(region1.positions.some((p) => p.id === id)).toBe(false);
      // The serving tick of region 1 now, by the client's newest State: the carried step's window is ahead.
      expect(client.serverTickSinceLastState(TICK_HZ)).toBeLessThan(tickOfWindow(first + 1) + 4 * TICK_HZ);
    } finally {
      process.kill(region0.pid!, "SIGCONT");
    }

    // Region 0 takes it, with the step it carried, and runs that step.
    await until("region 0 holds the player", async () => (await stats(0)).positions.some((p) => p.id === id), 10_000);
    const after = await until(
      "region 0's player standing still",
      async () => {
        const first = (await stats(0)).positions.find((p) => p.id === id);
        await new Promise((resolve) => setTimeout(resolve, 500));
        const second = await stats(0);
        const now = second.positions.find((p) => p.id === id);
        return first !== undefined && now !== undefined && first.x === now.x && first.y === now.y && second;
      },
      10_000,
    );
    expect(after.handoffsIn - region0Before.handoffsIn).toBe(1);
    expect(after.stepsCarried - region0Before.stepsCarried).toBe(1);
    expect(after.stepsLost - region0Before.stepsLost).toBe(0);
    // Both steps ran: two tiles west of where it stood (before, one: the carried step was dropped).
    expect(after.positions.find((p) => p.id === id)).toEqual({ id, x: stood.x - 2, y: stood.y });
    expect(await cluster.ownerOf(id)).toBe(0);
  }, 60_000);
});
