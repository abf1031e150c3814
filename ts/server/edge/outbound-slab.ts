// Outbound datagrams are written into a shared slab and sent as views of it,
// instead of one new array per datagram. A view handed to a transport is never
// written again: dgram.send may queue it (when the kernel's send buffer is
// full) and other transports may hold it, so reusing bytes would corrupt
// datagrams still in flight. A full slab is simply replaced by a fresh one;
// the old one is freed once the last send holding a view of it is done.

/** Bytes per slab: ≈ 900 StatePackets or 54 full EntityPackets per allocation. */
export const SLAB_BYTES = 64 * 1024;

export class OutboundSlab {
  /** Write the next datagram at `bytes[at]`, after `reserve`. */
  bytes = new Uint8Array(SLAB_BYTES);
  at = 0;

  /** Makes room for `size` bytes at `bytes[at]`. */
  reserve(size: number): void {
    if (this.at + size > this.bytes.length) {
      this.bytes = new Uint8Array(Math.max(SLAB_BYTES, size));
      this.at = 0;
    }
  }

  /**
   * The `size` bytes just written at `bytes[at]`, as a datagram; they are never written again. The next
   * datagram starts on a 4-byte word (so the batched socket copies it as words: udp-mmsg.ts `sendFrom`).
   */
  take(size: number): Uint8Array {
    const datagram = this.bytes.subarray(this.at, this.at + size);
    this.at = (this.at + size + 3) & ~3;
    return datagram;
  }
}
