// Server-driven dialogs over loopback UDP on the bundled map: the sign and the
// notice board (interaction = EntityQuery from an adjacent tile), a full
// round trip with lost dialogs, lost replies and lost closes, closes on the
// server's initiative, and malformed or mismatched packets dropped and counted.
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  type ChatPacket,
  type DialogClosePacket,
  type DialogPacket,
  type Packet,
  DIALOG_STATE_CLOSED,
  DIALOG_STATE_SHOWN,
  EncodeError,
  ENTITY_FLAG_INTERACTABLE,
  ENTITY_FLAG_STATIC,
  encodePacketToBytes,
} from "../ts/protocol/index.js";
import type { DialogReply } from "../ts/server/talk/dialogs.js";
import { ENTITY_TYPE_SIGN_POST } from "../ts/server/world/interactables.js";
import { type Harness, startHarness, worldMapWithInteractables } from "./support/game-harness.js";
import { UdpTestClient } from "./support/udp-client.js";
import { walkNextTo } from "./support/walk.js";

const DEFAULT_MAP = fileURLToPath(new URL("../maps/caves.tmj", import.meta.url));
let server: Harness;
const clients: UdpTestClient[] = [];

beforeAll(async () => {
  server = await startHarness(worldMapWithInteractables(DEFAULT_MAP));
});

afterAll(async () => {
  for (const client of clients) client.close();
  await server?.close();
});

async function player(nick: string): Promise<UdpTestClient> {
  const client = await UdpTestClient.connect(server.httpPort, nick);
  clients.push(client);
  client.action(0, 0);
  await client.waitFor("own position", () => client.position());
  return client;
}

function send(client: UdpTestClient, packet: Packet): void {
  client.sendRaw(encodePacketToBytes(packet));
}

function received<T extends Packet["type"]>(client: UdpTestClient, type: T): Extract<Packet, { type: T }>[] {
  return client.received.flatMap(({ packet }) =>
    packet?.type === type ? [packet as Extract<Packet, { type: T }>] : [],
  );
}

const dialogs = (client: UdpTestClient): DialogPacket[] => received(client, "dialog");
const closes = (client: UdpTestClient): DialogClosePacket[] => received(client, "dialog_close");
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function ackDialog(client: UdpTestClient, dialogId: number, state: number): void {
  send(client, { type: "dialog_ack", clientType: 0, authToken: client.token, dialogId, state });
}

function reply(client: UdpTestClient, dialogId: number, returnCode: number, values: string[] = []): void {
  send(client, { type: "dialog_reply", clientType: 0, authToken: client.token, dialogId, returnCode, values });
}

describe("interactables on the bundled map", () => {
  it("are static interactable sign-post entities at the map's objects", () => {
    const sign = server.game.interactables.entityNamed("welcome sign")!;
    const board = server.game.interactables.entityNamed("notice board")!;
    expect([sign.x, sign.y, board.x, board.y]).toEqual([109, 108, 115, 108]);
    for (const entity of [sign, board]) {
      expect(entity.typeId).toBe(ENTITY_TYPE_SIGN_POST);
      expect(entity.flags).toBe(ENTITY_FLAG_STATIC | ENTITY_FLAG_INTERACTABLE);
    }
  });

  it("the sign opens its dialog when queried from next to it; from afar a query is only a query", async () => {
    const reader = await player("Reader");
    const sign = server.game.interactables.entityNamed("welcome sign")!;
    const at = reader.position()!;
    expect(Math.max(Math.abs(at.x - sign.x), Math.abs(at.y - sign.y))).toBeGreaterThan(1);
    reader.query(sign.id);
    const detail = await reader.waitFor("the sign's detail", () => received(reader, "entity_detail")[0]);
    expect(detail.meta).toEqual([{ kind: "name", value: "welcome sign" }]);
    await sleep(300);
    expect(dialogs(reader)).toEqual([]);

    await walkNextTo(reader, sign.x, sign.y);
    reader.query(sign.id);
    const dialog = await reader.waitFor("the sign's dialog", () => dialogs(reader)[0]);
    const texts = dialog.elements.flatMap((e) => (e.kind === "text" ? [e.text] : []));
    expect(texts[0]).toBe("welcome sign");
    expect(texts.slice(1).join(" ")).toMatch(/^The Forgotten Caves\. The great hall is the heart of the caves;/);
    expect(dialog.elements).toContainEqual(expect.objectContaining({ kind: "image", atlasIndex: 14 }));
    const ok = dialog.elements.find((e) => e.kind === "button")!;
    expect(ok).toMatchObject({ label: "OK", returnCode: 1 });
    // Everything inside the 320×240 screen.
    expect(dialog.x + dialog.width).toBeLessThanOrEqual(320);
    expect(dialog.y + dialog.height).toBeLessThanOrEqual(240);

    // Querying again while it is open re-sends the same dialog instead of opening a second one.
    reader.query(sign.id);
    await reader.waitFor("the same dialog again", () => dialogs(reader).length >= 2);
    expect(new Set(dialogs(reader).map((d) => d.dialogId))).toEqual(new Set([dialog.dialogId]));
    ackDialog(reader, dialog.dialogId, DIALOG_STATE_SHOWN);
    reply(reader, dialog.dialogId, 1);
    await reader.waitFor("the close", () => closes(reader).find((c) => c.dialogId === dialog.dialogId));
    expect(server.game.sessions.byTokenValue(reader.token)!.dialogs.open.size).toBe(0);
  });

  it("the notice board asks for a line and posts it to everyone's chat", async () => {
    const writer = await player("Writer");
    const listener = await player("Listener");
    const board = server.game.interactables.entityNamed("notice board")!;
    await walkNextTo(writer, board.x, board.y);
    writer.query(board.id);
    const dialog = await writer.waitFor("the board's dialog", () => dialogs(writer)[0]);
    const input = dialog.elements.find((e) => e.kind === "text_input")!;
    expect(input).toMatchObject({ maxBytes: 120, text: "" });
    const post = dialog.elements.find((e) => e.kind === "button" && e.label === "Post")!;
    reply(writer, dialog.dialogId, post.kind === "button" ? post.returnCode : 0, ["Meet me at the east bridge"]);
    const notice = await listener.waitFor("the notice in chat", () =>
      received(listener, "chat").find((line: ChatPacket) => line.text.endsWith("Meet me at the east bridge")),
    );
    expect(notice).toMatchObject({
      speakerEntityId: 0,
      speakerName: "notice board",
      text: "Writer: Meet me at the east bridge",
    });
    await writer.waitFor("the close", () => closes(writer).find((c) => c.dialogId === dialog.dialogId));
    // The board keeps it: the next reader sees it above the input, with its author.
    await walkNextTo(listener, board.x, board.y);
    listener.query(board.id);
    const read = await listener.waitFor("the board's dialog", () => dialogs(listener)[0]);
    const texts = read.elements.flatMap((e) => (e.kind === "text" ? [e.text] : []));
    expect(texts[1]).toMatch(/^Writer, \d{1,2} [A-Z][a-z]{2} \d\d:\d\d: Meet me at the east bridge$/);
  });
});

describe("dialog round trip", () => {
  const spec = {
    x: 40,
    y: 60,
    width: 160,
    height: 90,
    elements: [
      { kind: "text" as const, x: 8, y: 8, width: 144, height: 10, text: "Name your pet:" },
      { kind: "text_input" as const, x: 8, y: 24, width: 144, height: 12, maxBytes: 16, text: "Rex" },
      { kind: "button" as const, x: 20, y: 60, width: 50, height: 12, returnCode: 7, label: "Adopt" },
      { kind: "button" as const, x: 90, y: 60, width: 50, height: 12, returnCode: 8, label: "Leave" },
    ],
  };

  it("a lost dialog is re-sent until acknowledged; a lost reply and a lost close are re-sent; the reply is handled once", async () => {
    const client = await player("Pet owner");
    const session = server.game.sessions.byTokenValue(client.token)!;
    let droppedDialogs = 0;
    client.dropInbound = (packet) => packet.type === "dialog" && droppedDialogs++ === 0;
    const replies: DialogReply[] = [];
    const id = server.game.dialogs.open(session, spec, (answer) => replies.push(answer));
    const shown = await client.waitFor("the re-sent dialog", () => dialogs(client)[0], 2000);
    expect(droppedDialogs).toBe(2); // the first copy was lost, the re-send arrived
    expect(shown).toMatchObject({ dialogId: id, ...spec });
    ackDialog(client, id, DIALOG_STATE_SHOWN);
    await sleep(100);
    const copies = dialogs(client).length;
    await sleep(1200);
    expect(dialogs(client).length).toBe(copies); // acknowledged: no more re-sends

    // The client's first reply is lost on the way (never sent here); its re-send arrives,
    // but the close answering it is lost; the client re-sends the reply once more.
    let droppedCloses = 0;
    client.dropInbound = (packet) => packet.type === "dialog_close" && droppedCloses++ === 0;
    reply(client, id, 7, ["Whiskers"]);
    await client.waitFor("the first close (lost)", () => droppedCloses === 1);
    expect(replies).toHaveLength(1);
    reply(client, id, 7, ["Whiskers"]);
    await client.waitFor("the second close", () => closes(client).find((c) => c.dialogId === id));
    await sleep(100);
    expect(replies).toHaveLength(1);
    expect(replies[0]).toMatchObject({ dialogId: id, returnCode: 7, values: ["Whiskers"] });
    expect(replies[0].session).toBe(session);
    expect(server.game.dialogs.stats.duplicateReplies).toBeGreaterThanOrEqual(1);
    expect(session.dialogs.open.size).toBe(0);
  });

  it("a close on the server's initiative is re-sent until the client acknowledges it", async () => {
    const client = await player("Closer");
    const session = server.game.sessions.byTokenValue(client.token)!;
    const replies: DialogReply[] = [];
    const id = server.game.dialogs.open(session, spec, (answer) => replies.push(answer));
    await client.waitFor("the dialog", () => dialogs(client)[0]);
    ackDialog(client, id, DIALOG_STATE_SHOWN);
    let dropped = 0;
    client.dropInbound = (packet) => packet.type === "dialog_close" && dropped++ === 0;
    expect(server.game.dialogs.close(session, id)).toBe(true);
    expect(server.game.dialogs.close(session, id)).toBe(false);
    await client.waitFor("the re-sent close", () => closes(client)[0], 2000);
    ackDialog(client, id, DIALOG_STATE_CLOSED);
    await client.waitFor("the close acknowledged", () => session.dialogs.closing.size === 0);
    await sleep(800);
    expect(closes(client)).toHaveLength(1);
    expect(replies).toEqual([]); // game code closed it: no callback
  });

  it("a dialog the client discards counts as dismissed", async () => {
    const client = await player("Discarder");
    const session = server.game.sessions.byTokenValue(client.token)!;
    const replies: DialogReply[] = [];
    const id = server.game.dialogs.open(session, spec, (answer) => replies.push(answer));
    await client.waitFor("the dialog", () => dialogs(client)[0]);
    ackDialog(client, id, DIALOG_STATE_CLOSED);
    await client.waitFor("the dismissal", () => replies[0]);
    expect(replies[0]).toMatchObject({ dialogId: id, returnCode: 0, values: [] });
  });

  it("drops malformed dialog packets by decode code, and handles a mismatched reply as a dismissal", async () => {
    const client = await player("Mangler");
    const session = server.game.sessions.byTokenValue(client.token)!;
    const replies: DialogReply[] = [];
    const id = server.game.dialogs.open(session, spec, (answer) => replies.push(answer));
    await client.waitFor("the dialog", () => dialogs(client)[0]);
    const token = u64(client.token);
    const idBytes = [id & 0xff, (id >> 8) & 0xff, 0, 0];
    const before = new Map(server.game.metrics.drops);
    const malformed: [string, number[]][] = [
      ["bad_text", [0x4c, 0x52, 0x01, 0x0f, 0, 0, ...token, ...idBytes, 7, 0, 1, 2, 0x61, 0x0a]],
      [
        "text_too_long",
        [0x4c, 0x52, 0x01, 0x0f, 0, 0, ...token, ...idBytes, 7, 0, 1, 201, ...new Array<number>(201).fill(0x61)],
      ],
      ["bad_dialog_id", [0x4c, 0x52, 0x01, 0x0f, 0, 0, ...token, 0, 0, 0, 0, 7, 0, 0]],
      ["bad_status", [0x4c, 0x52, 0x01, 0x0e, 0, 0, ...token, ...idBytes, 2]],
      ["truncated", [0x4c, 0x52, 0x01, 0x0f, 0, 0, ...token, ...idBytes, 7, 0, 2, 1, 0x61]],
      ["wrong_direction", Array.from(encodePacketToBytes({ type: "dialog_close", clientType: 0, dialogId: id }))],
    ];
    for (const [, bytes] of malformed) client.sendRaw(new Uint8Array(bytes));
    await client.waitFor("every drop counted", () =>
      malformed.every(([code]) => (server.game.metrics.drops.get(code) ?? 0) > (before.get(code) ?? 0)),
    );
    expect(replies).toEqual([]);
    expect(session.dialogs.open.has(id)).toBe(true);

    // Well-formed but not an answer to this dialog: two values for one input, an unknown button.
    const mismatches = server.game.metrics.drops.get("dialog_mismatch") ?? 0;
    reply(client, id, 7, ["a", "b"]);
    await client.waitFor("the mismatch", () => replies[0]);
    expect(replies[0]).toMatchObject({ returnCode: 0, values: [] });
    expect(server.game.metrics.drops.get("dialog_mismatch")).toBe(mismatches + 1);
    const second = server.game.dialogs.open(session, spec, (answer) => replies.push(answer));
    reply(client, second, 99, ["x"]);
    await client.waitFor("the second mismatch", () => replies[1]);
    expect(replies[1]).toMatchObject({ dialogId: second, returnCode: 0 });
    const third = server.game.dialogs.open(session, spec, (answer) => replies.push(answer));
    reply(client, third, 8, ["seventeen bytes!!"]);
    await client.waitFor("the third mismatch", () => replies[2]);
    expect(replies[2]).toMatchObject({ dialogId: third, returnCode: 0 });
  });

  it("refuses a dialog that does not fit 1200 bytes when game code opens it", async () => {
    const client = await player("Long reader");
    const session = server.game.sessions.byTokenValue(client.token)!;
    const long = { kind: "text" as const, x: 0, y: 0, width: 100, height: 10, text: "x".repeat(255) };
    let thrown: unknown;
    try {
      server.game.dialogs.open(
        session,
        { x: 0, y: 0, width: 100, height: 100, elements: [long, long, long, long, long] },
        () => {},
      );
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(EncodeError);
    expect((thrown as EncodeError).code).toBe("oversize");
    expect(session.dialogs.open.size).toBe(0);
  });
});

function u64(value: bigint): number[] {
  const bytes: number[] = [];
  for (let index = 0; index < 8; index++) bytes.push(Number((value >> BigInt(index * 8)) & 0xffn));
  return bytes;
}
