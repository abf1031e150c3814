// fast-check arbitraries for every packet type, in the plain form the
// encoders take, and for damage to encoded datagrams. Shared by the protocol
// fuzz tests, the server's fast-path tests and the packet tool tests.
import fc from "fast-check";
import {
  type ChunkEntry,
  type EntityEntry,
  type Packet,
  type Tlv,
  NAME_MAX_BYTES,
  chunkId,
  chunkWidePacketBytes,
  entityBatchEnd,
  manifestChunkId,
} from "../ts/protocol/index.js";
import { pack6, wideIndexBits } from "../ts/ref/codec.js";

export const u8 = fc.integer({ min: 0, max: 0xff });
export const u16 = fc.integer({ min: 0, max: 0xffff });
export const i16 = fc.integer({ min: -0x8000, max: 0x7fff });
export const u32 = fc.integer({ min: 0, max: 0xffffffff });
const u64 = fc.bigInt({ min: 0n, max: 0xffffffffffffffffn });
const chunkEntry: fc.Arbitrary<ChunkEntry> = fc.record({ chunkId: u32, version: u16 });

const utf8Length = (text: string): number => new TextEncoder().encode(text).length;
// Names as players type them: any graphemes, minus the control characters the protocol refuses.
const name = fc
  .string({ unit: "grapheme", minLength: 1, maxLength: 12 })
  .filter((text) => !/[\u0000-\u001f\u007f-\u009f]/u.test(text) && utf8Length(text) <= NAME_MAX_BYTES);

export const tlv: fc.Arbitrary<Tlv> = fc.oneof(
  u16.map((value): Tlv => ({ kind: "status_effects", value })),
  u16.map((value): Tlv => ({ kind: "weapon", value })),
  u16.map((value): Tlv => ({ kind: "armor", value })),
  name.map((value): Tlv => ({ kind: "name", value })),
  fc
    .record({ capacity: fc.integer({ min: 0, max: 40 }), version: fc.nat({ max: 0xffffffff }), picks: fc.nat() })
    .chain(({ capacity, version }) =>
      fc
        .uniqueArray(fc.oneof(fc.integer({ min: 0, max: Math.max(0, capacity - 1) }), fc.constantFrom(250, 251)), {
          maxLength: 12,
        })
        .map((slots) => slots.filter((slot) => slot < capacity || slot >= 250).sort((a, b) => a - b))
        .chain((slots) =>
          fc
            .tuple(
              ...slots.map(() => fc.tuple(fc.integer({ min: 1, max: 0xffff }), fc.integer({ min: 1, max: 0xffff }))),
            )
            .map((pairs): Tlv => ({
              kind: "inventory",
              version,
              capacity,
              stacks: slots.map((slot, index) => ({ slot, itemId: pairs[index][0], count: pairs[index][1] })),
            })),
        ),
    ),
  fc
    .tuple(fc.integer({ min: 1, max: 0xffff }), fc.integer({ min: 1, max: 0xffff }))
    .map(([itemId, count]): Tlv => ({ kind: "item", itemId, count })),
  fc.integer({ min: 0, max: 0xffff }).map((value): Tlv => ({ kind: "appearance", value })),
  fc
    .tuple(
      fc.integer({ min: 0, max: 0xffff }),
      fc.uniqueArray(fc.integer({ min: 1, max: 0xff }), { maxLength: 8 }),
      fc.array(fc.tuple(fc.integer({ min: 1, max: 3 }), fc.integer({ min: 0, max: 0xffff }), fc.nat()), {
        minLength: 8,
        maxLength: 8,
      }),
    )
    .map(([catalogueVersion, numbers, rest]): Tlv => ({
      kind: "quests",
      catalogueVersion,
      quests: [...numbers]
        .sort((a, b) => a - b)
        .map((quest, index) => {
          const [state, goal, progress] = rest[index];
          return { quest, state, goal, progress: progress % (goal + 1) };
        }),
    })),
  fc
    .tuple(
      fc.uniqueArray(fc.integer({ min: 0, max: 0xffff }), { maxLength: 8 }),
      fc.array(fc.integer({ min: 1, max: 2 }), { minLength: 8, maxLength: 8 }),
    )
    .map(([typeIds, marks]): Tlv => ({
      kind: "quest_marks",
      marks: [...typeIds].sort((a, b) => a - b).map((typeId, index) => ({ typeId, mark: marks[index] })),
    })),
  fc.integer({ min: 1, max: 0xff }).map((value): Tlv => ({ kind: "level", value })),
  fc.tuple(fc.nat(), fc.nat(), fc.oneof(fc.constant(0), fc.nat())).map(([a, b, c]): Tlv => {
    // level_xp ≤ xp < next_xp (or next_xp 0, the highest level).
    const [levelXp, xp] = a <= b ? [a, b] : [b, a];
    return { kind: "progress", xp, levelXp, nextXp: c === 0 ? 0 : xp + c };
  }),
  fc
    .array(
      fc.record({
        entityId: u32,
        hp: fc.integer({ min: 0, max: 0xffff }),
        hpMax: fc.integer({ min: 0, max: 0xffff }),
        x: fc.integer({ min: 0, max: 0xffff }),
        y: fc.integer({ min: 0, max: 0xffff }),
        flags: fc.integer({ min: 0, max: 0xff }),
        name: fc.string({ unit: fc.constantFrom(..."abcdefghij ÄöÜ名前"), minLength: 1, maxLength: 16 }),
      }),
      { maxLength: 4 },
    )
    .map((members): Tlv => ({ kind: "party", members })),
  fc
    .record({
      tag: fc.oneof(fc.constant(0), fc.integer({ min: 13, max: 0xff })),
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

export const entityEntry: fc.Arbitrary<EntityEntry> = fc.record({
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

const actionPacket = fc
  .record({
    type: fc.constant("action" as const),
    clientType: u16,
    authToken: u64,
    targetTick: u32,
    cache: fc.array(chunkEntry, { minLength: 9, maxLength: 9 }),
    action: fc.integer({ min: 0, max: 8 }),
    // The authentication trailer (docs/protocol.md § 6.1), on about half of them.
    auth: fc.option(
      fc.record({ sequence: u32, challenge: u64, tag: fc.uint8Array({ minLength: 16, maxLength: 16 }) }),
      { nil: undefined },
    ),
  })
  .map(({ auth, ...packet }): Packet => (auth === undefined ? packet : { ...packet, auth }));

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

/** A wide chunk part: 1..32 rows, 1..1024 palette ids (the datagram limit caps the product). */
const chunkWidePacket = fc
  .record({
    clientType: u16,
    chunkId: u32,
    version: fc.integer({ min: 1, max: 0xffff }),
    rowStart: fc.integer({ min: 0, max: 31 }),
    rowCount: fc.integer({ min: 1, max: 32 }),
    palette: fc.array(fc.integer({ min: 0, max: 0xfffe }), { minLength: 1, maxLength: 1024 }),
    raw: fc.array(fc.nat(), { minLength: 1024, maxLength: 1024 }),
  })
  .map(({ clientType, chunkId, version, rowStart, rowCount: wanted, palette: ids, raw }): Packet => {
    const rowCount = Math.min(wanted, 32 - rowStart);
    // Keep the part within one datagram: fewer ids for a taller band.
    let palette = ids;
    while (chunkWidePacketBytes(rowCount, palette.length) > 1200) palette = palette.slice(0, palette.length >> 1);
    const bits = wideIndexBits(palette.length);
    const packedTiles = new Uint8Array(rowCount * 4 * bits);
    for (let cell = 0; cell < rowCount * 32; cell++) {
      const index = raw[cell] % palette.length;
      for (let bit = 0; bit < bits; bit++) {
        if ((index >> bit) & 1) packedTiles[(cell * bits + bit) >> 3] |= 1 << ((cell * bits + bit) & 7);
      }
    }
    return { type: "chunk_wide", clientType, chunkId, version, rowStart, rowCount, palette, packedTiles };
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

/** A challenge Pong (docs/protocol.md § 12.1): a Pong with a cookie, never 0. */
const challengePacket = fc.record({
  type: fc.constant("pong" as const),
  clientType: u16,
  timestampMs: u64,
  challenge: fc.bigInt({ min: 1n, max: 0xffffffffffffffffn }),
});

/** A reporting Ping (docs/protocol.md § 12.4): a Ping with its client's counts. */
const reportingPing = fc.record({
  type: fc.constant("ping" as const),
  clientType: u16,
  timestampMs: u64,
  pingsSent: u32,
  pongsReceived: u32,
});

export const anyPacket: fc.Arbitrary<Packet> = fc.oneof(
  statePacket,
  actionPacket,
  chunkPacket,
  chunkWidePacket,
  entityPacket,
  queryPacket,
  detailPacket,
  pingPacket,
  challengePacket,
  reportingPing,
);

/**
 * One edit of a datagram's bytes, for the fuzz tests that check what readers make of damaged input: set a byte,
 * flip a bit, insert a byte or delete one. `at` is taken modulo the length the bytes have when it is applied.
 */
export interface ByteMutation {
  kind: "set" | "flip" | "insert" | "delete";
  at: number;
  /** The byte to set or insert, or the bit to flip (0..7). */
  value: number;
}

export const byteMutation: fc.Arbitrary<ByteMutation> = fc.oneof(
  fc.record({ kind: fc.constant("set" as const), at: fc.nat(), value: u8 }),
  fc.record({ kind: fc.constant("flip" as const), at: fc.nat(), value: fc.integer({ min: 0, max: 7 }) }),
  fc.record({ kind: fc.constant("insert" as const), at: fc.nat(), value: u8 }),
  fc.record({ kind: fc.constant("delete" as const), at: fc.nat(), value: fc.constant(0) }),
);

/** Applies `mutations` to `bytes` in order, in place, and returns them. */
export function mutateBytes(bytes: number[], mutations: readonly ByteMutation[]): number[] {
  for (const { kind, at, value } of mutations) {
    const index = bytes.length === 0 ? 0 : at % bytes.length;
    if (kind === "set") bytes[index] = value;
    else if (kind === "flip") bytes[index] ^= 1 << value;
    else if (kind === "insert") bytes.splice(index, 0, value);
    else bytes.splice(index, 1);
  }
  return bytes;
}
