// A small seeded PRNG for the network simulator, so an impaired run can be repeated exactly.
// Not cryptographic. sfc32 (Chris Doty-Humphrey's "small fast counting" generator, as in PractRand)
// seeded through splitmix32, so nearby seeds (1, 2, 3, ...) still give unrelated streams.

/** Mixes a 32-bit value into a well-spread 32-bit value (the splitmix32 finaliser). */
function mix32(value: number): number {
  let z = value | 0;
  z = Math.imul(z ^ (z >>> 16), 0x21f0aaad);
  z = Math.imul(z ^ (z >>> 15), 0x735a2d97);
  return (z ^ (z >>> 15)) >>> 0;
}

/** A deterministic stream of pseudo-random numbers; the same seed always gives the same stream. */
export class SeededRandom {
  private a: number;
  private b: number;
  private c: number;
  private counter: number;

  /** @param seed any integer; only its low 32 bits are used. */
  constructor(seed: number) {
    const base = seed >>> 0;
    this.a = mix32(base + 0x9e3779b9);
    this.b = mix32(base + 0x3c6ef372);
    this.c = mix32(base + 0xdaa66d2b);
    this.counter = 1;
    // sfc32 needs a few rounds before its output stops reflecting the seed words directly.
    for (let i = 0; i < 12; i++) this.nextUint32();
  }

  /** The next value, uniform over 0 .. 2^32 - 1. */
  nextUint32(): number {
    const result = (this.a + this.b + this.counter) | 0;
    this.counter = (this.counter + 1) | 0;
    this.a = this.b ^ (this.b >>> 9);
    this.b = (this.c + (this.c << 3)) | 0;
    this.c = ((this.c << 21) | (this.c >>> 11)) + result;
    this.c |= 0;
    return result >>> 0;
  }

  /** The next value, uniform over [0, 1). */
  nextFloat(): number {
    return this.nextUint32() / 4294967296;
  }
}

/**
 * A seed for one independent stream derived from a run's seed, e.g. deriveSeed(runSeed, clientIndex, 0)
 * for a client's upstream link. Different parts give unrelated streams; the same parts give the same one.
 */
export function deriveSeed(seed: number, ...parts: (number | string)[]): number {
  let hash = mix32((seed >>> 0) ^ 0x6a09e667);
  for (const part of parts) {
    if (typeof part === "number") {
      hash = mix32(hash ^ mix32(part >>> 0));
    } else {
      for (let i = 0; i < part.length; i++) hash = mix32(hash ^ part.charCodeAt(i));
      hash = mix32(hash ^ part.length);
    }
  }
  return hash;
}

/** A fresh seed from the platform's entropy, for runs that did not ask for one (print it so they can be repeated). */
export function randomSeed(): number {
  return crypto.getRandomValues(new Uint32Array(1))[0];
}
