// JSON written straight into bytes, for an answer that is mostly numbers (the console's world: 20,000 creatures
// of six integers each, twice a second, on the thread that runs the tick). Building it as arrays of arrays and
// then JSON.stringify made ~20,000 small arrays and a 600 KB string per answer — garbage the next tick's
// scavenges paid for — and took 3.6 ms (p50, load 14; 19 ms with a collection). Here the integers are written
// as ASCII digits into one scratch buffer that grows once and is reused; the answer is one copy out of it.

/** Writes JSON text into a reusable byte buffer; `bytes()` copies out what was written since `reset()`. */
export class JsonBytes {
  private buffer: Buffer;
  private length = 0;

  constructor(initialBytes = 64 * 1024) {
    this.buffer = Buffer.allocUnsafe(initialBytes);
  }

  reset(): this {
    this.length = 0;
    return this;
  }

  /** Text that is already JSON and ASCII (punctuation, keys the code spells out). */
  raw(text: string): this {
    this.room(text.length);
    // Byte by byte: most are a comma or a key, and a call into the buffer's native write costs more than that.
    const buffer = this.buffer;
    let at = this.length;
    for (let i = 0; i < text.length; i++) buffer[at++] = text.charCodeAt(i);
    this.length = at;
    return this;
  }

  /** A number as JSON writes it: integers digit by digit, anything else through JSON.stringify. */
  number(value: number): this {
    // Integers below 2^31 in int32 arithmetic (every coordinate, id and hit point); others as JSON says.
    if ((value | 0) !== value || value < 0) return this.value(value);
    this.room(10);
    this.length = writeDigits(this.buffer, this.length, value);
    return this;
  }

  /** `[a,b,c,d,e,f]`, six numbers as number() writes them: one call for a row of a long table of them. */
  row6(a: number, b: number, c: number, d: number, e: number, f: number): this {
    if (!(isDigits(a) && isDigits(b) && isDigits(c) && isDigits(d) && isDigits(e) && isDigits(f))) {
      return this.raw("[")
        .number(a)
        .raw(",")
        .number(b)
        .raw(",")
        .number(c)
        .raw(",")
        .number(d)
        .raw(",")
        .number(e)
        .raw(",")
        .number(f)
        .raw("]");
    }
    this.room(67);
    const buffer = this.buffer;
    let at = this.length;
    buffer[at++] = 0x5b; // [
    at = writeDigits(buffer, at, a);
    buffer[at++] = 0x2c; // ,
    at = writeDigits(buffer, at, b);
    buffer[at++] = 0x2c;
    at = writeDigits(buffer, at, c);
    buffer[at++] = 0x2c;
    at = writeDigits(buffer, at, d);
    buffer[at++] = 0x2c;
    at = writeDigits(buffer, at, e);
    buffer[at++] = 0x2c;
    at = writeDigits(buffer, at, f);
    buffer[at++] = 0x5d; // ]
    this.length = at;
    return this;
  }

  /** Any JSON value (a string's escapes, an object), as JSON.stringify writes it, in UTF-8. */
  value(value: unknown): this {
    const text = JSON.stringify(value) ?? "null";
    this.room(Buffer.byteLength(text, "utf8"));
    this.length += this.buffer.write(text, this.length, "utf8");
    return this;
  }

  /** What `other` holds, written here. */
  append(other: JsonBytes): this {
    this.room(other.length);
    other.buffer.copy(this.buffer, this.length, 0, other.length);
    this.length += other.length;
    return this;
  }

  /** What was written, as a buffer of its own (the scratch is written over by the next answer). */
  bytes(): Buffer {
    return Buffer.from(this.buffer.subarray(0, this.length));
  }

  private room(bytes: number): void {
    if (this.length + bytes <= this.buffer.length) return;
    const grown = Buffer.allocUnsafe(Math.max(this.buffer.length * 2, this.length + bytes));
    this.buffer.copy(grown, 0, 0, this.length);
    this.buffer = grown;
  }
}

/** Whether number() writes `value` digit by digit: a non-negative int32. */
function isDigits(value: number): boolean {
  return (value | 0) === value && value >= 0;
}

/** Writes the non-negative int32 `value` in decimal at `at`; where the next byte goes. */
function writeDigits(buffer: Buffer, at: number, value: number): number {
  let digits = 1;
  for (let rest = value; rest >= 10; rest = (rest / 10) | 0) digits++;
  let end = at + digits;
  const next = end;
  let n = value;
  do {
    const tenth = (n / 10) | 0;
    buffer[--end] = 0x30 + n - tenth * 10;
    n = tenth;
  } while (n > 0);
  return next;
}
