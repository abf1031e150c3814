// Return routability (docs/protocol.md § 12.1, docs/server.md § Sessions):
// whether the address a session is bound to has shown that it receives what
// is sent to it. Until it has, the server sends it nothing but challenges, and
// never more bytes than 3× what arrived from it (QUIC's anti-amplification
// rule), so a datagram "from" a spoofed victim cannot be made into a stream
// of chunks aimed at the victim. A proof is kept for one address; moving to
// another starts a new one, except back to the last address proven.
import { randomFillSync } from "node:crypto";
import type { WorldTape } from "../ops/world-tape.js";

/** Bytes an unproven address may be sent per byte received from it. */
export const UNPROVEN_AMPLIFICATION = 3;

/**
 * Cookies are cut from a block of random bytes drawn at once, 512 cookies per
 * draw. One randomBytes(8) per bind cost 5 µs and a Buffer: under a flood of
 * signed packets moving a session from address to address (the soak's
 * amplification attempt) it was 9 % of the server's CPU time. Every byte of a
 * block is used once; the block comes from the same CSPRNG.
 */
const COOKIE_BLOCK_BYTES = 4096;
const cookieBlock = new Uint8Array(COOKIE_BLOCK_BYTES);
const cookieWords = new DataView(cookieBlock.buffer);
let cookieAt = COOKIE_BLOCK_BYTES;

/** The offset of 8 fresh random bytes in cookieBlock. */
function nextCookieAt(): number {
  if (cookieAt + 8 > COOKIE_BLOCK_BYTES) {
    randomFillSync(cookieBlock);
    cookieAt = 0;
  }
  const at = cookieAt;
  cookieAt += 8;
  return at;
}

export class AddressProof {
  /** Whether the bound address is proven: everything may be sent to it. */
  proven = false;
  /** Bytes received from, and sent to, the bound address while it is unproven. */
  bytesIn = 0;
  bytesOut = 0;
  /** The cookie the bound address must echo, as two u32 words; both 0 while none is due. */
  cookieLow = 0;
  cookieHigh = 0;
  /** The last peer key proven, which the session may move back to without a new challenge. */
  private provenKey = "";

  /**
   * The session was bound to the link `peerKey`. `vouched`: the link is proven
   * without a challenge — a connection-bound one (WebSocket: a TCP handshake;
   * WebRTC: ICE checks and DTLS), or a UDP address on the source a spec-only
   * client joined from over HTTP. So is the last link proven; any other gets a
   * fresh cookie.
   */
  bound(peerKey: string, vouched: boolean, tape?: Pick<WorldTape, "sample">): void {
    this.bytesIn = 0;
    this.bytesOut = 0;
    if (vouched || peerKey === this.provenKey) {
      this.prove(peerKey);
      return;
    }
    this.proven = false;
    const at = nextCookieAt();
    // A random draw the world's outcome depends on (whether an echo proves the link): on the tape (recording/).
    const low = cookieWords.getUint32(at, true);
    const high = cookieWords.getUint32(at + 4, true) | 1; // never 0: 0 means "no echo"
    this.cookieLow = tape === undefined ? low : tape.sample(low);
    this.cookieHigh = tape === undefined ? high : tape.sample(high);
  }

  prove(peerKey: string): void {
    this.proven = true;
    this.provenKey = peerKey;
    this.cookieLow = 0;
    this.cookieHigh = 0;
  }

  /** Whether an echo (two u32 words) is the cookie due. */
  echoes(low: number, high: number): boolean {
    return !this.proven && (low | 0) === (this.cookieLow | 0) && (high | 0) === (this.cookieHigh | 0);
  }

  /** Whether `size` more bytes may go to the unproven address (within the amplification limit). */
  allows(size: number): boolean {
    return this.bytesOut + size <= UNPROVEN_AMPLIFICATION * this.bytesIn;
  }
}
