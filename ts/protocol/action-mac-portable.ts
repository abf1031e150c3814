// The ActionPacket tag (docs/protocol.md § 6.1) in plain JavaScript, for a host without node:crypto: the
// browser. It must be synchronous — the tag is written as the packet is sent (sealAction) — which WebCrypto's
// HMAC (a Promise per call) is not, so it is @noble/hashes' HMAC-SHA256. The same function as
// action-mac-node.ts (test/action-mac-portable.test.ts checks each against the other); the server checks tags
// with node:crypto.
import { hmac } from "@noble/hashes/hmac.js";
import { sha256 } from "@noble/hashes/sha2.js";
import { ACTION_TAG_BYTES, type ActionMac } from "./action.js";

/**
 * The ActionMac for `key`: HMAC-SHA256 of the message, its first ACTION_TAG_BYTES bytes. The key's inner and
 * outer blocks are hashed once here; each packet clones that state (3 SHA-256 blocks a packet instead of 5).
 */
export function portableActionMac(key: Uint8Array): ActionMac {
  const keyed = hmac.create(sha256, key);
  const digest = new Uint8Array(sha256.outputLen);
  return (message, out, at) => {
    keyed.clone().update(message).digestInto(digest);
    out.set(digest.subarray(0, ACTION_TAG_BYTES), at);
  };
}
