// Chat delivery, custom messages, hover name lookups and the interaction
// trigger in the client core: a whole GameClient (real wasm core) on a virtual
// clock, fed real encoded server packets; every datagram it sends is decoded
// and checked (docs/protocol.md §§ 14, 17, 18).
import { describe, expect, it } from "vitest";
import type { ChatEvent } from "../ts/client/core/index.js";
import { CHAT_OUTBOX_MAX, CHAT_RESEND_MS, chatTextProblem } from "../ts/client/core/index.js";
import {
  CHAT_STATUS_POSTED,
  CHAT_STATUS_RATE_LIMITED,
  CHAT_STATUS_REFUSED,
  type ChatPacket,
  EncodeError,
} from "../ts/protocol/index.js";
import { nameDatagram, player, sign } from "./client-core-support.js";
import { scriptedClient, TOKEN } from "./client-chat-support.js";

function line(seq: number, text: string, speakerEntityId = 9, speakerName = "Bo", oldestSeq = 1): ChatPacket {
  return { type: "chat", clientType: 0, seq, oldestSeq, speakerEntityId, speakerName, text };
}

function postAck(seq: number, status = CHAT_STATUS_POSTED) {
  return { type: "chat_post_ack" as const, clientType: 0, seq, status };
}

/** Entity ids the client queried, in order (its own name lookup aside). */
function queried(s: Awaited<ReturnType<typeof scriptedClient>>, ownId = 7): number[] {
  return s.sent("entity_query").flatMap((query) => (query.entityId === ownId ? [] : [query.entityId]));
}

describe("chat: the player's lines", () => {
  it("numbers lines from 1, sends each at once with the session token, and re-sends all unacknowledged in order", async () => {
    const s = await scriptedClient();
    expect(s.client.postChat("hello")).toBe("sent");
    expect(s.client.postChat("second line")).toBe("sent");
    expect(s.sent("chat_post").map((post) => [post.seq, post.text, post.authToken])).toEqual([
      [1, "hello", TOKEN],
      [2, "second line", TOKEN],
    ]);
    const before = s.link.sent.length;
    s.advance(CHAT_RESEND_MS - 1);
    expect(s.sent("chat_post", before)).toEqual([]);
    s.advance(1);
    expect(s.sent("chat_post", before).map((post) => post.seq)).toEqual([1, 2]);
    expect(s.client.chat.counters.resent).toBe(2);
  });

  it("stops re-sending what a cumulative ack covers, and re-sends the rest", async () => {
    const s = await scriptedClient();
    s.client.postChat("one");
    s.client.postChat("two");
    s.client.postChat("three");
    s.deliver(postAck(2));
    expect(s.client.chat.unacknowledged).toBe(1);
    const before = s.link.sent.length;
    s.advance(CHAT_RESEND_MS);
    expect(s.sent("chat_post", before).map((post) => post.seq)).toEqual([3]);
    s.deliver(postAck(3));
    s.advance(CHAT_RESEND_MS * 4);
    expect(s.sent("chat_post", before).map((post) => post.seq)).toEqual([3]);
    expect(s.client.chat.unacknowledged).toBe(0);
  });

  it("a re-acknowledged line changes nothing; an ack below the queue is ignored", async () => {
    const s = await scriptedClient();
    s.client.postChat("one");
    s.deliver(postAck(1), postAck(1));
    expect(s.client.chat.unacknowledged).toBe(0);
    s.client.postChat("two");
    s.deliver(postAck(1));
    expect(s.client.chat.unacknowledged).toBe(1);
  });

  it("tells the player when the server handled a line without posting it", async () => {
    const s = await scriptedClient();
    const events: ChatEvent[] = [];
    s.client.chat.listen((event) => events.push(event));
    s.client.postChat("fine");
    s.client.postChat("too fast");
    s.client.postChat("muted");
    s.deliver(postAck(1), postAck(2, CHAT_STATUS_RATE_LIMITED), postAck(3, CHAT_STATUS_REFUSED), postAck(3));
    expect(events).toEqual([
      { kind: "not_posted", text: "too fast", reason: "rate_limited" },
      { kind: "not_posted", text: "muted", reason: "refused" },
    ]);
  });

  it("refuses blank, over-long and unsendable lines without sending anything, and bounds the queue", async () => {
    const s = await scriptedClient();
    expect(s.client.postChat("   ")).toBe("empty");
    expect(s.client.postChat("é".repeat(101))).toBe("too_long"); // 202 bytes of UTF-8
    expect(s.client.postChat("é".repeat(100))).toBe("sent"); // exactly 200
    expect(s.client.postChat("bell\u0007")).toBe("bad_text");
    expect(s.client.postChat("lone \ud800")).toBe("bad_text");
    expect(chatTextProblem("x".repeat(200))).toBeNull();
    expect(chatTextProblem("x".repeat(201))).toBe("too_long");
    for (let index = 1; index < CHAT_OUTBOX_MAX; index++) expect(s.client.postChat(`line ${index}`)).toBe("sent");
    expect(s.client.postChat("one too many")).toBe("busy");
    expect(s.sent("chat_post")).toHaveLength(CHAT_OUTBOX_MAX);
    s.deliver(postAck(1));
    expect(s.client.postChat("room again")).toBe("sent");
  });

  it("starts numbering again in a new session and reports lines that were left unacknowledged", async () => {
    const { ScriptedLink, testSession } = await import("./client-core-support.js");
    const next = new ScriptedLink();
    const s = await scriptedClient(
      [],
      { x: 40, y: 40 },
      {
        reconnect: async () => ({ session: testSession(8, 0xabcn), transport: next }),
      },
    );
    const events: ChatEvent[] = [];
    s.client.chat.listen((event) => events.push(event));
    s.client.postChat("lost in the cut");
    s.link.die("cable pulled");
    s.advance(0);
    expect(s.client.state).toBe("reconnecting");
    await new Promise((resolve) => setTimeout(resolve, 0));
    expect(s.client.state).toBe("connecting");
    expect(events).toEqual([{ kind: "unsent", count: 1 }]);
    s.client.postChat("first of the new session");
    const posts = next.sent.filter((packet) => packet.type === "chat_post");
    expect(posts).toEqual([
      { type: "chat_post", clientType: 0, authToken: 0xabcn, seq: 1, text: "first of the new session" },
    ]);
  });
});

describe("chat: lines from the server", () => {
  it("shows lines in order and acknowledges every ChatPacket with the highest line received in order", async () => {
    const s = await scriptedClient();
    const events: ChatEvent[] = [];
    s.client.chat.listen((event) => events.push(event));
    s.deliver(line(1, "Bo joined", 0, ""), line(2, "hi all"));
    expect(events).toEqual([
      { kind: "line", seq: 1, speakerEntityId: 0, speakerName: "", text: "Bo joined" },
      { kind: "line", seq: 2, speakerEntityId: 9, speakerName: "Bo", text: "hi all" },
    ]);
    expect(s.sent("chat_ack").map((ack) => [ack.seq, ack.authToken])).toEqual([
      [1, TOKEN],
      [2, TOKEN],
    ]);
  });

  it("ignores duplicates and lines beyond a gap, still acknowledging each, and shows the re-sent lines in order", async () => {
    const s = await scriptedClient();
    const shown: number[] = [];
    s.client.chat.listen((event) => {
      if (event.kind === "line") shown.push(event.seq);
    });
    s.deliver(line(1, "a"), line(1, "a"), line(3, "c"), line(4, "d"));
    expect(shown).toEqual([1]);
    expect(s.sent("chat_ack").map((ack) => ack.seq)).toEqual([1, 1, 1, 1]);
    // The server re-sends its in-flight window in order.
    s.deliver(line(2, "b"), line(3, "c"), line(4, "d"));
    expect(shown).toEqual([1, 2, 3, 4]);
    expect(s.sent("chat_ack").map((ack) => ack.seq)).toEqual([1, 1, 1, 1, 2, 3, 4]);
    expect(s.client.chat.counters).toMatchObject({ received: 4, ignored: 3 });
  });

  it("reports lines the server dropped (oldest_seq above the next expected) and carries on from there", async () => {
    const s = await scriptedClient();
    const events: ChatEvent[] = [];
    s.client.chat.listen((event) => events.push(event));
    s.deliver(line(1, "a"), line(70, "late", 9, "Bo", 67));
    expect(events.map((event) => event.kind)).toEqual(["line", "missed"]);
    expect(events[1]).toEqual({ kind: "missed", count: 65 });
    expect(s.sent("chat_ack").map((ack) => ack.seq)).toEqual([1, 66]);
    s.deliver(
      line(67, "x", 9, "Bo", 67),
      line(68, "y", 9, "Bo", 67),
      line(69, "z", 9, "Bo", 67),
      line(70, "late", 9, "Bo", 67),
    );
    expect(events.filter((event) => event.kind === "line").map((event) => (event as { seq: number }).seq)).toEqual([
      1, 67, 68, 69, 70,
    ]);
  });

  it("chat packets are the core's own: they never reach onOtherPacket", async () => {
    const s = await scriptedClient();
    s.deliver(line(1, "a"), postAck(1));
    expect(s.others).toEqual([]);
  });
});

describe("custom messages", () => {
  it("routes server messages by subtype to the registered handler, and unknown subtypes to onOtherPacket", async () => {
    const s = await scriptedClient();
    const got: [number, number[]][] = [];
    s.client.onCustom(7, (payload, subtype) => got.push([subtype, [...payload]]));
    s.deliver(
      { type: "custom_to_client", clientType: 0, subtype: 7, payload: new Uint8Array([1, 2, 3]) },
      { type: "custom_to_client", clientType: 0, subtype: 8, payload: new Uint8Array([9]) },
      { type: "custom_to_client", clientType: 0, subtype: 7, payload: new Uint8Array(0) },
    );
    expect(got).toEqual([
      [7, [1, 2, 3]],
      [7, []],
    ]);
    expect(s.others).toEqual(["custom_to_client"]);
    s.client.offCustom(7);
    s.deliver({ type: "custom_to_client", clientType: 0, subtype: 7, payload: new Uint8Array([4]) });
    expect(got).toHaveLength(2);
  });

  it("replaces a handler, contains a throwing one, and counts", async () => {
    const s = await scriptedClient();
    const got: string[] = [];
    s.client.onCustom(1, () => got.push("first"));
    s.client.onCustom(1, () => {
      got.push("second");
      throw new Error("game code bug");
    });
    s.deliver({ type: "custom_to_client", clientType: 0, subtype: 1, payload: new Uint8Array([0]) });
    expect(got).toEqual(["second"]);
    expect(s.client.state).toBe("playing");
  });

  it("sends the game's payload with the session token, and refuses what the wire cannot carry", async () => {
    const s = await scriptedClient();
    s.client.sendCustom(0xbeef, new Uint8Array([5, 6]));
    s.client.sendCustom(0, new Uint8Array(1182));
    const sent = s.sent("custom_to_server");
    expect(sent.map((packet) => [packet.subtype, packet.payload.length, packet.authToken])).toEqual([
      [0xbeef, 2, TOKEN],
      [0, 1182, TOKEN],
    ]);
    expect([...sent[0].payload]).toEqual([5, 6]);
    expect(() => s.client.sendCustom(1, new Uint8Array(1183))).toThrow(EncodeError);
    expect(() => s.client.sendCustom(65536, new Uint8Array(0))).toThrow(RangeError);
    expect(() => s.client.onCustom(-1, () => {})).toThrow(RangeError);
    expect(s.sent("custom_to_server")).toHaveLength(2);
  });
});

describe("names on hover", () => {
  it("looks a hovered entity up once, re-asks after 250 ms without an answer, and keeps the answer", async () => {
    const s = await scriptedClient([{ ...player(9, 45, 40), typeId: 1 }]);
    s.advance(1);
    expect(queried(s)).toEqual([]); // creatures are not asked for automatically
    s.client.lookUpName(9);
    s.client.lookUpName(9);
    s.advance(1);
    expect(queried(s)).toEqual([9]);
    s.advance(249);
    expect(queried(s)).toEqual([9]);
    s.advance(1);
    expect(queried(s)).toEqual([9, 9]);
    s.link.deliver(nameDatagram(9, "Grub"));
    s.client.lookUpName(9);
    s.advance(1000);
    expect(queried(s)).toEqual([9, 9]);
    expect(s.client.names.get(9)).toBe("Grub");
  });

  it("never asks an interactable within reach for its name: that query would use it", async () => {
    const s = await scriptedClient([sign(20, 41, 41), sign(21, 50, 40)]);
    s.client.lookUpName(20);
    s.client.lookUpName(21);
    for (let index = 0; index < 8; index++) s.advance(250);
    expect(new Set(queried(s))).toEqual(new Set([21]));
  });
});

describe("the interaction trigger", () => {
  it("uses an adjacent interactable with an EntityQuery, re-sent until its detail arrives", async () => {
    const s = await scriptedClient([sign(20, 41, 39)]);
    expect(s.client.interact(20)).toBeNull();
    expect(s.sent("entity_query").map((query) => [query.entityId, query.authToken])).toEqual([[20, TOKEN]]);
    s.advance(250);
    expect(queried(s)).toEqual([20, 20]);
    s.link.deliver(nameDatagram(20, "welcome sign"));
    s.advance(1000);
    expect(queried(s)).toEqual([20, 20]);
  });

  it("stops re-sending when the dialog arrives even if the detail was lost, and gives up after 4 tries", async () => {
    const s = await scriptedClient([sign(20, 41, 39)]);
    s.client.interact(20);
    s.deliver({
      type: "dialog",
      clientType: 0,
      dialogId: 1,
      x: 16,
      y: 16,
      width: 100,
      height: 50,
      elements: [{ kind: "button", x: 4, y: 4, width: 40, height: 12, returnCode: 1, label: "OK" }],
    });
    s.advance(1000);
    expect(queried(s)).toEqual([20]);
    s.client.interact(20);
    for (let index = 0; index < 10; index++) s.advance(250);
    expect(queried(s)).toEqual([20, 20, 20, 20, 20]);
  });

  it("refuses what the server would not take as an interaction", async () => {
    const s = await scriptedClient([sign(20, 42, 40), player(9, 41, 40), sign(22, 39, 41)]);
    expect(s.client.interact(20)).toBe("too-far");
    expect(s.client.interact(9)).toBe("not-interactable");
    expect(s.client.interact(99)).toBe("not-interactable");
    s.client.setHeldAction(2); // east: a step goes into flight
    s.advance(1);
    expect(s.client.pending.length).toBeGreaterThan(0);
    expect(s.client.interact(22)).toBe("moving");
    expect(queried(s).filter((id) => id !== 9)).toEqual([]);
  });
});
