// A tiny seeded PRNG for everything that must come out the same on every run:
// the generated map and art, the title scene, test grids and benchmark inputs.
// mulberry32 (Tommy Ettinger): one 32-bit state, fast, and good enough for
// content and tests; not for anything secret. (netsim keeps its own sfc32
// stream in ts/netsim/rng.ts, which needs independent per-link streams.)

/** A function returning the next number in [0, 1) of the stream `seed` selects. */
export function mulberry32(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
