// A link that signs: a browser's WebRTC data channel or WebSocket, wrapped so that the Outbox tags its
// ActionPackets with the session key (docs/protocol.md § 6.1), as a Node client's UDP link does. The link
// itself is secured by DTLS or TLS; the tag is what lets the session move onto another link — a cluster's
// other gateway when its own stops answering (§ 6.2). The tag is the shared core's (action-mac-portable.ts),
// written into the packet by the one encoder (sealAction).
import { portableActionMac } from "../../protocol/action-mac-portable.js";
import type { Transport } from "./transport.js";

/** `inner`, signing with `key`; `inner` itself when there is no key (an older server) or it signs already. */
export function signedTransport(inner: Transport, key: Uint8Array | undefined): Transport {
  if (key === undefined || inner.actionMac !== undefined) return inner;
  return {
    name: inner.name,
    actionMac: portableActionMac(key),
    send: (datagram) => inner.send(datagram),
    onDatagram: (handler) => inner.onDatagram(handler),
    onClose: inner.onClose === undefined ? undefined : (handler) => inner.onClose!(handler),
    close: () => inner.close(),
  };
}
