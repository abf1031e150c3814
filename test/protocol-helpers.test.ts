// Helpers around the packets: chunk ids, the manifest order, entity splitting
// and the entity checksum (checked against published FNV-1a vectors and the
// wasm kernel), and chunk views expanded by the wasm codec.
import fc from "fast-check";
import { beforeAll, describe, expect, it } from "vitest";
import {
  type EntityEntry,
  type EntityView,
  ENTITY_CHECKSUM_START,
  EntityCursor,
  chunkCoords,
  chunkId,
  chunkOfTile,
  chunkX,
  chunkY,
  decodeHeader,
  decodePacket,
  decodePacketPlain,
  encodeChunkFromTiles,
  entityChecksum,
  entityChecksumUpdate,
  entityEntryBytes,
  manifestChunkId,
  readChunkPalette,
  readChunkTiles,
  splitEntities,
} from "../ts/protocol/index.js";
import { WasmCodec } from "../ts/wasm/codec.js";
import { loadCore } from "../ts/wasm/node.js";

const SEED = 0xc0de;

describe("chunk ids", () => {
  it("pack signed coordinates as (cx as u16) | (cy as u16) << 16", () => {
    expect(chunkId(0, 0)).toBe(0);
    expect(chunkId(-1, -1)).toBe(0xffffffff);
    expect(chunkId(32767, -32768)).toBe(0x80007fff);
    expect(chunkCoords(0xffffffff)).toEqual({ cx: -1, cy: -1 });
    expect(chunkCoords(0x80007fff)).toEqual({ cx: 32767, cy: -32768 });
    expect(() => chunkId(32768, 0)).toThrow(/cx/);
    expect(() => chunkId(0, -32769)).toThrow(/cy/);
  });

  it("round-trip over the whole i16 range", () => {
    fc.assert(
      fc.property(fc.integer({ min: -32768, max: 32767 }), fc.integer({ min: -32768, max: 32767 }), (cx, cy) => {
        const id = chunkId(cx, cy);
        expect(id >>> 0).toBe(id);
        expect([chunkX(id), chunkY(id)]).toEqual([cx, cy]);
      }),
      { seed: SEED, numRuns: 500 },
    );
  });

  it("world tiles map to chunks by floor division", () => {
    expect([
      chunkOfTile(0),
      chunkOfTile(31),
      chunkOfTile(32),
      chunkOfTile(-1),
      chunkOfTile(-32),
      chunkOfTile(-33),
    ]).toEqual([0, 0, 1, -1, -1, -2]);
  });

  it("the manifest lists the 3×3 neighbourhood row by row from the north-west", () => {
    const centre = chunkId(5, 7);
    const coords = Array.from({ length: 9 }, (_, index) => chunkCoords(manifestChunkId(centre, index)));
    expect(coords).toEqual([
      { cx: 4, cy: 6 },
      { cx: 5, cy: 6 },
      { cx: 6, cy: 6 },
      { cx: 4, cy: 7 },
      { cx: 5, cy: 7 },
      { cx: 6, cy: 7 },
      { cx: 4, cy: 8 },
      { cx: 5, cy: 8 },
      { cx: 6, cy: 8 },
    ]);
    // Wraps like the i16 coordinates themselves.
    expect(chunkCoords(manifestChunkId(chunkId(32767, -32768), 0))).toEqual({ cx: 32766, cy: 32767 });
  });
});

describe("header", () => {
  it("decodeHeader reads type and client type, or the reason there is none", () => {
    expect(decodeHeader(new Uint8Array([0x4c, 0x52, 1, 5, 0x34, 0x12]))).toEqual({
      ok: true,
      header: { packetType: 5, clientType: 0x1234 },
    });
    const result = decodeHeader(new Uint8Array([0x4c, 0x52, 1]));
    expect(result.ok ? "" : result.error.code).toBe("short_header");
  });
});

const entry = (id: number, metaName?: string): EntityEntry => ({
  id,
  typeId: id % 4,
  x: id - 500,
  y: 500 - id,
  hp: id % 100,
  hpMax: 100,
  elo: 1000 + id,
  flags: id % 8,
  meta: metaName === undefined ? [] : [{ kind: "name", value: metaName }],
});

describe("splitEntities", () => {
  it("fills 66 entries per datagram without meta, sets `more` on all but the last", () => {
    const entries = Array.from({ length: 200 }, (_, index) => entry(index));
    const datagrams = splitEntities(entries, 77, 0);
    expect(datagrams.map((datagram) => datagram.length)).toEqual([1200, 1200, 1200, 12 + 2 * 18]);
    const decoded = datagrams.map((datagram) => decodePacketPlain(datagram));
    const flags = decoded.map((result) => result.ok && result.packet.type === "entity" && result.packet.more);
    expect(flags).toEqual([true, true, true, false]);
    const all = decoded.flatMap((result) =>
      result.ok && result.packet.type === "entity" ? result.packet.entities : [],
    );
    expect(all).toEqual(entries);
  });

  it("zero entries still give one (empty, final) datagram", () => {
    const datagrams = splitEntities([], 1);
    expect(datagrams.length).toBe(1);
    expect(decodePacketPlain(datagrams[0])).toEqual({
      ok: true,
      packet: { type: "entity", clientType: 0, tick: 1, more: false, entities: [] },
    });
  });

  it("any list splits into valid datagrams of at most 1200 bytes that concatenate to it", () => {
    const names = fc.option(fc.string({ unit: "grapheme-ascii", minLength: 1, maxLength: 32 }), { nil: undefined });
    fc.assert(
      fc.property(fc.array(names, { maxLength: 300 }), (list) => {
        const entries = list.map((name, index) => entry(index, name?.replace(/[\u0000-\u001f\u007f]/g, "x")));
        const datagrams = splitEntities(entries, 9);
        const cursor = new EntityCursor();
        const ids: number[] = [];
        datagrams.forEach((datagram, index) => {
          expect(datagram.length).toBeLessThanOrEqual(1200);
          const result = decodePacket(datagram);
          if (!result.ok || result.packet.type !== "entity") throw new Error("split produced an invalid datagram");
          expect(result.packet.more).toBe(index < datagrams.length - 1);
          // Greedy: the next entry would not have fitted.
          if (result.packet.more) {
            const next = entries[ids.length + result.packet.entityCount];
            const nextBytes = entityEntryBytes(next);
            expect(result.packet.entityCount === 66 || datagram.length + nextBytes > 1200).toBe(true);
          }
          cursor.reset(result.packet);
          while (cursor.next()) ids.push(cursor.id);
        });
        expect(ids).toEqual(entries.map((item) => item.id));
      }),
      { seed: SEED, numRuns: 100 },
    );
  });
});

describe("entity checksum", () => {
  const prefix = new Uint8Array(12).fill(0xee); // header, tick, count, flags: not hashed
  const ascii = (text: string): Uint8Array => new Uint8Array([...prefix, ...new TextEncoder().encode(text)]);

  it("is FNV-1a over bytes 12.. of each datagram, chained (published FNV-1a vectors)", () => {
    expect(ENTITY_CHECKSUM_START).toBe(0x811c9dc5);
    expect(entityChecksum([])).toBe(0x811c9dc5);
    expect(entityChecksum([ascii("a")])).toBe(0xe40c292c);
    expect(entityChecksum([ascii("foobar")])).toBe(0xbf9cf968);
    expect(entityChecksum([ascii("foo"), ascii("bar")])).toBe(0xbf9cf968);
    expect(entityChecksum([ascii("fo"), ascii(""), ascii("obar")])).toBe(0xbf9cf968);
    expect(entityChecksumUpdate(entityChecksumUpdate(ENTITY_CHECKSUM_START, ascii("foo")), ascii("bar"))).toBe(
      0xbf9cf968,
    );
  });

  it("depends on the entries only: not on tick, split flags or datagram boundaries", () => {
    const entries = Array.from({ length: 150 }, (_, index) => entry(index));
    const tick5 = entityChecksum(splitEntities(entries, 5));
    expect(entityChecksum(splitEntities(entries, 6, 3))).toBe(tick5);
    // One big logical stream: the same bytes hashed in one piece.
    const stream = splitEntities(entries, 5).flatMap((datagram) => Array.from(datagram.subarray(12)));
    expect(entityChecksum([new Uint8Array([...prefix, ...stream])])).toBe(tick5);
    entries[149] = { ...entries[149], hp: entries[149].hp + 1 };
    expect(entityChecksum(splitEntities(entries, 5))).not.toBe(tick5);
  });
});

describe("against the wasm core", () => {
  let codec: WasmCodec;
  beforeAll(async () => {
    codec = new WasmCodec(await loadCore());
  });

  it("chunk views expand to the same tiles as the wasm chunk_decode", () => {
    fc.assert(
      fc.property(
        fc.array(fc.integer({ min: 0, max: 0xfffe }), { minLength: 1, maxLength: 64 }),
        fc.uint8Array({ minLength: 1024, maxLength: 1024 }),
        fc.integer({ min: 1, max: 0xffff }),
        (kinds, picks, version) => {
          const tiles = new Uint16Array(1024);
          for (let index = 0; index < 1024; index++) tiles[index] = kinds[picks[index] % kinds.length];
          const datagram = new Uint8Array(909 + 3);
          const size = encodeChunkFromTiles(0, chunkId(-3, 4), version, tiles, datagram, 3);
          const result = decodePacket(datagram.subarray(3, 3 + size));
          if (!result.ok || result.packet.type !== "chunk") throw new Error("expected a chunk");
          const mine = new Uint16Array(1024);
          readChunkTiles(result.packet, mine);
          expect(mine).toEqual(tiles);
          const palette = new Uint16Array(64);
          const count = readChunkPalette(result.packet, palette);
          const fromWasm = new Uint16Array(1024);
          expect(codec.decodeChunk(palette, count, result.packet.packedTiles, fromWasm)).toBe(0);
          expect(fromWasm).toEqual(tiles);
        },
      ),
      { seed: SEED, numRuns: 100 },
    );
  });

  it("the entity checksum equals the wasm FNV-1a chained over bytes 12..", () => {
    const entries = Array.from({ length: 140 }, (_, index) => entry(index, index % 7 === 0 ? `n${index}` : undefined));
    const datagrams = splitEntities(entries, 3);
    let hash: number | undefined;
    for (const datagram of datagrams) hash = codec.fnv1a(datagram, 12, datagram.length, hash);
    expect(entityChecksum(datagrams)).toBe(hash);
  });

  it("entity views from a shared receive buffer are read in place", () => {
    const datagrams = splitEntities([entry(1), entry(2, "Zoë")], 4);
    const receive = new Uint8Array(2048);
    receive.set(datagrams[0], 100);
    const result = decodePacket(receive.subarray(100, 100 + datagrams[0].length));
    if (!result.ok || result.packet.type !== "entity") throw new Error("expected an entity packet");
    const view: EntityView = result.packet;
    expect(view.bytes.buffer).toBe(receive.buffer);
    const cursor = new EntityCursor().reset(view);
    const seen: number[][] = [];
    while (cursor.next()) seen.push([cursor.id, cursor.x, cursor.y, cursor.metaEnd - cursor.metaStart]);
    expect(seen).toEqual([
      [1, -499, 499, 0],
      [2, -498, 498, 2 + 4],
    ]);
  });
});
