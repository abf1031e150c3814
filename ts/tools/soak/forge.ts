// The hostile datagrams of the soak's flood, as pure functions of a seeded
// stream: random bytes, valid client packets mutated (bytes flipped, cut,
// lengthened, retyped), forgeries carrying a stolen token (every client packet
// type, untagged or with a wrong tag), and correctly signed ActionPackets of
// the attacker's own sessions (the amplification attempt: sent from addresses
// that never answer a challenge). Every encoder is the protocol library's, so
// a "valid" template is exactly what a client would send.
import { MAX_DATAGRAM_BYTES } from "../../protocol/header.js";
import {
  ACTION_AUTH_BYTES,
  ACTION_BYTES,
  ACTION_MAX,
  ACTION_TAG_AT,
  type ActionMac,
  createActionPacket,
  encodeAction,
  sealAction,
} from "../../protocol/action.js";
import { encodePacketToBytes, type Packet } from "../../protocol/packet.js";
import type { SeededRandom } from "../../netsim/rng.js";

/** Below this, a random datagram is one of the sizes real packets have; above, anything up to the maximum. */
const SMALL_DATAGRAM_BYTES = 128;

function randomBytes(rng: SeededRandom, length: number): Uint8Array {
  const bytes = new Uint8Array(length);
  for (let index = 0; index < length; index++) bytes[index] = rng.nextUint32() & 0xff;
  return bytes;
}

function below(rng: SeededRandom, n: number): number {
  return Math.floor(rng.nextFloat() * n);
}

function randomToken(rng: SeededRandom): bigint {
  return (BigInt(rng.nextUint32()) << 32n) | BigInt(rng.nextUint32());
}

/** 1 … MAX_DATAGRAM_BYTES random bytes, most of them short (where the decoders' length checks are). */
export function randomDatagram(rng: SeededRandom): Uint8Array {
  const length = rng.nextFloat() < 0.7 ? 1 + below(rng, SMALL_DATAGRAM_BYTES) : 1 + below(rng, MAX_DATAGRAM_BYTES);
  const bytes = randomBytes(rng, length);
  // Half carry the right magic, so they get past the first check into the header and body decoders.
  if (length >= 2 && rng.nextFloat() < 0.5) {
    bytes[0] = 0x46; // "F"
    bytes[1] = 0x43; // "C"
  }
  return bytes;
}

/** One valid client → server packet of a random type, for `token`. */
export function validClientPacket(rng: SeededRandom, token: bigint): Uint8Array {
  const choice = below(rng, 8);
  let packet: Packet;
  switch (choice) {
    case 0:
    case 1: {
      const action = createActionPacket();
      action.authToken = token;
      action.targetTick = rng.nextFloat() < 0.5 ? 0 : rng.nextUint32();
      action.action = below(rng, ACTION_MAX + 1);
      for (const entry of action.cache) {
        entry.chunkId = below(rng, 64);
        entry.version = below(rng, 4);
      }
      packet = action;
      break;
    }
    case 2:
      packet = { type: "ping", clientType: 0, timestampMs: BigInt(rng.nextUint32()) };
      break;
    case 3:
      packet = { type: "chat_post", clientType: 0, authToken: token, seq: 1 + below(rng, 100), text: "hello" };
      break;
    case 4:
      packet = { type: "chat_ack", clientType: 0, authToken: token, seq: below(rng, 1000) };
      break;
    case 5:
      packet = { type: "entity_query", clientType: 0, authToken: token, entityId: below(rng, 4096) };
      break;
    case 6:
      packet = { type: "dialog_reply", clientType: 0, authToken: token, dialogId: 1, returnCode: 1, values: ["x"] };
      break;
    default:
      packet = { type: "custom_to_server", clientType: 0, authToken: token, subtype: 1, payload: randomBytes(rng, 8) };
  }
  return encodePacketToBytes(packet);
}

/** `template` damaged: a few bytes flipped, cut short, lengthened, or its packet type changed. */
export function mutate(rng: SeededRandom, template: Uint8Array): Uint8Array {
  const how = below(rng, 4);
  if (how === 1 && template.length > 1) return template.slice(0, below(rng, template.length));
  if (how === 2) {
    const extra = 1 + below(rng, 64);
    const longer = new Uint8Array(Math.min(MAX_DATAGRAM_BYTES + 64, template.length + extra));
    longer.set(template);
    longer.set(randomBytes(rng, longer.length - template.length), template.length);
    return longer;
  }
  const bytes = template.slice();
  if (how === 3 && bytes.length > 3) {
    bytes[3] = below(rng, 32); // the header's packet_type: a body decoded as another packet
    return bytes;
  }
  const flips = 1 + below(rng, 4);
  for (let index = 0; index < flips; index++) bytes[below(rng, bytes.length)] ^= 1 << below(rng, 8);
  return bytes;
}

/**
 * A forgery with a stolen `token`: an untagged ActionPacket (the spec-only form of a
 * captured one), a tagged one with a guessed tag and sequence, or any other client packet.
 */
export function forgedWithToken(rng: SeededRandom, token: bigint): Uint8Array {
  const choice = below(rng, 3);
  if (choice === 2) return validClientPacket(rng, token);
  const action = createActionPacket();
  action.authToken = token;
  action.targetTick = rng.nextFloat() < 0.5 ? 0 : rng.nextUint32();
  action.action = below(rng, ACTION_MAX + 1);
  if (choice === 0) {
    const out = new Uint8Array(ACTION_BYTES);
    encodeAction(action, out);
    return out;
  }
  const out = new Uint8Array(ACTION_AUTH_BYTES);
  encodeAction(action, out);
  const guessedTag: ActionMac = (_message, into, at) =>
    into.set(randomBytes(rng, ACTION_AUTH_BYTES - ACTION_TAG_AT), at);
  sealAction(out, 0, 1 + below(rng, 1 << 20), 0, 0, guessedTag);
  return out;
}

/** A session the attacker holds itself: it knows the key, so its packets are correctly signed. */
export interface SignedSession {
  token: bigint;
  mac: ActionMac;
  /** The last sequence used; the next packet takes the one after. */
  sequence: number;
}

/**
 * A correctly signed keep-alive with an empty cache list for `session` (fresh
 * sequence, no challenge echo): from an address that never answers, the reflection
 * attempt of issue 17 item 2, which the server must answer with at most 3× its bytes.
 */
export function signedKeepAlive(session: SignedSession): Uint8Array {
  const action = createActionPacket();
  action.authToken = session.token;
  const out = new Uint8Array(ACTION_AUTH_BYTES);
  encodeAction(action, out);
  session.sequence++;
  sealAction(out, 0, session.sequence, 0, 0, session.mac);
  return out;
}

export { randomToken };
