// Property tests (fast-check, fixed seeds): every packet round-trips; every
// truncation, mutation and random byte string decodes without throwing and
// without reading outside the datagram, and whatever is accepted re-encodes
// to the very same bytes (so never to more than 1200).
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  type Packet,
  DECODE_ERROR_CODES,
  ENTITIES_PER_DATAGRAM_MAX,
  MAX_DATAGRAM_BYTES,
  decodePacket,
  decodePacketPlain,
  encodePacketToBytes,
  entityBatchEnd,
  viewToPacket,
} from "../ts/protocol/index.js";
import { anyPacket as coreAnyPacket, byteMutation, entityEntry, mutateBytes, u8 } from "./protocol-arbitraries.js";
import { anyGamePacket } from "./protocol-game-arbitraries.js";

/** Every packet type, the chat/tile/dialog/custom ones (types 8–18) included. */
const anyPacket = fc.oneof(coreAnyPacket, anyGamePacket);

const SEED = 0x5eed;
/**
 * A view of `bytes` that throws on any index outside it, so a decoder that
 * reads past the datagram fails loudly instead of reading `undefined`.
 */
function strictBytes(bytes: Uint8Array): Uint8Array {
  return new Proxy(bytes, {
    get(target, property) {
      if (typeof property === "string" && /^-?\d+$/.test(property)) {
        const index = Number(property);
        if (index < 0 || index >= target.length) throw new Error(`read of byte ${index} of ${target.length}`);
        return target[index];
      }
      const value = Reflect.get(target, property, target) as unknown;
      return typeof value === "function" ? (value as (...args: unknown[]) => unknown).bind(target) : value;
    },
  });
}

/**
 * The fuzzing oracle: decoding never throws nor over-reads; an accepted
 * datagram re-encodes byte for byte (hence to at most 1200 bytes).
 */
function checkDecodeIsTotal(bytes: Uint8Array): boolean {
  const result = decodePacket(strictBytes(bytes));
  if (!result.ok) {
    expect(DECODE_ERROR_CODES).toContain(result.error.code);
    return false;
  }
  const again = encodePacketToBytes(viewToPacket(result.packet));
  expect(again.length).toBeLessThanOrEqual(MAX_DATAGRAM_BYTES);
  expect(again).toEqual(bytes);
  return true;
}

describe("round trip", () => {
  it("every packet encodes to at most 1200 bytes and decodes to itself", () => {
    fc.assert(
      fc.property(anyPacket, (packet) => {
        const bytes = encodePacketToBytes(packet);
        expect(bytes.length).toBeLessThanOrEqual(MAX_DATAGRAM_BYTES);
        expect(decodePacketPlain(strictBytes(bytes))).toEqual({ ok: true, packet });
      }),
      { seed: SEED, numRuns: 600 },
    );
  });

  it("full entity packets: up to 66 entries without meta", () => {
    fc.assert(
      fc.property(fc.array(entityEntry, { minLength: 66, maxLength: 70 }), (entries) => {
        const plain = entries.map((entry) => ({ ...entry, meta: [] }));
        expect(entityBatchEnd(plain, 0)).toBe(ENTITIES_PER_DATAGRAM_MAX);
        const packet: Packet = { type: "entity", clientType: 0, tick: 1, more: true, entities: plain.slice(0, 66) };
        const bytes = encodePacketToBytes(packet);
        expect(bytes.length).toBe(1200);
        expect(decodePacketPlain(bytes)).toEqual({ ok: true, packet });
      }),
      { seed: SEED, numRuns: 30 },
    );
  });
});

describe("decoding is total", () => {
  it("every truncation of a valid packet", () => {
    fc.assert(
      fc.property(anyPacket, (packet) => {
        const bytes = encodePacketToBytes(packet);
        for (let length = 0; length < bytes.length; length++) checkDecodeIsTotal(bytes.subarray(0, length));
      }),
      { seed: SEED, numRuns: 40 },
    );
  });

  it("random byte mutations of a valid packet", () => {
    let accepted = 0;
    let rejected = 0;
    fc.assert(
      fc.property(anyPacket, fc.array(byteMutation, { minLength: 1, maxLength: 4 }), (packet, mutations) => {
        const bytes = mutateBytes(Array.from(encodePacketToBytes(packet)), mutations);
        if (checkDecodeIsTotal(new Uint8Array(bytes))) accepted++;
        else rejected++;
      }),
      { seed: SEED, numRuns: 2000 },
    );
    // Both outcomes must be common, or the oracle above is checking nothing.
    expect(Math.min(accepted, rejected)).toBeGreaterThan(200);
  });

  it("random garbage, with and without a valid header in front", () => {
    fc.assert(
      fc.property(
        fc.uint8Array({ maxLength: 1300 }),
        fc.boolean(),
        fc.integer({ min: 0, max: 20 }),
        (garbage, withHeader, type) => {
          const bytes = withHeader ? new Uint8Array([0x4c, 0x52, 0x01, type, 0, 0, ...garbage]) : garbage;
          checkDecodeIsTotal(bytes);
        },
      ),
      { seed: SEED, numRuns: 3000 },
    );
  });

  it("garbage entity and detail bodies made mostly of plausible TLVs", () => {
    let accepted = 0;
    // Random bytes rarely get past the length checks; build bodies whose lengths agree so the TLV walker is reached.
    const block = fc.array(fc.tuple(u8, fc.uint8Array({ maxLength: 6 })), { maxLength: 5 }).map((items) => {
      const bytes: number[] = [];
      for (const [tag, value] of items) bytes.push(tag % 8, value.length, ...value);
      return bytes;
    });
    fc.assert(
      fc.property(block, fc.integer({ min: -2, max: 2 }), fc.boolean(), (meta, skew, asEntity) => {
        const length = Math.max(0, meta.length + skew);
        const bytes = asEntity
          ? [0x4c, 0x52, 0x01, 0x03, 0, 0, 1, 0, 0, 0, 1, 0, ...new Array<number>(17).fill(0), length & 0xff, ...meta]
          : [0x4c, 0x52, 0x01, 0x05, 0, 0, 1, 0, 0, 0, 2, 0, 0, 0, length & 0xff, length >> 8, ...meta];
        if (checkDecodeIsTotal(new Uint8Array(bytes))) accepted++;
      }),
      { seed: SEED, numRuns: 3000 },
    );
    expect(accepted).toBeGreaterThan(100);
  });
});
