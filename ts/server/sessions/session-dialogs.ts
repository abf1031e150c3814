// One session's dialogs (docs/protocol.md § Dialogs): those open on its client
// and those the server is closing. dialogs.ts drives them; a session holds them.
//
// Generic in the session type: a reply names its session, and a session holds
// its dialogs, so naming Session here would make session.ts and this module
// import each other. session.ts instantiates these with its own Session.
import type { RetransmitTimer } from "./retransmit.js";

/** What a reply handler gets, for sessions of type S. */
export interface DialogReplyOf<S> {
  readonly session: S;
  readonly dialogId: number;
  /** The pressed button's return code; 0 when the dialog was dismissed, discarded or replaced. */
  readonly returnCode: number;
  /** The text inputs' values in element order (empty when dismissed). */
  readonly values: string[];
}

export type DialogReplyHandlerOf<S> = (reply: DialogReplyOf<S>) => void;

export interface OpenDialog<S> {
  readonly id: number;
  readonly datagram: Uint8Array;
  readonly key: string | undefined;
  readonly onReply: DialogReplyHandlerOf<S>;
  readonly returnCodes: ReadonlySet<number>;
  /** max_bytes of each text input, in element order. */
  readonly inputMaxBytes: readonly number[];
  shown: boolean;
  readonly timer: RetransmitTimer;
}

export interface ClosingDialog {
  readonly datagram: Uint8Array;
  readonly timer: RetransmitTimer;
  sends: number;
}

/** One session's dialogs, in the order they were opened. */
export class SessionDialogs<S> {
  nextId = 1;
  readonly open = new Map<number, OpenDialog<S>>();
  readonly closing = new Map<number, ClosingDialog>();
}
