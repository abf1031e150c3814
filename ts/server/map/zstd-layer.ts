// zstd layer data (Tiled's `compression="zstd"`), decoded with fzstd because
// Node 20 has no zstd. fzstd allocates whatever window a frame header claims
// (up to 2 GB from a dozen bytes) and does not check a frame's content against
// the size its header states, so before decoding, the frames are walked here
// (RFC 8878 § 3.1: frame headers and block headers only, no decoding): every
// frame must state its content size, the sizes must add up to the layer's
// bytes, and no window may exceed twice that (1 MiB at least; the reference
// encoder shrinks its window to the content it has). The decoded blocks are
// then counted into a buffer of exactly the layer's size, so content longer
// or shorter than stated is an error too. Every failure is a thrown Error
// whose message says why; the caller names the file and layer.
import { Decompress } from "fzstd";

const FRAME_MAGIC = 0xfd2fb528;
/** Skippable frames (RFC 8878 § 3.1.2): magic 0x184D2A50 … 0x184D2A5F, then a u32 size. */
const SKIPPABLE_MAGIC_MASK = 0xfffffff0;
const SKIPPABLE_MAGIC = 0x184d2a50;
const MIN_WINDOW_BOUND = 1 << 20;

export interface ZstdFrameHeader {
  /** Frame_Content_Size, or null when the frame does not state it. */
  contentSize: number | null;
  /** The window the decoder allocates for this frame (the content size for single-segment frames). */
  windowSize: number;
  /** Bytes of the header from the magic number on. */
  headerBytes: number;
  checksum: boolean;
}

function u32(bytes: Uint8Array, at: number): number {
  return (bytes[at] | (bytes[at + 1] << 8) | (bytes[at + 2] << 16) | (bytes[at + 3] << 24)) >>> 0;
}

/** The header of the zstd frame at `at` (§ 3.1.1.1), or null when there is no well-formed frame header there. */
export function zstdFrameHeader(bytes: Uint8Array, at = 0): ZstdFrameHeader | null {
  if (bytes.length < at + 6 || u32(bytes, at) !== FRAME_MAGIC) return null;
  const descriptor = bytes[at + 4];
  if ((descriptor & 0x08) !== 0) return null; // the reserved bit
  const singleSegment = (descriptor >> 5) & 1;
  const sizeFlag = descriptor >> 6;
  const sizeBytes = sizeFlag === 0 ? singleSegment : 1 << sizeFlag;
  const dictionaryBytes = [0, 1, 2, 4][descriptor & 3];
  const sizeAt = at + 5 + (singleSegment ? 0 : 1) + dictionaryBytes;
  const end = sizeAt + sizeBytes;
  if (bytes.length < end) return null;
  let contentSize: number | null = null;
  if (sizeBytes > 0) {
    let size = 0;
    for (let i = sizeBytes - 1; i >= 0; i--) size = size * 256 + bytes[sizeAt + i];
    contentSize = sizeBytes === 2 ? size + 256 : size;
  }
  let windowSize: number;
  if (singleSegment) windowSize = contentSize ?? 0;
  else {
    const window = bytes[at + 5];
    const base = 2 ** (10 + (window >> 3));
    windowSize = base + (base / 8) * (window & 7);
  }
  return { contentSize, windowSize, headerBytes: end - at, checksum: (descriptor & 0x04) !== 0 };
}

/** Checks the frames of `packed` against a layer of `expectedBytes`; throws with the reason when they do not fit. */
export function checkZstdFrames(packed: Uint8Array, expectedBytes: number): void {
  const windowBound = Math.max(2 * expectedBytes, MIN_WINDOW_BOUND);
  let at = 0;
  let total = 0;
  let frames = 0;
  while (at < packed.length) {
    if (packed.length >= at + 8 && (u32(packed, at) & SKIPPABLE_MAGIC_MASK) >>> 0 === SKIPPABLE_MAGIC) {
      at += 8 + u32(packed, at + 4);
      continue;
    }
    const header = zstdFrameHeader(packed, at);
    if (header === null) throw new Error(frames === 0 ? "not a zstd frame" : `junk after frame ${frames}`);
    if (header.contentSize === null) throw new Error(`frame ${frames + 1} does not state its content size`);
    if (header.windowSize > windowBound) {
      throw new Error(`frame ${frames + 1} asks for a ${header.windowSize}-byte window, more than ${windowBound}`);
    }
    total += header.contentSize;
    if (total > expectedBytes) throw new Error(`frames hold more than the layer's ${expectedBytes} bytes`);
    at += header.headerBytes;
    // Blocks (§ 3.1.1.2): a 3-byte header (last flag, type, size), then the block's bytes.
    for (;;) {
      if (packed.length < at + 3) throw new Error(`frame ${frames + 1} ends inside a block header`);
      const blockHeader = packed[at] | (packed[at + 1] << 8) | (packed[at + 2] << 16);
      const type = (blockHeader >> 1) & 3;
      if (type === 3) throw new Error(`frame ${frames + 1} has a reserved block type`);
      at += 3 + (type === 1 ? 1 : blockHeader >>> 3);
      if (at > packed.length) throw new Error(`frame ${frames + 1} ends inside a block`);
      if ((blockHeader & 1) === 1) break;
    }
    if (header.checksum) at += 4;
    if (at > packed.length) throw new Error(`frame ${frames + 1} ends inside its checksum`);
    frames++;
  }
  if (frames === 0) throw new Error("no zstd frame");
  if (total !== expectedBytes) throw new Error(`frames hold ${total} bytes, expected ${expectedBytes}`);
}

/** Decodes zstd layer data of exactly `expectedBytes` bytes; throws (with the reason) on anything else. */
export function decodeZstdLayer(packed: Uint8Array, expectedBytes: number): Uint8Array {
  checkZstdFrames(packed, expectedBytes);
  const out = new Uint8Array(expectedBytes);
  let written = 0;
  const stream = new Decompress((block) => {
    if (written + block.length > expectedBytes)
      throw new Error(`content longer than the ${expectedBytes} bytes stated`);
    out.set(block, written);
    written += block.length;
  });
  stream.push(packed, true);
  if (written !== expectedBytes) throw new Error(`content is ${written} bytes, the frames state ${expectedBytes}`);
  return out;
}
