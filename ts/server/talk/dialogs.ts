// Server-driven dialogs (docs/protocol.md § Dialogs): game code opens a window
// on one client and gets the player's answer in a callback.
//
// Who re-sends what:
// - the server re-sends an open Dialog until the client acknowledges it
//   (DialogAck "shown") or replies;
// - the client re-sends its DialogReply until a DialogClose for that dialog
//   arrives; the server answers every copy with a DialogClose but calls the
//   reply handler once, because the first reply removes the dialog (the dialog
//   id makes replies idempotent);
// - a close on the server's initiative is re-sent until the client
//   acknowledges it (DialogAck "closed"), a bounded number of times.
// Every re-send runs on a backing-off timer (retransmit.ts).
import { DIALOG_STATE_CLOSED, DIALOG_STATE_SHOWN, type DialogAckPacket } from "../../protocol/dialog-ack.js";
import { encodeDialogClose, DIALOG_CLOSE_BYTES } from "../../protocol/dialog-close.js";
import type { DialogReplyPacket } from "../../protocol/dialog-reply.js";
import { DIALOG_RETURN_DISMISSED, type DialogElement, encodeDialog } from "../../protocol/dialog.js";
import { MAX_DATAGRAM_BYTES } from "../../protocol/header.js";
import { utf8ByteLength } from "../../protocol/text.js";
import type { Egress } from "../edge/egress.js";
import type { Logger } from "../ops/log.js";
import type { Metrics } from "../ops/metrics.js";
import { RetransmitTimer } from "../sessions/retransmit.js";
import type { Session } from "../sessions/session.js";
import type { ClosingDialog, DialogReplyHandlerOf, DialogReplyOf, OpenDialog } from "../sessions/session-dialogs.js";

/** Dialogs open on one client at a time; opening one more closes the oldest (as dismissed). */
export const MAX_OPEN_DIALOGS = 8;
/** A close the client never acknowledges is given up after this many sends. */
export const CLOSE_SENDS_MAX = 8;

/** What game code describes: screen position and size in pixels (of 320×240) and the elements. */
export interface DialogSpec {
  x: number;
  y: number;
  width: number;
  height: number;
  elements: DialogElement[];
}

/** What a reply handler gets: the session, the dialog, the pressed button and the inputs' values. */
export type DialogReply = DialogReplyOf<Session>;

export type DialogReplyHandler = DialogReplyHandlerOf<Session>;

export interface OpenDialogOptions {
  /**
   * At most one open dialog per key and session: opening the same dialog again
   * with the same key re-sends the open one instead (a player re-querying a sign
   * whose dialog is still open gets no second window); opening a different one
   * replaces it — the open one is closed and its handler told it was dismissed
   * (one script's question to a second creature, or its shop's new stock, was
   * lost behind the first dialog while that stood open).
   */
  key?: string;
}

export interface DialogStats {
  opened: number;
  replies: number;
  /** Re-sent copies of replies, answered with a close and not handled again. */
  duplicateReplies: number;
  /** Replies whose values or return code do not fit the dialog (handled as dismissed). */
  mismatched: number;
  retransmits: number;
}

export class DialogService {
  readonly stats: DialogStats = { opened: 0, replies: 0, duplicateReplies: 0, mismatched: 0, retransmits: 0 };

  constructor(
    private readonly egress: Egress,
    private readonly metrics: Metrics,
    /** Where a failing reply handler is reported. */
    private readonly log: Logger,
  ) {}

  /**
   * Opens a dialog on `session`'s client and returns its id; `onReply` is
   * called once, with the pressed button (or 0 if the dialog is dismissed).
   * Throws EncodeError when the dialog does not fit a datagram (1200 bytes).
   */
  open(session: Session, spec: DialogSpec, onReply: DialogReplyHandler, options: OpenDialogOptions = {}): number {
    const dialogs = session.dialogs;
    if (options.key !== undefined) {
      for (const dialog of dialogs.open.values()) {
        if (dialog.key !== options.key) continue;
        const same = new Uint8Array(MAX_DATAGRAM_BYTES);
        const sameSize = encodeDialog({ type: "dialog", clientType: 0, dialogId: dialog.id, ...spec }, same);
        if (sameBytes(dialog.datagram, same.subarray(0, sameSize))) {
          dialog.shown = false;
          this.sendOpen(session, dialog, performance.now());
          return dialog.id;
        }
        // Another dialog under the key: it replaces the open one, which was never answered.
        this.close(session, dialog.id);
        this.callHandler(dialog, { session, dialogId: dialog.id, returnCode: DIALOG_RETURN_DISMISSED, values: [] });
        break;
      }
    }
    const id = dialogs.nextId;
    const out = new Uint8Array(MAX_DATAGRAM_BYTES);
    const size = encodeDialog({ type: "dialog", clientType: 0, dialogId: id, ...spec }, out);
    dialogs.nextId++;
    if (dialogs.open.size >= MAX_OPEN_DIALOGS) {
      const oldest = dialogs.open.values().next().value!;
      this.close(session, oldest.id);
      this.callHandler(oldest, { session, dialogId: oldest.id, returnCode: DIALOG_RETURN_DISMISSED, values: [] });
    }
    const dialog: OpenDialog<Session> = {
      id,
      datagram: out.slice(0, size),
      key: options.key,
      onReply,
      returnCodes: new Set(spec.elements.flatMap((e) => (e.kind === "button" ? [e.returnCode] : []))),
      inputMaxBytes: spec.elements.flatMap((e) => (e.kind === "text_input" ? [e.maxBytes] : [])),
      shown: false,
      timer: new RetransmitTimer(),
    };
    dialogs.open.set(id, dialog);
    this.stats.opened++;
    this.sendOpen(session, dialog, performance.now());
    return id;
  }

  /** Closes a dialog on the server's initiative; its reply handler is not called. False when it is not open. */
  close(session: Session, dialogId: number): boolean {
    if (!session.dialogs.open.delete(dialogId)) return false;
    const out = new Uint8Array(DIALOG_CLOSE_BYTES);
    encodeDialogClose({ type: "dialog_close", clientType: 0, dialogId }, out);
    const closing: ClosingDialog = { datagram: out, timer: new RetransmitTimer(), sends: 0 };
    session.dialogs.closing.set(dialogId, closing);
    this.sendClose(session, closing, performance.now());
    return true;
  }

  /** Closes the dialog open under `key` (OpenDialogOptions.key), if any; its reply handler is not called. */
  closeKeyed(session: Session, key: string): boolean {
    for (const dialog of session.dialogs.open.values()) if (dialog.key === key) return this.close(session, dialog.id);
    return false;
  }

  /** A DialogAck: the client shows the dialog, or no longer shows it. */
  onAck(session: Session, packet: DialogAckPacket): void {
    const dialogs = session.dialogs;
    const dialog = dialogs.open.get(packet.dialogId);
    if (packet.state === DIALOG_STATE_SHOWN) {
      if (dialog) {
        dialog.shown = true;
        dialog.timer.stop();
      }
      return;
    }
    if (packet.state === DIALOG_STATE_CLOSED) {
      dialogs.closing.delete(packet.dialogId);
      // The client discarded a dialog without replying: the same as dismissing it.
      if (dialog) {
        dialogs.open.delete(packet.dialogId);
        this.callHandler(dialog, { session, dialogId: dialog.id, returnCode: DIALOG_RETURN_DISMISSED, values: [] });
      }
    }
  }

  /** A DialogReply: handled once per dialog, every copy answered with a DialogClose. */
  onReply(session: Session, packet: DialogReplyPacket): void {
    const dialogs = session.dialogs;
    const dialog = dialogs.open.get(packet.dialogId);
    this.sendCloseOnce(session, packet.dialogId);
    if (!dialog) {
      // Already answered (our close was lost), closed by us, or never opened: nothing to handle.
      this.stats.duplicateReplies++;
      dialogs.closing.delete(packet.dialogId);
      return;
    }
    dialogs.open.delete(packet.dialogId);
    this.stats.replies++;
    if (!this.fits(dialog, packet)) {
      this.stats.mismatched++;
      this.metrics.drop("dialog_mismatch");
      this.callHandler(dialog, { session, dialogId: dialog.id, returnCode: DIALOG_RETURN_DISMISSED, values: [] });
      return;
    }
    const values = packet.returnCode === DIALOG_RETURN_DISMISSED ? [] : packet.values;
    this.callHandler(dialog, { session, dialogId: dialog.id, returnCode: packet.returnCode, values });
  }

  /** Re-sends what is due for `session`. Called every tick. */
  pump(session: Session, nowMs: number): void {
    const dialogs = session.dialogs;
    // Called for every session on every tick; almost all have nothing open.
    if (!session.peer || (dialogs.open.size === 0 && dialogs.closing.size === 0)) return;
    for (const dialog of dialogs.open.values()) {
      if (dialog.shown || !dialog.timer.due(nowMs)) continue;
      dialog.timer.backOff();
      this.stats.retransmits++;
      this.sendOpen(session, dialog, nowMs);
    }
    for (const [id, closing] of dialogs.closing) {
      if (!closing.timer.due(nowMs)) continue;
      if (closing.sends >= CLOSE_SENDS_MAX) {
        dialogs.closing.delete(id);
        continue;
      }
      closing.timer.backOff();
      this.stats.retransmits++;
      this.sendClose(session, closing, nowMs);
    }
  }

  /** Whether a reply names one of the dialog's buttons (or 0) and carries one fitting value per text input. */
  private fits(dialog: OpenDialog<Session>, packet: DialogReplyPacket): boolean {
    if (packet.returnCode === DIALOG_RETURN_DISMISSED) return true;
    if (!dialog.returnCodes.has(packet.returnCode)) return false;
    if (packet.values.length !== dialog.inputMaxBytes.length) return false;
    return packet.values.every((value, index) => utf8ByteLength(value) <= dialog.inputMaxBytes[index]);
  }

  private callHandler(dialog: OpenDialog<Session>, reply: DialogReply): void {
    try {
      dialog.onReply(reply);
    } catch (error) {
      this.log.error("dialog reply handler failed", { dialogId: dialog.id, error: String(error) });
    }
  }

  private sendOpen(session: Session, dialog: OpenDialog<Session>, nowMs: number): void {
    if (!session.peer) {
      dialog.timer.sent(nowMs); // due again soon: sent once the session is bound
      return;
    }
    this.egress.send(session, dialog.datagram);
    dialog.timer.sent(nowMs);
  }

  private sendClose(session: Session, closing: ClosingDialog, nowMs: number): void {
    closing.sends++;
    this.egress.send(session, closing.datagram);
    closing.timer.sent(nowMs);
  }

  private sendCloseOnce(session: Session, dialogId: number): void {
    const out = new Uint8Array(DIALOG_CLOSE_BYTES);
    encodeDialogClose({ type: "dialog_close", clientType: 0, dialogId }, out);
    this.egress.send(session, out);
  }
}

/** Whether two datagrams hold the same bytes. */
function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  for (let index = 0; index < a.length; index++) if (a[index] !== b[index]) return false;
  return true;
}
