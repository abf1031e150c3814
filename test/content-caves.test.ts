// The bundled world's content (maps/caves.content/, issue 38) on the real server over real UDP: the
// people of the great hall are talked to, not fought; Old Tom gives the first quest, counts the rats, and
// pays on hand-in (coins, a potion and experience), then sends the player two levels down the dungeon's
// stairs and pays for that; Mira
// sells a potion for the gold; the guard warns, and shouts after whoever leaves the hall unarmed. A
// protocol client stands next to each (the server moves it there) and answers their dialogs as a player
// would; it takes the stairs with steps of its own.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { isFoe } from "../ts/combat-rules.js";
import { ACTION_DX, ACTION_DY } from "../ts/protocol/action.js";
import { ENTITY_FLAG_INTERACTABLE } from "../ts/protocol/entity.js";
import type { RunningServer } from "../ts/server/server.js";
import type { Session } from "../ts/server/sessions/session.js";
import { startCavesServer } from "./support/caves-server.js";
import { dialogs, labels, ownTlv, reply } from "./support/script-dialogs.js";
import { UdpTestClient } from "./support/udp-client.js";

const OLD_TOM = 22;
const MIRA = 21;
const RAT = 16;
const GUARD = 20;

let server: RunningServer;
const clients: UdpTestClient[] = [];

beforeAll(async () => {
  ({ server } = await startCavesServer());
});

afterAll(async () => {
  for (const client of clients) client.close();
  await server?.close();
});

async function player(nick: string): Promise<{ client: UdpTestClient; session: Session }> {
  const client = await UdpTestClient.connect(server.httpPort, nick);
  clients.push(client);
  client.action(0, 0);
  await client.waitFor("own position", () => client.position());
  const session = server.game.sessions.byEntityId(client.lastState()!.playerEntityId)!;
  return { client, session };
}

/** Moves the player next to the first creature of `typeId` (as if it had walked there) and returns the creature's id. */
async function standBy(client: UdpTestClient, session: Session, typeId: number): Promise<number> {
  const npc = [...server.game.npcs.values()].find((each) => each.entity.typeId === typeId)!;
  const spot = [
    [1, 0],
    [-1, 0],
    [0, 1],
    [0, -1],
    [1, 1],
    [-1, -1],
  ]
    .map(([dx, dy]) => ({ x: npc.entity.x + dx, y: npc.entity.y + dy }))
    .find((cell) => server.game.world.walkable(cell.x, cell.y))!;
  server.game.warps.teleport(session.entity, spot.x, spot.y);
  await client.waitFor("the creature in view", () => client.inView(typeId)[0], 5000);
  return npc.entity.id;
}

/** The stairs down of the map or level (x, y) lies in: the nearest of the map's, or the level's own. */
function stairsDownNear(x: number, y: number): { x: number; y: number } {
  const levels = server.game.levels;
  const here = levels.levelOf(x, y)?.level;
  const sameLevel = (warp: { x: number; y: number }) => {
    const there = levels.levelOf(warp.x, warp.y)?.level;
    return here === undefined ? there === undefined : there?.seed === here.seed && there.depth === here.depth;
  };
  const all = server.game.warps.all().filter((warp) => warp.stairs === "down" && sameLevel(warp));
  const distance = (warp: { x: number; y: number }) => Math.max(Math.abs(warp.x - x), Math.abs(warp.y - y));
  return all.sort((a, b) => distance(a) - distance(b))[0];
}

/** Puts the player beside `target` (the server moves it) and has it step onto it, as a player would. */
async function stepOnto(client: UdpTestClient, session: Session, target: { x: number; y: number }): Promise<void> {
  const beside = [
    [1, 0],
    [-1, 0],
    [0, 1],
    [0, -1],
  ]
    .map(([dx, dy]) => ({ x: target.x + dx, y: target.y + dy }))
    .find((cell) => server.game.world.walkable(cell.x, cell.y))!;
  server.game.warps.teleport(session.entity, beside.x, beside.y);
  await client.waitFor(
    "beside the stairs",
    () => client.position()?.x === beside.x && client.position()?.y === beside.y,
  );
  const dx = target.x - beside.x;
  const dy = target.y - beside.y;
  const step = ACTION_DX.findIndex((ax, code) => code > 0 && ax === dx && ACTION_DY[code] === dy);
  client.action(client.lastState()!.tick + 4, step);
}

describe("the great hall's people (maps/caves.content)", () => {
  it("are talked to, not fought", async () => {
    const { client } = await player("Newt");
    for (const typeId of [OLD_TOM, MIRA, GUARD]) {
      const entry = await client.waitFor(`kind ${typeId} in view`, () => {
        const npc = [...server.game.npcs.values()].find((each) => each.entity.typeId === typeId);
        return npc === undefined ? undefined : npc.entity;
      });
      expect(entry.flags & ENTITY_FLAG_INTERACTABLE).toBe(ENTITY_FLAG_INTERACTABLE);
      expect(isFoe(entry.typeId, entry.hp, entry.flags, false)).toBe(false);
    }
  });

  it("Old Tom gives the rat cull, counts the kills, pays 15 gold and a potion, then pays 40 for a delve two levels down", async () => {
    const { client, session } = await player("Ratter");
    const tom = await standBy(client, session, OLD_TOM);
    client.query(tom);
    const offer = await client.waitFor("Old Tom's offer", () => dialogs(client)[0], 5000);
    expect(labels(offer)).toEqual(["I'll do it", "Not now"]);
    reply(client, offer, 1);
    await client.waitFor("the rat cull in the log", () => {
      const quests = ownTlv(client, "quests");
      return quests?.kind === "quests" && quests.quests.some((quest) => quest.goal === 5 && quest.state === 1);
    });
    const rat = [...server.game.npcs.values()].find((each) => each.entity.typeId === RAT)!.entity;
    for (let kill = 0; kill < 5; kill++) server.game.scripts!.onKill(session.entity, rat);
    await client.waitFor("Old Tom marked for a hand-in", () => {
      const marks = ownTlv(client, "quest_marks");
      return marks?.kind === "quest_marks" && marks.marks.some((mark) => mark.typeId === OLD_TOM && mark.mark === 2);
    });
    const goldBefore = server.game.items.countOf(session, 7);
    client.query(tom);
    await client.waitFor("the quest done", () => {
      const quests = ownTlv(client, "quests");
      return quests?.kind === "quests" && quests.quests.some((quest) => quest.goal === 5 && quest.state === 3);
    });
    expect(server.game.items.countOf(session, 7) - goldBefore).toBe(15);
    expect(server.game.items.countOf(session, 6)).toBeGreaterThanOrEqual(1);
    // And its 35 experience (the kills here were told to the scripts alone: a real rat's 3 each would make 50).
    await client.waitFor("the quest's experience", () => {
      const progress = ownTlv(client, "progress");
      return progress?.kind === "progress" && progress.xp === 35;
    });
    // The next job is offered now: down the stairs.
    client.query(tom);
    const delve = await client.waitFor("the delve offer", () =>
      dialogs(client).find((dialog) =>
        dialog.elements.some((element) => element.kind === "text" && element.text.includes("two levels")),
      ),
    );
    reply(client, delve, 1);
    const scripts = server.game.scripts!;
    await client.waitFor("the delve started", () => scripts.quests.standing(session, "delve").state === "active");
    // Level 1, then level 2: each a step onto the stairs down (the level is generated as the player waits).
    const depth = () => server.game.levels.levelOf(session.entity.x, session.entity.y)?.level.depth ?? 0;
    for (const wanted of [1, 2]) {
      const stairs = stairsDownNear(session.entity.x, session.entity.y);
      await stepOnto(client, session, stairs);
      await client
        .waitFor(`depth ${wanted}`, () => depth() === wanted, 20_000)
        .catch((error: unknown) => {
          const at = { x: session.entity.x, y: session.entity.y, depth: depth() };
          throw new Error(
            `${String(error)}: the player at ${JSON.stringify(at)}, the stairs at ${JSON.stringify(stairs)}`,
          );
        });
      if (wanted === 1) expect(scripts.quests.standing(session, "delve").state).toBe("active");
    }
    await client.waitFor("the delve ready", () => scripts.quests.standing(session, "delve").state === "ready");
    // Back up to Old Tom (the server moves it, as a scroll would), who pays for the news.
    await standBy(client, session, OLD_TOM);
    const coins = server.game.items.countOf(session, 7);
    const potions = server.game.items.countOf(session, 6);
    client.query(tom);
    await client.waitFor("the delve done", () => scripts.quests.standing(session, "delve").state === "done");
    expect(server.game.items.countOf(session, 7) - coins).toBe(40);
    expect(server.game.items.countOf(session, 6) - potions).toBe(2);
    // 35 + 150 experience: level 3, over its head.
    expect(session.entity.xp).toBe(185);
    await client.waitFor("level 3 in its entries", () =>
      client
        .inView(0)
        .some(
          (entity) => entity.id === session.entity.id && entity.meta.some((t) => t.kind === "level" && t.value === 3),
        ),
    );
    // And the crystals after it.
    client.query(tom);
    await client.waitFor("the crystals offer", () =>
      dialogs(client).find((dialog) =>
        dialog.elements.some((element) => element.kind === "text" && element.text.includes("glow crystals")),
      ),
    );
  }, 60_000);

  it("Mira sells a healing potion for 8 gold coins", async () => {
    const { client, session } = await player("Buyer");
    await new Promise<void>((resolve) =>
      server.game.items.exchange(session, [], [{ itemId: 7, count: 10 }], () => resolve()),
    );
    const mira = await standBy(client, session, MIRA);
    client.query(mira);
    const menu = await client.waitFor("Mira's greeting", () => dialogs(client)[0], 5000);
    reply(client, menu, 1);
    const shop = await client.waitFor("the wares", () =>
      dialogs(client).find((dialog) => labels(dialog).some((label) => label.startsWith("Buy healing potion"))),
    );
    reply(client, shop, labels(shop).findIndex((label) => label.startsWith("Buy healing potion")) + 1);
    await client.waitFor("the potion bought", () => server.game.items.countOf(session, 6) === 1);
    expect(server.game.items.countOf(session, 7)).toBe(2);
  });

  it("a guard shouts after a player who leaves the great hall unarmed, once a minute at most", async () => {
    const { client, session } = await player("Barehands");
    const hall = server.game.world.zones.find((zone) => zone.name === "great hall")!;
    const shouts = () =>
      new Set(
        client.received.flatMap((entry) =>
          entry.packet?.type === "chat" && entry.packet.text.startsWith("Oi!") ? [entry.packet.seq] : [],
        ),
      ).size;
    // A way out: a free cell on the hall's edge with a free cell just beyond it.
    const edge: { inside: { x: number; y: number }; outside: { x: number; y: number } }[] = [];
    const free = (x: number, y: number) => server.game.world.walkable(x, y);
    for (let y = hall.y; y < hall.y + hall.height; y++) {
      if (free(hall.x, y) && free(hall.x - 1, y))
        edge.push({ inside: { x: hall.x, y }, outside: { x: hall.x - 1, y } });
      const east = hall.x + hall.width - 1;
      if (free(east, y) && free(east + 1, y)) edge.push({ inside: { x: east, y }, outside: { x: east + 1, y } });
    }
    for (let x = hall.x; x < hall.x + hall.width; x++) {
      if (free(x, hall.y) && free(x, hall.y - 1))
        edge.push({ inside: { x, y: hall.y }, outside: { x, y: hall.y - 1 } });
      const south = hall.y + hall.height - 1;
      if (free(x, south) && free(x, south + 1)) edge.push({ inside: { x, y: south }, outside: { x, y: south + 1 } });
    }
    expect(edge.length).toBeGreaterThan(0);
    const { inside, outside } = edge[0];
    const at = (cell: { x: number; y: number }) => () =>
      client.position()?.x === cell.x && client.position()?.y === cell.y;
    // Out of the hall and back in, twice within the minute: one shout.
    for (let turn = 0; turn < 2; turn++) {
      server.game.warps.teleport(session.entity, inside.x, inside.y);
      await client.waitFor("in the hall", at(inside));
      server.game.warps.teleport(session.entity, outside.x, outside.y);
      await client.waitFor("out of the hall", at(outside));
      await client.waitFor("the shout", () => shouts() >= 1);
    }
    const ticks = server.game.tick;
    await client.waitFor("a few ticks more", () => server.game.tick > ticks + 12);
    expect(shouts()).toBe(1);
  });

  it("the guard has a word of warning", async () => {
    const { client, session } = await player("Listener");
    const guard = await standBy(client, session, GUARD);
    client.query(guard);
    await client.waitFor("the guard's line", () =>
      client.received.some((entry) => entry.packet?.type === "chat" && entry.packet.speakerName === "hall guard"),
    );
  });
});
