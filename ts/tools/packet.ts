// Packet tool: decodes a datagram given as hex into named JSON fields, and
// encodes that JSON back into hex, with the protocol library doing all the
// validation (docs/protocol.md § Packet tool).
//
//   npx tsx ts/tools/packet.ts decode <hex|->
//   npx tsx ts/tools/packet.ts encode <json|->
//
// Exit codes: 0 success, 2 bad input (hex, JSON, or a packet the protocol rejects).
import { readFileSync } from "node:fs";
import { pathToFileURL } from "node:url";
import {
  ACTION_NAMES,
  type ChunkEntry,
  type EntityEntry,
  EncodeError,
  MAGIC,
  type Packet,
  PACKET_TYPE_NAMES,
  PROTOCOL_VERSION,
  type Tlv,
  TLV_ARMOR,
  TLV_NAME,
  TLV_STATUS_EFFECTS,
  TLV_WEAPON,
  CHAT_STATUS_NAMES,
  DIALOG_STATE_NAMES,
  type DialogElement,
  chunkCoords,
  chunkId,
  decodePacketPlain,
  utf8ByteLength,
  encodeChunkFromTiles,
  encodePacketToBytes,
  MAX_DATAGRAM_BYTES,
} from "../protocol/index.js";
import { unpack6, pack6 } from "../protocol/chunk-kernels.js";

const USAGE = `Usage:
  packet decode <hex|->    decode one datagram; prints every field as JSON
  packet encode <json|->   encode a packet given as JSON (the form decode prints); prints hex
  packet --help            this text

"-" reads the argument from stdin. Hex may contain whitespace and start with 0x.
JSON: "packet_type" is one of ${PACKET_TYPE_NAMES.join(", ")};
field names are the wire names of docs/protocol.md. u64 values: auth_token as 16 hex digits,
timestamp_ms as a decimal string. Chunk ids may be given as chunk_id, as cx/cy,
or both (then they must agree). A chunk takes palette + tile_indices (32 rows of
32 palette indices), or tile_ids (32 rows of 32 global tile ids; the palette is
then built in order of first appearance). Derived fields (magic, version, pal_count,
entity_count, meta_len) are optional on encode and checked when present.

Exit status: 0 on success, 2 on bad input.`;

/** Bad input from the user: reported on stderr with exit code 2. */
export class ToolInputError extends Error {}

// ---------------------------------------------------------------- hex

export function parseHex(text: string): Uint8Array {
  let digits = text.replace(/\s+/g, "");
  if (/^0x/i.test(digits)) digits = digits.slice(2);
  const bad = digits.search(/[^0-9a-fA-F]/);
  if (bad >= 0) throw new ToolInputError(`not a hex digit: ${JSON.stringify(digits[bad])} at digit ${bad}`);
  if (digits.length % 2 !== 0) throw new ToolInputError(`odd number of hex digits (${digits.length})`);
  if (digits.length === 0) throw new ToolInputError("no hex digits given");
  const bytes = new Uint8Array(digits.length / 2);
  for (let index = 0; index < bytes.length; index++)
    bytes[index] = parseInt(digits.slice(index * 2, index * 2 + 2), 16);
  return bytes;
}

export function toHex(bytes: Uint8Array): string {
  let text = "";
  for (const byte of bytes) text += byte.toString(16).padStart(2, "0");
  return text;
}

// ---------------------------------------------------------------- packet → JSON

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

const ENTITY_FLAG_NAMES = ["is_static", "is_hostile", "is_interactable", "bit3", "bit4", "bit5", "bit6", "bit7"];
const TLV_TAG_NAMES: Record<number, string> = {
  [TLV_STATUS_EFFECTS]: "status_effects",
  [TLV_WEAPON]: "weapon",
  [TLV_ARMOR]: "armor",
  [TLV_NAME]: "name",
};

function chunkEntryJson(entry: ChunkEntry): Json {
  const { cx, cy } = chunkCoords(entry.chunkId);
  return { chunk_id: entry.chunkId, cx, cy, version: entry.version };
}

function flagNames(flags: number): Json {
  return ENTITY_FLAG_NAMES.filter((_, bit) => (flags & (1 << bit)) !== 0);
}

function tlvJson(tlv: Tlv): Json {
  return tlv.kind === "unknown" ? { tag: tlv.tag, hex: toHex(tlv.bytes) } : { tag: tlv.kind, value: tlv.value };
}

function metaLength(meta: readonly Tlv[]): number {
  let length = 0;
  for (const tlv of meta) {
    if (tlv.kind === "unknown") length += 2 + tlv.bytes.length;
    else if (tlv.kind === "name") length += 2 + new TextEncoder().encode(tlv.value).length;
    else length += 4;
  }
  return length;
}

/** The JSON form the tool prints: every field by its wire name. */
export function packetToJson(packet: Packet): Json {
  const head: { [key: string]: Json } = {
    packet_type: packet.type,
    magic: `0x${MAGIC.toString(16).toUpperCase()}`,
    version: PROTOCOL_VERSION,
    client_type: packet.clientType,
  };
  switch (packet.type) {
    case "state":
      return {
        ...head,
        tick: packet.tick,
        chunks: packet.chunks.map(chunkEntryJson),
        player_entity_id: packet.playerEntityId,
        entity_checksum: packet.entityChecksum,
      };
    case "action":
      return {
        ...head,
        auth_token: tokenHex(packet.authToken),
        target_tick: packet.targetTick,
        cache: packet.cache.map(chunkEntryJson),
        player_action: ACTION_NAMES[packet.action],
      };
    case "chunk": {
      const indices = new Uint8Array(1024);
      unpack6(packet.packedTiles, indices);
      const rows: Json[] = [];
      for (let y = 0; y < 32; y++) rows.push(Array.from(indices.subarray(y * 32, y * 32 + 32)));
      return {
        ...head,
        chunk: chunkEntryJson({ chunkId: packet.chunkId, version: packet.version }),
        pal_count: packet.palette.length,
        palette: Array.from(packet.palette),
        tile_indices: rows,
      };
    }
    case "entity":
      return {
        ...head,
        tick: packet.tick,
        entity_count: packet.entities.length,
        packet_flags: packet.more ? ["more"] : [],
        entities: packet.entities.map((entry) => ({
          id: entry.id,
          type_id: entry.typeId,
          pos_x: entry.x,
          pos_y: entry.y,
          hp: entry.hp,
          hp_max: entry.hpMax,
          elo: entry.elo,
          entity_flags: flagNames(entry.flags),
          meta_len: metaLength(entry.meta),
          meta: entry.meta.map(tlvJson),
        })),
      };
    case "entity_query":
      return { ...head, auth_token: tokenHex(packet.authToken), entity_id: packet.entityId };
    case "entity_detail":
      return {
        ...head,
        tick: packet.tick,
        entity_id: packet.entityId,
        meta_len: metaLength(packet.meta),
        meta: packet.meta.map(tlvJson),
      };
    case "ping":
    case "pong":
      return { ...head, timestamp_ms: packet.timestampMs.toString() };
    case "chat_post":
      return {
        ...head,
        auth_token: tokenHex(packet.authToken),
        seq: packet.seq,
        text_len: utf8ByteLength(packet.text),
        text: packet.text,
      };
    case "chat_post_ack":
      return { ...head, seq: packet.seq, status: CHAT_STATUS_NAMES[packet.status] };
    case "chat":
      return {
        ...head,
        seq: packet.seq,
        oldest_seq: packet.oldestSeq,
        speaker_entity_id: packet.speakerEntityId,
        name_len: utf8ByteLength(packet.speakerName),
        speaker_name: packet.speakerName,
        text_len: utf8ByteLength(packet.text),
        text: packet.text,
      };
    case "chat_ack":
      return { ...head, auth_token: tokenHex(packet.authToken), seq: packet.seq };
    case "tile_update": {
      const { cx, cy } = chunkCoords(packet.chunkId);
      return {
        ...head,
        chunk_id: packet.chunkId,
        cx,
        cy,
        from_version: packet.fromVersion,
        to_version: packet.toVersion,
        count: packet.changes.length,
        changes: packet.changes.map(({ tileIndex, tileId }) => ({
          tile_index: tileIndex,
          x: tileIndex & 31,
          y: tileIndex >> 5,
          tile_id: tileId,
        })),
      };
    }
    case "dialog":
      return {
        ...head,
        dialog_id: packet.dialogId,
        x: packet.x,
        y: packet.y,
        width: packet.width,
        height: packet.height,
        element_count: packet.elements.length,
        elements: packet.elements.map(elementJson),
      };
    case "dialog_ack":
      return {
        ...head,
        auth_token: tokenHex(packet.authToken),
        dialog_id: packet.dialogId,
        state: DIALOG_STATE_NAMES[packet.state],
      };
    case "dialog_reply":
      return {
        ...head,
        auth_token: tokenHex(packet.authToken),
        dialog_id: packet.dialogId,
        return_code: packet.returnCode,
        value_count: packet.values.length,
        values: packet.values,
      };
    case "dialog_close":
      return { ...head, dialog_id: packet.dialogId };
    case "custom_to_server":
      return {
        ...head,
        auth_token: tokenHex(packet.authToken),
        subtype: packet.subtype,
        payload_len: packet.payload.length,
        payload: toHex(packet.payload),
      };
    case "custom_to_client":
      return {
        ...head,
        subtype: packet.subtype,
        payload_len: packet.payload.length,
        payload: toHex(packet.payload),
      };
  }
}

function tokenHex(token: bigint): string {
  return token.toString(16).padStart(16, "0");
}

function elementJson(element: DialogElement): Json {
  const box = { kind: element.kind, x: element.x, y: element.y, width: element.width, height: element.height };
  switch (element.kind) {
    case "text":
      return { ...box, text: element.text };
    case "image":
      return { ...box, atlas_index: element.atlasIndex };
    case "button":
      return { ...box, return_code: element.returnCode, label: element.label };
    case "text_input":
      return { ...box, max_bytes: element.maxBytes, text: element.text };
  }
}

/**
 * JSON with two spaces of indent, except that arrays of plain values and
 * small flat objects stay on one line, so a chunk prints as 32 rows.
 */
export function formatJson(value: Json, indent = ""): string {
  const inner = indent + "  ";
  if (Array.isArray(value)) {
    if (value.length === 0) return "[]";
    if (value.every((item) => item === null || typeof item !== "object")) {
      return `[${value.map((item) => JSON.stringify(item)).join(", ")}]`;
    }
    return `[\n${value.map((item) => inner + formatJson(item, inner)).join(",\n")}\n${indent}]`;
  }
  if (value !== null && typeof value === "object") {
    const entries = Object.entries(value);
    const flat = entries.every(([, item]) => item === null || typeof item !== "object");
    const oneLine = `{ ${entries.map(([key, item]) => `${JSON.stringify(key)}: ${JSON.stringify(item)}`).join(", ")} }`;
    if (flat && entries.length > 0 && oneLine.length <= 100) return oneLine;
    return `{\n${entries.map(([key, item]) => `${inner}${JSON.stringify(key)}: ${formatJson(item, inner)}`).join(",\n")}\n${indent}}`;
  }
  return JSON.stringify(value);
}

// ---------------------------------------------------------------- JSON → packet

/** Reads fields of one JSON object, naming the path in every error and refusing unknown keys. */
class Fields {
  private readonly used = new Set<string>();
  constructor(
    private readonly object: { [key: string]: unknown },
    private readonly path: string,
  ) {}

  static of(value: unknown, path: string): Fields {
    if (value === null || typeof value !== "object" || Array.isArray(value)) {
      throw new ToolInputError(`${path} must be a JSON object`);
    }
    return new Fields(value as { [key: string]: unknown }, path);
  }

  has(key: string): boolean {
    return this.object[key] !== undefined;
  }

  raw(key: string): unknown {
    this.used.add(key);
    const value = this.object[key];
    if (value === undefined) throw new ToolInputError(`${this.at(key)} is missing`);
    return value;
  }

  optional(key: string): unknown {
    this.used.add(key);
    return this.object[key];
  }

  /** An integer; the protocol library checks its range. */
  integer(key: string): number {
    const value = this.raw(key);
    if (typeof value !== "number" || !Number.isInteger(value)) {
      throw new ToolInputError(`${this.at(key)} must be an integer, got ${JSON.stringify(value)}`);
    }
    return value;
  }

  string(key: string): string {
    const value = this.raw(key);
    if (typeof value !== "string") throw new ToolInputError(`${this.at(key)} must be a string`);
    return value;
  }

  array(key: string): unknown[] {
    const value = this.raw(key);
    if (!Array.isArray(value)) throw new ToolInputError(`${this.at(key)} must be an array`);
    return value;
  }

  /** An array whose items `parse` reads, each told its own path for its errors. */
  list<T>(key: string, parse: (value: unknown, path: string) => T): T[] {
    return this.array(key).map((item, index) => parse(item, `${this.at(key)}[${index}]`));
  }

  /** auth_token, which most client-to-server packets carry, as decode prints it. */
  authToken(): bigint {
    return parseU64Hex(this.string("auth_token"), this.at("auth_token"));
  }

  /** Checks an optional derived field against the value the encoder will write. */
  derived(key: string, expected: Json): void {
    const value = this.optional(key);
    if (value !== undefined && JSON.stringify(value) !== JSON.stringify(expected)) {
      throw new ToolInputError(`${this.at(key)} is ${JSON.stringify(value)} but must be ${JSON.stringify(expected)}`);
    }
  }

  at(key: string): string {
    return `${this.path}.${key}`;
  }

  /** Call last: every key must have been read. */
  done(): void {
    for (const key of Object.keys(this.object)) {
      if (!this.used.has(key)) throw new ToolInputError(`${this.at(key)} is not a field of this packet`);
    }
  }
}

function parseU64Hex(text: string, where: string): bigint {
  const digits = text.replace(/^0x/i, "");
  if (!/^[0-9a-fA-F]{1,16}$/.test(digits)) throw new ToolInputError(`${where} must be 1..16 hex digits, got ${text}`);
  return BigInt(`0x${digits}`);
}

function parseU64Decimal(value: unknown, where: string): bigint {
  if (typeof value === "number" && Number.isSafeInteger(value) && value >= 0) return BigInt(value);
  if (typeof value === "string" && /^\d{1,20}$/.test(value) && BigInt(value) <= 0xffffffffffffffffn) {
    return BigInt(value);
  }
  throw new ToolInputError(`${where} must be a decimal u64 (string, or number up to 2^53)`);
}

function chunkEntryFromJson(value: unknown, path: string): ChunkEntry {
  const fields = Fields.of(value, path);
  const version = fields.integer("version");
  let id: number | undefined = fields.has("chunk_id") ? fields.integer("chunk_id") : undefined;
  if (fields.has("cx") || fields.has("cy")) {
    let fromCoords: number;
    try {
      fromCoords = chunkId(fields.integer("cx"), fields.integer("cy"));
    } catch (error) {
      if (error instanceof EncodeError) throw new ToolInputError(`${path}: ${error.message}`);
      throw error;
    }
    if (id !== undefined && id !== fromCoords) {
      throw new ToolInputError(`${path}: chunk_id ${id} is not (cx, cy) = ${fromCoords}`);
    }
    id = fromCoords;
  }
  if (id === undefined) throw new ToolInputError(`${path} needs chunk_id or cx and cy`);
  fields.done();
  return { chunkId: id, version };
}

function tlvFromJson(value: unknown, path: string): Tlv {
  const fields = Fields.of(value, path);
  const rawTag = fields.raw("tag");
  const tag = typeof rawTag === "number" ? (TLV_TAG_NAMES[rawTag] ?? rawTag) : rawTag;
  let tlv: Tlv;
  if (tag === "status_effects" || tag === "weapon" || tag === "armor") {
    tlv = { kind: tag, value: fields.integer("value") };
  } else if (tag === "name") {
    tlv = { kind: "name", value: fields.string("value") };
  } else if (typeof tag === "number") {
    const hex = fields.string("hex");
    tlv = { kind: "unknown", tag, bytes: hex.replace(/\s+/g, "") === "" ? new Uint8Array(0) : parseHex(hex) };
  } else {
    throw new ToolInputError(`${path}.tag must be status_effects, weapon, armor, name or a number`);
  }
  fields.done();
  return tlv;
}

function metaFromJson(fields: Fields): Tlv[] {
  return fields.has("meta") ? fields.list("meta", tlvFromJson) : [];
}

function entityFlagsFromJson(value: unknown, where: string): number {
  if (typeof value === "number") return value;
  if (!Array.isArray(value)) throw new ToolInputError(`${where} must be a list of flag names or a number`);
  let flags = 0;
  for (const name of value) {
    const bit = ENTITY_FLAG_NAMES.indexOf(String(name));
    if (bit < 0)
      throw new ToolInputError(`${where}: unknown flag ${JSON.stringify(name)} (${ENTITY_FLAG_NAMES.join(", ")})`);
    flags |= 1 << bit;
  }
  return flags;
}

function entityFromJson(value: unknown, path: string): EntityEntry {
  const fields = Fields.of(value, path);
  const entry: EntityEntry = {
    id: fields.integer("id"),
    typeId: fields.integer("type_id"),
    x: fields.integer("pos_x"),
    y: fields.integer("pos_y"),
    hp: fields.integer("hp"),
    hpMax: fields.integer("hp_max"),
    elo: fields.integer("elo"),
    flags: fields.has("entity_flags") ? entityFlagsFromJson(fields.raw("entity_flags"), fields.at("entity_flags")) : 0,
    meta: metaFromJson(fields),
  };
  fields.derived("meta_len", metaLength(entry.meta));
  fields.done();
  return entry;
}

/** 32 rows of 32 integers, flattened row-major. */
function tileRows(fields: Fields, key: string): number[] {
  const rows = fields.array(key);
  if (rows.length !== 32) throw new ToolInputError(`${fields.at(key)} must hold 32 rows, got ${rows.length}`);
  const flat: number[] = [];
  rows.forEach((row, y) => {
    if (!Array.isArray(row) || row.length !== 32)
      throw new ToolInputError(`${fields.at(key)}[${y}] must hold 32 values`);
    row.forEach((value, x) => {
      if (typeof value !== "number" || !Number.isInteger(value) || value < 0 || value > 0xffff) {
        throw new ToolInputError(`${fields.at(key)}[${y}][${x}] must be an integer 0..65535`);
      }
      flat.push(value);
    });
  });
  return flat;
}

function chunkFromJson(fields: Fields, clientType: number): Packet {
  const entry = chunkEntryFromJson(fields.raw("chunk"), fields.at("chunk"));
  if (fields.has("tile_ids")) {
    if (fields.has("palette") || fields.has("tile_indices")) {
      throw new ToolInputError("give either tile_ids, or palette with tile_indices, not both");
    }
    const tiles = Uint16Array.from(tileRows(fields, "tile_ids"));
    const out = new Uint8Array(MAX_DATAGRAM_BYTES);
    const size = encodeChunkFromTiles(clientType, entry.chunkId, entry.version, tiles, out);
    const decoded = decodePacketPlain(out.subarray(0, size));
    if (!decoded.ok) throw new Error(`encoded chunk does not decode: ${decoded.error.message}`);
    fields.derived("pal_count", decoded.packet.type === "chunk" ? decoded.packet.palette.length : 0);
    return decoded.packet;
  }
  const palette = fields.array("palette").map((value, index) => {
    if (typeof value !== "number") throw new ToolInputError(`${fields.at("palette")}[${index}] must be a number`);
    return value;
  });
  fields.derived("pal_count", palette.length);
  const indices = tileRows(fields, "tile_indices");
  const bad = indices.findIndex((index) => index >= palette.length);
  if (bad >= 0) {
    throw new ToolInputError(
      `tile_indices[${bad >> 5}][${bad & 31}] = ${indices[bad]} is not below pal_count ${palette.length}`,
    );
  }
  const packedTiles = new Uint8Array(768);
  pack6(Uint8Array.from(indices), packedTiles);
  return { type: "chunk", clientType, chunkId: entry.chunkId, version: entry.version, palette, packedTiles };
}

/** A field given by name (as decode prints it) or by its number. */
function namedCode(fields: Fields, key: string, names: readonly string[]): number {
  const raw = fields.raw(key);
  const code = typeof raw === "string" ? names.indexOf(raw) : raw;
  if (typeof code !== "number" || code < 0) {
    throw new ToolInputError(`${fields.at(key)} must be one of ${names.join(", ")} or a number`);
  }
  return code;
}

/** chunk_id, or cx and cy (both given: they must agree). */
function chunkIdFromJson(fields: Fields): number {
  let id: number | undefined = fields.has("chunk_id") ? fields.integer("chunk_id") : undefined;
  if (fields.has("cx") || fields.has("cy")) {
    let fromCoords: number;
    try {
      fromCoords = chunkId(fields.integer("cx"), fields.integer("cy"));
    } catch (error) {
      if (error instanceof EncodeError) throw new ToolInputError(`packet: ${error.message}`);
      throw error;
    }
    if (id !== undefined && id !== fromCoords)
      throw new ToolInputError(`chunk_id ${id} is not (cx, cy) = ${fromCoords}`);
    id = fromCoords;
  }
  if (id === undefined) throw new ToolInputError("packet needs chunk_id or cx and cy");
  return id;
}

function tileChangeFromJson(value: unknown, path: string): { tileIndex: number; tileId: number } {
  const fields = Fields.of(value, path);
  let tileIndex = fields.has("tile_index") ? fields.integer("tile_index") : undefined;
  if (fields.has("x") || fields.has("y")) {
    const fromXy = fields.integer("y") * 32 + fields.integer("x");
    if (tileIndex !== undefined && tileIndex !== fromXy)
      throw new ToolInputError(`${path}: tile_index is not y * 32 + x`);
    tileIndex = fromXy;
  }
  if (tileIndex === undefined) throw new ToolInputError(`${path} needs tile_index or x and y`);
  const change = { tileIndex, tileId: fields.integer("tile_id") };
  fields.done();
  return change;
}

function elementFromJson(value: unknown, path: string): DialogElement {
  const fields = Fields.of(value, path);
  const box = {
    x: fields.integer("x"),
    y: fields.integer("y"),
    width: fields.integer("width"),
    height: fields.integer("height"),
  };
  const kind = fields.string("kind");
  let element: DialogElement;
  if (kind === "text") element = { kind, ...box, text: fields.string("text") };
  else if (kind === "image") element = { kind, ...box, atlasIndex: fields.integer("atlas_index") };
  else if (kind === "button")
    element = { kind, ...box, returnCode: fields.integer("return_code"), label: fields.string("label") };
  else if (kind === "text_input")
    element = { kind, ...box, maxBytes: fields.integer("max_bytes"), text: fields.string("text") };
  else throw new ToolInputError(`${path}.kind must be text, image, button or text_input`);
  fields.done();
  return element;
}

/** The packet a JSON value (as printed by decode) describes; throws ToolInputError. */
export function packetFromJson(value: unknown): Packet {
  const fields = Fields.of(value, "packet");
  const type = fields.string("packet_type");
  fields.derived("magic", `0x${MAGIC.toString(16).toUpperCase()}`);
  fields.derived("version", PROTOCOL_VERSION);
  const clientType = fields.has("client_type") ? fields.integer("client_type") : 0;
  let packet: Packet;
  switch (type) {
    case "state":
      packet = {
        type,
        clientType,
        tick: fields.integer("tick"),
        chunks: fields.list("chunks", chunkEntryFromJson),
        playerEntityId: fields.integer("player_entity_id"),
        entityChecksum: fields.integer("entity_checksum"),
      };
      break;
    case "action": {
      const action = namedCode(fields, "player_action", ACTION_NAMES);
      packet = {
        type,
        clientType,
        authToken: fields.authToken(),
        targetTick: fields.integer("target_tick"),
        cache: fields.list("cache", chunkEntryFromJson),
        action,
      };
      break;
    }
    case "chunk":
      packet = chunkFromJson(fields, clientType);
      break;
    case "entity": {
      const entities = fields.list("entities", entityFromJson);
      fields.derived("entity_count", entities.length);
      const rawFlags = fields.optional("packet_flags") ?? [];
      let more: boolean;
      if (Array.isArray(rawFlags) && rawFlags.every((flag) => flag === "more")) more = rawFlags.length > 0;
      else if (rawFlags === 0 || rawFlags === 1) more = rawFlags === 1;
      else throw new ToolInputError('packet.packet_flags must be [] or ["more"] (or 0 / 1)');
      packet = { type, clientType, tick: fields.integer("tick"), more, entities };
      break;
    }
    case "entity_query":
      packet = {
        type,
        clientType,
        authToken: fields.authToken(),
        entityId: fields.integer("entity_id"),
      };
      break;
    case "entity_detail": {
      const meta = metaFromJson(fields);
      fields.derived("meta_len", metaLength(meta));
      packet = { type, clientType, tick: fields.integer("tick"), entityId: fields.integer("entity_id"), meta };
      break;
    }
    case "ping":
    case "pong":
      packet = { type, clientType, timestampMs: parseU64Decimal(fields.raw("timestamp_ms"), "packet.timestamp_ms") };
      break;
    case "chat_post": {
      const text = fields.string("text");
      fields.derived("text_len", utf8ByteLength(text));
      const authToken = fields.authToken();
      packet = { type, clientType, authToken, seq: fields.integer("seq"), text };
      break;
    }
    case "chat_post_ack":
      packet = { type, clientType, seq: fields.integer("seq"), status: namedCode(fields, "status", CHAT_STATUS_NAMES) };
      break;
    case "chat": {
      const speakerName = fields.has("speaker_name") ? fields.string("speaker_name") : "";
      const text = fields.string("text");
      fields.derived("name_len", utf8ByteLength(speakerName));
      fields.derived("text_len", utf8ByteLength(text));
      packet = {
        type,
        clientType,
        seq: fields.integer("seq"),
        oldestSeq: fields.integer("oldest_seq"),
        speakerEntityId: fields.integer("speaker_entity_id"),
        speakerName,
        text,
      };
      break;
    }
    case "chat_ack":
      packet = {
        type,
        clientType,
        authToken: fields.authToken(),
        seq: fields.integer("seq"),
      };
      break;
    case "tile_update": {
      const changes = fields.list("changes", tileChangeFromJson);
      fields.derived("count", changes.length);
      packet = {
        type,
        clientType,
        chunkId: chunkIdFromJson(fields),
        fromVersion: fields.integer("from_version"),
        toVersion: fields.integer("to_version"),
        changes,
      };
      break;
    }
    case "dialog": {
      const elements = fields.list("elements", elementFromJson);
      fields.derived("element_count", elements.length);
      packet = {
        type,
        clientType,
        dialogId: fields.integer("dialog_id"),
        x: fields.integer("x"),
        y: fields.integer("y"),
        width: fields.integer("width"),
        height: fields.integer("height"),
        elements,
      };
      break;
    }
    case "dialog_ack":
      packet = {
        type,
        clientType,
        authToken: fields.authToken(),
        dialogId: fields.integer("dialog_id"),
        state: namedCode(fields, "state", DIALOG_STATE_NAMES),
      };
      break;
    case "dialog_reply": {
      const values = fields.list("values", (value, path) => {
        if (typeof value !== "string") throw new ToolInputError(`${path} must be a string`);
        return value;
      });
      fields.derived("value_count", values.length);
      packet = {
        type,
        clientType,
        authToken: fields.authToken(),
        dialogId: fields.integer("dialog_id"),
        returnCode: fields.integer("return_code"),
        values,
      };
      break;
    }
    case "dialog_close":
      packet = { type, clientType, dialogId: fields.integer("dialog_id") };
      break;
    case "custom_to_server":
    case "custom_to_client": {
      const hex = fields.string("payload");
      const payload = hex.replace(/\s+/g, "") === "" ? new Uint8Array(0) : parseHex(hex);
      fields.derived("payload_len", payload.length);
      const subtype = fields.integer("subtype");
      packet =
        type === "custom_to_server"
          ? {
              type,
              clientType,
              authToken: fields.authToken(),
              subtype,
              payload,
            }
          : { type, clientType, subtype, payload };
      break;
    }
    default:
      throw new ToolInputError(`packet.packet_type must be one of ${PACKET_TYPE_NAMES.join(", ")}`);
  }
  fields.done();
  return packet;
}

// ---------------------------------------------------------------- commands

export function decodeCommand(hexText: string): string {
  const result = decodePacketPlain(parseHex(hexText));
  if (!result.ok) {
    const { code, offset, message } = result.error;
    throw new ToolInputError(`decode error ${code} at byte ${offset}: ${message}`);
  }
  return formatJson(packetToJson(result.packet));
}

export function encodeCommand(jsonText: string): string {
  let value: unknown;
  try {
    value = JSON.parse(jsonText);
  } catch (error) {
    throw new ToolInputError(`invalid JSON: ${(error as Error).message}`);
  }
  try {
    return toHex(encodePacketToBytes(packetFromJson(value)));
  } catch (error) {
    if (error instanceof EncodeError) throw new ToolInputError(`cannot encode (${error.code}): ${error.message}`);
    throw error;
  }
}

function main(args: string[]): number {
  if (args.length === 0 || args.includes("--help") || args.includes("-h")) {
    (args.length === 0 ? process.stderr : process.stdout).write(`${USAGE}\n`);
    return args.length === 0 ? 2 : 0;
  }
  const [command, input, ...extra] = args;
  try {
    if (command !== "decode" && command !== "encode")
      throw new ToolInputError(`unknown command ${JSON.stringify(command)}`);
    if (input === undefined) throw new ToolInputError(`${command} needs an argument (or - for stdin)`);
    if (extra.length > 0) throw new ToolInputError(`unexpected arguments: ${extra.join(" ")}`);
    const text = input === "-" ? readFileSync(0, "utf8") : input;
    process.stdout.write(`${command === "decode" ? decodeCommand(text) : encodeCommand(text)}\n`);
    return 0;
  } catch (error) {
    if (!(error instanceof ToolInputError)) throw error;
    process.stderr.write(`packet: ${error.message}\n(run with --help for usage)\n`);
    return 2;
  }
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  process.exitCode = main(process.argv.slice(2));
}
