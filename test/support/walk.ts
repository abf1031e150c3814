// Walking a protocol test client next to a tile, one step per movement window.
import { ACTION_DX, ACTION_DY } from "../../ts/protocol/action.js";
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
