// Dialogs between a headless GameClient and the real server on the bundled map
// (maps/caves.tmj: spawns in the great hall, the welcome sign and the notice
// board north of them), over real UDP loopback: walk next to an interactable,
// use it, answer its dialog; on a clean link and on a lossy one, where the
// reply must still be handled exactly once.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  type ChatEvent,
  connectGuest,
  GameClient,
  impairTransport,
  type ShownDialog,
  type Transport,
} from "../ts/client/core/index.js";
import { UdpNodeTransport } from "../ts/client/transport/udp-node.js";
import { parseProfileSpec } from "../ts/netsim/index.js";
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

async function join(nick: string, wrap: (udp: Transport) => Transport = (udp) => udp) {
  const connection = await connectGuest(baseUrl, nick, async (session) =>
    wrap(await UdpNodeTransport.connect("127.0.0.1", session.udpPort)),
  );
  const client = GameClient.create({ core: await loadCore(), ...connection });
  clients.push(client);
  const chat: ChatEvent[] = [];
  client.chat.listen((event) => chat.push(event));
  await drive([client], `${nick} playing`, () => client.state === "playing" && client.confirmed !== null);
  return { client, chat };
}

function entityIdOf(name: string): number {
  const entity = server.game.interactables.entityNamed(name);
  if (!entity) throw new Error(`the map has no interactable named ${name}`);
  return entity.id;
}

/** Walks (click-to-move) to a free tile next to entity `id` and waits until the server has the player there. */
async function walkNextTo(client: GameClient, id: number, timeoutMs = 15_000): Promise<void> {
  await drive([client], "the interactable in view", () => client.entities.has(id));
  const target = client.entities.get(id)!;
  const from = client.predicted!;
  const neighbours: { x: number; y: number }[] = [];
  for (let dy = -1; dy <= 1; dy++)
    for (let dx = -1; dx <= 1; dx++) if (dx || dy) neighbours.push({ x: target.x + dx, y: target.y + dy });
  neighbours.sort((a, b) => Math.hypot(a.x - from.x, a.y - from.y) - Math.hypot(b.x - from.x, b.y - from.y));
  // Over a lossy link the chunks around the interactable may come after its entity: plan once they are here.
  let goal: { x: number; y: number } | undefined;
  await drive(
    [client],
    "a reachable tile next to the interactable",
    () => (goal = neighbours.find((tile) => client.setGoal(tile.x, tile.y) === "planned")) !== undefined,
    timeoutMs,
  );
  if (!goal) throw new Error("no reachable tile next to the interactable");
  await drive(
    [client],
    "arrival next to the interactable",
    () => client.pending.length === 0 && client.confirmed?.x === goal!.x && client.confirmed?.y === goal!.y,
    timeoutMs,
  );
}

function onlyDialog(client: GameClient): ShownDialog {
  const shown = [...client.dialogs.shown.values()];
  expect(shown).toHaveLength(1);
  return shown[0];
}

describe("interacting with the map's interactables", () => {
  it("does not open a dialog from afar; next to the sign it opens one, and OK closes it", async () => {
    const { client } = await join("Reader");
    const sign = entityIdOf("welcome sign");
    await drive([client], "the sign in view", () => client.entities.has(sign));
    expect(client.interact(sign)).toBe("too-far");
    // A name query from afar is only a query.
    client.lookUpName(sign);
    await drive([client], "the sign's name", () => client.names.get(sign) === "welcome sign");
    expect(client.dialogs.shown.size).toBe(0);

    await walkNextTo(client, sign);
    expect(client.interact(sign)).toBeNull();
    await drive([client], "the sign's dialog", () => client.dialogs.shown.size === 1);
    const dialog = onlyDialog(client);
    const texts = dialog.elements.flatMap((element) => (element.kind === "text" ? [element.text] : []));
    expect(texts[0]).toBe("welcome sign");
    expect(texts.join(" ")).toContain("The Forgotten Caves.");
    const ok = dialog.elements.find((element) => element.kind === "button");
    expect(ok).toMatchObject({ label: "OK" });
    expect(client.replyDialog(dialog.id, (ok as { returnCode: number }).returnCode)).toBe(true);
    await drive([client], "the server's close for the reply", () => client.dialogs.repliesPending === 0);
    expect(client.dialogs.shown.size).toBe(0);
  }, 30_000);

  it("posts the notice board's line to everyone's chat", async () => {
    const poster = await join("Poster");
    const reader = await join("Listener");
    const board = entityIdOf("notice board");
    await walkNextTo(poster.client, board);
    const posted = server.game.interactables.stats.noticesPosted;
    expect(poster.client.interact(board)).toBeNull();
    await drive([poster.client, reader.client], "the board's dialog", () => poster.client.dialogs.shown.size === 1);
    const dialog = onlyDialog(poster.client);
    const post = dialog.elements.find((element) => element.kind === "button" && element.label === "Post");
    expect(dialog.elements.filter((element) => element.kind === "text_input")).toHaveLength(1);
    poster.client.replyDialog(dialog.id, (post as { returnCode: number }).returnCode, ["Meet at the bridge"]);
    const wanted = (events: ChatEvent[]) =>
      events.some(
        (event) =>
          event.kind === "line" &&
          event.speakerEntityId === 0 &&
          event.speakerName === "notice board" &&
          event.text === "Poster: Meet at the bridge",
      );
    await drive(
      [poster.client, reader.client],
      "the notice in both chats",
      () => wanted(poster.chat) && wanted(reader.chat),
    );
    expect(server.game.interactables.stats.noticesPosted).toBe(posted + 1);
  }, 30_000);

  it("completes the round trip over a lossy link, the reply handled exactly once", async () => {
    const { profile } = parseProfileSpec("loss=30,delay=20,jitter=10");
    const { client, chat } = await join("Lossy", (udp) => impairTransport(udp, profile, 21));
    const board = entityIdOf("notice board");
    await walkNextTo(client, board, 30_000);
    const posted = server.game.interactables.stats.noticesPosted;
    expect(client.interact(board)).toBeNull();
    await drive([client], "the board's dialog through the loss", () => client.dialogs.shown.size === 1, 10_000);
    const dialog = onlyDialog(client);
    client.replyDialog(dialog.id, 1, ["through the static"]);
    await drive([client], "the close for the reply", () => client.dialogs.repliesPending === 0, 10_000);
    await drive(
      [client],
      "the notice",
      () => chat.some((event) => event.kind === "line" && event.text === "Lossy: through the static"),
      10_000,
    );
    // Re-sent copies of the reply that crossed the close are answered, never handled again.
    const end = performance.now() + 1000;
    await drive([client], "a second for stray copies", () => performance.now() >= end);
    expect(server.game.interactables.stats.noticesPosted).toBe(posted + 1);
    expect(chat.filter((event) => event.kind === "line" && event.text === "Lossy: through the static")).toHaveLength(1);
    expect(client.dialogs.shown.size).toBe(0);
  }, 60_000);
});
