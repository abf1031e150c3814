// Node only: the ActionPacket tag (docs/protocol.md § 6.1) with node:crypto, for
// the server (checking) and the Node clients (bots, tests, tools: signing). The
// browser does not sign: its WebRTC (DTLS) and WebSocket (TCP) links are bound
// to their connection, and a session never moves onto or off one without a tag.
import { createHmac, randomBytes, timingSafeEqual } from "node:crypto";
import { ACTION_TAG_AT, ACTION_TAG_BYTES, ACTION_AUTH_BYTES, type ActionMac } from "./action.js";

/** Bytes of a session key (an HMAC-SHA256 key as long as its output). */
export const SESSION_KEY_BYTES = 32;

/** A fresh random session key. */
export function createSessionKey(): Uint8Array {
  return new Uint8Array(randomBytes(SESSION_KEY_BYTES));
}

/** The ActionMac for `key`: HMAC-SHA256 of the message, its first ACTION_TAG_BYTES bytes. */
export function nodeActionMac(key: Uint8Array): ActionMac {
  return (message, out, at) => {
    const digest = createHmac("sha256", key).update(message).digest();
    out.set(digest.subarray(0, ACTION_TAG_BYTES), at);
  };
}

/**
 * Whether the 102-byte ActionPacket `bytes` carries the right tag for `key`.
 * Compared in constant time, so the answer's timing says nothing about how
 * much of a forged tag was right.
 */
export function actionTagValid(bytes: Uint8Array, key: Uint8Array): boolean {
  if (bytes.length !== ACTION_AUTH_BYTES) return false;
  const digest = createHmac("sha256", key).update(bytes.subarray(0, ACTION_TAG_AT)).digest();
  return timingSafeEqual(digest.subarray(0, ACTION_TAG_BYTES), bytes.subarray(ACTION_TAG_AT, ACTION_AUTH_BYTES));
}
