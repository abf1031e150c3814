// The bundled map tried as a new player would (issue 12's "done when"), with
// the browser's own networking core over real UDP: within seconds of joining,
// creatures move in view; walking out of the great hall into the tunnels, a
// spider notices and follows; running back to the hall, it loses interest.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { connectGuest, GameClient } from "../ts/client/core/index.js";
import { UdpNodeTransport } from "../ts/client/transport/udp-node.js";
import { isNpcType } from "../ts/npc-types.js";
import type { Npc } from "../ts/server/npc/npc.js";
import type { RunningServer } from "../ts/server/server.js";
import { loadCore } from "../ts/wasm/node.js";
import { drive } from "./client-core-support.js";
import { startCavesServer } from "./support/caves-server.js";

let server: RunningServer;
let baseUrl: string;
const clients: GameClient[] = [];

beforeAll(async () => {
  ({ server, baseUrl } = await startCavesServer());
});

afterAll(async () => {
  for (const client of clients) client.close();
  await server?.close();
});

async function join(nick: string): Promise<GameClient> {
  const connection = await connectGuest(baseUrl, nick, (session) =>
    UdpNodeTransport.connect("127.0.0.1", session.udpPort),
  );
  const client = GameClient.create({ core: await loadCore(), ...connection });
  clients.push(client);
  await drive([client], `${nick} playing`, () => client.state === "playing" && client.confirmed !== null);
  return client;
}

const chebyshev = (a: { x: number; y: number }, b: { x: number; y: number }) =>
  Math.max(Math.abs(a.x - b.x), Math.abs(a.y - b.y));

/** Click-to-move to the reachable cell nearest `near` among those `from..to` tiles from it; waits for arrival. */
async function walkNear(client: GameClient, near: { x: number; y: number }, from: number, to: number) {
  const me = client.confirmed!;
  const candidates: { x: number; y: number }[] = [];
  for (let dy = -to; dy <= to; dy++) {
    for (let dx = -to; dx <= to; dx++) {
      const cell = { x: near.x + dx, y: near.y + dy };
      const distance = chebyshev(cell, near);
      if (distance >= from && distance <= to && client.sim.isFree(cell.x, cell.y)) candidates.push(cell);
    }
  }
  candidates.sort((a, b) => chebyshev(a, me) - chebyshev(b, me));
  const goal = candidates.find((cell) => client.setGoal(cell.x, cell.y) === "planned");
  expect(goal, `a reachable cell ${from}..${to} tiles from ${near.x},${near.y}`).toBeDefined();
  await drive([client], "arrival", () => client.goal === null && client.pending.length === 0, 20_000);
}

describe("the bundled map's creatures", () => {
  it("move in view within seconds of joining", async () => {
    const client = await join("newcomer");
    const first = new Map<number, string>();
    for (const entity of client.entities.values())
      if (isNpcType(entity.typeId)) first.set(entity.id, `${entity.x},${entity.y}`);
    expect(first.size).toBeGreaterThanOrEqual(4); // rats, beetles and guards of the great hall
    await drive(
      [client],
      "a creature in view moving",
      () => [...client.entities.values()].some((e) => first.has(e.id) && first.get(e.id) !== `${e.x},${e.y}`),
      10_000,
    );
  }, 30_000);

  it("a tunnel spider notices a player who walks out of the hall, follows, and gives up when the player runs back", async () => {
    const client = await join("explorer");
    const hall = client.confirmed!;
    const tunnel = server.game.world.npcSpawns
      .filter((spawn) => spawn.name.startsWith("tunnel spiders"))
      .sort((a, b) => chebyshev(a, hall) - chebyshev(b, hall))[0];
    expect(tunnel).toBeDefined();
    const spiders = (): Npc[] => [...server.game.npcs.values()].filter((npc) => npc.spawn?.spec === tunnel);
    // Walk out towards the tunnel, stopping 4..5 tiles short of a spider's home: inside its perception of 6.
    await walkNear(client, { x: spiders()[0].homeX, y: spiders()[0].homeY }, 4, 5);
    const me = client.ownEntityId;
    await drive([client], "a spider on the player's trail", () => spiders().some((npc) => npc.targetId === me), 6000);
    const hunter = spiders().find((npc) => npc.targetId === me)!;
    await drive(
      [client],
      "the spider beside the player",
      () => chebyshev(hunter.entity, server.game.entities.get(me)!) <= 1,
      8000,
    );
    // The client sees it coming: a hostile entity of the spider's kind right beside it.
    const seen = client.entities.get(hunter.entity.id);
    expect(seen && chebyshev(seen, client.confirmed!) <= 2).toBe(true);
    // Run back to the hall: past the spider's leash, it gives up and walks home.
    await walkNear(client, hall, 0, 2);
    await drive([client], "the spider giving up", () => hunter.targetId === 0, 8000);
    await drive(
      [client],
      "the spider back near home",
      () => chebyshev(hunter.entity, { x: hunter.homeX, y: hunter.homeY }) <= hunter.kind.wander,
      15_000,
    );
  }, 90_000);
});
