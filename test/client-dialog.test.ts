// The dialog state machine of the client core (docs/protocol.md § 16, P-13): a
// whole GameClient (real wasm core) on a virtual clock, fed real encoded
// Dialog and DialogClose packets; every ack and reply it sends is decoded and
// checked. Open → ack; press → reply, re-sent until the close; ids make
// everything idempotent.
import { describe, expect, it } from "vitest";
import {
  DIALOG_REPLY_RESEND_MS,
  dialogValueProblem,
  type DialogEvent,
  type ShownDialog,
} from "../ts/client/core/index.js";
import { DIALOG_REPLY_MAX_SENDS, DIALOGS_SHOWN_MAX } from "../ts/client/core/dialogs.js";
import {
  DIALOG_STATE_CLOSED,
  DIALOG_STATE_SHOWN,
  type DialogPacket,
  encodePacketToBytes,
} from "../ts/protocol/index.js";
import { ScriptedLink, testSession } from "./client-core-support.js";
import { type ScriptedClient, scriptedClient, TOKEN } from "./client-chat-support.js";

const SHOWN = DIALOG_STATE_SHOWN;
const CLOSED = DIALOG_STATE_CLOSED;

/** The notice board's dialog shape: a text, a text input of 12 bytes, Post (1) and Cancel (2). */
function noticeDialog(dialogId: number): DialogPacket {
  return {
    type: "dialog",
    clientType: 0,
    dialogId,
    x: 16,
    y: 80,
    width: 208,
    height: 80,
    elements: [
      { kind: "text", x: 8, y: 8, width: 190, height: 10, text: "Pin a notice:" },
      { kind: "text_input", x: 8, y: 30, width: 190, height: 12, maxBytes: 12, text: "" },
      { kind: "button", x: 40, y: 60, width: 48, height: 12, returnCode: 1, label: "Post" },
      { kind: "button", x: 120, y: 60, width: 48, height: 12, returnCode: 2, label: "Cancel" },
    ],
  };
}

function close(dialogId: number) {
  return { type: "dialog_close" as const, clientType: 0, dialogId };
}

function acks(s: ScriptedClient, from = 0): [number, number][] {
  return s.sent("dialog_ack", from).map((ack) => [ack.dialogId, ack.state]);
}

function replies(s: ScriptedClient, from = 0): [number, number, string[]][] {
  return s.sent("dialog_reply", from).map((reply) => [reply.dialogId, reply.returnCode, reply.values]);
}

async function withEvents(): Promise<{ s: ScriptedClient; events: DialogEvent[] }> {
  const s = await scriptedClient();
  const events: DialogEvent[] = [];
  s.client.dialogs.listen((event) => events.push(event));
  return { s, events };
}

describe("opening", () => {
  it("shows a new dialog and acknowledges it; a copy is acknowledged again without a second window", async () => {
    const { s, events } = await withEvents();
    s.deliver(noticeDialog(5));
    expect(events.map((event) => event.kind)).toEqual(["opened"]);
    const shown = (events[0] as { dialog: ShownDialog }).dialog;
    expect(shown).toMatchObject({ id: 5, x: 16, y: 80, width: 208, height: 80 });
    expect(shown.elements.map((element) => element.kind)).toEqual(["text", "text_input", "button", "button"]);
    expect([...s.client.dialogs.shown.keys()]).toEqual([5]);
    s.deliver(noticeDialog(5));
    expect(events).toHaveLength(1);
    expect(acks(s)).toEqual([
      [5, SHOWN],
      [5, SHOWN],
    ]);
    expect(s.sent("dialog_ack")[0].authToken).toBe(TOKEN);
    expect(s.others).toEqual([]);
  });

  it(`shows up to ${DIALOGS_SHOWN_MAX} at once and discards one more with "closed"`, async () => {
    const { s, events } = await withEvents();
    for (let id = 1; id <= DIALOGS_SHOWN_MAX + 1; id++) s.deliver(noticeDialog(id));
    expect(s.client.dialogs.shown.size).toBe(DIALOGS_SHOWN_MAX);
    expect(events.filter((event) => event.kind === "opened")).toHaveLength(DIALOGS_SHOWN_MAX);
    expect(acks(s).at(-1)).toEqual([DIALOGS_SHOWN_MAX + 1, CLOSED]);
    // Its later copies are answered "closed" too, not shown once there is room.
    s.client.dismissDialog(1);
    s.deliver(noticeDialog(DIALOGS_SHOWN_MAX + 1));
    expect(acks(s).at(-1)).toEqual([DIALOGS_SHOWN_MAX + 1, CLOSED]);
    expect(s.client.dialogs.shown.has(DIALOGS_SHOWN_MAX + 1)).toBe(false);
  });
});

describe("answering", () => {
  it("closes the window on a press and sends the reply with the input's value, re-sent until the DialogClose", async () => {
    const { s, events } = await withEvents();
    s.deliver(noticeDialog(3));
    expect(s.client.replyDialog(3, 1, ["Meet at noon"])).toBe(true);
    expect(s.client.dialogs.shown.size).toBe(0);
    expect(events.at(-1)).toEqual({ kind: "closed", dialogId: 3, by: "reply" });
    expect(replies(s)).toEqual([[3, 1, ["Meet at noon"]]]);
    expect(s.sent("dialog_reply")[0].authToken).toBe(TOKEN);
    s.advance(DIALOG_REPLY_RESEND_MS - 1);
    expect(replies(s)).toHaveLength(1);
    s.advance(1);
    s.advance(DIALOG_REPLY_RESEND_MS);
    expect(replies(s)).toEqual([
      [3, 1, ["Meet at noon"]],
      [3, 1, ["Meet at noon"]],
      [3, 1, ["Meet at noon"]],
    ]);
    const before = s.link.sent.length;
    s.deliver(close(3));
    expect(acks(s, before)).toEqual([[3, CLOSED]]);
    s.advance(DIALOG_REPLY_RESEND_MS * 10);
    expect(replies(s, before)).toEqual([]);
    expect(s.client.dialogs.repliesPending).toBe(0);
    expect(events.filter((event) => event.kind === "closed")).toHaveLength(1);
  });

  it("is idempotent: a second press, or a press on a dialog that is not shown, sends nothing", async () => {
    const { s } = await withEvents();
    s.deliver(noticeDialog(3));
    expect(s.client.replyDialog(3, 2, [""])).toBe(true);
    expect(s.client.replyDialog(3, 1, ["again"])).toBe(false);
    expect(s.client.dismissDialog(3)).toBe(false);
    expect(s.client.replyDialog(99, 1, [""])).toBe(false);
    expect(replies(s)).toEqual([[3, 2, [""]]]);
  });

  it("answers a re-sent copy of an answered dialog by re-sending the reply, and after the close with 'closed'", async () => {
    const { s, events } = await withEvents();
    s.deliver(noticeDialog(4));
    s.client.replyDialog(4, 1, ["hi"]);
    let before = s.link.sent.length;
    // The server re-sends the dialog: our "shown" ack was lost and the reply has not arrived yet.
    s.deliver(noticeDialog(4));
    expect(replies(s, before)).toEqual([[4, 1, ["hi"]]]);
    expect(acks(s, before)).toEqual([]);
    s.deliver(close(4));
    before = s.link.sent.length;
    s.deliver(noticeDialog(4));
    expect(acks(s, before)).toEqual([[4, CLOSED]]);
    expect(replies(s, before)).toEqual([]);
    expect(events.filter((event) => event.kind === "opened")).toHaveLength(1);
  });

  it("dismisses with return code 0 and no values", async () => {
    const { s } = await withEvents();
    s.deliver(noticeDialog(6));
    expect(s.client.dismissDialog(6)).toBe(true);
    expect(replies(s)).toEqual([[6, 0, []]]);
  });

  it("refuses a reply the dialog cannot take, sending nothing and keeping the window", async () => {
    const { s } = await withEvents();
    s.deliver(noticeDialog(7));
    expect(() => s.client.replyDialog(7, 3, [""])).toThrow(/no button with return code 3/);
    expect(() => s.client.replyDialog(7, 1, [])).toThrow(/1 text inputs, got 0 values/);
    expect(() => s.client.replyDialog(7, 1, ["thirteen byte"])).toThrow(/13 bytes, at most 12/);
    expect(() => s.client.replyDialog(7, 1, ["tab\there"])).toThrow(/control characters/);
    expect(replies(s)).toEqual([]);
    expect(s.client.dialogs.shown.has(7)).toBe(true);
    expect(dialogValueProblem({ maxBytes: 4 }, "éé")).toBeNull();
    expect(dialogValueProblem({ maxBytes: 4 }, "éé!")).toBe("5 bytes, at most 4");
  });

  it(`gives a reply up after ${DIALOG_REPLY_MAX_SENDS} sends without a close`, async () => {
    const { s } = await withEvents();
    s.deliver(noticeDialog(8));
    s.client.replyDialog(8, 1, ["x"]);
    for (let index = 0; index < DIALOG_REPLY_MAX_SENDS + 10; index++) {
      s.heartbeat();
      s.advance(DIALOG_REPLY_RESEND_MS);
    }
    expect(s.client.state).toBe("playing");
    expect(replies(s)).toHaveLength(DIALOG_REPLY_MAX_SENDS);
    expect(s.client.dialogs.repliesPending).toBe(0);
  });
});

describe("closing", () => {
  it("closes a shown dialog on the server's DialogClose, acknowledging it; an unknown id is acknowledged too", async () => {
    const { s, events } = await withEvents();
    s.deliver(noticeDialog(2), close(2), close(2), close(40));
    expect(events.map((event) => [event.kind, event.kind === "closed" ? event.by : ""])).toEqual([
      ["opened", ""],
      ["closed", "server"],
    ]);
    expect(acks(s)).toEqual([
      [2, SHOWN],
      [2, CLOSED],
      [2, CLOSED],
      [40, CLOSED],
    ]);
    expect(s.client.replyDialog(2, 1, [""])).toBe(false);
    // A copy of it that was delayed in the network is not shown again.
    s.deliver(noticeDialog(2));
    expect(s.client.dialogs.shown.size).toBe(0);
    expect(acks(s).at(-1)).toEqual([2, CLOSED]);
  });

  it("closes every window when a new session begins (dialog ids are per session)", async () => {
    const next = new ScriptedLink();
    const s = await scriptedClient(
      [],
      { x: 40, y: 40 },
      {
        reconnect: async () => ({ session: testSession(8, 0xabcn), transport: next }),
      },
    );
    const events: DialogEvent[] = [];
    s.client.dialogs.listen((event) => events.push(event));
    s.deliver(noticeDialog(1), noticeDialog(2));
    s.client.replyDialog(1, 1, ["a"]);
    s.link.die("gone");
    s.advance(0);
    await new Promise((resolve) => setTimeout(resolve, 0));
    expect(events.filter((event) => event.kind === "closed")).toEqual([
      { kind: "closed", dialogId: 1, by: "reply" },
      { kind: "closed", dialogId: 2, by: "session" },
    ]);
    expect(s.client.dialogs.shown.size).toBe(0);
    s.advance(DIALOG_REPLY_RESEND_MS * 4);
    expect(next.sent.filter((packet) => packet.type === "dialog_reply")).toEqual([]);
    // Ids start over: dialog 1 of the new session is a new dialog, acknowledged with the new token.
    next.deliver(encodePacketToBytes(noticeDialog(1)));
    expect([...s.client.dialogs.shown.keys()]).toEqual([1]);
    expect(next.sent.filter((packet) => packet.type === "dialog_ack")).toEqual([
      { type: "dialog_ack", clientType: 0, authToken: 0xabcn, dialogId: 1, state: SHOWN },
    ]);
  });
});
