// The browser's ActionPacket tag (ts/protocol/action-mac-portable.ts, @noble/hashes) against the Node one the
// server checks with (action-mac-node.ts, node:crypto): the same 16 bytes for every key and message, so a
// packet the browser seals with the one encoder (sealAction) is accepted, and one byte changed is not.
import { describe, expect, it } from "vitest";
import {
  ACTION_AUTH_BYTES,
  ACTION_TAG_AT,
  ACTION_TAG_BYTES,
  createActionPacket,
  encodeAction,
  sealAction,
} from "../ts/protocol/action.js";
import { actionTagValid, createSessionKey, nodeActionMac } from "../ts/protocol/action-mac-node.js";
import { portableActionMac } from "../ts/protocol/action-mac-portable.js";
import { mulberry32 } from "../ts/random.js";

describe("the portable ActionPacket tag", () => {
  it("is node:crypto's HMAC-SHA256, first 16 bytes, for any key and message, call after call", () => {
    const random = mulberry32(41);
    for (let round = 0; round < 50; round++) {
      const key = createSessionKey();
      const portable = portableActionMac(key);
      const node = nodeActionMac(key);
      // The keyed state is cloned per packet: several messages under one key must each come out right.
      for (let message = 0; message < 4; message++) {
        const bytes = Uint8Array.from({ length: ACTION_TAG_AT }, () => Math.floor(random() * 256));
        const mine = new Uint8Array(ACTION_TAG_BYTES + 3);
        const theirs = new Uint8Array(ACTION_TAG_BYTES + 3);
        portable(bytes, mine, 3);
        node(bytes, theirs, 3);
        expect(mine).toEqual(theirs);
        expect(mine.subarray(0, 3)).toEqual(new Uint8Array(3));
      }
    }
  });

  it("seals a packet the server's check accepts, and none with a byte changed or under another key", () => {
    const key = createSessionKey();
    const packet = createActionPacket();
    packet.authToken = 0x0123456789abcdefn;
    packet.targetTick = 96;
    packet.action = 2;
    const out = new Uint8Array(ACTION_AUTH_BYTES);
    encodeAction(packet, out);
    expect(sealAction(out, 0, 7, 0x1234, 0x5678, portableActionMac(key))).toBe(ACTION_AUTH_BYTES);
    expect(actionTagValid(out, key)).toBe(true);
    expect(actionTagValid(out, createSessionKey())).toBe(false);
    for (const at of [0, 14, 72, 74, 78, ACTION_TAG_AT]) {
      const changed = out.slice();
      changed[at] ^= 1;
      expect(actionTagValid(changed, key), `byte ${at}`).toBe(false);
    }
  });
});
