// Packet layouts: each packet's fields in wire order, with their kind, byte
// offset and size, declared once beside the packet (docs/protocol.md § Library).
// The packet's encoder, decoder and in-place readers take their offsets from
// the layout (as module-level numbers, so hot paths read a constant), and the
// packet tool walks the same field list to name and print every field. A
// layout is built and checked when its module loads: offsets follow from the
// sizes, and the fixed part must come out at the size the spec declares.
import { CHUNK_PACKED_BYTES } from "../constants.js";

/**
 * What a field holds. Fixed-size kinds have an offset; the variable kinds
 * (text … elements) take as many bytes as the `count` field before them says
 * (or, for packed_tiles and strings, as their format says), so a field after
 * one of them has no fixed offset.
 */
export type FieldKind =
  /** Unsigned or signed integers, little-endian. */
  | "u8"
  | "u16"
  | "i16"
  | "u32"
  /** A u64 that is a number (timestamps): a bigint in TypeScript. */
  | "u64"
  /** An unsigned LEB128 varint of at most 32 bits (1–5 bytes, the shortest form), a number in TypeScript. */
  | "varint"
  /** `repeat` varints in a row, an array of numbers in TypeScript. */
  | "varints"
  /** The u64 session token (auth_token). */
  | "token"
  /** A u32 chunk_id: (cx as u16) | (cy as u16) << 16. */
  | "chunk_id"
  /** A u16 tile index within a chunk, y * 32 + x. */
  | "tile_index"
  /** `repeat` ChunkEntries (chunk_id u32, version u16) in a row. */
  | "chunk_entries"
  /** An integer code whose meanings are `names` (indexed by code). */
  | "enum"
  /** A bit set whose bits are `names` (bit i is names[i]). */
  | "flags"
  /** The length (bytes or items) of the variable field named `of`, which follows. */
  | "count"
  /** UTF-8 text whose byte length is a preceding count field. */
  | "text"
  /** TLV metadata whose byte length is a preceding count field. */
  | "tlvs"
  /** Opaque bytes whose length is a preceding count field. */
  | "payload"
  /** Opaque bytes of a fixed length (an authentication tag). */
  | "bytes"
  /** u16 global tile ids, as many as a preceding count field says. */
  | "palette"
  /** 1024 6-bit palette indices packed four per three bytes (768 bytes). */
  | "packed_tiles"
  /**
   * row_count × 32 palette indices at ⌈log2 pal_count⌉ bits each (at least 1),
   * one little-endian bit stream (ChunkWidePacket): its size follows from the
   * row_count and pal_count fields before it.
   */
  | "bit_packed_tiles"
  /** One string: a u8 byte length, then that many bytes of UTF-8. */
  | "string"
  /** Strings with a u8 length prefix each, as many as a preceding count field says. */
  | "strings"
  /** Items of layout `item`, as many as a preceding count field says. */
  | "items"
  /** Dialog elements: the shared `item` header, then the body of `variants[kind]`. */
  | "elements";

export interface LayoutField {
  /** Wire name, as docs/protocol.md and the packet tool spell it. */
  readonly name: string;
  /** Property of the TypeScript packet object that holds the value. */
  readonly key: string;
  readonly kind: FieldKind;
  /** Byte offset from the packet's (or item's) start; -1 after a variable field. */
  readonly offset: number;
  /** Bytes on the wire; -1 for variable kinds. */
  readonly size: number;
  /** chunk_entries: how many (their layout is `item`). */
  readonly repeat: number;
  /** enum and flags: meaning of each code or bit. */
  readonly names: readonly string[];
  /** count: the wire name of the field it measures. */
  readonly of: string;
  /** chunk_entries, items and elements: the layout of one item (elements: the shared header). */
  readonly item: Layout | null;
  /** elements: the body layout of each element kind, by kind name. */
  readonly variants: Readonly<Record<string, Layout>> | null;
}

export interface Layout<Name extends string = string> {
  readonly name: string;
  /** Every field in wire order. */
  readonly fields: readonly LayoutField[];
  /** Offset of each field by wire name; -1 for a field after a variable one. */
  readonly offset: { readonly [K in Name]: number };
  /** Bytes of each field by wire name; -1 for a variable one. */
  readonly size: { readonly [K in Name]: number };
  /** Offset where the first variable field starts (the whole length when there is none), counted from 0, so a packet's includes its header. */
  readonly fixedBytes: number;
}

/** A field as declared: kind, sizes and references; the offset is computed. */
export type FieldSpec<Name extends string = string> = Omit<LayoutField, "name" | "offset" | "size"> & {
  readonly name: Name;
  /** Bytes on the wire (set by the builder functions from the kind); -1 for variable kinds. */
  readonly size: number;
};

/** The length prefix of a "string" field: one u8 byte count. */
export const STRING_LENGTH_BYTES = 1;

const FIXED_BYTES: Partial<Record<FieldKind, number>> = {
  u8: 1,
  u16: 2,
  i16: 2,
  u32: 4,
  u64: 8,
  token: 8,
  chunk_id: 4,
  tile_index: 2,
};

function fixedBytes(kind: FieldKind): number {
  return FIXED_BYTES[kind] as number;
}

function spec<Name extends string>(
  name: Name,
  kind: FieldKind,
  size: number,
  extra: Partial<Omit<FieldSpec, "name">>,
): FieldSpec<Name> {
  return { key: name, repeat: 1, names: [], of: "", item: null, variants: null, ...extra, name, kind, size };
}

/** A fixed-size integer field; `key` is the property name in the packet object. */
export function int<Name extends string>(name: Name, kind: "u8" | "u16" | "i16" | "u32", key: string): FieldSpec<Name> {
  return spec(name, kind, fixedBytes(kind), { key });
}

/** A variable-length unsigned integer (LEB128, ≤ u32): 1–5 bytes, so the fields after it have no fixed offset. */
export function varint<Name extends string>(name: Name, key: string): FieldSpec<Name> {
  return spec(name, "varint", -1, { key });
}

/** `repeat` varints (an array of `repeat` numbers). */
export function varints<Name extends string>(name: Name, key: string, repeat: number): FieldSpec<Name> {
  return spec(name, "varints", -1, { key, repeat });
}

export function u64<Name extends string>(name: Name, key: string): FieldSpec<Name> {
  return spec(name, "u64", fixedBytes("u64"), { key });
}

/** The session token every client-to-server packet but Ping carries. */
export function token<Name extends string>(name: Name): FieldSpec<Name> {
  return spec(name, "token", fixedBytes("token"), { key: "authToken" });
}

/** `size` opaque bytes (a Uint8Array in TypeScript). */
export function bytesField<Name extends string>(name: Name, key: string, size: number): FieldSpec<Name> {
  return spec(name, "bytes", size, { key });
}

export function chunkIdField<Name extends string>(name: Name, key: string): FieldSpec<Name> {
  return spec(name, "chunk_id", fixedBytes("chunk_id"), { key });
}

export function tileIndexField<Name extends string>(name: Name, key: string): FieldSpec<Name> {
  return spec(name, "tile_index", fixedBytes("tile_index"), { key });
}

/** `repeat` ChunkEntries of layout `entry` (CHUNK_ENTRY_LAYOUT; passed in because chunk-id.ts imports this module). */
export function chunkEntries<Name extends string>(
  name: Name,
  key: string,
  repeat: number,
  entry: Layout,
): FieldSpec<Name> {
  return spec(name, "chunk_entries", repeat * entry.fixedBytes, { key, repeat, item: entry });
}

export function enumField<Name extends string>(
  name: Name,
  size: 1 | 2,
  key: string,
  names: readonly string[],
): FieldSpec<Name> {
  return spec(name, "enum", size, { key, names });
}

export function flagsField<Name extends string>(name: Name, key: string, names: readonly string[]): FieldSpec<Name> {
  return spec(name, "flags", fixedBytes("u8"), { key, names });
}

/** A u8 or u16 giving the length of the variable field `of` (bytes, or items for lists). */
export function count<Name extends string>(name: Name, size: 1 | 2, of: string): FieldSpec<Name> {
  return spec(name, "count", size, { key: "", of });
}

export function variable<Name extends string>(
  name: Name,
  kind: "text" | "tlvs" | "payload" | "palette" | "strings",
  key: string,
): FieldSpec<Name> {
  return spec(name, kind, -1, { key });
}

/** A u8-length-prefixed UTF-8 string. */
export function stringField<Name extends string>(name: Name, key: string): FieldSpec<Name> {
  return spec(name, "string", -1, { key });
}

export function packedTiles<Name extends string>(name: Name, key: string): FieldSpec<Name> {
  return spec(name, "packed_tiles", CHUNK_PACKED_BYTES, { key });
}

/** ChunkWidePacket's indices: variable, sized by its row_count and pal_count fields, not by a count of its own. */
export function bitPackedTiles<Name extends string>(name: Name, key: string): FieldSpec<Name> {
  return spec(name, "bit_packed_tiles", -1, { key });
}

export function items<Name extends string>(name: Name, key: string, item: Layout): FieldSpec<Name> {
  return spec(name, "items", -1, { key, item });
}

export function elements<Name extends string>(
  name: Name,
  key: string,
  header: Layout,
  variants: Readonly<Record<string, Layout>>,
): FieldSpec<Name> {
  return spec(name, "elements", -1, { key, item: header, variants });
}

/**
 * Builds a layout: fields laid end to end from `start` (the header's 6 bytes
 * for a packet, 0 for an item). Throws at module load when the fixed part is
 * not `expectedFixedBytes` long, when a count names no later field, or when a
 * variable field has no count before it, so a mistyped layout cannot ship.
 */
export function layout<Name extends string>(
  name: string,
  start: number,
  expectedFixedBytes: number,
  specs: readonly FieldSpec<Name>[],
): Layout<Name> {
  const fields: LayoutField[] = [];
  const offset: Record<string, number> = {};
  const size: Record<string, number> = {};
  let at = start;
  for (const field of specs) {
    const placed: LayoutField = { ...field, offset: at, size: field.size };
    fields.push(placed);
    offset[field.name] = at;
    size[field.name] = field.size;
    at = at < 0 || field.size < 0 ? -1 : at + field.size;
  }
  const firstVariable = fields.findIndex((field) => field.size < 0 || field.offset < 0);
  const fixedBytes = firstVariable < 0 ? at : fields[firstVariable].offset;
  if (fixedBytes !== expectedFixedBytes) {
    throw new Error(`layout ${name}: fixed part is ${fixedBytes} bytes, the spec says ${expectedFixedBytes}`);
  }
  fields.forEach((field, index) => {
    if (field.kind === "count" && !fields.slice(index + 1).some((later) => later.name === field.of)) {
      throw new Error(`layout ${name}: count ${field.name} measures ${field.of}, which does not follow it`);
    }
    const counted =
      field.size < 0 &&
      field.kind !== "string" &&
      field.kind !== "bit_packed_tiles" &&
      field.kind !== "varint" &&
      field.kind !== "varints";
    const hasCount = fields.slice(0, index).some((earlier) => earlier.kind === "count" && earlier.of === field.name);
    if (counted && !hasCount) {
      throw new Error(`layout ${name}: ${field.name} has no count field before it`);
    }
  });
  return {
    name,
    fields,
    offset: offset as { readonly [K in Name]: number },
    size: size as { readonly [K in Name]: number },
    fixedBytes,
  };
}
