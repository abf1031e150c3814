// Golden vectors: every packet type written out byte by byte from the tables
// in docs/protocol.md (not produced by the encoder), checked in both
// directions: decoding gives the expected packet, encoding gives the bytes.
import { describe, expect, it } from "vitest";
import {
  type ChunkView,
  type EntityView,
  EntityCursor,
  TLV_ARMOR,
  TLV_STATUS_EFFECTS,
  TLV_WEAPON,
  chunkId,
  decodePacket,
  decodePacketPlain,
  encodePacket,
  encodePacketToBytes,
  readChunkPalette,
  readChunkTiles,
  readTlvName,
  readTlvU16,
} from "../ts/protocol/index.js";
import { gameVectors } from "./protocol-game-vectors.js";
import { chunkFullBytes, chunkSmallBytes, entityBytes, vectors } from "./protocol-vectors.js";

describe("golden vectors", () => {
  for (const [name, bytes, packet, size] of [...vectors, ...gameVectors]) {
    it(`${name}: ${size} bytes decode to the packet`, () => {
      expect(bytes.length).toBe(size);
      const result = decodePacketPlain(new Uint8Array(bytes));
      expect(result).toEqual({ ok: true, packet });
    });

    it(`${name}: the packet encodes to the bytes`, () => {
      expect(Array.from(encodePacketToBytes(packet))).toEqual(bytes);
    });

    it(`${name}: decodes from a subarray and encodes at an offset`, () => {
      const big = new Uint8Array(size + 20).fill(0xaa);
      big.set(bytes, 7);
      expect(decodePacketPlain(big.subarray(7, 7 + size))).toEqual({ ok: true, packet });

      const out = new Uint8Array(size + 20).fill(0x55);
      expect(encodePacket(packet, out, 9)).toBe(size);
      expect(Array.from(out.subarray(9, 9 + size))).toEqual(bytes);
      // Nothing outside the packet is touched.
      expect(out.subarray(0, 9).every((byte) => byte === 0x55)).toBe(true);
      expect(out.subarray(9 + size).every((byte) => byte === 0x55)).toBe(true);
    });
  }
});

describe("zero-copy views of the golden vectors", () => {
  it("chunk view aliases the datagram and expands to tile ids", () => {
    const datagram = new Uint8Array(chunkSmallBytes);
    const result = decodePacket(datagram);
    if (!result.ok || result.packet.type !== "chunk") throw new Error("expected a chunk");
    const view: ChunkView = result.packet;
    expect(view.paletteCount).toBe(2);
    expect(view.paletteBytes.buffer).toBe(datagram.buffer);
    expect(view.paletteBytes.byteOffset).toBe(13);
    expect(view.packedTiles.byteOffset).toBe(17);
    expect(view.packedTiles.length).toBe(768);
    const palette = new Uint16Array(64);
    expect(readChunkPalette(view, palette)).toBe(2);
    expect(Array.from(palette.subarray(0, 2))).toEqual([5, 1]);

    const tiles = new Uint16Array(1024);
    readChunkTiles(view, tiles);
    const expected = new Uint16Array(1024).fill(5);
    expected[0] = 1;
    expected[3] = 1;
    expected[31 * 32 + 31] = 1;
    expect(tiles).toEqual(expected);
  });

  it("64-entry chunk: group 1 holds indices 1, 2, 3, 63", () => {
    const result = decodePacket(new Uint8Array(chunkFullBytes));
    if (!result.ok || result.packet.type !== "chunk") throw new Error("expected a chunk");
    const tiles = new Uint16Array(1024);
    readChunkTiles(result.packet, tiles);
    expect(Array.from(tiles.subarray(0, 9))).toEqual([100, 100, 100, 100, 101, 102, 103, 163, 100]);
  });

  it("entity cursor walks the entries without copying", () => {
    const datagram = new Uint8Array(entityBytes);
    const result = decodePacket(datagram);
    if (!result.ok || result.packet.type !== "entity") throw new Error("expected an entity packet");
    const view: EntityView = result.packet;
    expect(view.entityCount).toBe(2);
    expect(view.more).toBe(true);
    const cursor = new EntityCursor().reset(view);
    expect(cursor.next()).toBe(true);
    expect([cursor.id, cursor.x, cursor.y, cursor.elo, cursor.flags]).toEqual([7, -3, 300, 1500, 6]);
    expect(cursor.metaEnd - cursor.metaStart).toBe(0);
    expect(readTlvU16(cursor.bytes, cursor.metaStart, cursor.metaEnd, TLV_WEAPON)).toBe(-1);
    expect(readTlvName(cursor.bytes, cursor.metaStart, cursor.metaEnd)).toBeNull();
    expect(cursor.next()).toBe(true);
    expect([cursor.id, cursor.typeId, cursor.x, cursor.y]).toEqual([0x01000000, 2, 32767, -32768]);
    expect([cursor.metaStart, cursor.metaEnd]).toEqual([48, 65]);
    expect(readTlvU16(cursor.bytes, cursor.metaStart, cursor.metaEnd, TLV_WEAPON)).toBe(0x0203);
    expect(readTlvU16(cursor.bytes, cursor.metaStart, cursor.metaEnd, TLV_STATUS_EFFECTS)).toBe(0x8001);
    expect(readTlvU16(cursor.bytes, cursor.metaStart, cursor.metaEnd, TLV_ARMOR)).toBe(-1);
    expect(readTlvName(cursor.bytes, cursor.metaStart, cursor.metaEnd)).toBe("Zoë");
    expect(cursor.next()).toBe(false);
  });

  it("chunk ids in the vectors match chunkId", () => {
    expect(chunkId(1, -1)).toBe(0xffff0001);
    expect(chunkId(2, 3)).toBe(0x00030002);
    expect(chunkId(-2, -32768)).toBe(0x8000fffe);
    expect(chunkId(-1, 0)).toBe(0x0000ffff);
  });
});
