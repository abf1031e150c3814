// Walking a protocol test client next to a tile, one step per movement window.
import { ACTION_DX, ACTION_DY } from "../../ts/protocol/action.js";
import { TICK_HZ } from "../../ts/constants.js";
import { tickOfWindow, windowOfTick } from "../../ts/window.js";
import type { UdpTestClient } from "./udp-client.js";

/** Walks to within one tile of (x, y), a step per movement window (the great hall is open floor). */
export async function walkNextTo(client: UdpTestClient, x: number, y: number): Promise<void> {
  for (;;) {
    const at = client.position()!;
    const dx = Math.sign(x - at.x);
    const dy = Math.sign(y - at.y);
    if (Math.max(Math.abs(x - at.x), Math.abs(y - at.y)) <= 1) return;
    // Step diagonally or straight toward the target, stopping beside it rather than on it.
    const target = { dx: Math.abs(x - at.x) > 1 ? dx : 0, dy: Math.abs(y - at.y) > 1 ? dy : 0 };
    const action = ACTION_DX.findIndex((ax, code) => code > 0 && ax === target.dx && ACTION_DY[code] === target.dy);
    client.action(client.lastState()!.tick + 4, action);
    await client.waitFor("a step", () => {
      const now = client.position()!;
      return now.x !== at.x || now.y !== at.y;
    });
  }
}

/**
 * Sends `steps`, one per movement window from two windows after the latest State, never more than the
 * horizon ahead (so each lands in its own window: none replaced, none late), then waits until the server
 * has run the last one's window and the position has stood still for half a second. Returns the final
 * position.
 */
export async function walkSteps(client: UdpTestClient, steps: number[]): Promise<{ x: number; y: number }> {
  let window = windowOfTick(client.lastState()!.tick) + 2;
  const roomWithinHorizon = () => windowOfTick(client.lastState()!.tick) + 3 >= window;
  for (const step of steps) {
    // A client held up (a busy machine gave this process no time) finds its next window already run or
    // about to be: sent now, the step would be late, and a late step fills the next window only when it
    // is empty (docs/protocol.md § Scheduling) — it is the next step's, so the step would be lost. The
    // rest of the walk is aimed from two windows ahead again: the same steps, in the same order. Ahead of
    // where the server is by the time that passed since its newest State, not by that State alone: the
    // States that came while this process waited for a core are read only after its timers have run.
    do {
      await client.waitFor("room within the horizon", roomWithinHorizon, 5000);
      window = Math.max(window, windowOfTick(client.serverTickSinceLastState(TICK_HZ)) + 2);
    } while (!roomWithinHorizon());
    client.action(tickOfWindow(window), step);
    window++;
  }
  // Stillness alone is not the end: a server held up for half a second between two steps is still too.
  const lastTick = tickOfWindow(window - 1);
  await client.waitFor("the last step's window run", () => client.lastState()!.tick >= lastTick, 15_000);
  let last = client.position()!;
  let stillSince = performance.now();
  await client.waitFor(
    "the walk to end",
    () => {
      const now = client.position()!;
      if (now.x !== last.x || now.y !== last.y) {
        last = now;
        stillSince = performance.now();
      }
      return performance.now() - stillSince > 500;
    },
    10_000,
  );
  return last;
}
