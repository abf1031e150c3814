// The inbound fast path: the server reads ActionPackets and Pings straight
// from the bytes, and the token it reads as two 32-bit words must find exactly
// the session the bigint token names. That the protocol's validators accept
// exactly what decodePacket accepts is tested beside them
// (test/protocol-validators.test.ts).
import { tickOfWindow } from "../ts/window.js";
import { beforeAll, describe, expect, it } from "vitest";
import {
  type ActionPacket,
  PACKET_CHUNK,
  PACKET_PONG,
  createActionPacket,
  decodePacket,
  encodeAction,
  encodePing,
} from "../ts/protocol/index.js";
import { Game } from "../ts/server/game-server.js";
import { Logger } from "../ts/server/ops/log.js";
import type { Core } from "../ts/wasm/core.js";
import { loadCore } from "../ts/wasm/node.js";
import { CapturingPeer, floorMap } from "./support/game-without-network.js";

let core: Core;
beforeAll(async () => {
  core = await loadCore();
});

const smallMap = () => floorMap("small", 64, { x: 10, y: 10 });

function actionBytes(token: bigint, patch: (packet: ActionPacket) => void = () => {}): Uint8Array {
  const packet = createActionPacket();
  packet.authToken = token;
  patch(packet);
  const bytes = new Uint8Array(74);
  encodeAction(packet, bytes);
  return bytes;
}

describe("fast-path sessions", () => {
  it("finds a session by its token's two words, and only with both words right", () => {
    const game = new Game(core, smallMap(), {}, new Logger("silent"));
    const sessions = Array.from({ length: 50 }, (_, i) => game.join(`p${i}`));
    for (const session of sessions) {
      const low = Number(session.token & 0xffffffffn);
      const high = Number(session.token >> 32n);
      expect(game.sessions.byTokenWords(low, high)).toBe(session);
      expect(game.sessions.byTokenWords(low | 0, high | 0)).toBe(session);
      expect(game.sessions.byTokenWords(low, (high ^ 1) >>> 0)).toBeUndefined();
      expect(game.sessions.byTokenWords((low ^ 0x80000000) >>> 0, high)).toBeUndefined();
    }
    game.leave(sessions[0], "test");
    const gone = sessions[0].token;
    expect(game.sessions.byTokenWords(Number(gone & 0xffffffffn), Number(gone >> 32n))).toBeUndefined();
    game.shutdown();
  });

  it("binds, schedules and answers the cache list from the bytes; drops a token with a wrong high word", () => {
    const game = new Game(core, smallMap(), {}, new Logger("silent"));
    const session = game.join("ada");
    const peer = new CapturingPeer("test:1", "10.0.0.1");
    session.joinSource = "10.0.0.1"; // as if it joined over HTTP from there: its address is proven (address-proof.ts)
    const forged = session.token ^ (1n << 40n);
    game.receive(actionBytes(forged), peer);
    expect(game.metrics.drops.get("unknown_token")).toBe(1);
    expect(session.peer).toBeNull();
    expect(peer.datagrams).toHaveLength(0);

    // Bind with a cache list holding one of the four existing chunks around (10, 10): the other three are sent.
    game.receive(
      actionBytes(session.token, (packet) => {
        packet.cache[0] = { chunkId: 0, version: game.world.chunkVersion(0, 0) };
      }),
      peer,
    );
    expect(session.peer).toBe(peer);
    const chunks = peer.datagrams.filter((d) => d[3] === PACKET_CHUNK);
    expect(chunks).toHaveLength(3);
    expect(session.resendEntities).toBe(true);

    // A move for the next window is scheduled there.
    game.receive(
      actionBytes(session.token, (packet) => {
        packet.targetTick = tickOfWindow(game.nextWindow);
        packet.action = 3;
        for (let cy = 0; cy < 2; cy++)
          for (let cx = 0; cx < 2; cx++)
            packet.cache[cy * 2 + cx] = { chunkId: cx | (cy << 16), version: game.world.chunkVersion(cx, cy) };
      }),
      peer,
    );
    expect(session.entity.slots.peek(game.nextWindow)).toBe(3);
    expect(game.metrics.actions.get("scheduled")).toBe(1);

    // A Ping on the bound link gets a Pong with the same timestamp bytes.
    const ping = new Uint8Array(14);
    encodePing({ type: "ping", clientType: 5, timestampMs: 0x0102030405060708n }, ping);
    peer.datagrams.length = 0;
    game.receive(ping, peer);
    expect(peer.datagrams).toHaveLength(1);
    const pong = decodePacket(peer.datagrams[0]);
    expect(pong.ok && pong.packet).toEqual({ type: "pong", clientType: 0, timestampMs: 0x0102030405060708n });
    expect(peer.datagrams[0][3]).toBe(PACKET_PONG);
    game.shutdown();
  });
});
