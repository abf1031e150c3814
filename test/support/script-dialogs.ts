// Reading what a content script shows a protocol client: its dialogs (and answering them), and the
// TLVs of the client's own EntityDetails (its quests, the marks over creatures).
import type { DialogPacket } from "../../ts/protocol/dialog.js";
import { encodeDialogReply } from "../../ts/protocol/dialog-reply.js";
import type { EntityDetailPacket } from "../../ts/protocol/entity-detail.js";
import type { Tlv } from "../../ts/protocol/tlv.js";
import type { UdpTestClient } from "./udp-client.js";

export function packetsOf<T>(client: UdpTestClient, type: string): T[] {
  return client.received.map((entry) => entry.packet).filter((packet) => packet?.type === type) as T[];
}

export function dialogs(client: UdpTestClient): DialogPacket[] {
  return packetsOf<DialogPacket>(client, "dialog");
}

/** The newest TLV of `kind` in the client's own EntityDetails. */
export function ownTlv(client: UdpTestClient, kind: Tlv["kind"]): Tlv | undefined {
  const own = packetsOf<EntityDetailPacket>(client, "entity_detail").filter(
    (detail) => detail.entityId === client.lastState()?.playerEntityId,
  );
  for (let i = own.length - 1; i >= 0; i--) {
    const found = own[i].meta.find((tlv) => tlv.kind === kind);
    if (found) return found;
  }
  return undefined;
}

export function reply(client: UdpTestClient, dialog: DialogPacket, returnCode: number): void {
  const out = new Uint8Array(1200);
  const size = encodeDialogReply(
    { type: "dialog_reply", clientType: 0, authToken: client.token, dialogId: dialog.dialogId, returnCode, values: [] },
    out,
  );
  client.sendRaw(out.slice(0, size));
}

export function labels(dialog: DialogPacket): string[] {
  return dialog.elements.flatMap((element) => (element.kind === "button" ? [element.label] : []));
}
