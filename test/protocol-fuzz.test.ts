// Property tests (fast-check, fixed seeds): every packet round-trips; every
// truncation, mutation and random byte string decodes without throwing and
// without reading outside the datagram, and whatever is accepted re-encodes
// to the very same bytes (so never to more than 1200).
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  type ChunkEntry,
  type EntityEntry,
  type Packet,
  type Tlv,
  DECODE_ERROR_CODES,
  ENTITIES_PER_DATAGRAM_MAX,
  MAX_DATAGRAM_BYTES,
  NAME_MAX_BYTES,
  decodePacket,
  decodePacketPlain,
  encodePacketToBytes,
  entityBatchEnd,
  manifestChunkId,
  chunkId,
  viewToPacket,
} from "../ts/protocol/index.js";
import { pack6 } from "../ts/ref/codec.js";

const SEED = 0x5eed;
const u8 = fc.integer({ min: 0, max: 0xff });
const u16 = fc.integer({ min: 0, max: 0xffff });
const i16 = fc.integer({ min: -0x8000, max: 0x7fff });
const u32 = fc.integer({ min: 0, max: 0xffffffff });
const u64 = fc.bigInt({ min: 0n, max: 0xffffffffffffffffn });
const chunkEntry: fc.Arbitrary<ChunkEntry> = fc.record({ chunkId: u32, version: u16 });

const utf8Length = (text: string): number => new TextEncoder().encode(text).length;
// Names as players type them: any graphemes, minus the control characters the protocol refuses.
const name = fc
  .string({ unit: "grapheme", minLength: 1, maxLength: 12 })
  .filter((text) => !/[\u0000-\u001f\u007f-\u009f]/u.test(text) && utf8Length(text) <= NAME_MAX_BYTES);

const tlv: fc.Arbitrary<Tlv> = fc.oneof(
  u16.map((value): Tlv => ({ kind: "status_effects", value })),
  u16.map((value): Tlv => ({ kind: "weapon", value })),
  u16.map((value): Tlv => ({ kind: "armor", value })),
  name.map((value): Tlv => ({ kind: "name", value })),
  fc
    .record({
      tag: fc.oneof(fc.constant(0), fc.integer({ min: 5, max: 0xff })),
      bytes: fc.uint8Array({ maxLength: 24 }),
    })
    .map(({ tag, bytes }): Tlv => ({ kind: "unknown", tag, bytes })),
);

/** TLV lists with each known kind at most once (the first wins), in random order. */
const metaList = (maxLength: number): fc.Arbitrary<Tlv[]> =>
  fc.array(tlv, { maxLength }).map((list) => {
    const seen = new Set<string>();
    return list.filter((item) => item.kind === "unknown" || (!seen.has(item.kind) && seen.add(item.kind)));
  });

const entityEntry: fc.Arbitrary<EntityEntry> = fc.record({
  id: u32,
  typeId: u16,
  x: i16,
  y: i16,
  hp: u16,
  hpMax: u16,
  elo: u16,
  flags: u8,
  // Mostly without meta, as in play; sometimes up to a few TLVs.
  meta: fc.oneof({ weight: 3, arbitrary: fc.constant([] as Tlv[]) }, { weight: 1, arbitrary: metaList(4) }),
});

const statePacket = fc
  .record({ clientType: u16, tick: u32, cx: i16, cy: i16, versions: fc.array(u16, { minLength: 9, maxLength: 9 }) })
  .chain(({ clientType, tick, cx, cy, versions }) =>
    fc.record({ playerEntityId: u32, entityChecksum: u32 }).map(({ playerEntityId, entityChecksum }): Packet => ({
      type: "state",
      clientType,
      tick,
      chunks: versions.map((version, index) => ({ chunkId: manifestChunkId(chunkId(cx, cy), index), version })),
      playerEntityId,
      entityChecksum,
    })),
  );

const actionPacket = fc.record({
  type: fc.constant("action" as const),
  clientType: u16,
  authToken: u64,
  targetTick: u32,
  cache: fc.array(chunkEntry, { minLength: 9, maxLength: 9 }),
  action: fc.integer({ min: 0, max: 8 }),
});

const chunkPacket = fc
  .record({
    clientType: u16,
    chunkId: u32,
    version: fc.integer({ min: 1, max: 0xffff }),
    palette: fc.array(fc.integer({ min: 0, max: 0xfffe }), { minLength: 1, maxLength: 64 }),
    raw: fc.uint8Array({ minLength: 1024, maxLength: 1024 }),
  })
  .map(({ clientType, chunkId, version, palette, raw }): Packet => {
    const indices = raw.map((value) => value % palette.length);
    const packedTiles = new Uint8Array(768);
    pack6(indices, packedTiles);
    return { type: "chunk", clientType, chunkId, version, palette, packedTiles };
  });

const entityPacket = fc
  .record({ clientType: u16, tick: u32, more: fc.boolean(), entities: fc.array(entityEntry, { maxLength: 80 }) })
  .map(({ entities, ...rest }): Packet => ({
    type: "entity",
    ...rest,
    entities: entities.slice(0, entityBatchEnd(entities, 0)),
  }));

const queryPacket = fc.record({
  type: fc.constant("entity_query" as const),
  clientType: u16,
  authToken: u64,
  entityId: u32,
});

const detailPacket = fc.record({
  type: fc.constant("entity_detail" as const),
  clientType: u16,
  tick: u32,
  entityId: u32,
  meta: metaList(12),
});

const pingPacket = fc.record({
  type: fc.constantFrom("ping" as const, "pong" as const),
  clientType: u16,
  timestampMs: u64,
});

const anyPacket: fc.Arbitrary<Packet> = fc.oneof(
  statePacket,
  actionPacket,
  chunkPacket,
  entityPacket,
  queryPacket,
  detailPacket,
  pingPacket,
);

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

  const mutation = fc.oneof(
    fc.record({ kind: fc.constant("set" as const), at: fc.nat(), value: u8 }),
    fc.record({ kind: fc.constant("flip" as const), at: fc.nat(), value: fc.integer({ min: 0, max: 7 }) }),
    fc.record({ kind: fc.constant("insert" as const), at: fc.nat(), value: u8 }),
    fc.record({ kind: fc.constant("delete" as const), at: fc.nat(), value: fc.constant(0) }),
  );

  it("random byte mutations of a valid packet", () => {
    let accepted = 0;
    let rejected = 0;
    fc.assert(
      fc.property(anyPacket, fc.array(mutation, { minLength: 1, maxLength: 4 }), (packet, mutations) => {
        const bytes = Array.from(encodePacketToBytes(packet));
        for (const { kind, at, value } of mutations) {
          const index = bytes.length === 0 ? 0 : at % bytes.length;
          if (kind === "set") bytes[index] = value;
          else if (kind === "flip") bytes[index] ^= 1 << value;
          else if (kind === "insert") bytes.splice(index, 0, value);
          else bytes.splice(index, 1);
        }
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
        fc.integer({ min: 0, max: 9 }),
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
