// Chat and custom messages between real clients over loopback UDP: system
// join lines, delivery to everyone, acknowledgements and re-sends on a lossy
// link, duplicates, gaps, the per-session rate limit, the bounded queue, and
// malformed packets dropped and counted by their decode error code.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  type ChatPacket,
  type ChatPostAckPacket,
  type Packet,
  CHAT_STATUS_POSTED,
  CHAT_STATUS_RATE_LIMITED,
  CHAT_STATUS_REFUSED,
  encodePacketToBytes,
} from "../ts/protocol/index.js";
import { CHAT_SPEAKER_PRESENCE } from "../ts/protocol/chat.js";
import { CHAT_BURST, CHAT_QUEUE_MAX } from "../ts/server/sessions/chat-channel.js";
import { type Harness, startHarnessOnTestMap } from "./support/game-harness.js";
import { UdpTestClient } from "./support/udp-client.js";

let server: Harness;
const clients: UdpTestClient[] = [];

beforeAll(async () => {
  server = await startHarnessOnTestMap();
});

afterAll(async () => {
  for (const client of clients) client.close();
  await server?.close();
});

async function player(nick: string): Promise<UdpTestClient> {
  const client = await UdpTestClient.connect(server.httpPort, nick);
  clients.push(client);
  client.action(0, 0);
  await client.waitFor("first state", () => client.lastState());
  return client;
}

function send(client: UdpTestClient, packet: Packet): void {
  client.sendRaw(encodePacketToBytes(packet));
}

function post(client: UdpTestClient, seq: number, text: string): void {
  send(client, { type: "chat_post", clientType: 0, authToken: client.token, seq, text });
}

function ack(client: UdpTestClient, seq: number): void {
  send(client, { type: "chat_ack", clientType: 0, authToken: client.token, seq });
}

/** Every chat datagram received, duplicates included. */
function chats(client: UdpTestClient): ChatPacket[] {
  return client.received.flatMap(({ packet }) => (packet?.type === "chat" ? [packet] : []));
}

/** Chat lines in order, one per sequence number. */
function lines(client: UdpTestClient): ChatPacket[] {
  const bySeq = new Map<number, ChatPacket>();
  for (const chat of chats(client)) if (!bySeq.has(chat.seq)) bySeq.set(chat.seq, chat);
  return [...bySeq.values()].sort((a, b) => a.seq - b.seq);
}

function postAcks(client: UdpTestClient): ChatPostAckPacket[] {
  return client.received.flatMap(({ packet }) => (packet?.type === "chat_post_ack" ? [packet] : []));
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe("chat", () => {
  it("two players: join notices, a line delivered to both with the speaker's id and name, acks", async () => {
    const ann = await player("Ann");
    const bob = await player("Bob");
    // Joins within a second are announced together ("Ann and Bob joined"; join-notices.ts).
    const namesBob = (text: string) => /^(Bob|Ann and Bob) joined$/.test(text);
    const joined = await ann.waitFor("Bob's join notice", () => lines(ann).find((line) => namesBob(line.text)));
    // The system speaks it under the presence name: clients file it apart from other system lines (issue 18).
    expect(joined).toMatchObject({ speakerEntityId: 0, speakerName: CHAT_SPEAKER_PRESENCE });
    expect(lines(bob).some((line) => namesBob(line.text))).toBe(true);

    post(ann, 1, "hello Bob ✓");
    const heard = await bob.waitFor("Ann's line", () => lines(bob).find((line) => line.text === "hello Bob ✓"));
    expect(heard).toMatchObject({ speakerEntityId: ann.joined.entityId, speakerName: "Ann" });
    expect(heard.oldestSeq).toBeLessThanOrEqual(heard.seq);
    await ann.waitFor("her own line", () => lines(ann).find((line) => line.text === "hello Bob ✓"));
    expect(await ann.waitFor("the post ack", () => postAcks(ann)[0])).toEqual({
      type: "chat_post_ack",
      clientType: 0,
      seq: 1,
      status: CHAT_STATUS_POSTED,
    });
    // Each client's lines are numbered 1, 2, 3, … without gaps.
    for (const client of [ann, bob]) {
      expect(lines(client).map((line) => line.seq)).toEqual(lines(client).map((_, index) => index + 1));
    }
    // A cumulative ack empties the queue.
    const session = server.game.sessions.byTokenValue(bob.token)!;
    ack(bob, lines(bob)[lines(bob).length - 1].seq);
    await bob.waitFor("Bob's queue emptied", () => session.chat.pending === 0);
  });

  it("a lost line is re-sent until acknowledged, then no more", async () => {
    const cat = await player("Cat");
    let dropped = 0;
    cat.dropInbound = (packet) => packet.type === "chat" && packet.text === "once lost" && dropped++ === 0;
    server.game.chat.system("once lost");
    const copy = await cat.waitFor(
      "the re-sent line",
      () => lines(cat).find((line) => line.text === "once lost"),
      2000,
    );
    expect(dropped).toBeGreaterThanOrEqual(2);
    // Unacknowledged, it keeps coming back (with back-off).
    await sleep(800);
    const copies = chats(cat).filter((chat) => chat.seq === copy.seq).length;
    expect(copies).toBeGreaterThanOrEqual(2);
    ack(cat, lines(cat)[lines(cat).length - 1].seq);
    await sleep(100);
    const settled = chats(cat).length;
    await sleep(1200);
    expect(chats(cat).length).toBe(settled);
  });

  it("a re-sent post is acknowledged again but posted once; a line after a gap waits for the missing one", async () => {
    const dan = await player("Dan");
    const eve = await player("Eve");
    post(dan, 1, "first");
    post(dan, 1, "first");
    await dan.waitFor("two acks", () => postAcks(dan).length >= 2);
    expect(postAcks(dan).map((a) => a.seq)).toEqual([1, 1]);
    const gapDrops = server.game.metrics.drops.get("chat_out_of_order") ?? 0;
    post(dan, 3, "third");
    await dan.waitFor(
      "the gap dropped and counted",
      () => (server.game.metrics.drops.get("chat_out_of_order") ?? 0) > gapDrops,
    );
    await dan.waitFor("an ack pointing back at 1", () => postAcks(dan).length >= 3);
    expect(postAcks(dan)[2].seq).toBe(1);
    post(dan, 2, "second");
    post(dan, 3, "third");
    await eve.waitFor(
      "three lines from Dan",
      () => lines(eve).filter((line) => line.speakerName === "Dan").length === 3,
    );
    await sleep(200);
    const fromDan = lines(eve)
      .filter((line) => line.speakerName === "Dan")
      .map((line) => line.text);
    expect(fromDan).toEqual(["first", "second", "third"]);
  });

  it("rate-limits each session: lines beyond the burst are refused with a status, blank ones too", async () => {
    const fay = await player("Fay");
    for (let seq = 1; seq <= CHAT_BURST + 2; seq++) post(fay, seq, `line ${seq}`);
    await fay.waitFor("an ack for every line", () => postAcks(fay).length >= CHAT_BURST + 2);
    const statuses = postAcks(fay).map((a) => a.status);
    expect(statuses.slice(0, CHAT_BURST)).toEqual(new Array(CHAT_BURST).fill(CHAT_STATUS_POSTED));
    expect(statuses.slice(CHAT_BURST)).toEqual([CHAT_STATUS_RATE_LIMITED, CHAT_STATUS_RATE_LIMITED]);
    post(fay, CHAT_BURST + 3, "   ");
    await fay.waitFor("the blank line's ack", () => postAcks(fay).length >= CHAT_BURST + 3);
    expect(postAcks(fay)[CHAT_BURST + 2].status).toBe(CHAT_STATUS_REFUSED);
    await sleep(100);
    expect(lines(fay).filter((line) => line.speakerName === "Fay")).toHaveLength(CHAT_BURST);
  });

  it("refuses a line carrying bidi overrides, embeddings or isolates, which could make it read as someone else's", async () => {
    const ida = await player("Ida");
    const spoofs = ["\u202Enimda :metsys", "hi \u202Aall", "x\u2066y", "ok\u2069"];
    spoofs.forEach((text, index) => post(ida, index + 1, text));
    post(ida, spoofs.length + 1, "שלום and hello"); // right-to-left text itself is fine
    await ida.waitFor("an ack for every line", () => postAcks(ida).length >= spoofs.length + 1);
    const statuses = postAcks(ida).map((a) => a.status);
    expect(statuses).toEqual([...spoofs.map(() => CHAT_STATUS_REFUSED), CHAT_STATUS_POSTED]);
    await ida.waitFor("the plain line", () => lines(ida).find((line) => line.text === "שלום and hello"));
    expect(lines(ida).filter((line) => line.speakerName === "Ida")).toHaveLength(1);
  });

  it("drops malformed posts — over-long, ill-formed UTF-8, control characters, empty, seq 0 — counting each by code", async () => {
    const gus = await player("Gus");
    const header = (seq: number) => [0x4c, 0x52, 0x01, 0x08, 0x00, 0x00, ...u64(gus.token), seq, 0, 0, 0];
    const before = new Map(server.game.metrics.drops);
    const malformed: [string, number[]][] = [
      ["text_too_long", [...header(1), 201, ...new Array<number>(201).fill(0x61)]],
      ["bad_text", [...header(1), 2, 0xc3, 0x28]],
      ["bad_text", [...header(1), 3, 0x61, 0x0a, 0x62]],
      ["bad_text", [...header(1), 0]],
      ["bad_sequence", [...header(0), 1, 0x61]],
      ["length_overrun", [...header(1), 5, 0x61]],
    ];
    for (const [, bytes] of malformed) gus.sendRaw(new Uint8Array(bytes));
    const expected = new Map<string, number>();
    for (const [code] of malformed) expected.set(code, (expected.get(code) ?? 0) + 1);
    await gus.waitFor("every drop counted", () =>
      [...expected].every(
        ([code, count]) => (server.game.metrics.drops.get(code) ?? 0) - (before.get(code) ?? 0) === count,
      ),
    );
    await sleep(150);
    expect(postAcks(gus)).toEqual([]);
    expect(server.game.sessions.byTokenValue(gus.token)!.chat.inboundSeq).toBe(0);
  });

  it("bounds each session's queue: a client that never acks loses the oldest lines, and is told so", async () => {
    const hal = await player("Hal");
    const session = server.game.sessions.byTokenValue(hal.token)!;
    const dropped = server.game.chat.stats.overflowDropped;
    for (let index = 0; index < CHAT_QUEUE_MAX + 10; index++) server.game.chat.tell(session, `notice ${index}`);
    expect(session.chat.pending).toBe(CHAT_QUEUE_MAX);
    expect(server.game.chat.stats.overflowDropped - dropped).toBeGreaterThanOrEqual(10);
    // Every ChatPacket names the oldest line still queued: the lines below it that never
    // arrived are gone for good, and the client can tell instead of waiting for them.
    const oldest = session.chat.oldestSeq;
    expect(oldest).toBeGreaterThan(10);
    await hal.waitFor("a (re-)sent line telling the new oldest", () =>
      chats(hal).find((chat) => chat.oldestSeq === oldest),
    );
    expect(chats(hal).every((chat) => chat.oldestSeq <= chat.seq && chat.oldestSeq <= oldest)).toBe(true);
  });
});

describe("custom messages", () => {
  it("game code gets its own channel both ways: onCustom / sendCustom, unknown subtypes dropped and counted", async () => {
    const ivy = await player("Ivy");
    const seen: { subtype: number; payload: number[]; entityId: number }[] = [];
    server.game.onCustom(0x4242, (session, payload, subtype) => {
      seen.push({ subtype, payload: Array.from(payload), entityId: session.entity.id });
      server.game.sendCustom(session, 0x4243, payload.slice().reverse());
    });
    send(ivy, {
      type: "custom_to_server",
      clientType: 0,
      authToken: ivy.token,
      subtype: 0x4242,
      payload: new Uint8Array([1, 2, 3]),
    });
    const answer = await ivy.waitFor("the answer", () =>
      ivy.received.map(({ packet }) => packet).find((packet) => packet?.type === "custom_to_client"),
    );
    expect(answer).toEqual({
      type: "custom_to_client",
      clientType: 0,
      subtype: 0x4243,
      payload: new Uint8Array([3, 2, 1]),
    });
    expect(seen).toEqual([{ subtype: 0x4242, payload: [1, 2, 3], entityId: ivy.joined.entityId }]);

    const unknown = server.game.metrics.drops.get("unknown_custom_subtype") ?? 0;
    send(ivy, {
      type: "custom_to_server",
      clientType: 0,
      authToken: ivy.token,
      subtype: 7,
      payload: new Uint8Array(0),
    });
    await ivy.waitFor("the drop", () => (server.game.metrics.drops.get("unknown_custom_subtype") ?? 0) === unknown + 1);
    expect(() =>
      server.game.sendCustom(server.game.sessions.byTokenValue(ivy.token)!, 1, new Uint8Array(1191)),
    ).toThrow(/exceeds 1190/);
  });
});

function u64(value: bigint): number[] {
  const bytes: number[] = [];
  for (let index = 0; index < 8; index++) bytes.push(Number((value >> BigInt(index * 8)) & 0xffn));
  return bytes;
}
