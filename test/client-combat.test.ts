// The networking core fighting the real server (issue 13), in-process, over
// real UDP loopback, on a written map with creatures: click-to-attack walks to
// a creature and bumps it each window; the prediction treats a bump as no move
// (it never stands on the creature); a held key into a creature attacks; the
// combat feed hears each blow; a kill ends the attack.
import { afterEach, describe, expect, it } from "vitest";
import { connectGuest, GameClient } from "../ts/client/core/index.js";
import type { CombatNotice } from "../ts/client/core/index.js";
import { UdpNodeTransport } from "../ts/client/transport/udp-node.js";
import { ACTION_E } from "../ts/protocol/action.js";
import { Logger } from "../ts/server/ops/log.js";
import { type RunningServer, startServer } from "../ts/server/server.js";
import { loadCore } from "../ts/wasm/node.js";
import { drive } from "./client-core-support.js";
import { type NpcMap, testKind, writeNpcMap } from "./support/npc-map.js";

let server: RunningServer | undefined;
let npcMap: NpcMap | undefined;
const clients: GameClient[] = [];

afterEach(async () => {
  for (const client of clients.splice(0)) client.close();
  await server?.close();
  server = undefined;
  npcMap?.dispose();
  npcMap = undefined;
});

async function startWith(spec: Parameters<typeof writeNpcMap>[0]): Promise<RunningServer> {
  npcMap = writeNpcMap(spec);
  server = await startServer({
    host: "127.0.0.1",
    httpPort: 0,
    udpPort: 0,
    mapPath: npcMap.path,
    logger: new Logger("silent"),
  });
  return server;
}

async function join(nick: string): Promise<GameClient> {
  const connection = await connectGuest(`http://127.0.0.1:${server!.httpPort}`, nick, async (session) =>
    UdpNodeTransport.connect("127.0.0.1", session.udpPort),
  );
  const client = GameClient.create({ core: await loadCore(), ...connection });
  clients.push(client);
  await drive([client], `${nick} playing`, () => client.state === "playing" && client.confirmed !== null);
  return client;
}

const dummy = (hp: number) => testKind({ name: "dummy", typeId: 16, wander: 0, hp, respawnSeconds: 30 });

function creature(client: GameClient): { id: number; x: number; y: number; hp: number } | undefined {
  return [...client.entities.values()].find((entity) => entity.typeId === 16);
}

describe("the client fighting the real server", () => {
  it("click-to-attack walks to a creature and bumps it each window; the prediction never stands on it", async () => {
    const running = await startWith({
      width: 20,
      height: 10,
      spawn: { x: 3, y: 5 },
      kinds: [dummy(2000)],
      spawns: [{ kind: "dummy", x: 10, y: 3 }],
    });
    const client = await join("Ada");
    const notices: CombatNotice[] = [];
    client.combat.listen((notice) => notices.push(notice));
    await drive([client], "the dummy in view", () => creature(client) !== undefined);
    const target = creature(client)!;
    expect(client.attack(target.id)).toBeNull();
    expect(client.attackTarget).toBe(target.id);
    const onTarget = () => {
      const at = client.predicted;
      if (at && at.x === target.x && at.y === target.y) throw new Error("predicted onto the creature's tile");
    };
    await drive([client], "six blows", () => notices.length >= 6, 15_000, onTarget);
    const own = client.confirmed!;
    expect(Math.max(Math.abs(own.x - target.x), Math.abs(own.y - target.y))).toBe(1);
    for (const notice of notices) {
      expect(notice.attackerId).toBe(client.ownEntityId);
      expect(notice.targetId).toBe(target.id);
    }
    const hits = notices.filter((notice) => notice.kind === "hit");
    expect(hits.length).toBeGreaterThan(0);
    expect(running.game.entities.get(target.id)!.hp).toBeLessThan(2000);
    // Bumps were predicted as standing still: the server agreed every time.
    expect(client.stats.corrections).toBe(0);
  });

  it("a held key into a creature attacks it and does not move; a kill ends an attack", async () => {
    const running = await startWith({
      width: 12,
      height: 8,
      spawn: { x: 4, y: 4 },
      kinds: [dummy(12)],
      spawns: [{ kind: "dummy", x: 5, y: 4 }],
    });
    const client = await join("Bo");
    await drive([client], "the dummy in view", () => creature(client) !== undefined);
    const target = creature(client)!;
    expect(client.attack(client.ownEntityId)).toBe("not-a-foe");
    expect(client.attack(999_999)).toBe("not-a-foe");
    client.setHeldAction(ACTION_E);
    await drive([client], "a hit", () => running.game.entities.get(target.id)!.hp < 12, 10_000);
    client.setHeldAction(0);
    expect(client.confirmed).toEqual({ x: 4, y: 4 });
    // Click-to-attack the rest of its hp away: the attack ends with the kill.
    expect(client.attack(target.id)).toBeNull();
    await drive([client], "the kill", () => client.attackTarget === 0, 15_000);
    expect(running.game.combat.stats.kills.npcs).toBe(1);
    expect(client.stats.corrections).toBe(0);
  });
});
