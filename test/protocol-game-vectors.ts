// Golden vectors for the chat, tile update, dialog and custom packets (types
// 8–18), written out byte by byte from the tables in docs/protocol.md (never
// produced by the encoder). Shared by the golden, error and fuzz tests.
import type { Packet } from "../ts/protocol/index.js";
import { stateBytes, statePacket } from "./protocol-vectors.js";

// prettier-ignore
export const chatPostBytes = [
  0x4c, 0x52, 0x01, 0x08, 0x00, 0x00, // type 8
  0xef, 0xcd, 0xab, 0x89, 0x67, 0x45, 0x23, 0x01, // auth_token 0x0123456789ABCDEF
  0x02, 0x00, 0x00, 0x00, // seq 2
  0x06, // text_len 6
  0x68, 0x69, 0x20, 0xe2, 0x9c, 0x93, // "hi ✓"
];
export const chatPostPacket: Packet = {
  type: "chat_post",
  clientType: 0,
  authToken: 0x0123456789abcdefn,
  seq: 2,
  text: "hi ✓",
};

// prettier-ignore
export const chatPostAckBytes = [
  0x4c, 0x52, 0x01, 0x09, 0x00, 0x00, // type 9
  0x04, 0x03, 0x02, 0x01, // seq 0x01020304
  0x01, // status 1: rate_limited
];
export const chatPostAckPacket: Packet = { type: "chat_post_ack", clientType: 0, seq: 0x01020304, status: 1 };

// prettier-ignore
export const chatBytes = [
  0x4c, 0x52, 0x01, 0x0a, 0x00, 0x00, // type 10
  0x07, 0x00, 0x00, 0x00, // seq 7
  0x05, 0x00, 0x00, 0x00, // oldest_seq 5
  0x2a, 0x00, 0x00, 0x00, // speaker_entity_id 42
  0x03, 0x41, 0x6e, 0x6e, // name "Ann"
  0x05, 0x68, 0x65, 0x6c, 0x6c, 0x6f, // text "hello"
];
export const chatPacket: Packet = {
  type: "chat",
  clientType: 0,
  seq: 7,
  oldestSeq: 5,
  speakerEntityId: 42,
  speakerName: "Ann",
  text: "hello",
};

// prettier-ignore
export const chatSystemBytes = [
  0x4c, 0x52, 0x01, 0x0a, 0x00, 0x00, // type 10
  0x01, 0x00, 0x00, 0x00, // seq 1
  0x01, 0x00, 0x00, 0x00, // oldest_seq 1
  0x00, 0x00, 0x00, 0x00, // speaker 0: system
  0x00, // no name
  0x0b, 0x5a, 0x6f, 0xc3, 0xab, 0x20, 0x6a, 0x6f, 0x69, 0x6e, 0x65, 0x64, // "Zoë joined"
];
export const chatSystemPacket: Packet = {
  type: "chat",
  clientType: 0,
  seq: 1,
  oldestSeq: 1,
  speakerEntityId: 0,
  speakerName: "",
  text: "Zoë joined",
};

// prettier-ignore
export const chatAckBytes = [
  0x4c, 0x52, 0x01, 0x0b, 0x00, 0x00, // type 11
  0x01, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, // auth_token 1
  0x09, 0x00, 0x00, 0x00, // seq 9
];
export const chatAckPacket: Packet = { type: "chat_ack", clientType: 0, authToken: 1n, seq: 9 };

// prettier-ignore
export const tileUpdateBytes = [
  0x4c, 0x52, 0x01, 0x0c, 0x00, 0x00, // type 12
  0x01, 0x00, 0x02, 0x00, // chunk (1, 2)
  0xff, 0xff, // from_version 65535
  0x01, 0x00, // to_version 1 (the wrap skips 0)
  0x02, // count 2
  0xff, 0x03, 0xfe, 0xff, // tile 1023 (x 31, y 31) → TILE_BORDER
  0x21, 0x00, 0x0e, 0x00, // tile 33 (x 1, y 1) → 14 (sign)
];
export const tileUpdatePacket: Packet = {
  type: "tile_update",
  clientType: 0,
  chunkId: 0x00020001,
  fromVersion: 0xffff,
  toVersion: 1,
  changes: [
    { tileIndex: 1023, tileId: 0xfffe },
    { tileIndex: 33, tileId: 14 },
  ],
};

// prettier-ignore
export const dialogBytes = [
  0x4c, 0x52, 0x01, 0x0d, 0x00, 0x00, // type 13
  0x03, 0x00, 0x00, 0x00, // dialog_id 3
  0x28, 0x00, 0x3c, 0x00, 0xa0, 0x00, 0x64, 0x00, // x 40, y 60, width 160, height 100
  0x04, // element_count 4
  0x01, 0x08, 0x00, 0x08, 0x00, 0x90, 0x00, 0x10, 0x00, // text at (8, 8), 144×16
  0x06, 0x48, 0x69, 0x0a, 0x79, 0x6f, 0x75, // "Hi\nyou"
  0x02, 0x08, 0x00, 0x1e, 0x00, 0x08, 0x00, 0x08, 0x00, // image at (8, 30), 8×8
  0x0e, 0x00, // atlas_index 14
  0x04, 0x14, 0x00, 0x1e, 0x00, 0x64, 0x00, 0x0a, 0x00, // text input at (20, 30), 100×10
  0x14, 0x02, 0x61, 0x62, // max_bytes 20, text "ab"
  0x03, 0x3c, 0x00, 0x50, 0x00, 0x28, 0x00, 0x0c, 0x00, // button at (60, 80), 40×12
  0x01, 0x00, 0x02, 0x4f, 0x4b, // return_code 1, label "OK"
];
export const dialogPacket: Packet = {
  type: "dialog",
  clientType: 0,
  dialogId: 3,
  x: 40,
  y: 60,
  width: 160,
  height: 100,
  elements: [
    { kind: "text", x: 8, y: 8, width: 144, height: 16, text: "Hi\nyou" },
    { kind: "image", x: 8, y: 30, width: 8, height: 8, atlasIndex: 14 },
    { kind: "text_input", x: 20, y: 30, width: 100, height: 10, maxBytes: 20, text: "ab" },
    { kind: "button", x: 60, y: 80, width: 40, height: 12, returnCode: 1, label: "OK" },
  ],
};

// prettier-ignore
export const dialogAckBytes = [
  0x4c, 0x52, 0x01, 0x0e, 0x00, 0x00, // type 14
  0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, // auth_token 2^64 - 1
  0x03, 0x00, 0x00, 0x00, // dialog_id 3
  0x01, // state 1: closed
];
export const dialogAckPacket: Packet = {
  type: "dialog_ack",
  clientType: 0,
  authToken: 0xffffffffffffffffn,
  dialogId: 3,
  state: 1,
};

// prettier-ignore
export const dialogReplyBytes = [
  0x4c, 0x52, 0x01, 0x0f, 0x00, 0x00, // type 15
  0xef, 0xcd, 0xab, 0x89, 0x67, 0x45, 0x23, 0x01, // auth_token
  0x03, 0x00, 0x00, 0x00, // dialog_id 3
  0x01, 0x00, // return_code 1
  0x02, // value_count 2
  0x02, 0x61, 0x62, // "ab"
  0x00, // ""
];
export const dialogReplyPacket: Packet = {
  type: "dialog_reply",
  clientType: 0,
  authToken: 0x0123456789abcdefn,
  dialogId: 3,
  returnCode: 1,
  values: ["ab", ""],
};

// prettier-ignore
export const dialogCloseBytes = [
  0x4c, 0x52, 0x01, 0x10, 0x00, 0x00, // type 16
  0x00, 0x00, 0x00, 0x01, // dialog_id 0x01000000
];
export const dialogClosePacket: Packet = { type: "dialog_close", clientType: 0, dialogId: 0x01000000 };

// prettier-ignore
export const customToServerBytes = [
  0x4c, 0x52, 0x01, 0x11, 0x05, 0x00, // type 17, client_type 5
  0x02, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, // auth_token 2
  0xef, 0xbe, // subtype 0xBEEF
  0x03, 0x00, // payload_len 3
  0x01, 0x02, 0x03,
];
export const customToServerPacket: Packet = {
  type: "custom_to_server",
  clientType: 5,
  authToken: 2n,
  subtype: 0xbeef,
  payload: new Uint8Array([1, 2, 3]),
};

// prettier-ignore
export const customToClientBytes = [
  0x4c, 0x52, 0x01, 0x12, 0x00, 0x00, // type 18
  0x00, 0x00, // subtype 0
  0x00, 0x00, // payload_len 0
];
export const customToClientPacket: Packet = {
  type: "custom_to_client",
  clientType: 0,
  subtype: 0,
  payload: new Uint8Array(0),
};

// prettier-ignore
export const combatBytes = [
  0x4c, 0x52, 0x01, 0x13, 0x00, 0x00, // type 19
  0x2a, 0x00, 0x00, 0x00, // tick 42
  0x02, // count 2
  0x00, 0x07, 0x00, 0x00, 0x00, 0x09, 0x01, 0x00, 0x00, 0x05, 0x00, 0x0f, 0x00, // hit: 7 → 265 for 5, hp 15
  0x02, 0x07, 0x00, 0x00, 0x00, 0x0a, 0x01, 0x00, 0x00, 0x08, 0x00, 0x00, 0x00, // kill: 7 → 266, +8 rating
];
export const combatPacket: Packet = {
  type: "combat",
  clientType: 0,
  tick: 42,
  events: [
    { kind: 0, attackerId: 7, targetId: 265, amount: 5, targetHp: 15 },
    { kind: 2, attackerId: 7, targetId: 266, amount: 8, targetHp: 0 },
  ],
};

// prettier-ignore
export const itemRequestBytes = [
  0x4c, 0x52, 0x01, 0x15, 0x00, 0x00, // type 21
  0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08, // auth_token
  0x05, 0x00, 0x00, 0x00, // request_id 5
  0x00, // op take
  0x2c, 0x01, 0x00, 0x00, // container: entity 300
  0x03, // slot 3
  0x00, // to_slot
  0x02, 0x00, // count 2
];
export const itemRequestPacket: Packet = {
  type: "item_request",
  clientType: 0,
  authToken: 0x0807060504030201n,
  requestId: 5,
  op: 0,
  container: 300,
  slot: 3,
  toSlot: 0,
  count: 2,
};

// prettier-ignore
export const itemResultBytes = [
  0x4c, 0x52, 0x01, 0x16, 0x00, 0x00, // type 22
  0x05, 0x00, 0x00, 0x00, // request_id 5
  0x04, // status full
  0x09, 0x00, 0x00, 0x00, // version 9
];
export const itemResultPacket: Packet = { type: "item_result", clientType: 0, requestId: 5, status: 4, version: 9 };

// prettier-ignore
export const worldClockBytes = [
  0x4c, 0x52, 0x01, 0x17, 0x00, 0x00, // type 23
  0xe8, 0x03, 0x00, 0x00, // tick 1000
  0x80, 0x70, 0x00, 0x00, // day_ticks 28800 (20 minutes at 24 Hz)
  0x40, 0x38, 0x00, 0x00, // day_tick 14400: noon
  0x02, // weather fog
];
export const worldClockPacket: Packet = {
  type: "world_clock",
  clientType: 0,
  tick: 1000,
  dayTicks: 28800,
  dayTick: 14400,
  weather: 2,
};

// prettier-ignore
export const entityAckBytes = [
  0x4c, 0x52, 0x01, 0x18, 0x00, 0x00, // type 24
  0x01, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, // auth_token 1
  0xe8, 0x03, 0x00, 0x00, // tick 1000
];
export const entityAckPacket: Packet = { type: "entity_ack", clientType: 0, authToken: 1n, tick: 1000 };

// A StateDelta: the StatePacket vector's fields, then a delta against tick 990 that removes
// entity 7, moves entity 3 by (+1, -1) and brings in entity 200 (a creature at (10, 20)).
// prettier-ignore
export const stateDeltaBody = [
  0x07, // removed: id gap 7
  0x03, 0x01, 0x01, 0xff, // changed: id gap 3, mask pos_small, dx +1, dy -1
  0xc5, 0x01, // id gap 197 (varint): entity 200
  0x9e, // mask pos_full | type_id | hp | hp_max | meta
  0x0a, 0x00, 0x14, 0x00, // pos (10, 20)
  0x10, 0x00, // type_id 16
  0x08, 0x00, 0x08, 0x00, // hp 8, hp_max 8
  0x04, 0x02, 0x02, 0x05, 0x00, // meta_len 4: weapon 5
];
// prettier-ignore
export const stateDeltaBytes = [
  0x4c, 0x52, 0x01, 0x19, 0x00, 0x00, // type 25
  ...stateBytes.slice(6), // tick, manifest, player_entity_id, entity_checksum as in the StatePacket vector
  0xde, 0x03, 0x00, 0x00, // baseline_tick 990
  0x01, 0x00, // removed_count 1
  0x02, 0x00, // changed_count 2
  0x17, 0x00, // delta_len 23
  ...stateDeltaBody,
];
export const stateDeltaPacket: Packet = {
  ...(statePacket as Extract<Packet, { type: "state" }>),
  type: "state_delta",
  baselineTick: 990,
  removedCount: 1,
  changedCount: 2,
  delta: new Uint8Array(stateDeltaBody),
};

// prettier-ignore
export const compactAckBytes = [
  0x4c, 0x52, 0x01, 0x1a, 0x00, 0x00, // type 26
  0x01, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, // auth_token 1
  0xe8, 0x03, 0x00, 0x00, // tick 1000
];
export const compactAckPacket: Packet = { type: "compact_ack", clientType: 0, authToken: 1n, tick: 1000 };

// The StateDelta vector in the compact form (P-25): the same tick, manifest (centre (1, -1)), player, checksum
// and body; the baseline 10 ticks back.
// prettier-ignore
export const stateDeltaCompactBytes = [
  0x4c, 0x52, 0x01, 0x1b, 0x00, 0x00, // type 27
  0x04, 0x03, 0x02, 0x01, // tick 0x01020304
  0xef, 0xbe, 0xad, 0xde, // entity_checksum 0xDEADBEEF
  0x01, 0x00, 0xff, 0xff, // centre (1, -1)
  0x00, 0x00, 0x00, 0x07, // versions 0, 0, 0, 7 (varints)
  0xb4, 0x24, // 0x1234
  0xff, 0xff, 0x03, // 65535
  0x01, 0x02, 0x03, // 1, 2, 3
  0x2a, // player_entity_id 42
  0x0a, // baseline_back 10
  0x01, // removed_count 1
  0x02, // changed_count 2
  0x17, 0x00, // delta_len 23
  ...stateDeltaBody,
];
export const stateDeltaCompactPacket: Packet = {
  type: "state_delta_compact",
  clientType: 0,
  tick: 0x01020304,
  entityChecksum: 0xdeadbeef,
  centreX: 1,
  centreY: -1,
  versions: [0, 0, 0, 7, 0x1234, 0xffff, 1, 2, 3],
  playerEntityId: 42,
  baselineBack: 10,
  removedCount: 1,
  changedCount: 2,
  delta: new Uint8Array(stateDeltaBody),
};

// prettier-ignore
export const leaveBytes = [
  0x4c, 0x52, 0x01, 0x1c, 0x00, 0x00, // type 28
  0x01, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, // auth_token 1
];
export const leavePacket: Packet = { type: "leave", clientType: 0, authToken: 1n };

// prettier-ignore
export const cameraBytes = [
  0x4c, 0x52, 0x01, 0x1d, 0x00, 0x00, // type 29
  0x01, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, // auth_token 1
  0x28, 0x00, // pos_x 40
  0xfe, 0xff, // pos_y -2
  0x07, 0x00, 0x00, 0x00, // follow_entity_id 7
];
export const cameraPacket: Packet = { type: "camera", clientType: 0, authToken: 1n, x: 40, y: -2, followEntityId: 7 };

/** [name, bytes, packet, size] for every vector. */
export const gameVectors: [string, number[], Packet, number][] = [
  ["chat_post", chatPostBytes, chatPostPacket, 25],
  ["chat_post_ack", chatPostAckBytes, chatPostAckPacket, 11],
  ["chat", chatBytes, chatPacket, 28],
  ["chat, system", chatSystemBytes, chatSystemPacket, 31],
  ["chat_ack", chatAckBytes, chatAckPacket, 18],
  ["tile_update", tileUpdateBytes, tileUpdatePacket, 23],
  ["dialog", dialogBytes, dialogPacket, 73],
  ["dialog_ack", dialogAckBytes, dialogAckPacket, 19],
  ["dialog_reply", dialogReplyBytes, dialogReplyPacket, 25],
  ["dialog_close", dialogCloseBytes, dialogClosePacket, 10],
  ["custom_to_server", customToServerBytes, customToServerPacket, 21],
  ["custom_to_client", customToClientBytes, customToClientPacket, 10],
  ["combat", combatBytes, combatPacket, 37],
  ["item_request", itemRequestBytes, itemRequestPacket, 27],
  ["item_result", itemResultBytes, itemResultPacket, 15],
  ["world_clock", worldClockBytes, worldClockPacket, 19],
  ["entity_ack", entityAckBytes, entityAckPacket, 18],
  ["state_delta", stateDeltaBytes, stateDeltaPacket, 105],
  ["compact_ack", compactAckBytes, compactAckPacket, 18],
  ["state_delta_compact", stateDeltaCompactBytes, stateDeltaCompactPacket, 59],
  ["leave", leaveBytes, leavePacket, 14],
  ["camera", cameraBytes, cameraPacket, 22],
];
