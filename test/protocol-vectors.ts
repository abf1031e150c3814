// Golden vectors for every packet type, written out byte by byte from the
// tables in docs/protocol.md (never produced by the encoder). Shared by the
// golden, error and packet-tool tests.
import type { Packet } from "../ts/protocol/index.js";

export const zeros = (count: number): number[] => new Array<number>(count).fill(0);

// StatePacket, centre chunk (1, -1); row 0 is outside the map (version 0).
// prettier-ignore
export const stateBytes = [
  0x4c, 0x52, 0x01, 0x00, 0x00, 0x00, // magic "RL", version 1, type 0, client_type 0
  0x04, 0x03, 0x02, 0x01, // tick 0x01020304
  0x00, 0x00, 0xfe, 0xff, 0x00, 0x00, // (0, -2) v0
  0x01, 0x00, 0xfe, 0xff, 0x00, 0x00, // (1, -2) v0
  0x02, 0x00, 0xfe, 0xff, 0x00, 0x00, // (2, -2) v0
  0x00, 0x00, 0xff, 0xff, 0x07, 0x00, // (0, -1) v7
  0x01, 0x00, 0xff, 0xff, 0x34, 0x12, // (1, -1) v0x1234, the player's chunk
  0x02, 0x00, 0xff, 0xff, 0xff, 0xff, // (2, -1) v65535
  0x00, 0x00, 0x00, 0x00, 0x01, 0x00, // (0, 0) v1
  0x01, 0x00, 0x00, 0x00, 0x02, 0x00, // (1, 0) v2
  0x02, 0x00, 0x00, 0x00, 0x03, 0x00, // (2, 0) v3
  0x2a, 0x00, 0x00, 0x00, // player_entity_id 42
  0xef, 0xbe, 0xad, 0xde, // entity_checksum 0xDEADBEEF
];
export const statePacket: Packet = {
  type: "state",
  clientType: 0,
  tick: 0x01020304,
  chunks: [
    { chunkId: 0xfffe0000, version: 0 },
    { chunkId: 0xfffe0001, version: 0 },
    { chunkId: 0xfffe0002, version: 0 },
    { chunkId: 0xffff0000, version: 7 },
    { chunkId: 0xffff0001, version: 0x1234 },
    { chunkId: 0xffff0002, version: 0xffff },
    { chunkId: 0x00000000, version: 1 },
    { chunkId: 0x00000001, version: 2 },
    { chunkId: 0x00000002, version: 3 },
  ],
  playerEntityId: 42,
  entityChecksum: 0xdeadbeef,
};

// prettier-ignore
export const actionBytes = [
  0x4c, 0x52, 0x01, 0x01, 0x03, 0x00, // type 1, client_type 3
  0xef, 0xcd, 0xab, 0x89, 0x67, 0x45, 0x23, 0x01, // auth_token 0x0123456789ABCDEF
  0xe8, 0x03, 0x00, 0x00, // target_tick 1000
  0x00, 0x00, 0x00, 0x00, 0x05, 0x00, // cache[0]: (0, 0) v5
  0xff, 0xff, 0x00, 0x00, 0x02, 0x00, // cache[1]: (-1, 0) v2
  ...zeros(6 * 7), // cache[2..8]: nothing held
  0x06, 0x00, // player_action 6 = SE
];
export const actionPacket: Packet = {
  type: "action",
  clientType: 3,
  authToken: 0x0123456789abcdefn,
  targetTick: 1000,
  cache: [
    { chunkId: 0, version: 5 },
    { chunkId: 0x0000ffff, version: 2 },
    ...Array.from({ length: 7 }, () => ({ chunkId: 0, version: 0 })),
  ],
  action: 6,
};

// Two-entry palette; tiles 0, 3 and 1023 use index 1, all others index 0.
// prettier-ignore
export const chunkSmallBytes = [
  0x4c, 0x52, 0x01, 0x02, 0x00, 0x00, // type 2
  0x02, 0x00, 0x03, 0x00, 0x09, 0x00, // chunk (2, 3) version 9
  0x02, // pal_count 2
  0x05, 0x00, 0x01, 0x00, // palette [5, 1]
  0x01, 0x00, 0x04, // group 0: tiles [1, 0, 0, 1] → v = 1 | 1 << 18
  ...zeros(254 * 3),
  0x00, 0x00, 0x04, // group 255: tiles [0, 0, 0, 1]
];
export const chunkSmallPacked = new Uint8Array(768);
chunkSmallPacked.set([0x01, 0x00, 0x04], 0);
chunkSmallPacked.set([0x00, 0x00, 0x04], 765);
export const chunkSmallPacket: Packet = {
  type: "chunk",
  clientType: 0,
  chunkId: 0x00030002,
  version: 9,
  palette: [5, 1],
  packedTiles: chunkSmallPacked,
};

// Largest chunk: 64-entry palette (tile ids 100..163) → 909 bytes.
export const fullPalette = Array.from({ length: 64 }, (_, index) => 100 + index);
// prettier-ignore
export const chunkFullBytes = [
  0x4c, 0x52, 0x01, 0x02, 0x00, 0x00,
  0xfe, 0xff, 0x00, 0x80, 0x01, 0x00, // chunk (-2, -32768) version 1
  0x40, // pal_count 64
  ...fullPalette.flatMap((id) => [id, 0x00]),
  0x00, 0x00, 0x00, // group 0: tiles [0, 0, 0, 0]
  0x81, 0x30, 0xfc, // group 1: tiles [1, 2, 3, 63] → v = 0xFC3081
  ...zeros(254 * 3),
];
export const chunkFullPacked = new Uint8Array(768);
chunkFullPacked.set([0x81, 0x30, 0xfc], 3);
export const chunkFullPacket: Packet = {
  type: "chunk",
  clientType: 0,
  chunkId: 0x8000fffe,
  version: 1,
  palette: fullPalette,
  packedTiles: chunkFullPacked,
};

// A wide chunk part: rows 30..31 of chunk (1, 2), a 3-entry palette at 2 bits per
// index; cell 0 has index 1, cell 1 index 2, cell 63 index 2, all others 0.
// prettier-ignore
export const chunkWideBytes = [
  0x4c, 0x52, 0x01, 0x14, 0x00, 0x00, // type 20
  0x01, 0x00, 0x02, 0x00, 0x03, 0x00, // chunk (1, 2) version 3
  0x1e, 0x02, // row_start 30, row_count 2
  0x03, 0x00, // pal_count 3
  0x07, 0x00, 0x34, 0x12, 0xfe, 0xff, // palette [7, 0x1234, TILE_BORDER]
  0x09, // cells 0..3: 1 | 2 << 2
  ...zeros(14),
  0x80, // cells 60..63: 2 << 6
];
export const chunkWidePacked = new Uint8Array(16);
chunkWidePacked.set([0x09], 0);
chunkWidePacked.set([0x80], 15);
export const chunkWidePacket: Packet = {
  type: "chunk_wide",
  clientType: 0,
  chunkId: 0x00020001,
  version: 3,
  rowStart: 30,
  rowCount: 2,
  palette: [7, 0x1234, 0xfffe],
  packedTiles: chunkWidePacked,
};

// prettier-ignore
export const entityBytes = [
  0x4c, 0x52, 0x01, 0x03, 0x00, 0x00, // type 3
  0x10, 0x00, 0x00, 0x00, // tick 16
  0x02, // entity_count 2
  0x01, // packet_flags: more follow
  // entry 0
  0x07, 0x00, 0x00, 0x00, // id 7
  0x00, 0x00, // type_id 0 (player)
  0xfd, 0xff, // pos_x -3
  0x2c, 0x01, // pos_y 300
  0x0a, 0x00, // hp 10
  0x14, 0x00, // hp_max 20
  0xdc, 0x05, // elo 1500
  0x06, // hostile | interactable
  0x00, // meta_len 0
  // entry 1
  0x00, 0x00, 0x00, 0x01, // id 0x01000000
  0x02, 0x00, // type_id 2 (chest)
  0xff, 0x7f, // pos_x 32767
  0x00, 0x80, // pos_y -32768
  0x00, 0x00, 0x00, 0x00, 0x00, 0x00, // hp, hp_max, elo 0
  0x05, // static | interactable
  0x11, // meta_len 17
  0x02, 0x02, 0x03, 0x02, // weapon 0x0203
  0x01, 0x02, 0x01, 0x80, // status_effects 0x8001
  0x04, 0x04, 0x5a, 0x6f, 0xc3, 0xab, // name "Zoë"
  0x20, 0x01, 0x99, // unknown tag 0x20, one byte
];
export const entityPacket: Packet = {
  type: "entity",
  clientType: 0,
  tick: 16,
  more: true,
  entities: [
    { id: 7, typeId: 0, x: -3, y: 300, hp: 10, hpMax: 20, elo: 1500, flags: 6, meta: [] },
    {
      id: 0x01000000,
      typeId: 2,
      x: 32767,
      y: -32768,
      hp: 0,
      hpMax: 0,
      elo: 0,
      flags: 5,
      meta: [
        { kind: "weapon", value: 0x0203 },
        { kind: "status_effects", value: 0x8001 },
        { kind: "name", value: "Zoë" },
        { kind: "unknown", tag: 0x20, bytes: new Uint8Array([0x99]) },
      ],
    },
  ],
};

// prettier-ignore
export const entityEmptyBytes = [0x4c, 0x52, 0x01, 0x03, 0x00, 0x00, 0xff, 0xff, 0xff, 0xff, 0x00, 0x00];
export const entityEmptyPacket: Packet = { type: "entity", clientType: 0, tick: 0xffffffff, more: false, entities: [] };

// prettier-ignore
export const queryBytes = [
  0x4c, 0x52, 0x01, 0x04, 0x02, 0x01, // type 4, client_type 0x0102
  0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, // auth_token 2^64 - 1
  0xef, 0xcd, 0xab, 0x00, // entity_id 0x00ABCDEF
];
export const queryPacket: Packet = {
  type: "entity_query",
  clientType: 0x0102,
  authToken: 0xffffffffffffffffn,
  entityId: 0xabcdef,
};

// prettier-ignore
export const detailBytes = [
  0x4c, 0x52, 0x01, 0x05, 0x00, 0x00, // type 5
  0x05, 0x00, 0x00, 0x00, // tick 5
  0x09, 0x00, 0x00, 0x00, // entity_id 9
  0x0d, 0x00, // meta_len 13
  0x04, 0x03, 0x41, 0x6e, 0x6e, // name "Ann"
  0x03, 0x02, 0x10, 0x00, // armor 16
  0x02, 0x02, 0x00, 0x00, // weapon 0
];
export const detailPacket: Packet = {
  type: "entity_detail",
  clientType: 0,
  tick: 5,
  entityId: 9,
  meta: [
    { kind: "name", value: "Ann" },
    { kind: "armor", value: 16 },
    { kind: "weapon", value: 0 },
  ],
};

// prettier-ignore
export const pingBytes = [0x4c, 0x52, 0x01, 0x06, 0x00, 0x00, ...zeros(8)];
export const pingPacket: Packet = { type: "ping", clientType: 0, timestampMs: 0n };

// prettier-ignore
export const pongBytes = [
  0x4c, 0x52, 0x01, 0x07, 0x00, 0x00, // type 7
  0x7b, 0x68, 0xe5, 0xcf, 0x8b, 0x01, 0x00, 0x00, // timestamp_ms 1700000000123
];
export const pongPacket: Packet = { type: "pong", clientType: 0, timestampMs: 1700000000123n };

/** [name, bytes, packet, size] for every vector. */
export const vectors: [string, number[], Packet, number][] = [
  ["state", stateBytes, statePacket, 72],
  ["action", actionBytes, actionPacket, 74],
  ["chunk, 2-entry palette", chunkSmallBytes, chunkSmallPacket, 785],
  ["chunk, 64-entry palette", chunkFullBytes, chunkFullPacket, 909],
  ["entity with meta", entityBytes, entityPacket, 65],
  ["entity, empty", entityEmptyBytes, entityEmptyPacket, 12],
  ["entity_query", queryBytes, queryPacket, 18],
  ["entity_detail", detailBytes, detailPacket, 29],
  ["ping", pingBytes, pingPacket, 14],
  ["pong", pongBytes, pongPacket, 14],
  ["chunk_wide, rows 30..31, 3-entry palette", chunkWideBytes, chunkWidePacket, 38],
];
