// Every decode error code, each provoked by a hand-edited golden vector, and
// the encoder's refusals. The codes are part of the wire spec (servers count
// drops by them), so each must be reachable and stable.
import { afterAll, describe, expect, it } from "vitest";
import {
  DECODE_ERROR_CODES,
  type DecodeErrorCode,
  EncodeError,
  type EntityEntry,
  type Packet,
  type Tlv,
  decodePacket,
  expandStateDeltaCompact,
  encodeChunk,
  encodeChunkFromTiles,
  encodePacket,
  encodePacketToBytes,
  entityBatchEnd,
  splitEntities,
  PACKET_TYPE_NAMES,
} from "../ts/protocol/index.js";
import {
  actionBytes,
  actionPacket,
  chunkSmallBytes,
  chunkSmallPacket,
  chunkWideBytes,
  detailBytes,
  detailPacket,
  entityBytes,
  entityEmptyBytes,
  entityPacket,
  pingBytes,
  pingPacket,
  queryBytes,
  statePacket,
  stateBytes,
  zeros,
} from "./protocol-vectors.js";
import {
  chatAckBytes,
  chatBytes,
  chatPacket,
  chatPostAckBytes,
  chatPostBytes,
  chatPostPacket,
  customToClientBytes,
  customToServerBytes,
  customToServerPacket,
  dialogAckBytes,
  dialogCloseBytes,
  dialogBytes,
  dialogPacket,
  dialogReplyBytes,
  dialogReplyPacket,
  itemRequestBytes,
  itemResultBytes,
  worldClockBytes,
  entityAckBytes,
  stateDeltaBytes,
  compactAckBytes,
  stateDeltaCompactBytes,
  leaveBytes,
  cameraBytes,
  tileUpdateBytes,
  tileUpdatePacket,
} from "./protocol-game-vectors.js";

const seenCodes = new Set<DecodeErrorCode>();

/** Decodes `bytes` and expects rejection with `code`, reported at `offset` when given. */
function expectError(bytes: number[] | Uint8Array, code: DecodeErrorCode, offset?: number): void {
  const result = decodePacket(bytes instanceof Uint8Array ? bytes : new Uint8Array(bytes));
  expect(result.ok ? "accepted" : result.error.code).toBe(code);
  if (!result.ok) {
    expect(result.error.message.length).toBeGreaterThan(0);
    if (offset !== undefined) expect(result.error.offset).toBe(offset);
  }
  seenCodes.add(code);
}

function expectOk(bytes: number[]): void {
  const result = decodePacket(new Uint8Array(bytes));
  expect(result.ok ? "ok" : `${result.error.code}: ${result.error.message}`).toBe("ok");
}

/** Copy of `bytes` with `patch` written at `offset`. */
function patched(bytes: number[], offset: number, patch: number[]): number[] {
  const copy = bytes.slice();
  copy.splice(offset, patch.length, ...patch);
  return copy;
}

/** An EntityDetailPacket around a raw meta block. */
function detailWithMeta(meta: number[]): number[] {
  return [...detailBytes.slice(0, 14), meta.length & 0xff, meta.length >> 8, ...meta];
}

describe("header errors", () => {
  it("oversize: more than 1200 bytes, whatever the type", () => {
    expectError([...entityEmptyBytes, ...zeros(1189)], "oversize");
    expectOk([...entityEmptyBytes.slice(0, 10), 66, 0, ...zeros(66 * 18)]); // exactly 1200
  });

  it("short_header: fewer than 6 bytes", () => {
    for (let length = 0; length < 6; length++) expectError(pingBytes.slice(0, length), "short_header", length);
  });

  it("bad_magic: anything but 4C 52", () => {
    expectError(patched(pingBytes, 0, [0x52, 0x4c]), "bad_magic", 0);
    expectError(patched(pingBytes, 1, [0x53]), "bad_magic", 0);
  });

  it("bad_version: anything but 1", () => {
    expectError(patched(pingBytes, 2, [0]), "bad_version", 2);
    expectError(patched(pingBytes, 2, [2]), "bad_version", 2);
  });

  it("unknown_type: packet_type above the last defined one (30 and up)", () => {
    // The first undefined id follows the last defined one; ids are only ever added (P-16).
    expect(PACKET_TYPE_NAMES.length).toBe(30);
    expectError(patched(pingBytes, 3, [PACKET_TYPE_NAMES.length]), "unknown_type", 3);
    expectError(patched(pingBytes, 3, [255]), "unknown_type", 3);
  });
});

describe("fixed-size packets are exact", () => {
  const fixed: [string, number[]][] = [
    ["state", stateBytes],
    ["action", actionBytes],
    ["entity_query", queryBytes],
    ["ping", pingBytes],
    ["pong", patched(pingBytes, 3, [7])],
    ["chat_post_ack", chatPostAckBytes],
    ["chat_ack", chatAckBytes],
    ["dialog_ack", dialogAckBytes],
    ["dialog_close", dialogCloseBytes],
    ["item_request", itemRequestBytes],
    ["item_result", itemResultBytes],
    ["world_clock", worldClockBytes],
    ["entity_ack", entityAckBytes],
    ["compact_ack", compactAckBytes],
    ["leave", leaveBytes],
    ["camera", cameraBytes],
  ];
  for (const [name, bytes] of fixed) {
    it(`${name}: one byte short is truncated, one byte long is trailing_bytes`, () => {
      expectError(bytes.slice(0, -1), "truncated", bytes.length - 1);
      expectError(bytes.slice(0, 6), "truncated", 6);
      expectError([...bytes, 0], "trailing_bytes", bytes.length);
    });
  }
});

describe("state", () => {
  it("bad_manifest: entries must be the 3×3 neighbourhood from the north-west", () => {
    expectError(patched(stateBytes, 10, [0x05]), "bad_manifest", 10);
    // Swapping two rows keeps every id but breaks the order.
    const swapped = [...stateBytes.slice(0, 10), ...stateBytes.slice(28, 46), ...stateBytes.slice(10, 28)];
    expectError([...swapped, ...stateBytes.slice(46)], "bad_manifest", 10);
    // A manifest around (0, 0) wraps to chunk -1 = 0xFFFF; versions do not matter.
    const origin = [...stateBytes];
    for (let index = 0; index < 9; index++) {
      const cx = (index % 3) - 1;
      const cy = Math.floor(index / 3) - 1;
      origin.splice(10 + index * 6, 4, cx & 0xff, (cx >> 8) & 0xff, cy & 0xff, (cy >> 8) & 0xff);
    }
    expectOk(origin);
  });
});

describe("action", () => {
  it("bad_action: codes above 8", () => {
    expectError(patched(actionBytes, 72, [9, 0]), "bad_action", 72);
    expectError(patched(actionBytes, 72, [0xff, 0xff]), "bad_action", 72);
    for (let code = 0; code <= 8; code++) expectOk(patched(actionBytes, 72, [code, 0]));
  });

  it("trailing_bytes: no defined action carries action_data", () => {
    expectError([...actionBytes, 1, 2], "trailing_bytes", 74);
  });

  it("takes exactly one 28-byte authentication trailer (§ 6.1), nothing shorter or longer", () => {
    const trailer = [5, 0, 0, 0, ...zeros(8), ...Array.from({ length: 16 }, (_, i) => i)];
    expectOk([...actionBytes, ...trailer]);
    expectError([...actionBytes, ...trailer.slice(0, -1)], "trailing_bytes", 74);
    expectError([...actionBytes, ...trailer, 0], "trailing_bytes", 74);
  });
});

describe("pong as a challenge (§ 12.1)", () => {
  const pongBytes = patched(pingBytes, 3, [7]);
  it("a 22-byte Pong carries a cookie, never 0; a 22-byte Ping a report (§ 12.4); other lengths are trailing_bytes", () => {
    expectOk([...pongBytes, 1, 0, 0, 0, 0, 0, 0, 0]);
    expectError([...pongBytes, ...zeros(8)], "bad_challenge", 14);
    expectOk([...pingBytes, 1, 0, 0, 0, 0, 0, 0, 0]);
    expect(decodePacket(new Uint8Array([...pingBytes, 3, 0, 0, 0, 2, 0, 0, 0]))).toMatchObject({
      ok: true,
      packet: { type: "ping", pingsSent: 3, pongsReceived: 2 },
    });
    expectError([...pingBytes, 1, 0, 0, 0], "trailing_bytes", 14);
    expectError([...pingBytes, 1, 0, 0, 0, 0, 0, 0, 0, 0], "trailing_bytes", 14);
    expectError([...pongBytes, 1, 0, 0, 0, 0, 0, 0, 0, 0], "trailing_bytes", 14);
  });
});

describe("chunk", () => {
  it("truncated before the palette, in the palette and in the tiles", () => {
    expectError(chunkSmallBytes.slice(0, 12), "truncated", 12);
    expectError(chunkSmallBytes.slice(0, 15), "truncated", 15);
    expectError(chunkSmallBytes.slice(0, 784), "truncated", 784);
    expectError([...chunkSmallBytes, 0], "trailing_bytes", 785);
  });

  it("bad_chunk_version: version 0 means no chunk", () => {
    expectError(patched(chunkSmallBytes, 10, [0, 0]), "bad_chunk_version", 10);
  });

  it("palette_too_large: pal_count above 64", () => {
    expectError(patched(chunkSmallBytes, 12, [65]), "palette_too_large", 12);
    expectError(patched(chunkSmallBytes, 12, [255]), "palette_too_large", 12);
  });

  it("reserved_tile: the palette may not hold TILE_UNKNOWN, may hold TILE_BORDER", () => {
    expectError(patched(chunkSmallBytes, 15, [0xff, 0xff]), "reserved_tile", 15);
    expectOk(patched(chunkSmallBytes, 15, [0xfe, 0xff]));
  });

  it("bad_palette_index: every index must be below pal_count", () => {
    // Group 100, tile 2 set to index 2 with a 2-entry palette.
    expectError(patched(chunkSmallBytes, 17 + 300, [0, 0x20, 0]), "bad_palette_index", 317);
    // Index 63 in the last tile of the last group.
    expectError(patched(chunkSmallBytes, 17 + 765, [0, 0, 0xfc]), "bad_palette_index", 782);
    // An empty palette admits no index at all.
    expectError([...chunkSmallBytes.slice(0, 12), 0, ...zeros(768)], "bad_palette_index", 13);
  });
});

describe("chunk_wide", () => {
  it("truncated and trailing bytes: the size follows from row_count and pal_count", () => {
    expectError(chunkWideBytes.slice(0, 15), "truncated", 15);
    expectError(chunkWideBytes.slice(0, 37), "truncated", 37);
    expectError([...chunkWideBytes, 0], "trailing_bytes", 38);
    // One more row at 2 bits is 8 more bytes.
    expectError(patched(chunkWideBytes, 12, [29, 3]), "truncated", 38);
    expectOk([...patched(chunkWideBytes, 12, [29, 3]), ...zeros(8)]);
  });

  it("bad_chunk_version: version 0 means no chunk", () => {
    expectError(patched(chunkWideBytes, 10, [0, 0]), "bad_chunk_version", 10);
  });

  it("bad_rows: 1..32 rows inside the chunk", () => {
    expectError(patched(chunkWideBytes, 12, [30, 0]), "bad_rows", 12);
    expectError(patched(chunkWideBytes, 12, [31, 2]), "bad_rows", 12);
    expectError(patched(chunkWideBytes, 12, [32, 1]), "bad_rows", 12);
    expectOk(patched(chunkWideBytes, 12, [0, 2]));
  });

  it("palette_too_large above 1024 ids; bad_palette_index for an empty palette", () => {
    expectError(patched(chunkWideBytes, 14, [0x01, 0x04]), "palette_too_large", 14);
    expectError(patched(chunkWideBytes, 14, [0, 0]), "bad_palette_index", 14);
  });

  it("reserved_tile: the palette may not hold TILE_UNKNOWN, may hold TILE_BORDER", () => {
    expectError(patched(chunkWideBytes, 18, [0xff, 0xff]), "reserved_tile", 18);
  });

  it("bad_palette_index: every index must be below pal_count", () => {
    // Cell 2 gets index 3 (bits 4..5 of the first packed byte) with a 3-entry palette.
    expectError(patched(chunkWideBytes, 22, [0x39]), "bad_palette_index", 22);
    // The last cell, in the last byte.
    expectError(patched(chunkWideBytes, 37, [0xc0]), "bad_palette_index", 37);
  });
});

describe("entity", () => {
  it("truncated header and entries", () => {
    expectError(entityBytes.slice(0, 11), "truncated", 11);
    expectError(entityBytes.slice(0, 12), "truncated", 12); // count 2, no entries
    expectError(entityBytes.slice(0, 12 + 18 + 17), "truncated", 47); // second entry cut in its fixed part
  });

  it("trailing_bytes after the counted entries", () => {
    expectError([...entityBytes, 0], "trailing_bytes", 65);
    expectError(patched(entityBytes, 10, [1]), "trailing_bytes", 30);
  });

  it("too_many_entities: entity_count above 66", () => {
    expectError(patched(entityBytes, 10, [67]), "too_many_entities", 10);
  });

  it("reserved_flags: packet_flags bits 1..7 must be 0; entity_flags bits 3..7 are ignored", () => {
    expectError(patched(entityBytes, 11, [0x02]), "reserved_flags", 11);
    expectError(patched(entityBytes, 11, [0x81]), "reserved_flags", 11);
    expectOk(patched(entityBytes, 12 + 16, [0xff]));
  });

  it("length_overrun: meta_len past the end", () => {
    expectError(patched(entityBytes, 47, [18]), "length_overrun", 47);
    expectError(patched(entityBytes, 47, [255]), "length_overrun", 47);
  });

  it("tlv errors inside an entry are reported at their byte", () => {
    // Entry 1 meta starts at 48: weapon len 3 instead of 2.
    expectError(patched(entityBytes, 49, [3]), "bad_tlv_length", 49);
  });
});

describe("entity_detail", () => {
  it("truncated, length_overrun and trailing_bytes", () => {
    expectError(detailBytes.slice(0, 15), "truncated", 15);
    expectError(detailBytes.slice(0, -1), "length_overrun", 14);
    expectError([...detailBytes, 0], "trailing_bytes", 29);
    expectOk(detailWithMeta([]));
  });

  it("accepts meta up to 1184 bytes", () => {
    const meta: number[] = [];
    while (meta.length + 257 <= 1184) meta.push(0x30, 255, ...zeros(255));
    meta.push(0x31, 1184 - meta.length - 2, ...zeros(1184 - meta.length - 2));
    expect(meta.length).toBe(1184);
    expectOk(detailWithMeta(meta));
  });
});

describe("TLV rules", () => {
  it("tlv_overrun: a value or a length byte running past the block", () => {
    expectError(detailWithMeta([0x02, 0x02, 0x07]), "tlv_overrun", 17);
    expectError(detailWithMeta([0x02, 0x02, 0x07, 0x00, 0x05]), "tlv_overrun", 20);
    expectError(detailWithMeta([0x40, 0x05, 1, 2, 3, 4]), "tlv_overrun", 17);
  });

  it("bad_tlv_length: u16 tags must have len 2", () => {
    for (const tag of [0x01, 0x02, 0x03]) {
      expectError(detailWithMeta([tag, 1, 0]), "bad_tlv_length", 17);
      expectError(detailWithMeta([tag, 3, 0, 0, 0]), "bad_tlv_length", 17);
      expectError(detailWithMeta([tag, 0]), "bad_tlv_length", 17);
    }
  });

  it("duplicate_tlv: known tags at most once; unknown tags may repeat", () => {
    expectError(detailWithMeta([0x02, 2, 1, 0, 0x03, 2, 0, 0, 0x02, 2, 1, 0]), "duplicate_tlv", 24);
    expectError(detailWithMeta([0x04, 1, 0x41, 0x04, 1, 0x42]), "duplicate_tlv", 19);
    expectOk(detailWithMeta([0x00, 0, 0xff, 1, 7, 0xff, 0, 0x07, 2, 1, 2]));
    expectError(detailWithMeta([0x06, 4, 1, 0, 1, 0, 0x06, 4, 1, 0, 1, 0]), "duplicate_tlv", 22);
  });

  it("bad_tlv_length and bad_item: the inventory and item tags (issue 14)", () => {
    // inventory: version u32, capacity u8, then 5 bytes per stack (slot, item_id, count).
    expectOk(detailWithMeta([0x05, 5, 1, 0, 0, 0, 20]));
    expectOk(detailWithMeta([0x05, 15, 1, 0, 0, 0, 20, 0, 7, 0, 1, 0, 250, 2, 0, 1, 0]));
    expectError(detailWithMeta([0x05, 4, 1, 0, 0, 0]), "bad_tlv_length", 17);
    expectError(detailWithMeta([0x05, 9, 1, 0, 0, 0, 20, 0, 7, 0, 1]), "bad_tlv_length", 17);
    // Slots in rising order, inside the capacity (or the two equipment slots), item and count ≥ 1.
    expectError(detailWithMeta([0x05, 15, 1, 0, 0, 0, 20, 3, 7, 0, 1, 0, 3, 2, 0, 1, 0]), "bad_item", 28);
    expectError(detailWithMeta([0x05, 10, 1, 0, 0, 0, 2, 2, 7, 0, 1, 0]), "bad_item", 23);
    expectError(detailWithMeta([0x05, 10, 1, 0, 0, 0, 20, 0, 0, 0, 1, 0]), "bad_item", 23);
    expectError(detailWithMeta([0x05, 10, 1, 0, 0, 0, 20, 0, 7, 0, 0, 0]), "bad_item", 23);
    // item: item_id u16, count u16, both ≥ 1.
    expectOk(detailWithMeta([0x06, 4, 9, 0, 3, 0]));
    expectError(detailWithMeta([0x06, 2, 9, 0]), "bad_tlv_length", 17);
    expectError(detailWithMeta([0x06, 4, 0, 0, 3, 0]), "bad_item", 18);
    expectError(detailWithMeta([0x06, 4, 9, 0, 0, 0]), "bad_item", 18);
  });

  it("bad_tlv_length and bad_quest: the quests and quest_marks tags (issue 38)", () => {
    // quests: catalogue_version u16, then per quest number u8, state u8, progress u16, goal u16.
    expectOk(detailWithMeta([0x08, 2, 3, 0]));
    expectOk(detailWithMeta([0x08, 14, 3, 0, 1, 1, 2, 0, 5, 0, 4, 3, 5, 0, 5, 0]));
    expectError(detailWithMeta([0x08, 1, 3]), "bad_tlv_length", 17);
    expectError(detailWithMeta([0x08, 7, 3, 0, 1, 1, 2, 0, 5]), "bad_tlv_length", 17);
    // Numbers rising from 1, a state of 1 … 3, progress at most the goal.
    expectError(detailWithMeta([0x08, 8, 3, 0, 0, 1, 2, 0, 5, 0]), "bad_quest", 20);
    expectError(detailWithMeta([0x08, 14, 3, 0, 2, 1, 2, 0, 5, 0, 2, 3, 5, 0, 5, 0]), "bad_quest", 26);
    expectError(detailWithMeta([0x08, 8, 3, 0, 1, 4, 2, 0, 5, 0]), "bad_quest", 21);
    expectError(detailWithMeta([0x08, 8, 3, 0, 1, 1, 6, 0, 5, 0]), "bad_quest", 22);
    // quest_marks: per kind type_id u16 and mark u8 (1 or 2), type_ids rising.
    expectOk(detailWithMeta([0x09, 6, 16, 0, 1, 20, 0, 2]));
    expectError(detailWithMeta([0x09, 4, 16, 0, 1, 20]), "bad_tlv_length", 17);
    expectError(detailWithMeta([0x09, 6, 20, 0, 1, 16, 0, 2]), "bad_quest", 21);
    expectError(detailWithMeta([0x09, 3, 16, 0, 3]), "bad_quest", 20);
  });

  it("bad_tlv_length and bad_name: the party tag (issue 39)", () => {
    // Per member: entity_id u32, hp u16, hp_max u16, x u16, y u16, flags u8, name_len u8, name.
    const member = (name: number[]): number[] => [7, 0, 0, 0, 20, 0, 30, 0, 5, 0, 6, 0, 1, name.length, ...name];
    expectOk(detailWithMeta([0x0c, 0]));
    expectOk(detailWithMeta([0x0c, 33, ...member([0x41, 0x64, 0x61]), ...member([0x42, 0x6f])]));
    // A member cut inside its fixed fields, a name running past the value, an empty or control-character name.
    expectError(detailWithMeta([0x0c, 5, 7, 0, 0, 0, 20]), "bad_tlv_length", 18);
    expectError(detailWithMeta([0x0c, 15, ...member([0x41, 0x64])].slice(0, 17)), "bad_tlv_length", 31);
    expectError(detailWithMeta([0x0c, 14, ...member([])]), "bad_name", 32);
    expectError(detailWithMeta([0x0c, 15, ...member([0x0a])]), "bad_name", 32);
  });

  it("bad_tlv_length and bad_progress: the level and progress tags (issue 39)", () => {
    // level: u8, at least 1.
    expectOk(detailWithMeta([0x0a, 1, 3]));
    expectError(detailWithMeta([0x0a, 2, 3, 0]), "bad_tlv_length", 17);
    expectError(detailWithMeta([0x0a, 1, 0]), "bad_progress", 18);
    // progress: xp u32, level_xp u32 (≤ xp), next_xp u32 (0, or above xp).
    const u32 = (n: number) => [n & 0xff, (n >>> 8) & 0xff, (n >>> 16) & 0xff, n >>> 24];
    expectOk(detailWithMeta([0x0b, 12, ...u32(170), ...u32(150), ...u32(300)]));
    expectOk(detailWithMeta([0x0b, 12, ...u32(9600), ...u32(9500), ...u32(0)]));
    expectError(detailWithMeta([0x0b, 8, ...u32(170), ...u32(150)]), "bad_tlv_length", 17);
    expectError(detailWithMeta([0x0b, 12, ...u32(140), ...u32(150), ...u32(300)]), "bad_progress", 22);
    expectError(detailWithMeta([0x0b, 12, ...u32(300), ...u32(150), ...u32(300)]), "bad_progress", 26);
    // Repeated, like every known tag.
    expectError(detailWithMeta([0x0a, 1, 3, 0x0a, 1, 4]), "duplicate_tlv", 19);
  });

  const utf8 = (text: string): number[] => Array.from(new TextEncoder().encode(text));
  const nameTlv = (bytes: number[]): number[] => detailWithMeta([0x04, bytes.length, ...bytes]);

  it("bad_name: 1..32 bytes of well-formed UTF-8 without control characters", () => {
    expectError(nameTlv([]), "bad_name", 18);
    expectError(nameTlv(zeros(33).fill(0x61)), "bad_name", 18);
    expectOk(nameTlv(zeros(32).fill(0x61)));
    expectOk(nameTlv(utf8("Ünïcödé 名前 🦊")));
    expectOk(nameTlv(utf8("\u{10FFFF}")));
    const bad: [string, number[]][] = [
      ["newline", [0x61, 0x0a]],
      ["NUL", [0x00]],
      ["DEL", [0x7f]],
      ["C1 control U+0085", [0xc2, 0x85]],
      ["lone continuation byte", [0x80]],
      ["cut-off sequence", [0x61, 0xc3]],
      ["overlong slash", [0xc0, 0xaf]],
      ["overlong 3-byte", [0xe0, 0x80, 0xaf]],
      ["overlong 4-byte", [0xf0, 0x80, 0x80, 0xaf]],
      ["UTF-16 surrogate", [0xed, 0xa0, 0x80]],
      ["above U+10FFFF", [0xf4, 0x90, 0x80, 0x80]],
      ["bad second continuation", [0xe2, 0x82, 0x41]],
      ["0xFF byte", [0xff]],
    ];
    for (const [, bytes] of bad) expectError(nameTlv(bytes), "bad_name", 18);
  });
});

describe("chat_post", () => {
  const header = chatPostBytes.slice(0, 18);
  it("truncated, length_overrun and trailing_bytes", () => {
    expectError(chatPostBytes.slice(0, 18), "truncated", 18);
    expectError(patched(chatPostBytes, 18, [7]), "length_overrun", 18);
    expectError([...chatPostBytes, 0x61], "trailing_bytes", 25);
  });

  it("bad_sequence: seq 0 is not a message number", () => {
    expectError(patched(chatPostBytes, 14, [0, 0, 0, 0]), "bad_sequence", 14);
  });

  it("text_too_long above 200 bytes, bad_text when empty, ill-formed or on several lines", () => {
    expectError([...header, 201, ...zeros(201).fill(0x61)], "text_too_long", 18);
    expectOk([...header, 200, ...zeros(200).fill(0x61)]);
    expectError(patched(chatPostBytes, 18, [0]), "bad_text", 18);
    expectError(patched(chatPostBytes, 22, [0xe2, 0x9c, 0x41]), "bad_text", 19);
    expectError(patched(chatPostBytes, 19, [0x0a]), "bad_text", 19);
    expectError(patched(chatPostBytes, 20, [0x7f]), "bad_text", 19);
    expectError(patched(chatPostBytes, 22, [0xc2, 0x85, 0x61]), "bad_text", 19);
  });
});

describe("chat_post_ack", () => {
  it("bad_sequence and bad_status", () => {
    expectError(patched(chatPostAckBytes, 6, [0, 0, 0, 0]), "bad_sequence", 6);
    expectError(patched(chatPostAckBytes, 10, [3]), "bad_status", 10);
    for (const status of [0, 1, 2]) expectOk(patched(chatPostAckBytes, 10, [status]));
  });
});

describe("chat", () => {
  it("truncated, length_overrun and trailing_bytes", () => {
    expectError(chatBytes.slice(0, 19), "truncated", 19);
    expectError(patched(chatBytes, 18, [9]), "length_overrun", 18);
    expectError(patched(chatBytes, 22, [6]), "length_overrun", 22);
    expectError([...chatBytes, 0x21], "trailing_bytes", 28);
  });

  it("bad_sequence: seq 0, oldest_seq 0 or above seq", () => {
    expectError(patched(chatBytes, 6, [0, 0, 0, 0]), "bad_sequence", 6);
    expectError(patched(chatBytes, 10, [0, 0, 0, 0]), "bad_sequence", 10);
    expectError(patched(chatBytes, 10, [8, 0, 0, 0]), "bad_sequence", 10);
    expectOk(patched(chatBytes, 10, [7, 0, 0, 0]));
  });

  it("bad_name: the speaker name follows the name TLV's rules (empty allowed)", () => {
    expectError([...chatBytes.slice(0, 18), 33, ...zeros(33).fill(0x61), 1, 0x61], "bad_name", 18);
    expectOk([...chatBytes.slice(0, 18), 32, ...zeros(32).fill(0x61), 1, 0x61]);
    expectError(patched(chatBytes, 19, [0x0a]), "bad_name", 19);
    expectError(patched(chatBytes, 20, [0xc3]), "bad_name", 19);
  });

  it("bad_text and text_too_long", () => {
    expectError(patched(chatBytes, 22, [0]), "bad_text", 22);
    expectError([...chatBytes.slice(0, 22), 201, ...zeros(201).fill(0x61)], "text_too_long", 22);
    expectError(patched(chatBytes, 24, [0x09]), "bad_text", 23);
  });
});

describe("tile_update", () => {
  it("truncated and trailing_bytes", () => {
    expectError(tileUpdateBytes.slice(0, 14), "truncated", 14);
    expectError(patched(tileUpdateBytes, 14, [3]), "truncated", 23);
    expectError([...tileUpdateBytes, 0], "trailing_bytes", 23);
  });

  it("bad_chunk_version: no version 0, and the update must change the version", () => {
    expectError(patched(tileUpdateBytes, 10, [0, 0]), "bad_chunk_version", 10);
    expectError(patched(tileUpdateBytes, 12, [0, 0]), "bad_chunk_version", 12);
    expectError(patched(tileUpdateBytes, 12, [0xff, 0xff]), "bad_chunk_version", 12);
  });

  it("bad_count, bad_tile_index and reserved_tile", () => {
    expectError(patched(tileUpdateBytes, 14, [0]), "bad_count", 14);
    expectError(patched(tileUpdateBytes, 15, [0x00, 0x04]), "bad_tile_index", 15);
    expectError(patched(tileUpdateBytes, 21, [0xff, 0xff]), "reserved_tile", 21);
  });
});

describe("items (issue 14)", () => {
  it("bad_request: request_id 0, an undefined op; bad_status: an undefined result status", () => {
    expectError(patched(itemRequestBytes, 14, [0, 0, 0, 0]), "bad_request", 14);
    expectError(patched(itemRequestBytes, 18, [8]), "bad_request", 18);
    expectOk(patched(itemRequestBytes, 18, [7]));
    expectError(patched(itemResultBytes, 6, [0, 0, 0, 0]), "bad_request", 6);
    expectError(patched(itemResultBytes, 10, [10]), "bad_status", 10);
    expectOk(patched(itemResultBytes, 10, [8]));
  });
});

describe("world clock (issue 15)", () => {
  it("bad_clock: day_ticks 0, day_tick past the day; bad_status: an undefined weather", () => {
    expectError(patched(worldClockBytes, 10, [0, 0, 0, 0]), "bad_clock", 10);
    expectError(patched(worldClockBytes, 14, [0x80, 0x70, 0, 0]), "bad_clock", 14);
    expectOk(patched(worldClockBytes, 14, [0x7f, 0x70, 0, 0]));
    expectError(patched(worldClockBytes, 18, [4]), "bad_status", 18);
    expectOk(patched(worldClockBytes, 18, [3]));
  });
});

describe("state delta (issue 20, P-21)", () => {
  /** The StateDelta vector's fixed part with other counts and another body (delta_len follows the body). */
  const withBody = (removed: number, changed: number, body: number[], deltaLen = body.length): number[] => [
    ...stateDeltaBytes.slice(0, 76),
    removed,
    0,
    changed,
    0,
    deltaLen & 0xff,
    deltaLen >> 8,
    ...body,
  ];
  it("the vector decodes; a short fixed part is truncated; delta_len must match the datagram", () => {
    expectOk(stateDeltaBytes);
    expectError(stateDeltaBytes.slice(0, 81), "truncated", 81);
    expectError(withBody(0, 0, [0x01], 0), "trailing_bytes", 82);
    expectError(withBody(0, 0, [], 1), "length_overrun", 80);
    expectOk(withBody(0, 0, []));
  });
  it("bad_delta: both position forms, ids not ascending, a padded or overlong varint, an id past u32", () => {
    expectError(withBody(0, 1, [0x05, 0x03, 1, 1, 0, 0, 0, 0]), "bad_delta", 83);
    expectError(withBody(0, 2, [0x05, 0x00, 0x00, 0x00]), "bad_delta", 84);
    expectOk(withBody(0, 2, [0x05, 0x00, 0x01, 0x00]));
    expectError(withBody(2, 0, [0x05, 0x00]), "bad_delta", 83);
    expectError(withBody(1, 0, [0x85, 0x00]), "bad_delta", 82);
    expectError(withBody(1, 0, [0xff, 0xff, 0xff, 0xff, 0xff, 0x01]), "bad_delta", 82);
    expectError(withBody(2, 0, [0xff, 0xff, 0xff, 0xff, 0x0f, 0x01]), "bad_delta", 87);
    expectOk(withBody(1, 0, [0xff, 0xff, 0xff, 0xff, 0x0f]));
  });
  it("truncated fields, meta past the body, and meta checked as TLVs", () => {
    expectError(withBody(0, 1, [0x05]), "truncated", 83);
    expectError(withBody(0, 1, [0x05, 0x08, 0x01]), "truncated", 85);
    expectError(withBody(0, 1, [0x05, 0x80, 0x04, 0x02]), "length_overrun", 84);
    expectError(withBody(0, 1, [0x05, 0x80, 0x03, 0x02, 0x01, 0x00]), "bad_tlv_length", 86);
    expectOk(withBody(0, 1, [0x05, 0x80, 0x04, 0x02, 0x02, 0x05, 0x00]));
  });
});

describe("compact state delta (issue 20, P-25)", () => {
  // The vector's head: fixed 18 bytes, nine versions (12 bytes: 18..29), player 30, back 31, counts 32 and 33,
  // delta_len 34..35, body from 36.
  it("the vector decodes and means the StateDelta vector's tick, manifest and player", () => {
    expectOk(stateDeltaCompactBytes);
    const result = decodePacket(Uint8Array.from(stateDeltaCompactBytes));
    if (!result.ok || result.packet.type !== "state_delta_compact") throw new Error("vector does not decode");
    const expanded = expandStateDeltaCompact(result.packet);
    const full = decodePacket(Uint8Array.from(stateDeltaBytes));
    if (!full.ok || full.packet.type !== "state_delta") throw new Error("state delta vector does not decode");
    expect(expanded.chunks).toEqual(full.packet.chunks);
    expect(expanded.playerEntityId).toBe(full.packet.playerEntityId);
    expect(expanded.entityChecksum).toBe(full.packet.entityChecksum);
    expect(expanded.baselineTick).toBe(0x01020304 - 10);
    expect([...expanded.delta]).toEqual([...full.packet.delta]);
    // baseline_back 0 names the empty list.
    const fromEmpty = decodePacket(Uint8Array.from(patched(stateDeltaCompactBytes, 31, [0])));
    if (!fromEmpty.ok || fromEmpty.packet.type !== "state_delta_compact") throw new Error("does not decode");
    expect(expandStateDeltaCompact(fromEmpty.packet).baselineTick).toBe(0);
  });
  it("truncated below the shortest head; delta_len must match the datagram", () => {
    expectError(stateDeltaCompactBytes.slice(0, 32), "truncated", 32);
    expectError(stateDeltaCompactBytes.slice(0, -1), "length_overrun", 34);
    expectError(patched(stateDeltaCompactBytes, 34, [0x16]), "trailing_bytes", 58);
  });
  it("bad_delta: a version above u16, an overlong or padded varint, a baseline before tick 0", () => {
    // The 65535 entry (three bytes) made 81919.
    expectError(patched(stateDeltaCompactBytes, 24, [0xff, 0xff, 0x04]), "bad_delta", 24);
    expectError(patched(stateDeltaCompactBytes, 29, [0x83, 0x00]), "bad_delta", 29);
    const late = patched(stateDeltaCompactBytes, 6, [0x05, 0x00, 0x00, 0x00]); // tick 5, back 10
    expectError(late, "bad_delta", 31);
    expectOk(patched(late, 31, [0x05]));
  });
  it("a bad body is the delta codec's bad_delta, at its offset in the datagram", () => {
    // One removed id written as a padded varint (0x87 0x00): the body's own check, at the body's offset.
    const body = [0x87, 0x00];
    const bytes = [...stateDeltaCompactBytes.slice(0, 32), 0x01, 0x00, body.length, 0x00, ...body];
    expectError(bytes, "bad_delta", 36);
  });
});

describe("dialog", () => {
  it("truncated in the header, an element header and an element body; trailing_bytes", () => {
    expectError(dialogBytes.slice(0, 18), "truncated", 18);
    expectError(dialogBytes.slice(0, 40), "truncated", 40);
    expectError(dialogBytes.slice(0, 45), "truncated", 45);
    expectError(dialogBytes.slice(0, 55), "truncated", 55);
    expectError(dialogBytes.slice(0, 56), "truncated", 56);
    expectError(dialogBytes.slice(0, 69), "truncated", 69);
    expectError(dialogBytes.slice(0, 70), "truncated", 70);
    expectError(patched(dialogBytes, 18, [5]), "truncated", 73);
    expectError([...dialogBytes, 0], "trailing_bytes", 73);
  });

  it("bad_dialog_id and bad_count", () => {
    expectError(patched(dialogBytes, 6, [0, 0, 0, 0]), "bad_dialog_id", 6);
    expectError(patched(dialogBytes, 18, [0]), "bad_count", 18);
  });

  it("bad_element: unknown kinds, return code 0, text input max_bytes outside 1..200", () => {
    expectError(patched(dialogBytes, 19, [0]), "bad_element", 19);
    expectError(patched(dialogBytes, 35, [5]), "bad_element", 35);
    expectError(patched(dialogBytes, 68, [0, 0]), "bad_element", 68);
    expectError(patched(dialogBytes, 55, [0]), "bad_element", 55);
    expectError(patched(dialogBytes, 55, [201]), "bad_element", 55);
    expectOk(patched(dialogBytes, 55, [200]));
  });

  it("strings: length_overrun, text_too_long past a text input's max_bytes, bad_text", () => {
    expectError(patched(dialogBytes, 28, [255]), "length_overrun", 28);
    expectError(patched(dialogBytes, 55, [1]), "text_too_long", 56);
    expectError(patched(dialogBytes, 29, [0x01]), "bad_text", 29);
    expectError(patched(dialogBytes, 71, [0x0a]), "bad_text", 71);
    expectError(patched(dialogBytes, 57, [0x0a]), "bad_text", 57);
  });
});

describe("dialog_ack, dialog_close", () => {
  it("bad_dialog_id and bad_status", () => {
    expectError(patched(dialogAckBytes, 14, [0, 0, 0, 0]), "bad_dialog_id", 14);
    expectError(patched(dialogAckBytes, 18, [2]), "bad_status", 18);
    expectOk(patched(dialogAckBytes, 18, [0]));
    expectError(patched(dialogCloseBytes, 6, [0, 0, 0, 0]), "bad_dialog_id", 6);
  });
});

describe("dialog_reply", () => {
  it("truncated, length_overrun, trailing_bytes", () => {
    expectError(dialogReplyBytes.slice(0, 20), "truncated", 20);
    expectError(patched(dialogReplyBytes, 20, [3]), "truncated", 25);
    expectError(patched(dialogReplyBytes, 21, [5]), "length_overrun", 21);
    expectError([...dialogReplyBytes, 0], "trailing_bytes", 25);
  });

  it("bad_dialog_id, text_too_long, bad_text", () => {
    expectError(patched(dialogReplyBytes, 14, [0, 0, 0, 0]), "bad_dialog_id", 14);
    expectError([...dialogReplyBytes.slice(0, 20), 1, 201, ...zeros(201)], "text_too_long", 21);
    expectError(patched(dialogReplyBytes, 22, [0x0a]), "bad_text", 22);
    expectOk([...dialogReplyBytes.slice(0, 18), 0, 0, 0]); // dismissed, no values
  });
});

describe("custom_to_server, custom_to_client", () => {
  it("truncated, length_overrun, trailing_bytes", () => {
    expectError(customToServerBytes.slice(0, 17), "truncated", 17);
    expectError(patched(customToServerBytes, 16, [4]), "length_overrun", 16);
    expectError([...customToServerBytes, 0], "trailing_bytes", 21);
    expectError(customToClientBytes.slice(0, 9), "truncated", 9);
    expectError(patched(customToClientBytes, 8, [1]), "length_overrun", 8);
    expectError([...customToClientBytes, 0], "trailing_bytes", 10);
  });

  it("payloads up to the datagram limit", () => {
    expectOk([...customToServerBytes.slice(0, 16), 1182 & 0xff, 1182 >> 8, ...zeros(1182)]);
    expectOk([...customToClientBytes.slice(0, 8), 1190 & 0xff, 1190 >> 8, ...zeros(1190)]);
  });
});

describe("every decode error code is reachable", () => {
  afterAll(() => {
    expect([...seenCodes].sort()).toEqual([...DECODE_ERROR_CODES].sort());
  });
  it("(checked after all tests of this file)", () => {
    expect(DECODE_ERROR_CODES.length).toBe(new Set(DECODE_ERROR_CODES).size);
  });
});

/** Expects `action` to throw an EncodeError with `code`. */
function expectEncodeError(action: () => unknown, code: string): void {
  let thrown: unknown;
  try {
    action();
  } catch (error) {
    thrown = error;
  }
  expect(thrown).toBeInstanceOf(EncodeError);
  expect((thrown as EncodeError).code).toBe(code);
}

function withChanges<T extends Packet>(packet: T, changes: Record<string, unknown>): Packet {
  return { ...packet, ...changes } as Packet;
}

describe("encoder refusals", () => {
  it("out_of_range scalars", () => {
    for (const tick of [-1, 2 ** 32, 1.5, Number.NaN, "5", 5n]) {
      expectEncodeError(() => encodePacketToBytes(withChanges(statePacket, { tick })), "out_of_range");
    }
    expectEncodeError(() => encodePacketToBytes(withChanges(statePacket, { clientType: 0x10000 })), "out_of_range");
    expectEncodeError(() => encodePacketToBytes(withChanges(actionPacket, { action: 9 })), "out_of_range");
    expectEncodeError(() => encodePacketToBytes(withChanges(actionPacket, { authToken: -1n })), "out_of_range");
    expectEncodeError(() => encodePacketToBytes(withChanges(actionPacket, { authToken: 2n ** 64n })), "out_of_range");
    expectEncodeError(() => encodePacketToBytes(withChanges(actionPacket, { authToken: 5 })), "out_of_range");
    expectEncodeError(() => encodePacketToBytes(withChanges(actionPacket, { cache: [] })), "out_of_range");
    expectEncodeError(() => encodePacketToBytes(withChanges(statePacket, { chunks: [] })), "out_of_range");
    const cache = actionPacket.type === "action" ? actionPacket.cache.slice() : [];
    cache[8] = { chunkId: 0, version: 0x10000 };
    expectEncodeError(() => encodePacketToBytes(withChanges(actionPacket, { cache })), "out_of_range");
    expectEncodeError(() => encodePacketToBytes(withChanges(chunkSmallPacket, { version: 0 })), "out_of_range");
    expectEncodeError(() => encodePacketToBytes({ type: "nope" } as unknown as Packet), "out_of_range");
  });

  it("bad_manifest when the state entries are not the 3×3 neighbourhood", () => {
    const chunks = statePacket.type === "state" ? statePacket.chunks.slice() : [];
    [chunks[0], chunks[1]] = [chunks[1], chunks[0]];
    expectEncodeError(() => encodePacketToBytes(withChanges(statePacket, { chunks })), "bad_manifest");
  });

  it("chunk palettes and indices", () => {
    const packed = new Uint8Array(768);
    expectEncodeError(() => encodePacketToBytes(withChanges(chunkSmallPacket, { palette: [] })), "out_of_range");
    const palette65 = Array.from({ length: 65 }, (_, index) => index);
    expectEncodeError(() => encodePacketToBytes(withChanges(chunkSmallPacket, { palette: palette65 })), "out_of_range");
    expectEncodeError(
      () => encodePacketToBytes(withChanges(chunkSmallPacket, { palette: [1, 0xffff] })),
      "out_of_range",
    );
    packed[5] = 0x08; // group 1: v = 0x080000, so tile 7 has index 2
    expectEncodeError(
      () => encodePacketToBytes(withChanges(chunkSmallPacket, { palette: [1, 2], packedTiles: packed })),
      "out_of_range",
    );
    expect(encodePacketToBytes(withChanges(chunkSmallPacket, { palette: [1, 2, 3], packedTiles: packed })).length).toBe(
      787,
    );
    expectEncodeError(
      () => encodePacketToBytes(withChanges(chunkSmallPacket, { packedTiles: new Uint8Array(767) })),
      "out_of_range",
    );
  });

  it("encodeChunkFromTiles builds the palette and refuses more than 64 ids or TILE_UNKNOWN", () => {
    const tiles = new Uint16Array(1024);
    for (let index = 0; index < 1024; index++) tiles[index] = index % 64;
    const out = new Uint8Array(909);
    expect(encodeChunkFromTiles(0, 0, 1, tiles, out)).toBe(909);
    tiles[1000] = 64;
    expectEncodeError(() => encodeChunkFromTiles(0, 0, 1, tiles, out), "out_of_range");
    tiles.fill(0xffff);
    expectEncodeError(() => encodeChunkFromTiles(0, 0, 1, tiles, out), "out_of_range");
    expectEncodeError(() => encodeChunkFromTiles(0, 0, 1, new Uint16Array(1023), out), "out_of_range");
  });

  it("buffer_too_small, checked before anything is written", () => {
    const out = new Uint8Array(100).fill(7);
    expectEncodeError(() => encodePacket(statePacket, out, 29), "buffer_too_small");
    expectEncodeError(() => encodePacket(statePacket, out, -1), "buffer_too_small");
    expectEncodeError(() => encodeChunk(chunkSmallPacket as never, out, 0), "buffer_too_small");
    expectEncodeError(() => encodePacket(detailPacket, new Uint8Array(28)), "buffer_too_small");
    expectEncodeError(() => encodePacket(entityPacket, new Uint8Array(64)), "buffer_too_small");
    expect(out.every((byte) => byte === 7)).toBe(true);
  });

  it("a refused packet leaves the buffer untouched", () => {
    const chunks = statePacket.type === "state" ? statePacket.chunks.slice() : [];
    chunks[8] = { chunkId: 0x00000003, version: 3 };
    const cache = actionPacket.type === "action" ? actionPacket.cache.slice() : [];
    cache[8] = { chunkId: 0, version: -1 };
    const entities = entityPacket.type === "entity" ? entityPacket.entities.slice() : [];
    entities.push({ ...entities[0], hp: 70000 });
    const refused: Packet[] = [
      withChanges(statePacket, { chunks }),
      withChanges(actionPacket, { cache }),
      withChanges(entityPacket, { entities }),
      withChanges(detailPacket, {
        meta: [
          { kind: "name", value: "ok" },
          { kind: "weapon", value: 1.5 },
        ],
      }),
      withChanges(pingPacket, { clientType: -1 }),
    ];
    for (const packet of refused) {
      const out = new Uint8Array(1200).fill(7);
      expect(() => encodePacket(packet, out, 0)).toThrow(EncodeError);
      expect(out.every((byte) => byte === 7)).toBe(true);
    }
  });

  const entry = (meta: Tlv[] = []): EntityEntry => ({
    id: 1,
    typeId: 0,
    x: 0,
    y: 0,
    hp: 1,
    hpMax: 1,
    elo: 0,
    flags: 0,
    meta,
  });

  it("entity fields and sizes", () => {
    const encodeEntries = (entities: EntityEntry[]) =>
      encodePacketToBytes({ type: "entity", clientType: 0, tick: 1, more: false, entities });
    expectEncodeError(() => encodeEntries([{ ...entry(), x: 32768 }]), "out_of_range");
    expectEncodeError(() => encodeEntries([{ ...entry(), y: -32769 }]), "out_of_range");
    expectEncodeError(() => encodeEntries([{ ...entry(), flags: 256 }]), "out_of_range");
    expectEncodeError(() => encodeEntries([{ ...entry(), id: -1 }]), "out_of_range");
    expect(encodeEntries(Array.from({ length: 66 }, () => entry())).length).toBe(1200);
    expectEncodeError(() => encodeEntries(Array.from({ length: 67 }, () => entry())), "oversize");
    const heavy = entry([{ kind: "unknown", tag: 0x30, bytes: new Uint8Array(250) }]); // 270 bytes
    expectEncodeError(() => encodeEntries([heavy, heavy, heavy, heavy, heavy]), "oversize");
    expect(entityBatchEnd([heavy, heavy, heavy, heavy, heavy], 0)).toBe(4);
    const tooMuchMeta = entry([
      { kind: "unknown", tag: 0x30, bytes: new Uint8Array(200) },
      { kind: "unknown", tag: 0x30, bytes: new Uint8Array(60) },
    ]);
    expectEncodeError(() => encodeEntries([tooMuchMeta]), "bad_tlv");
    expectEncodeError(() => splitEntities([tooMuchMeta], 1), "bad_tlv");
  });

  it("bad_tlv", () => {
    const bad: Tlv[][] = [
      [{ kind: "weapon", value: 0x10000 }],
      [{ kind: "armor", value: -1 }],
      [
        { kind: "status_effects", value: 1 },
        { kind: "status_effects", value: 2 },
      ],
      [{ kind: "name", value: "" }],
      [{ kind: "name", value: "a".repeat(33) }],
      [{ kind: "name", value: "名".repeat(11) }], // 33 bytes
      [{ kind: "name", value: "bad\nname" }],
      [{ kind: "name", value: "\ud800" }],
      [{ kind: "name", value: "x\udc00" }],
      [{ kind: "unknown", tag: 2, bytes: new Uint8Array(2) }],
      [{ kind: "unknown", tag: 256, bytes: new Uint8Array(0) }],
      [{ kind: "unknown", tag: 9, bytes: new Uint8Array(256) }],
      [{ kind: "mystery" } as unknown as Tlv],
    ];
    for (const meta of bad) {
      expectEncodeError(
        () => encodePacketToBytes({ type: "entity_detail", clientType: 0, tick: 0, entityId: 0, meta }),
        "bad_tlv",
      );
    }
    const ok = encodePacketToBytes({
      type: "entity_detail",
      clientType: 0,
      tick: 0,
      entityId: 0,
      meta: [{ kind: "name", value: "名".repeat(10) + "ab" }],
    });
    expect(ok.length).toBe(16 + 2 + 32);
  });

  it("chat text and names: bad_text; sequence numbers: out_of_range", () => {
    for (const text of ["", "a".repeat(201), "a\nb", "tab\t", "\ud800", "\u0085"]) {
      expectEncodeError(() => encodePacketToBytes(withChanges(chatPostPacket, { text })), "bad_text");
      expectEncodeError(() => encodePacketToBytes(withChanges(chatPacket, { text })), "bad_text");
    }
    expect(encodePacketToBytes(withChanges(chatPostPacket, { text: "é".repeat(100) })).length).toBe(219);
    expectEncodeError(() => encodePacketToBytes(withChanges(chatPacket, { speakerName: "a".repeat(33) })), "bad_text");
    expectEncodeError(() => encodePacketToBytes(withChanges(chatPacket, { speakerName: "a\nb" })), "bad_text");
    expectEncodeError(() => encodePacketToBytes(withChanges(chatPostPacket, { seq: 0 })), "out_of_range");
    expectEncodeError(() => encodePacketToBytes(withChanges(chatPacket, { oldestSeq: 8 })), "out_of_range");
    expectEncodeError(() => encodePacketToBytes(withChanges(chatPacket, { oldestSeq: 0 })), "out_of_range");
    expectEncodeError(
      () => encodePacketToBytes({ type: "chat_post_ack", clientType: 0, seq: 1, status: 3 }),
      "out_of_range",
    );
  });

  it("tile updates: 1..255 changes of valid tiles that change the version", () => {
    const change = { tileIndex: 0, tileId: 1 };
    const refused: Record<string, unknown>[] = [
      { changes: [] },
      { changes: Array.from({ length: 256 }, () => change) },
      { changes: [{ tileIndex: 1024, tileId: 1 }] },
      { changes: [{ tileIndex: 0, tileId: 0xffff }] },
      { fromVersion: 1, toVersion: 1 },
      { fromVersion: 0 },
      { toVersion: 0x10000 },
    ];
    for (const changes of refused) {
      expectEncodeError(() => encodePacketToBytes(withChanges(tileUpdatePacket, changes)), "out_of_range");
    }
    const full = encodePacketToBytes(
      withChanges(tileUpdatePacket, { changes: Array.from({ length: 255 }, () => change) }),
    );
    expect(full.length).toBe(15 + 255 * 4);
  });

  it("dialogs: bad_element, bad_text, and oversize beyond 1200 bytes", () => {
    const base = dialogPacket.type === "dialog" ? dialogPacket : undefined;
    const withElement = (element: unknown) => withChanges(dialogPacket, { elements: [...base!.elements, element] });
    const box = { x: 0, y: 0, width: 10, height: 10 };
    expectEncodeError(
      () => encodePacketToBytes(withElement({ kind: "button", ...box, returnCode: 0, label: "" })),
      "bad_element",
    );
    expectEncodeError(
      () => encodePacketToBytes(withElement({ kind: "text_input", ...box, maxBytes: 0, text: "" })),
      "bad_element",
    );
    expectEncodeError(
      () => encodePacketToBytes(withElement({ kind: "text_input", ...box, maxBytes: 201, text: "" })),
      "bad_element",
    );
    expectEncodeError(
      () => encodePacketToBytes(withElement({ kind: "text_input", ...box, maxBytes: 2, text: "abc" })),
      "bad_text",
    );
    expectEncodeError(() => encodePacketToBytes(withElement({ kind: "label", ...box })), "bad_element");
    expectEncodeError(
      () => encodePacketToBytes(withElement({ kind: "button", ...box, returnCode: 1, label: "a\nb" })),
      "bad_text",
    );
    expectEncodeError(() => encodePacketToBytes(withChanges(dialogPacket, { elements: [] })), "out_of_range");
    expectEncodeError(() => encodePacketToBytes(withChanges(dialogPacket, { dialogId: 0 })), "out_of_range");
    const text = (bytes: number) => ({ kind: "text", ...box, text: "a".repeat(bytes) });
    const exact = withChanges(dialogPacket, { elements: [text(255), text(255), text(255), text(255), text(111)] });
    expect(encodePacketToBytes(exact).length).toBe(1200);
    const over = withChanges(dialogPacket, { elements: [text(255), text(255), text(255), text(255), text(112)] });
    expectEncodeError(() => encodePacketToBytes(over), "oversize");
  });

  it("dialog replies and custom payloads: oversize beyond 1200 bytes", () => {
    const value = "b".repeat(200);
    expect(
      encodePacketToBytes(withChanges(dialogReplyPacket, { values: [value, value, value, value, value] })).length,
    ).toBe(1026);
    expectEncodeError(
      () => encodePacketToBytes(withChanges(dialogReplyPacket, { values: Array.from({ length: 6 }, () => value) })),
      "oversize",
    );
    expectEncodeError(
      () => encodePacketToBytes(withChanges(dialogReplyPacket, { values: ["x".repeat(201)] })),
      "bad_text",
    );
    expect(encodePacketToBytes(withChanges(customToServerPacket, { payload: new Uint8Array(1182) })).length).toBe(1200);
    expectEncodeError(
      () => encodePacketToBytes(withChanges(customToServerPacket, { payload: new Uint8Array(1183) })),
      "oversize",
    );
    const toClient = { type: "custom_to_client" as const, clientType: 0, subtype: 1, payload: new Uint8Array(1191) };
    expectEncodeError(() => encodePacketToBytes(toClient), "oversize");
    expect(encodePacketToBytes({ ...toClient, payload: new Uint8Array(1190) }).length).toBe(1200);
  });

  it("a refused game packet leaves the buffer untouched", () => {
    const refused: Packet[] = [
      withChanges(chatPacket, { text: "ok", speakerName: "bad\u0000" }),
      withChanges(tileUpdatePacket, {
        changes: [
          { tileIndex: 1, tileId: 2 },
          { tileIndex: 1024, tileId: 2 },
        ],
      }),
      withChanges(dialogPacket, {
        elements: [
          { kind: "text", x: 0, y: 0, width: 1, height: 1, text: "ok" },
          { kind: "image", x: 0, y: 0, width: 1, height: 1, atlasIndex: -1 },
        ],
      }),
      withChanges(dialogReplyPacket, { values: ["fine", "not\u0007fine"] }),
    ];
    for (const packet of refused) {
      const out = new Uint8Array(1200).fill(7);
      expect(() => encodePacket(packet, out, 0)).toThrow(EncodeError);
      expect(out.every((byte) => byte === 7)).toBe(true);
    }
  });

  it("entity_detail meta above 1184 bytes is oversize", () => {
    const meta: Tlv[] = [];
    for (let index = 0; index < 4; index++) meta.push({ kind: "unknown", tag: 0x30, bytes: new Uint8Array(255) });
    meta.push({ kind: "unknown", tag: 0x31, bytes: new Uint8Array(154) });
    expect(encodePacketToBytes({ type: "entity_detail", clientType: 0, tick: 0, entityId: 0, meta }).length).toBe(1200);
    meta.push({ kind: "unknown", tag: 0x30, bytes: new Uint8Array(0) });
    expectEncodeError(
      () => encodePacketToBytes({ type: "entity_detail", clientType: 0, tick: 0, entityId: 0, meta }),
      "oversize",
    );
  });
});
