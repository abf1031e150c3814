// The bundled world's content (maps/caves.content/, issue 38) on the real server over real UDP: the
// people of the great hall are talked to, not fought; Old Tom gives the first quest, counts the rats, and
// pays on hand-in; Mira sells a potion for the gold; the guard warns. A protocol client stands next to
// each (the server moves it there) and answers their dialogs as a player would.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { isFoe } from "../ts/combat-rules.js";
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

  it("Old Tom gives the rat cull, counts the kills, and pays 15 gold and a potion on hand-in", async () => {
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
    // The next job is offered now.
    client.query(tom);
    await client.waitFor("the crystals offer", () =>
      dialogs(client).find((dialog) =>
        dialog.elements.some((element) => element.kind === "text" && element.text.includes("glow crystals")),
      ),
    );
  });

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

  it("the guard has a word of warning", async () => {
    const { client, session } = await player("Listener");
    const guard = await standBy(client, session, GUARD);
    client.query(guard);
    await client.waitFor("the guard's line", () =>
      client.received.some((entry) => entry.packet?.type === "chat" && entry.packet.speakerName === "hall guard"),
    );
  });
});
