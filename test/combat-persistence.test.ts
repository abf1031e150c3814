// A fight survives a crash (issue 13): a registered player kills a biting
// creature — losing hp, gaining rating and experience (issue 39: the biter is
// worth a level) — and the server process is killed with SIGKILL a moment later.
// Restarted on the same SQLite file, the character logs in with the hp, elo,
// experience, level and hp max it had, within the persistence guarantee (a second).
import type { ChildProcess } from "node:child_process";
import { once } from "node:events";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { ACTION_E } from "../ts/protocol/action.js";
import { postJson } from "./support/game-harness.js";
import { testKind, writeNpcMap } from "./support/npc-map.js";
import { startServerProcess } from "./support/server-process.js";
import { type Joined, UdpTestClient } from "./support/udp-client.js";

const dir = mkdtempSync(join(tmpdir(), "caves-combat-crash-"));
const npcMap = writeNpcMap({
  width: 16,
  height: 8,
  spawn: { x: 4, y: 4 },
  kinds: [
    testKind({
      name: "biter",
      typeId: 18,
      behaviour: "hostile",
      perception: 4,
      leash: 6,
      attack: 3,
      hp: 25,
      wander: 0,
      respawnSeconds: 600,
      xp: 60,
    }),
  ],
  spawns: [{ kind: "biter", x: 7, y: 4 }],
});
const children: ChildProcess[] = [];
const clients: UdpTestClient[] = [];

afterAll(() => {
  for (const client of clients) client.close();
  for (const child of children) if (child.exitCode === null) child.kill("SIGKILL");
  npcMap.dispose();
  rmSync(dir, { recursive: true, force: true });
});

async function bound(joined: Joined): Promise<UdpTestClient> {
  const client = await UdpTestClient.withSession(joined);
  clients.push(client);
  client.action(0, 0);
  await client.waitFor("own position", () => client.position(), 5000);
  return client;
}

/** The own hp, elo, hp max and level in the latest entity update (or the first, before anything could bite again). */
function own(
  client: UdpTestClient,
  which: "latest" | "first" = "latest",
): { hp: number; elo: number; hpMax: number; level: number | undefined } {
  const packets = which === "latest" ? [...client.entityPackets].reverse() : client.entityPackets;
  for (const packet of packets) {
    const me = packet.entities.find((entity) => entity.id === client.joined.entityId);
    const level = me?.meta.find((tlv) => tlv.kind === "level");
    if (me)
      return { hp: me.hp, elo: me.elo, hpMax: me.hpMax, level: level?.kind === "level" ? level.value : undefined };
  }
  throw new Error("own entity never seen");
}

/** The experience in the own detail, asked for as a client that lost its push would ask. */
async function ownXp(client: UdpTestClient): Promise<number> {
  client.query(client.joined.entityId);
  const detail = await client.waitFor("the own detail", () =>
    client.received.findLast((r) => r.packet?.type === "entity_detail" && r.packet.entityId === client.joined.entityId),
  );
  const progress =
    detail.packet?.type === "entity_detail" ? detail.packet.meta.find((t) => t.kind === "progress") : null;
  return progress?.kind === "progress" ? progress.xp : -1;
}

describe("combat and crashes", () => {
  it("SIGKILL after a fight: the character comes back with the hp, elo and experience it fought to", async () => {
    const dbPath = join(dir, "caves.sqlite");
    const first = await startServerProcess(dbPath, npcMap.path, children);
    const registered = (
      await postJson(first.httpPort, "/api/register", { name: "Brawler", password: "brawler-pw", nick: "Brawler" })
    ).body as unknown as Joined;
    const client = await bound(registered);
    const start = own(client);
    // The biter comes to bite; the player bumps east at it until it lies dead.
    const biterDead = () =>
      client.entityPackets.some((packet) => packet.entities.some((entity) => entity.typeId === 18 && entity.hp === 0));
    const bumping = setInterval(() => client.action(client.lastState()!.tick + 4, ACTION_E), 120);
    try {
      await client.waitFor("the biter dead", biterDead, 20_000);
    } finally {
      clearInterval(bumping);
    }
    // Past the save interval (1 s), well inside the regeneration delay (6 s): nothing changes now.
    await new Promise((resolve) => setTimeout(resolve, 1800));
    const fought = own(client);
    expect(fought.elo).toBeGreaterThan(start.elo);
    expect(fought.hp).toBeLessThan(fought.hpMax);
    expect(fought.hp).toBeGreaterThan(0);
    // The biter's 60 experience: level 2, and its 5 hit points more.
    expect(fought).toMatchObject({ level: 2, hpMax: 105 });
    expect(await ownXp(client)).toBe(60);
    first.child.kill("SIGKILL");
    await once(first.child, "exit");

    const second = await startServerProcess(dbPath, npcMap.path, children);
    const login = await postJson(second.httpPort, "/api/login", { name: "Brawler", password: "brawler-pw" });
    expect(login.status).toBe(200);
    const again = await bound(login.body as unknown as Joined);
    // As the restarted server first shows it (the biter, alive again there, may bite later).
    expect(own(again, "first")).toEqual(fought);
    expect(await ownXp(again)).toBe(60);
    second.child.kill("SIGTERM");
    await once(second.child, "exit");
  }, 60_000);
});
