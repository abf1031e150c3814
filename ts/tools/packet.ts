// Packet tool: decodes a datagram given as hex into named JSON fields, and
// encodes that JSON back into hex, with the protocol library doing all the
// validation (docs/protocol.md § Packet tool). It has no schema of its own:
// field names, order and kinds come from the packet layouts (PACKET_LAYOUTS),
// and this file only says how each kind of field looks in JSON.
//
//   npx tsx ts/tools/packet.ts decode <hex|->
//   npx tsx ts/tools/packet.ts encode <json|->
//
// Exit codes: 0 success, 2 bad input (hex, JSON, or a packet the protocol rejects).
import { readFileSync } from "node:fs";
import { pathToFileURL } from "node:url";
import { CHUNK_PACKED_BYTES, CHUNK_SIZE, CHUNK_TILE_COUNT } from "../constants.js";
import {
  type ActionAuth,
  ACTION_AUTH_LAYOUT,
  CHALLENGE_LAYOUT,
  PING_REPORT_LAYOUT,
  CHUNK_LAYOUT,
  EncodeError,
  HEADER_LAYOUT,
  type Layout,
  type LayoutField,
  MAGIC,
  MAX_DATAGRAM_BYTES,
  type Packet,
  PACKET_LAYOUTS,
  PACKET_TYPE_NAMES,
  PROTOCOL_VERSION,
  TLV_TAG_NAMES,
  type Tlv,
  tlvsByteLength,
  chunkCoords,
  chunkId,
  decodePacketPlain,
  encodeChunkFromTiles,
  encodePacketToBytes,
  utf8ByteLength,
} from "../protocol/index.js";
import { pack6, unpack6 } from "../protocol/chunk-kernels.js";
import { packBits, unpackBits, wideIndexBits } from "../protocol/chunk-wide-kernels.js";

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
then built in order of first appearance). A chunk_wide part takes row_start,
row_count, palette and tile_indices (row_count rows of 32 palette indices). Derived fields (magic, version, pal_count,
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
type JsonObject = { [key: string]: Json };
/** A packet, entry or element as the protocol library holds it, read by layout key. */
type Values = Record<string, unknown>;

/** Header fields by wire name, in the order the tool prints them (packet_type first). */
const HEADER = {
  type: "packet_type",
  magic: "magic",
  version: "version",
  clientType: "client_type",
} as const;
for (const name of Object.values(HEADER)) {
  if (!HEADER_LAYOUT.fields.some((field) => field.name === name)) throw new Error(`${name} is not a header field`);
}
const MAGIC_TEXT = `0x${MAGIC.toString(16).toUpperCase()}`;

function layoutOf(type: string): Layout | undefined {
  const id = PACKET_TYPE_NAMES.indexOf(type as (typeof PACKET_TYPE_NAMES)[number]);
  return id < 0 ? undefined : PACKET_LAYOUTS[id];
}

function tlvJson(tlv: Tlv): Json {
  switch (tlv.kind) {
    case "unknown":
      return { tag: tlv.tag, hex: toHex(tlv.bytes) };
    case "inventory":
      return {
        tag: "inventory",
        version: tlv.version,
        capacity: tlv.capacity,
        stacks: tlv.stacks.map((stack) => ({ slot: stack.slot, itemId: stack.itemId, count: stack.count })),
      };
    case "item":
      return { tag: "item", itemId: tlv.itemId, count: tlv.count };
    case "quests":
      return {
        tag: "quests",
        catalogueVersion: tlv.catalogueVersion,
        quests: tlv.quests.map((entry) => ({ ...entry })),
      };
    case "quest_marks":
      return { tag: "quest_marks", marks: tlv.marks.map((entry) => ({ ...entry })) };
    case "party":
      return { tag: "party", members: tlv.members.map((member) => ({ ...member })) };
    case "progress":
      return { tag: "progress", xp: tlv.xp, levelXp: tlv.levelXp, nextXp: tlv.nextXp };
    default:
      return { tag: tlv.kind, value: tlv.value };
  }
}

/** Encoded bytes of TLVs: the encoder's own count (ts/protocol/tlv.ts), which also checks them. */
function metaLength(meta: readonly Tlv[]): number {
  return tlvsByteLength(meta);
}

/** The value a count field writes: the byte or item length of the field it measures. */
function measured(layout: Layout, of: string, values: Values): number {
  const field = layout.fields.find((candidate) => candidate.name === of) as LayoutField;
  const value = values[field.key];
  if (field.kind === "text") return utf8ByteLength(value as string);
  if (field.kind === "tlvs") return metaLength(value as Tlv[]);
  return (value as ArrayLike<unknown>).length;
}

function tokenHex(token: bigint): string {
  return token.toString(16).padStart(16, "0");
}

/** 1024 packed indices as 32 rows of 32. */
function tileRowsJson(packed: Uint8Array): Json {
  const indices = new Uint8Array(CHUNK_TILE_COUNT);
  unpack6(packed, indices);
  const rows: Json[] = [];
  for (let y = 0; y < CHUNK_SIZE; y++) rows.push(Array.from(indices.subarray(y * CHUNK_SIZE, (y + 1) * CHUNK_SIZE)));
  return rows;
}

/** A wide part's bit-packed indices as rowCount rows of 32 (the palette size gives the bits). */
function wideRowsJson(packed: Uint8Array, rowCount: number, paletteCount: number): Json {
  const indices = new Uint16Array(rowCount * CHUNK_SIZE);
  unpackBits(packed, indices.length, wideIndexBits(paletteCount), indices);
  const rows: Json[] = [];
  for (let y = 0; y < rowCount; y++) rows.push(Array.from(indices.subarray(y * CHUNK_SIZE, (y + 1) * CHUNK_SIZE)));
  return rows;
}

/** Adds the fields of `layout` that `values` holds to `json`, by wire name in wire order. */
function fieldsJson(layout: Layout, values: Values, json: JsonObject = {}): JsonObject {
  for (const field of layout.fields) {
    const value = values[field.key];
    const name = field.name;
    switch (field.kind) {
      case "u8":
      case "u16":
      case "i16":
      case "u32":
      case "varint":
      case "text":
      case "string":
        json[name] = value as number | string;
        break;
      case "varints":
        json[name] = [...(value as number[])];
        break;
      case "u64":
        json[name] = (value as bigint).toString();
        break;
      case "token":
        json[name] = tokenHex(value as bigint);
        break;
      case "chunk_id": {
        const { cx, cy } = chunkCoords(value as number);
        Object.assign(json, { [name]: value as number, cx, cy });
        break;
      }
      case "tile_index":
        Object.assign(json, {
          [name]: value as number,
          x: (value as number) % CHUNK_SIZE,
          y: Math.floor((value as number) / CHUNK_SIZE),
        });
        break;
      case "chunk_entries": {
        // One entry with no key: its fields are the packet's own (ChunkPacket's chunk_id, version).
        const entry = field.item as Layout;
        json[name] =
          field.key === "" ? fieldsJson(entry, values) : (value as Values[]).map((item) => fieldsJson(entry, item));
        break;
      }
      case "enum":
        json[name] = typeof value === "string" ? value : field.names[value as number];
        break;
      case "flags": {
        const bits = typeof value === "boolean" ? Number(value) : (value as number);
        json[name] = field.names.filter((_, bit) => (bits & (1 << bit)) !== 0);
        break;
      }
      case "count":
        json[name] = measured(layout, field.of, values);
        break;
      case "strings":
        json[name] = [...(value as string[])];
        break;
      case "tlvs":
        json[name] = (value as Tlv[]).map(tlvJson);
        break;
      case "payload":
      case "bytes":
        json[name] = toHex(value as Uint8Array);
        break;
      case "palette":
        json[name] = Array.from(value as ArrayLike<number>);
        break;
      case "packed_tiles":
        json[name] = tileRowsJson(value as Uint8Array);
        break;
      case "bit_packed_tiles":
        json[name] = wideRowsJson(
          value as Uint8Array,
          values.rowCount as number,
          (values.palette as ArrayLike<number>).length,
        );
        break;
      case "items":
        json[name] = (value as Values[]).map((item) => fieldsJson(field.item as Layout, item));
        break;
      case "elements": {
        const variants = field.variants as Readonly<Record<string, Layout>>;
        json[name] = (value as Values[]).map((element) =>
          fieldsJson(variants[element.kind as string], element, fieldsJson(field.item as Layout, element)),
        );
        break;
      }
    }
  }
  return json;
}

/** The JSON form the tool prints: every field by its wire name. */
export function packetToJson(packet: Packet): Json {
  const head: JsonObject = {
    [HEADER.type]: packet.type,
    [HEADER.magic]: MAGIC_TEXT,
    [HEADER.version]: PROTOCOL_VERSION,
    [HEADER.clientType]: packet.clientType,
  };
  const json = fieldsJson(layoutOf(packet.type) as Layout, packet as unknown as Values, head);
  // The optional tails (docs/protocol.md § 6.1, § 12.1): the tool prints the tag, it cannot check it (no key).
  if (packet.type === "action" && packet.auth !== undefined) {
    json.auth = fieldsJson(ACTION_AUTH_LAYOUT, packet.auth as unknown as Values);
  }
  if (packet.type === "pong" && packet.challenge !== undefined) {
    fieldsJson(CHALLENGE_LAYOUT, packet as unknown as Values, json);
  }
  if (packet.type === "ping" && packet.pingsSent !== undefined) {
    fieldsJson(PING_REPORT_LAYOUT, packet as unknown as Values, json);
  }
  return json;
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
    /** Where this object is in the JSON ("packet", "packet.entities[2]"), for messages. */
    readonly path: string,
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

/**
 * Fields that may be left out of the JSON, with the value they then take.
 * Everything else is required (derived count fields are optional and checked).
 */
const JSON_DEFAULTS: Readonly<Record<string, Json>> = { speaker_name: "", entity_flags: 0, meta: [], packet_flags: [] };

/** chunk_id, or cx and cy (both given: they must agree). `fields` is the object holding them. */
function chunkIdFromJson(fields: Fields, key: string): number {
  const path = fields.path;
  // Messages inside an entry name the entry; at the packet's top level they name the packet.
  const where = path === "packet" ? "" : `${path}: `;
  let id: number | undefined = fields.has(key) ? fields.integer(key) : undefined;
  if (fields.has("cx") || fields.has("cy")) {
    let fromCoords: number;
    try {
      fromCoords = chunkId(fields.integer("cx"), fields.integer("cy"));
    } catch (error) {
      if (error instanceof EncodeError) throw new ToolInputError(`${path}: ${error.message}`);
      throw error;
    }
    if (id !== undefined && id !== fromCoords) {
      throw new ToolInputError(`${where}${key} ${id} is not (cx, cy) = ${fromCoords}`);
    }
    id = fromCoords;
  }
  if (id === undefined) throw new ToolInputError(`${path} needs ${key} or cx and cy`);
  return id;
}

/** tile_index, or x and y (both given: they must agree). */
function tileIndexFromJson(fields: Fields, key: string): number {
  let tileIndex = fields.has(key) ? fields.integer(key) : undefined;
  if (fields.has("x") || fields.has("y")) {
    const fromXy = fields.integer("y") * CHUNK_SIZE + fields.integer("x");
    if (tileIndex !== undefined && tileIndex !== fromXy) {
      throw new ToolInputError(`${fields.path}: ${key} is not y * ${CHUNK_SIZE} + x`);
    }
    tileIndex = fromXy;
  }
  if (tileIndex === undefined) throw new ToolInputError(`${fields.path} needs ${key} or x and y`);
  return tileIndex;
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

/**
 * Flags as decode prints them (a list of bit names) or as a number. A
 * one-bit set (packet_flags' "more") is a boolean in the packet.
 */
function flagsFromJson(value: unknown, where: string, names: readonly string[]): number | boolean {
  if (names.length === 1) {
    if (Array.isArray(value) && value.every((flag) => flag === names[0])) return value.length > 0;
    if (value === 0 || value === 1) return value === 1;
    throw new ToolInputError(`${where} must be [] or ["${names[0]}"] (or 0 / 1)`);
  }
  if (typeof value === "number") return value;
  if (!Array.isArray(value)) throw new ToolInputError(`${where} must be a list of flag names or a number`);
  let flags = 0;
  for (const name of value) {
    const bit = names.indexOf(String(name));
    if (bit < 0) throw new ToolInputError(`${where}: unknown flag ${JSON.stringify(name)} (${names.join(", ")})`);
    flags |= 1 << bit;
  }
  return flags;
}

/** A hex string of any length, "" for none. */
function bytesFromHex(hex: string): Uint8Array {
  return hex.replace(/\s+/g, "") === "" ? new Uint8Array(0) : parseHex(hex);
}

/** `rows` rows of `CHUNK_SIZE` integers 0..65535, flattened row-major. */
function tileRows(fields: Fields, key: string, rowCount = CHUNK_SIZE): number[] {
  const rows = fields.array(key);
  if (rows.length !== rowCount) {
    throw new ToolInputError(`${fields.at(key)} must hold ${rowCount} rows, got ${rows.length}`);
  }
  const flat: number[] = [];
  rows.forEach((row, y) => {
    if (!Array.isArray(row) || row.length !== CHUNK_SIZE) {
      throw new ToolInputError(`${fields.at(key)}[${y}] must hold ${CHUNK_SIZE} values`);
    }
    row.forEach((value, x) => {
      if (typeof value !== "number" || !Number.isInteger(value) || value < 0 || value > 0xffff) {
        throw new ToolInputError(`${fields.at(key)}[${y}][${x}] must be an integer 0..65535`);
      }
      flat.push(value);
    });
  });
  return flat;
}

/** One object of `layout` (an entry, a change) from its JSON; every key must be a field. */
function objectFromJson(layout: Layout, value: unknown, path: string): Values {
  const fields = Fields.of(value, path);
  const values = fieldsFromJson(layout, fields, {});
  fields.done();
  return values;
}

function elementFromJson(field: LayoutField, value: unknown, path: string): Values {
  const variants = field.variants as Readonly<Record<string, Layout>>;
  const header = field.item as Layout;
  const fields = Fields.of(value, path);
  const kindField = header.fields[0];
  const kind = fields.string(kindField.name);
  const body = Object.hasOwn(variants, kind) ? variants[kind] : undefined;
  if (body === undefined) {
    const kinds = Object.keys(variants);
    throw new ToolInputError(`${path}.${kindField.name} must be ${kinds.slice(0, -1).join(", ")} or ${kinds.at(-1)}`);
  }
  const element: Values = { [kindField.key]: kind };
  fieldsFromJson({ ...header, fields: header.fields.slice(1) }, fields, element);
  fieldsFromJson(body, fields, element);
  fields.done();
  return element;
}

/**
 * Reads the fields of `layout` from `fields` into `values` by layout key.
 * Count fields are optional and checked against what the encoder will write
 * as soon as the field they measure has been read.
 */
function fieldsFromJson(layout: Layout, fields: Fields, values: Values): Values {
  const counts: LayoutField[] = [];
  for (const field of layout.fields) {
    const name = field.name;
    const key = field.key;
    const missing = !fields.has(name) && Object.hasOwn(JSON_DEFAULTS, name);
    const raw = (): unknown => (missing ? JSON_DEFAULTS[name] : fields.raw(name));
    switch (field.kind) {
      case "u8":
      case "u16":
      case "i16":
      case "u32":
      case "varint":
        values[key] = fields.integer(name);
        break;
      case "varints":
        values[key] = fields.array(name).map((item, index) => {
          if (typeof item !== "number") throw new ToolInputError(`${fields.at(name)}[${index}] must be a number`);
          return item;
        });
        break;
      case "u64":
        values[key] = parseU64Decimal(fields.raw(name), fields.at(name));
        break;
      case "token":
        values[key] = parseU64Hex(fields.string(name), fields.at(name));
        break;
      case "chunk_id":
        values[key] = chunkIdFromJson(fields, name);
        break;
      case "tile_index":
        values[key] = tileIndexFromJson(fields, name);
        break;
      case "chunk_entries": {
        const entry = field.item as Layout;
        if (field.key === "") Object.assign(values, objectFromJson(entry, fields.raw(name), fields.at(name)));
        else values[key] = fields.list(name, (item, path) => objectFromJson(entry, item, path));
        break;
      }
      case "enum":
        values[key] = namedCode(fields, name, field.names);
        break;
      case "flags":
        if (missing) fields.optional(name);
        values[key] = flagsFromJson(raw(), fields.at(name), field.names);
        break;
      case "count":
        counts.push(field);
        break;
      case "text":
      case "string":
        values[key] = missing ? JSON_DEFAULTS[name] : fields.string(name);
        break;
      case "strings":
        values[key] = fields.list(name, (item, path) => {
          if (typeof item !== "string") throw new ToolInputError(`${path} must be a string`);
          return item;
        });
        break;
      case "tlvs":
        values[key] = missing ? [] : fields.list(name, tlvFromJson);
        break;
      case "payload":
        values[key] = bytesFromHex(fields.string(name));
        break;
      case "bytes": {
        const bytes = bytesFromHex(fields.string(name));
        if (bytes.length !== field.size) throw new ToolInputError(`${fields.at(name)} must be ${field.size} bytes`);
        values[key] = bytes;
        break;
      }
      case "palette":
        values[key] = fields.array(name).map((item, index) => {
          if (typeof item !== "number") throw new ToolInputError(`${fields.at(name)}[${index}] must be a number`);
          return item;
        });
        break;
      case "packed_tiles": {
        const palette = values.palette as number[];
        const indices = tileRows(fields, name);
        const bad = indices.findIndex((index) => index >= palette.length);
        if (bad >= 0) {
          const [y, x] = [Math.floor(bad / CHUNK_SIZE), bad % CHUNK_SIZE];
          throw new ToolInputError(`${name}[${y}][${x}] = ${indices[bad]} is not below pal_count ${palette.length}`);
        }
        const packed = new Uint8Array(CHUNK_PACKED_BYTES);
        pack6(Uint8Array.from(indices), packed);
        values[key] = packed;
        break;
      }
      case "bit_packed_tiles": {
        // row_count was read before; a bad one is the encoder's to refuse, so only rows 1..32 are read here.
        const palette = values.palette as number[];
        const rowCount = values.rowCount as number;
        if (!Number.isInteger(rowCount) || rowCount < 1 || rowCount > CHUNK_SIZE) {
          throw new ToolInputError(`row_count must be 1..${CHUNK_SIZE}, got ${rowCount}`);
        }
        const indices = tileRows(fields, name, rowCount);
        const bad = indices.findIndex((index) => index >= palette.length);
        if (bad >= 0) {
          const [y, x] = [Math.floor(bad / CHUNK_SIZE), bad % CHUNK_SIZE];
          throw new ToolInputError(`${name}[${y}][${x}] = ${indices[bad]} is not below pal_count ${palette.length}`);
        }
        const bits = wideIndexBits(Math.max(1, palette.length));
        const packed = new Uint8Array(rowCount * 4 * bits);
        packBits(indices, indices.length, bits, packed);
        values[key] = packed;
        break;
      }
      case "items":
        values[key] = fields.list(name, (item, path) => objectFromJson(field.item as Layout, item, path));
        break;
      case "elements":
        values[key] = fields.list(name, (item, path) => elementFromJson(field, item, path));
        break;
    }
    const count = counts.find((candidate) => candidate.of === name);
    if (count !== undefined) fields.derived(count.name, measured(layout, name, values));
  }
  return values;
}

/** A chunk given as global tile ids: the library builds the palette (first appearance order). */
function chunkFromTileIds(fields: Fields, clientType: number): Packet {
  const entry = objectFromJson(CHUNK_ENTRY_OF_CHUNK, fields.raw("chunk"), fields.at("chunk"));
  if (fields.has("palette") || fields.has("tile_indices")) {
    throw new ToolInputError("give either tile_ids, or palette with tile_indices, not both");
  }
  const tiles = Uint16Array.from(tileRows(fields, "tile_ids"));
  const out = new Uint8Array(MAX_DATAGRAM_BYTES);
  const size = encodeChunkFromTiles(clientType, entry.chunkId as number, entry.version as number, tiles, out);
  const decoded = decodePacketPlain(out.subarray(0, size));
  if (!decoded.ok) throw new Error(`encoded chunk does not decode: ${decoded.error.message}`);
  fields.derived("pal_count", decoded.packet.type === "chunk" ? decoded.packet.palette.length : 0);
  return decoded.packet;
}
const CHUNK_ENTRY_OF_CHUNK = CHUNK_LAYOUT.fields[0].item as Layout;

/** The packet a JSON value (as printed by decode) describes; throws ToolInputError. */
export function packetFromJson(value: unknown): Packet {
  const fields = Fields.of(value, "packet");
  const type = fields.string(HEADER.type);
  fields.derived(HEADER.magic, MAGIC_TEXT);
  fields.derived(HEADER.version, PROTOCOL_VERSION);
  const clientType = fields.has(HEADER.clientType) ? fields.integer(HEADER.clientType) : 0;
  const layout = layoutOf(type);
  if (layout === undefined) {
    throw new ToolInputError(`packet.${HEADER.type} must be one of ${PACKET_TYPE_NAMES.join(", ")}`);
  }
  const packet =
    layout === CHUNK_LAYOUT && fields.has("tile_ids")
      ? chunkFromTileIds(fields, clientType)
      : (fieldsFromJson(layout, fields, { type, clientType }) as unknown as Packet);
  if (packet.type === "action" && fields.has("auth")) {
    packet.auth = objectFromJson(ACTION_AUTH_LAYOUT, fields.raw("auth"), "packet.auth") as unknown as ActionAuth;
  }
  if (packet.type === "pong" && fields.has("challenge")) {
    fieldsFromJson(CHALLENGE_LAYOUT, fields, packet as unknown as Values);
  }
  if (packet.type === "ping" && (fields.has("pings_sent") || fields.has("pongs_received"))) {
    fieldsFromJson(PING_REPORT_LAYOUT, fields, packet as unknown as Values);
  }
  fields.done();
  return packet;
}

function tlvFromJson(value: unknown, path: string): Tlv {
  const fields = Fields.of(value, path);
  const rawTag = fields.raw("tag");
  const tag = typeof rawTag === "number" ? (TLV_TAG_NAMES[rawTag] ?? rawTag) : rawTag;
  let tlv: Tlv;
  if (tag === "status_effects" || tag === "weapon" || tag === "armor" || tag === "appearance" || tag === "level") {
    tlv = { kind: tag, value: fields.integer("value") };
  } else if (tag === "name") {
    tlv = { kind: "name", value: fields.string("value") };
  } else if (tag === "inventory") {
    const stacks = fields.raw("stacks");
    if (!Array.isArray(stacks)) throw new ToolInputError(`${path}.stacks must be an array`);
    tlv = {
      kind: "inventory",
      version: fields.integer("version"),
      capacity: fields.integer("capacity"),
      stacks: stacks.map((raw, index) => {
        const stack = Fields.of(raw, `${path}.stacks[${index}]`);
        const value = { slot: stack.integer("slot"), itemId: stack.integer("itemId"), count: stack.integer("count") };
        stack.done();
        return value;
      }),
    };
  } else if (tag === "item") {
    tlv = { kind: "item", itemId: fields.integer("itemId"), count: fields.integer("count") };
  } else if (tag === "quests") {
    const quests = fields.raw("quests");
    if (!Array.isArray(quests)) throw new ToolInputError(`${path}.quests must be an array`);
    tlv = {
      kind: "quests",
      catalogueVersion: fields.integer("catalogueVersion"),
      quests: quests.map((raw, index) => {
        const entry = Fields.of(raw, `${path}.quests[${index}]`);
        const value = {
          quest: entry.integer("quest"),
          state: entry.integer("state"),
          progress: entry.integer("progress"),
          goal: entry.integer("goal"),
        };
        entry.done();
        return value;
      }),
    };
  } else if (tag === "quest_marks") {
    const marks = fields.raw("marks");
    if (!Array.isArray(marks)) throw new ToolInputError(`${path}.marks must be an array`);
    tlv = {
      kind: "quest_marks",
      marks: marks.map((raw, index) => {
        const entry = Fields.of(raw, `${path}.marks[${index}]`);
        const value = { typeId: entry.integer("typeId"), mark: entry.integer("mark") };
        entry.done();
        return value;
      }),
    };
  } else if (tag === "progress") {
    tlv = {
      kind: "progress",
      xp: fields.integer("xp"),
      levelXp: fields.integer("levelXp"),
      nextXp: fields.integer("nextXp"),
    };
  } else if (tag === "party") {
    const members = fields.raw("members");
    if (!Array.isArray(members)) throw new ToolInputError(`${path}.members must be an array`);
    tlv = {
      kind: "party",
      members: members.map((raw, index) => {
        const entry = Fields.of(raw, `${path}.members[${index}]`);
        const value = {
          entityId: entry.integer("entityId"),
          hp: entry.integer("hp"),
          hpMax: entry.integer("hpMax"),
          x: entry.integer("x"),
          y: entry.integer("y"),
          flags: entry.integer("flags"),
          name: entry.string("name"),
        };
        entry.done();
        return value;
      }),
    };
  } else if (typeof tag === "number") {
    const hex = fields.string("hex");
    tlv = { kind: "unknown", tag, bytes: bytesFromHex(hex) };
  } else {
    throw new ToolInputError(
      `${path}.tag must be status_effects, weapon, armor, name, inventory, item, appearance, quests, quest_marks, level, progress, party or a number`,
    );
  }
  fields.done();
  return tlv;
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
