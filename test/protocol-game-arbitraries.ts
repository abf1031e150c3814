// fast-check arbitraries for the chat, tile update, dialog and custom packets
// (types 8–18), in the plain form the encoders take.
import fc from "fast-check";
import {
  type DialogElement,
  type Packet,
  CHAT_TEXT_MAX_BYTES,
  DIALOG_INPUT_MAX_BYTES,
  MAX_DATAGRAM_BYTES,
  NAME_MAX_BYTES,
  dialogByteLength,
} from "../ts/protocol/index.js";

const u16 = fc.integer({ min: 0, max: 0xffff });
const u32 = fc.integer({ min: 0, max: 0xffffffff });
const positiveU32 = fc.integer({ min: 1, max: 0xffffffff });
const u64 = fc.bigInt({ min: 0n, max: 0xffffffffffffffffn });
const clientType = u16;

const utf8Length = (text: string): number => new TextEncoder().encode(text).length;

/** Text as people type it (any graphemes, some multi-byte), without the control characters the protocol refuses. */
function text(minBytes: number, maxBytes: number, allowNewline = false): fc.Arbitrary<string> {
  const grapheme = fc.oneof(
    { weight: 6, arbitrary: fc.string({ unit: "grapheme", minLength: 0, maxLength: 40 }) },
    { weight: 1, arbitrary: fc.string({ unit: "grapheme-ascii", minLength: 0, maxLength: 220 }) },
  );
  return fc
    .tuple(grapheme, allowNewline ? fc.boolean() : fc.constant(false))
    .map(([value, newline]) => value.replace(/[\u0000-\u001f\u007f-\u009f]/gu, "") + (newline ? "\nend" : ""))
    .map((value) => {
      // Cut whole code points until it fits.
      let cut = value;
      while (utf8Length(cut) > maxBytes) cut = Array.from(cut).slice(0, -1).join("");
      return cut;
    })
    .filter((value) => utf8Length(value) >= minBytes);
}

const chatPost = fc.record({
  type: fc.constant("chat_post" as const),
  clientType,
  authToken: u64,
  seq: positiveU32,
  text: text(1, CHAT_TEXT_MAX_BYTES),
});

const chatPostAck = fc.record({
  type: fc.constant("chat_post_ack" as const),
  clientType,
  seq: positiveU32,
  status: fc.integer({ min: 0, max: 2 }),
});

const chat = fc
  .record({
    clientType,
    seq: positiveU32,
    back: u32,
    speakerEntityId: u32,
    speakerName: text(0, NAME_MAX_BYTES),
    text: text(1, CHAT_TEXT_MAX_BYTES),
  })
  .map(({ back, ...rest }): Packet => ({ type: "chat", ...rest, oldestSeq: Math.max(1, rest.seq - (back % 100)) }));

const chatAck = fc.record({ type: fc.constant("chat_ack" as const), clientType, authToken: u64, seq: u32 });

const tileUpdate = fc
  .record({
    clientType,
    chunkId: u32,
    fromVersion: fc.integer({ min: 1, max: 0xffff }),
    step: fc.integer({ min: 1, max: 0xfffe }),
    changes: fc.array(
      fc.record({ tileIndex: fc.integer({ min: 0, max: 1023 }), tileId: fc.integer({ min: 0, max: 0xfffe }) }),
      { minLength: 1, maxLength: 255 },
    ),
  })
  .map(({ step, ...rest }): Packet => ({
    type: "tile_update",
    ...rest,
    toVersion: ((rest.fromVersion - 1 + step) % 0xffff) + 1,
  }));

const box = { x: u16, y: u16, width: u16, height: u16 };
const element: fc.Arbitrary<DialogElement> = fc.oneof(
  fc.record({ kind: fc.constant("text" as const), ...box, text: text(0, 255, true) }),
  fc.record({ kind: fc.constant("image" as const), ...box, atlasIndex: u16 }),
  fc.record({
    kind: fc.constant("button" as const),
    ...box,
    returnCode: fc.integer({ min: 1, max: 0xffff }),
    label: text(0, 32),
  }),
  fc
    .record({ ...box, maxBytes: fc.integer({ min: 1, max: DIALOG_INPUT_MAX_BYTES }), text: text(0, 60) })
    .map((input): DialogElement => {
      let value = input.text;
      while (utf8Length(value) > input.maxBytes) value = Array.from(value).slice(0, -1).join("");
      return { kind: "text_input", ...input, text: value };
    }),
);

const dialog = fc
  .record({ clientType, dialogId: positiveU32, ...box, elements: fc.array(element, { minLength: 1, maxLength: 30 }) })
  .map((fields): Packet => {
    const packet = { type: "dialog" as const, ...fields, elements: [...fields.elements] };
    // Keep the first elements that fit the datagram (the encoder refuses more).
    while (packet.elements.length > 1 && dialogByteLength(packet) > MAX_DATAGRAM_BYTES) packet.elements.pop();
    return packet;
  })
  .filter((packet) => {
    try {
      return dialogByteLength(packet as Parameters<typeof dialogByteLength>[0]) <= MAX_DATAGRAM_BYTES;
    } catch {
      return false;
    }
  });

const dialogAck = fc.record({
  type: fc.constant("dialog_ack" as const),
  clientType,
  authToken: u64,
  dialogId: positiveU32,
  state: fc.integer({ min: 0, max: 1 }),
});

const dialogReply = fc.record({
  type: fc.constant("dialog_reply" as const),
  clientType,
  authToken: u64,
  dialogId: positiveU32,
  returnCode: u16,
  values: fc.array(text(0, 40), { maxLength: 6 }),
});

const dialogClose = fc.record({ type: fc.constant("dialog_close" as const), clientType, dialogId: positiveU32 });

const payload = fc.oneof(
  { weight: 4, arbitrary: fc.uint8Array({ maxLength: 64 }) },
  { weight: 1, arbitrary: fc.uint8Array({ minLength: 1000, maxLength: 1182 }) },
);
const customToServer = fc.record({
  type: fc.constant("custom_to_server" as const),
  clientType,
  authToken: u64,
  subtype: u16,
  payload,
});
const customToClient = fc.record({ type: fc.constant("custom_to_client" as const), clientType, subtype: u16, payload });

const combatEvent = fc.record({
  kind: fc.integer({ min: 0, max: 2 }),
  attackerId: fc.nat({ max: 0xffffffff }),
  targetId: fc.nat({ max: 0xffffffff }),
  amount: u16,
  targetHp: u16,
});
const combat = fc.record({
  type: fc.constant("combat" as const),
  clientType,
  tick: fc.nat({ max: 0xffffffff }),
  events: fc.array(combatEvent, { minLength: 1, maxLength: 91 }),
});

const itemRequest = fc.record({
  type: fc.constant("item_request" as const),
  clientType,
  authToken: u64,
  requestId: fc.integer({ min: 1, max: 0xffffffff }),
  op: fc.integer({ min: 0, max: 7 }),
  container: fc.nat({ max: 0xffffffff }),
  slot: fc.nat({ max: 0xff }),
  toSlot: fc.nat({ max: 0xff }),
  count: u16,
});
const itemResult = fc.record({
  type: fc.constant("item_result" as const),
  clientType,
  requestId: fc.integer({ min: 1, max: 0xffffffff }),
  status: fc.integer({ min: 0, max: 8 }),
  version: fc.nat({ max: 0xffffffff }),
});

const worldClock = fc
  .record({ dayTicks: fc.integer({ min: 1, max: 0xffffffff }), at: fc.double({ min: 0, max: 1, noNaN: true }) })
  .chain(({ dayTicks, at }) =>
    fc.record({
      type: fc.constant("world_clock" as const),
      clientType,
      tick: fc.nat({ max: 0xffffffff }),
      dayTicks: fc.constant(dayTicks),
      dayTick: fc.constant(Math.min(dayTicks - 1, Math.floor(at * dayTicks))),
      weather: fc.integer({ min: 0, max: 3 }),
    }),
  );

const entityAck = fc.record({
  type: fc.constant("entity_ack" as const),
  clientType,
  authToken: u64,
  tick: u32,
});

const compactAck = fc.record({
  type: fc.constant("compact_ack" as const),
  clientType,
  authToken: u64,
  tick: u32,
});

// A compact StateDelta (P-25) whose head takes every varint length: versions to u16, ids to u32, a baseline
// anywhere back to tick 0; the body is empty (its codec has its own tests: the counts say 0).
const stateDeltaCompact = fc.nat({ max: 0xffffffff }).chain((tick) =>
  fc.record({
    type: fc.constant("state_delta_compact" as const),
    clientType,
    tick: fc.constant(tick),
    entityChecksum: u32,
    centreX: fc.integer({ min: -0x8000, max: 0x7fff }),
    centreY: fc.integer({ min: -0x8000, max: 0x7fff }),
    versions: fc.array(fc.oneof(fc.nat({ max: 3 }), fc.nat({ max: 0xffff })), { minLength: 9, maxLength: 9 }),
    playerEntityId: fc.oneof(fc.nat({ max: 200 }), u32),
    baselineBack: fc.nat({ max: tick }),
    removedCount: fc.constant(0),
    changedCount: fc.constant(0),
    delta: fc.constant(new Uint8Array(0)),
  }),
);

const leave = fc.record({ type: fc.constant("leave" as const), clientType, authToken: u64 });

const camera = fc.record({
  type: fc.constant("camera" as const),
  clientType,
  authToken: u64,
  x: fc.integer({ min: -0x8000, max: 0x7fff }),
  y: fc.integer({ min: -0x8000, max: 0x7fff }),
  followEntityId: fc.nat({ max: 0xffffffff }),
});

export const anyGamePacket: fc.Arbitrary<Packet> = fc.oneof(
  chatPost,
  chatPostAck,
  chat,
  chatAck,
  tileUpdate,
  dialog,
  dialogAck,
  dialogReply,
  dialogClose,
  customToServer,
  customToClient,
  combat,
  itemRequest,
  itemResult,
  worldClock,
  entityAck,
  compactAck,
  stateDeltaCompact,
  leave,
  camera,
);
