// Growable little-endian byte writing and bounds-checked reading for the recording format
// (docs/recording.md). Every read checks its bounds and throws RecordingError: a truncated or corrupt
// record is a clear message, never a read past the end or a NaN carried into the world.

/** A recording that cannot be read as one: what is wrong, said plainly (docs/recording.md § Bad input). */
export class RecordingError extends Error {
  constructor(
    message: string,
    /** What kind of problem: the file's kind, its build or map, its bytes, or its end. */
    readonly kind: "foreign" | "version" | "corrupt" | "truncated" | "mismatch" | "missing",
  ) {
    super(message);
    this.name = "RecordingError";
  }
}

const textEncoder = new TextEncoder();
const textDecoder = new TextDecoder("utf-8", { fatal: true });

export class ByteWriter {
  bytes: Uint8Array;
  private view: DataView;
  length = 0;

  constructor(capacity = 64 * 1024) {
    this.bytes = new Uint8Array(capacity);
    this.view = new DataView(this.bytes.buffer);
  }

  /** Makes room for `more` bytes after the current length (doubling). */
  reserve(more: number): void {
    const needed = this.length + more;
    if (needed <= this.bytes.length) return;
    let capacity = this.bytes.length * 2;
    while (capacity < needed) capacity *= 2;
    const grown = new Uint8Array(capacity);
    grown.set(this.bytes.subarray(0, this.length));
    this.bytes = grown;
    this.view = new DataView(grown.buffer);
  }

  u8(value: number): void {
    this.reserve(1);
    this.bytes[this.length++] = value;
  }

  u32(value: number): void {
    this.reserve(4);
    this.view.setUint32(this.length, value >>> 0, true);
    this.length += 4;
  }

  f64(value: number): void {
    this.reserve(8);
    this.view.setFloat64(this.length, value, true);
    this.length += 8;
  }

  u64(value: bigint): void {
    this.reserve(8);
    this.view.setBigUint64(this.length, value, true);
    this.length += 8;
  }

  /** An unsigned LEB128 number (at most 2^53 - 1). */
  varint(value: number): void {
    this.reserve(8);
    let rest = value;
    while (rest >= 0x80) {
      this.bytes[this.length++] = (rest % 0x80) | 0x80;
      rest = Math.floor(rest / 0x80);
    }
    this.bytes[this.length++] = rest;
  }

  /** A zigzag LEB128 signed whole number. */
  svarint(value: number): void {
    this.varint(value < 0 ? -value * 2 - 1 : value * 2);
  }

  /** Length-prefixed raw bytes. */
  blob(value: Uint8Array): void {
    this.varint(value.length);
    this.reserve(value.length);
    this.bytes.set(value, this.length);
    this.length += value.length;
  }

  /** Length-prefixed UTF-8. */
  text(value: string): void {
    this.blob(textEncoder.encode(value));
  }

  /** The bytes written so far (a view: copy before writing on). */
  view0(): Uint8Array {
    return this.bytes.subarray(0, this.length);
  }

  /** Forgets everything after `length` (a record rolled back before it was sealed). */
  truncate(length: number): void {
    this.length = length;
  }
}

export class ByteReader {
  private readonly view: DataView;
  at: number;

  constructor(
    readonly bytes: Uint8Array,
    start = 0,
    readonly end = bytes.length,
    /** What the bytes are, for messages ("block at byte 1234"). */
    private readonly what = "record",
  ) {
    this.view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    this.at = start;
  }

  get remaining(): number {
    return this.end - this.at;
  }

  private need(count: number): void {
    if (this.at + count > this.end) {
      throw new RecordingError(`${this.what} ends inside a field (needs ${count} more bytes at ${this.at})`, "corrupt");
    }
  }

  u8(): number {
    this.need(1);
    return this.bytes[this.at++];
  }

  u32(): number {
    this.need(4);
    const value = this.view.getUint32(this.at, true);
    this.at += 4;
    return value;
  }

  f64(): number {
    this.need(8);
    const value = this.view.getFloat64(this.at, true);
    this.at += 8;
    return value;
  }

  u64(): bigint {
    this.need(8);
    const value = this.view.getBigUint64(this.at, true);
    this.at += 8;
    return value;
  }

  varint(): number {
    let value = 0;
    let scale = 1;
    for (let index = 0; index < 8; index++) {
      const byte = this.u8();
      value += (byte & 0x7f) * scale;
      if (byte < 0x80) return value;
      scale *= 0x80;
    }
    throw new RecordingError(`${this.what}: a number longer than 8 bytes at ${this.at}`, "corrupt");
  }

  svarint(): number {
    const zigzag = this.varint();
    return zigzag % 2 === 1 ? -(zigzag + 1) / 2 : zigzag / 2;
  }

  blob(): Uint8Array {
    const length = this.varint();
    this.need(length);
    const value = this.bytes.subarray(this.at, this.at + length);
    this.at += length;
    return value;
  }

  text(): string {
    try {
      return textDecoder.decode(this.blob());
    } catch (error) {
      if (error instanceof RecordingError) throw error;
      throw new RecordingError(`${this.what}: text that is not UTF-8 at ${this.at}`, "corrupt");
    }
  }
}
