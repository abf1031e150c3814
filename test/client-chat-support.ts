// Fixtures for the chat, dialog and custom-message tests of the client core: a
// whole GameClient (real wasm core) on a virtual clock against a scripted
// server whose every datagram is encoded by the protocol library.
import { expect } from "vitest";
import { GameClient, type GameClientConfig } from "../ts/client/core/game-client.js";
import type { PacketView, EntityEntry, Packet } from "../ts/protocol/index.js";
import { encodePacketToBytes } from "../ts/protocol/index.js";
import { loadCore } from "../ts/wasm/node.js";
import {
  chunkDatagram,
  entityUpdate,
  FLOOR,
  player,
  ScriptedLink,
  stateDatagram,
  TEST_WORLD,
  testSession,
} from "./client-core-support.js";

export const TOKEN = 0x1122334455667788n;

export class VirtualClock {
  nowMs = 0;
  readonly now = () => this.nowMs;
}

export interface ScriptedClient {
  link: ScriptedLink;
  client: GameClient;
  clock: VirtualClock;
  /** Packets the client handed to onOtherPacket. */
  others: PacketView["type"][];
  /** Delivers plain packets as the server would send them (encoded by the protocol library). */
  deliver(...packets: Packet[]): void;
  /** Advances the clock by `ms` and runs update(). */
  advance(ms: number): void;
  /** Delivers the next StatePacket (same entities), so the link stays alive however long a test runs. */
  heartbeat(): void;
  /** Packets of `type` the client sent since index `from` of link.sent. */
  sent<T extends Packet["type"]>(type: T, from?: number): Extract<Packet, { type: T }>[];
}

/** A client playing at (x, y) on the scripted floor world, with `entities` in view besides itself (id 7). */
export async function scriptedClient(
  entities: EntityEntry[] = [],
  at = { x: 40, y: 40 },
  config: Partial<GameClientConfig> = {},
): Promise<ScriptedClient> {
  const link = new ScriptedLink();
  const clock = new VirtualClock();
  const others: PacketView["type"][] = [];
  const client = GameClient.create({
    core: await loadCore(),
    transport: link,
    session: testSession(7, TOKEN),
    world: TEST_WORLD,
    now: clock.now,
    onOtherPacket: (packet) => others.push(packet.type),
    ...config,
  });
  client.update(clock.nowMs);
  for (let cy = 0; cy < 3; cy++) for (let cx = 0; cx < 3; cx++) link.deliver(chunkDatagram(cx, cy, 1, () => FLOOR));
  const update = entityUpdate(100, [player(7, at.x, at.y), ...entities]);
  link.deliver(stateDatagram(100, 1, 1, update.checksum), ...update.datagrams);
  expect(client.state).toBe("playing");
  let tick = 100;
  return {
    link,
    client,
    clock,
    others,
    deliver: (...packets) => link.deliver(...packets.map((packet) => encodePacketToBytes(packet))),
    advance: (ms) => {
      clock.nowMs += ms;
      client.update(clock.nowMs);
    },
    heartbeat: () => link.deliver(stateDatagram((tick += 2), 1, 1, update.checksum)),
    sent: <T extends Packet["type"]>(type: T, from = 0) =>
      link.sent.slice(from).filter((packet): packet is Extract<Packet, { type: T }> => packet.type === type),
  };
}
