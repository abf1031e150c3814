// Server-driven dialogs on the client (docs/protocol.md § 16, P-13). Each side
// re-sends only what it owns until the other side's answer proves receipt, and
// every message names its dialog, so duplicates are harmless wherever they land:
// - a Dialog with a new id is shown and acknowledged (DialogAck "shown"); the
//   same id again is acknowledged again without a second window;
// - a button press closes the window at once and sends a DialogReply, re-sent
//   every DIALOG_REPLY_RESEND_MS until the server's DialogClose for it arrives;
//   dismissing is a reply with return code 0;
// - a DialogClose closes the window if shown, stops the reply's re-sends, and
//   is always answered with DialogAck "closed", also for ids never seen.
// The ids of the last DIALOG_IDS_REMEMBERED answered or closed dialogs are kept:
// a late copy of one of them is answered "closed" instead of opening it again.
// One refinement of the protocol's wording: a copy of a dialog we answered but
// whose DialogClose has not come yet is answered by re-sending the reply, not by
// "closed" — the server takes either as the acknowledgement, but a "closed"
// that overtakes a lost reply would turn the button press into a dismissal.
import { DIALOG_STATE_CLOSED, DIALOG_STATE_SHOWN, encodeDialogAck } from "../../protocol/dialog-ack.js";
import type { DialogClosePacket } from "../../protocol/dialog-close.js";
import { encodeDialogReply } from "../../protocol/dialog-reply.js";
import { DIALOG_RETURN_DISMISSED, type DialogElement, type DialogPacket } from "../../protocol/dialog.js";
import { MAX_DATAGRAM_BYTES } from "../../protocol/header.js";
import { utf8ByteLength } from "../../protocol/text.js";
import type { ChannelLink } from "./channel-link.js";

/** Protocol: the client re-sends its reply every 250–300 ms. */
export const DIALOG_REPLY_RESEND_MS = 250;
/** A reply never answered is given up after this many sends (10 s; the link is dead by then). */
export const DIALOG_REPLY_MAX_SENDS = 40;
/** Windows shown at once, as many as the server keeps open per client; one more is discarded. */
export const DIALOGS_SHOWN_MAX = 8;
/** Protocol: remember the last 32 answered or closed ids. */
export const DIALOG_IDS_REMEMBERED = 32;

/** A dialog on screen: where (framebuffer pixels of the 320×240 screen) and what. */
export interface ShownDialog {
  readonly id: number;
  readonly x: number;
  readonly y: number;
  readonly width: number;
  readonly height: number;
  /** Back to front; element boxes are relative to the dialog's top-left corner. */
  readonly elements: readonly DialogElement[];
}

export type DialogEvent =
  | { kind: "opened"; dialog: ShownDialog }
  /** `by`: the player answered, the server closed it, or the session ended. */
  | { kind: "closed"; dialogId: number; by: "reply" | "server" | "session" };

interface PendingReply {
  readonly datagram: Uint8Array;
  lastSentMs: number;
  sends: number;
}

/** The text inputs of a dialog, in element order: one reply value each. */
export function dialogInputs(dialog: ShownDialog): Extract<DialogElement, { kind: "text_input" }>[] {
  return dialog.elements.filter((element) => element.kind === "text_input");
}

/** Why `value` cannot be the value of `input`, or null. */
export function dialogValueProblem(input: { maxBytes: number }, value: string): string | null {
  const bytes = utf8ByteLength(value);
  if (bytes < 0) return "not well-formed text";
  if (bytes > input.maxBytes) return `${bytes} bytes, at most ${input.maxBytes}`;
  // A decoded text input's max_bytes is at most DIALOG_INPUT_RULE.maxBytes, so the limit above covers it.
  return /[\u0000-\u001f\u007f-\u009f]/u.test(value) ? "control characters" : null;
}

export class DialogState {
  private readonly shownDialogs = new Map<number, ShownDialog>();
  private readonly replies = new Map<number, PendingReply>();
  private readonly finished: number[] = [];
  private readonly out = new Uint8Array(MAX_DATAGRAM_BYTES);
  private readonly listeners = new Set<(event: DialogEvent) => void>();
  readonly counters = {
    opened: 0,
    /** Copies of a shown dialog, acknowledged again. */
    duplicates: 0,
    /** Dialogs not shown because DIALOGS_SHOWN_MAX were open. */
    discarded: 0,
    replies: 0,
    replyResends: 0,
  };

  constructor(
    private readonly link: ChannelLink,
    readonly resendMs = DIALOG_REPLY_RESEND_MS,
    readonly shownMax = DIALOGS_SHOWN_MAX,
  ) {}

  /** Dialogs on screen by id, oldest first. */
  get shown(): ReadonlyMap<number, ShownDialog> {
    return this.shownDialogs;
  }

  /** Replies sent and not yet confirmed by a DialogClose. */
  get repliesPending(): number {
    return this.replies.size;
  }

  listen(listener: (event: DialogEvent) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  receiveDialog(packet: DialogPacket, nowMs: number): void {
    const id = packet.dialogId;
    if (this.shownDialogs.has(id)) {
      this.counters.duplicates++;
      return this.sendAck(id, DIALOG_STATE_SHOWN);
    }
    const reply = this.replies.get(id);
    if (reply) return this.sendReply(reply, nowMs);
    if (this.finished.includes(id)) return this.sendAck(id, DIALOG_STATE_CLOSED);
    if (this.shownDialogs.size >= this.shownMax) {
      // The server treats "closed" for a dialog never answered as a dismissal.
      this.counters.discarded++;
      this.remember(id);
      return this.sendAck(id, DIALOG_STATE_CLOSED);
    }
    const dialog: ShownDialog = {
      id,
      x: packet.x,
      y: packet.y,
      width: packet.width,
      height: packet.height,
      elements: packet.elements,
    };
    this.shownDialogs.set(id, dialog);
    this.counters.opened++;
    this.sendAck(id, DIALOG_STATE_SHOWN);
    this.emit({ kind: "opened", dialog });
  }

  receiveClose(packet: DialogClosePacket): void {
    const id = packet.dialogId;
    this.replies.delete(id);
    if (this.shownDialogs.delete(id)) {
      this.remember(id);
      this.emit({ kind: "closed", dialogId: id, by: "server" });
    }
    this.sendAck(id, DIALOG_STATE_CLOSED);
  }

  /**
   * Answers a shown dialog: `returnCode` of one of its buttons and one value per
   * text input (element order). Closes the window and sends the reply, re-sent
   * until the server confirms it. False when the dialog is not shown (already
   * answered: a second press changes nothing). Throws RangeError for a return
   * code or values the dialog does not have room for.
   */
  reply(dialogId: number, returnCode: number, values: readonly string[], nowMs: number): boolean {
    const dialog = this.shownDialogs.get(dialogId);
    if (!dialog) return false;
    if (returnCode !== DIALOG_RETURN_DISMISSED) {
      const isButton = dialog.elements.some(
        (element) => element.kind === "button" && element.returnCode === returnCode,
      );
      if (!isButton) throw new RangeError(`dialog ${dialogId} has no button with return code ${returnCode}`);
      const inputs = dialogInputs(dialog);
      if (values.length !== inputs.length) {
        throw new RangeError(`dialog ${dialogId} has ${inputs.length} text inputs, got ${values.length} values`);
      }
      inputs.forEach((input, index) => {
        const problem = dialogValueProblem(input, values[index]);
        if (problem !== null) throw new RangeError(`dialog ${dialogId} value ${index}: ${problem}`);
      });
    }
    const size = encodeDialogReply(
      {
        type: "dialog_reply",
        clientType: this.link.clientType,
        authToken: this.link.token(),
        dialogId,
        returnCode,
        values: returnCode === DIALOG_RETURN_DISMISSED ? [] : [...values],
      },
      this.out,
    );
    const pending: PendingReply = { datagram: this.out.slice(0, size), lastSentMs: nowMs, sends: 0 };
    this.replies.set(dialogId, pending);
    this.shownDialogs.delete(dialogId);
    this.remember(dialogId);
    this.counters.replies++;
    this.sendReply(pending, nowMs);
    this.emit({ kind: "closed", dialogId, by: "reply" });
    return true;
  }

  /** Closes a shown dialog without a button (Escape, the close box): a reply with return code 0. */
  dismiss(dialogId: number, nowMs: number): boolean {
    return this.reply(dialogId, DIALOG_RETURN_DISMISSED, [], nowMs);
  }

  /** Re-sends replies still waiting for their DialogClose. */
  update(nowMs: number): void {
    for (const [id, reply] of this.replies) {
      if (nowMs - reply.lastSentMs < this.resendMs) continue;
      if (reply.sends >= DIALOG_REPLY_MAX_SENDS) {
        this.replies.delete(id);
        continue;
      }
      this.counters.replyResends++;
      this.sendReply(reply, nowMs);
    }
  }

  /** A new session: dialog ids are per session, so every window closes and nothing is re-sent. */
  reset(): void {
    const open = [...this.shownDialogs.keys()];
    this.shownDialogs.clear();
    this.replies.clear();
    this.finished.length = 0;
    for (const dialogId of open) this.emit({ kind: "closed", dialogId, by: "session" });
  }

  private sendReply(reply: PendingReply, nowMs: number): void {
    reply.lastSentMs = nowMs;
    reply.sends++;
    this.link.send(reply.datagram);
  }

  private sendAck(dialogId: number, state: number): void {
    const size = encodeDialogAck(
      { type: "dialog_ack", clientType: this.link.clientType, authToken: this.link.token(), dialogId, state },
      this.out,
    );
    this.link.send(this.out.slice(0, size));
  }

  private remember(dialogId: number): void {
    if (this.finished.includes(dialogId)) return;
    this.finished.push(dialogId);
    if (this.finished.length > DIALOG_IDS_REMEMBERED) this.finished.shift();
  }

  private emit(event: DialogEvent): void {
    for (const listener of this.listeners) listener(event);
  }
}
