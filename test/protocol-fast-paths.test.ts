// The allocation-free encoders the server's per-client broadcast uses
// (encodeStateAround, encodeEntityHeader + encodeEntityEntry,
// entityChecksumEntries) give exactly the bytes and checksums of the plain
// encoders, and refuse the same bad input.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  ENTITY_CHECKSUM_START,
  ENTITY_HEADER_BYTES,
  EncodeError,
  type EntityEntry,
  MANIFEST_ENTRIES,
  STATE_BYTES,
  STATE_CHECKSUM_OFFSET,
  STATE_TICK_OFFSET,
  chunkId,
  encodeEntityEntry,
  encodeEntityEntryWithMeta,
  encodeEntityHeader,
  encodeEntityMeta,
  encodeState,
  encodeStateAround,
  entityBatchEnd,
  entityChecksum,
  entityChecksumEntries,
  manifestChunkId,
  readU32,
  splitEntities,
} from "../ts/protocol/index.js";
import { entityEntry, i16, u16, u32 } from "./protocol-arbitraries.js";

describe("encodeStateAround", () => {
  it("writes the bytes encodeState writes for the same 3×3 manifest", () => {
    fc.assert(
      fc.property(
        fc.record({
          clientType: u16,
          tick: u32,
          cx: i16,
          cy: i16,
          versions: fc.array(u16, { minLength: MANIFEST_ENTRIES, maxLength: MANIFEST_ENTRIES }),
          playerEntityId: u32,
          entityChecksum: u32,
          offset: fc.integer({ min: 0, max: 16 }),
        }),
        ({ clientType, tick, cx, cy, versions, playerEntityId, entityChecksum, offset }) => {
          const expected = new Uint8Array(STATE_BYTES);
          const centre = chunkId(cx, cy);
          const chunks = versions.map((version, index) => ({ chunkId: manifestChunkId(centre, index), version }));
          encodeState({ type: "state", clientType, tick, chunks, playerEntityId, entityChecksum }, expected);
          const out = new Uint8Array(offset + STATE_BYTES + 3).fill(0xaa);
          const size = encodeStateAround(
            clientType,
            tick,
            cx,
            cy,
            Uint16Array.from(versions),
            playerEntityId,
            entityChecksum,
            out,
            offset,
          );
          expect(size).toBe(STATE_BYTES);
          expect(out.subarray(offset, offset + STATE_BYTES)).toEqual(expected);
          // Nothing written outside the packet.
          expect(out.subarray(0, offset).every((byte) => byte === 0xaa)).toBe(true);
          expect(out.subarray(offset + STATE_BYTES).every((byte) => byte === 0xaa)).toBe(true);
          expect(readU32(out, offset + STATE_TICK_OFFSET)).toBe(tick);
          expect(readU32(out, offset + STATE_CHECKSUM_OFFSET)).toBe(entityChecksum);
        },
      ),
      { seed: 7, numRuns: 300 },
    );
  });

  it("refuses what encodeState refuses, before writing anything", () => {
    const versions = new Uint16Array(MANIFEST_ENTRIES).fill(1);
    const out = new Uint8Array(STATE_BYTES);
    expect(() => encodeStateAround(0, -1, 0, 0, versions, 1, 0, out)).toThrow(EncodeError);
    expect(() => encodeStateAround(0, 2 ** 32, 0, 0, versions, 1, 0, out)).toThrow(EncodeError);
    expect(() => encodeStateAround(0, 1, 0, 0, versions, 1.5, 0, out)).toThrow(EncodeError);
    expect(() => encodeStateAround(0, 1, 0, 0, versions, 1, -1, out)).toThrow(EncodeError);
    expect(() => encodeStateAround(0, 1, 0x8000, 0, versions, 1, 0, out)).toThrow(EncodeError);
    expect(() => encodeStateAround(0, 1, 0, 0, [1, 1, 1, 1, 0x10000, 1, 1, 1, 1], 1, 0, out)).toThrow(EncodeError);
    expect(() => encodeStateAround(0x10000, 1, 0, 0, versions, 1, 0, out)).toThrow(EncodeError);
    expect(() => encodeStateAround(0, 1, 0, 0, versions, 1, 0, new Uint8Array(STATE_BYTES - 1))).toThrow(EncodeError);
    expect(out.every((byte) => byte === 0)).toBe(true);
  });
});

/** EntityPackets assembled as the server does: one header, then entries encoded one by one. */
function assembled(entries: EntityEntry[], tick: number): Uint8Array[] {
  const datagrams: Uint8Array[] = [];
  let start = 0;
  do {
    const end = entityBatchEnd(entries, start);
    const out = new Uint8Array(1200);
    let at = encodeEntityHeader(0, tick, end - start, end < entries.length, out, 0);
    for (let index = start; index < end; index++) at += encodeEntityEntry(entries[index], out, at, index);
    datagrams.push(out.slice(0, at));
    start = end;
  } while (start < entries.length);
  return datagrams;
}

describe("encodeEntityHeader and encodeEntityEntry", () => {
  it("assemble the datagrams splitEntities encodes, and entityChecksumEntries over the entries is their checksum", () => {
    fc.assert(
      fc.property(fc.array(entityEntry, { maxLength: 160 }), u32, (entries, tick) => {
        const expected = splitEntities(entries, tick);
        expect(assembled(entries, tick)).toEqual(expected);
        // The checksum folded over each entry's own bytes, in order, without any datagram.
        let checksum = ENTITY_CHECKSUM_START;
        const scratch = new Uint8Array(300);
        for (const entry of entries) {
          const size = encodeEntityEntry(entry, scratch, 0);
          checksum = entityChecksumEntries(checksum, scratch, 0, size);
        }
        expect(checksum).toBe(entityChecksum(expected));
      }),
      { seed: 11, numRuns: 150 },
    );
  });

  it("encodeEntityEntryWithMeta over encodeEntityMeta writes encodeEntityEntry's bytes (the broadcast's meta cache)", () => {
    fc.assert(
      fc.property(entityEntry, fc.integer({ min: 0, max: 16 }), (entry, offset) => {
        const expected = new Uint8Array(300);
        const size = encodeEntityEntry(entry, expected, offset);
        const out = new Uint8Array(300);
        expect(encodeEntityEntryWithMeta(entry, encodeEntityMeta(entry), out, offset)).toBe(size);
        expect(out).toEqual(expected);
      }),
      { seed: 12, numRuns: 300 },
    );
  });

  it("refuse what encodeEntityRange refuses", () => {
    const good: EntityEntry = { id: 1, typeId: 0, x: 0, y: 0, hp: 1, hpMax: 1, elo: 0, flags: 0, meta: [] };
    const out = new Uint8Array(1200);
    for (const bad of [
      { ...good, id: -1 },
      { ...good, x: 0x8000 },
      { ...good, y: -0x8001 },
      { ...good, hp: 0x10000 },
      { ...good, flags: 0x100 },
      {
        ...good,
        meta: [
          { kind: "weapon" as const, value: 1 },
          { kind: "weapon" as const, value: 2 },
        ],
      },
      { ...good, meta: [{ kind: "unknown" as const, tag: 9, bytes: new Uint8Array(254) }] },
    ]) {
      expect(() => splitEntities([bad], 1)).toThrow(EncodeError);
      expect(() => encodeEntityEntry(bad, out, 0)).toThrow(EncodeError);
      expect(() => encodeEntityEntryWithMeta(bad, encodeEntityMeta(bad), out, 0)).toThrow(EncodeError);
    }
    expect(() => encodeEntityEntryWithMeta(good, new Uint8Array(4), out, 1200 - 21)).toThrow(EncodeError);
    expect(() => encodeEntityEntry(good, out, 1200 - 17)).toThrow(EncodeError);
    expect(() => encodeEntityHeader(0, 1, 67, false, out, 0)).toThrow(EncodeError);
    expect(() => encodeEntityHeader(0, -1, 0, false, out, 0)).toThrow(EncodeError);
    expect(() => encodeEntityHeader(0, 1, 0, false, out, 1200 - ENTITY_HEADER_BYTES + 1)).toThrow(EncodeError);
  });
});
