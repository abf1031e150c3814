// The game's sounds (issue 18 item 8), made the way scripts/make-art.ts makes the
// art: from short deterministic recipes (seeded noise, oscillators, envelopes),
// here at run time into PCM at the page's own sample rate. Nothing is decoded
// or downloaded: the recipes are a few hundred bytes where WAV files would be
// ~200 KB, they sound the same on every run (mulberry32 seeds), and Node tests
// can measure them directly. DOM-free: the Web Audio shell is ui/sound-board.ts.
import { mulberry32 } from "../../random.js";

/** Every sound the game plays. */
export const SOUND_NAMES = ["footstep", "hit", "door", "chat", "ambient"] as const;
export type SoundName = (typeof SOUND_NAMES)[number];

/** How many variants of a sound are made; a footstep cycles through its four so a walk is not a drum machine. */
export const SOUND_VARIANTS: Readonly<Record<SoundName, number>> = {
  footstep: 4,
  hit: 2,
  door: 1,
  chat: 1,
  ambient: 1,
};

/** Each sound's length in seconds; the ambient bed is a loop of this length. */
export const SOUND_SECONDS: Readonly<Record<SoundName, number>> = {
  footstep: 0.09,
  hit: 0.2,
  door: 0.55,
  chat: 0.24,
  ambient: 8,
};

const TAU = Math.PI * 2;

/** A one-pole low-pass over `samples` in place: `cutoffHz` at `rate`. */
function lowPass(samples: Float32Array, cutoffHz: number, rate: number): void {
  const k = 1 - Math.exp((-TAU * cutoffHz) / rate);
  let y = 0;
  for (let i = 0; i < samples.length; i++) {
    y += k * (samples[i] - y);
    samples[i] = y;
  }
}

/** Scales `samples` so the loudest is `peak` (silence stays silence). */
function normalise(samples: Float32Array<ArrayBuffer>, peak: number): Float32Array<ArrayBuffer> {
  let max = 0;
  for (const value of samples) max = Math.max(max, Math.abs(value));
  if (max > 0) for (let i = 0; i < samples.length; i++) samples[i] *= peak / max;
  return samples;
}

/** A soft step on stone: a low-passed noise scuff over a short low thump. */
function footstep(rate: number, random: () => number): Float32Array<ArrayBuffer> {
  const out = new Float32Array(Math.round(SOUND_SECONDS.footstep * rate));
  const scuff = 700 + random() * 500;
  const thumpHz = 70 + random() * 30;
  for (let i = 0; i < out.length; i++) out[i] = random() * 2 - 1;
  lowPass(out, scuff, rate);
  for (let i = 0; i < out.length; i++) {
    const t = i / rate;
    const attack = Math.min(1, t / 0.004);
    out[i] = attack * (out[i] * Math.exp(-t * 55) * 1.6 + Math.sin(TAU * thumpHz * t) * Math.exp(-t * 70) * 0.6);
  }
  return normalise(out, 0.5);
}

/** A blow: a noise crack over a square wave falling from ~220 Hz to ~80 Hz. */
function hit(rate: number, random: () => number): Float32Array<ArrayBuffer> {
  const out = new Float32Array(Math.round(SOUND_SECONDS.hit * rate));
  const from = 200 + random() * 50;
  let phase = 0;
  for (let i = 0; i < out.length; i++) {
    const t = i / rate;
    const hz = 80 + (from - 80) * Math.exp(-t * 18);
    phase += hz / rate;
    const square = phase % 1 < 0.5 ? 1 : -1;
    out[i] = (random() * 2 - 1) * Math.exp(-t * 45) * 0.9 + square * Math.exp(-t * 16) * 0.45;
  }
  lowPass(out, 3200, rate);
  return normalise(out, 0.7);
}

/** A door: a wobbling sawtooth creak, then the thud of it meeting the frame. */
function door(rate: number, random: () => number): Float32Array<ArrayBuffer> {
  const out = new Float32Array(Math.round(SOUND_SECONDS.door * rate));
  const creakEnd = 0.4;
  let phase = 0;
  for (let i = 0; i < out.length; i++) {
    const t = i / rate;
    if (t < creakEnd) {
      const hz = 95 + 35 * Math.sin(TAU * 3.1 * t) + 20 * t;
      phase += hz / rate;
      const saw = 2 * (phase % 1) - 1;
      const swell = Math.sin((Math.PI * t) / creakEnd);
      out[i] = saw * swell * 0.35 + (random() * 2 - 1) * swell * 0.05;
    } else {
      const u = t - creakEnd;
      out[i] = Math.sin(TAU * 60 * u) * Math.exp(-u * 30) * 0.9 + (random() * 2 - 1) * Math.exp(-u * 60) * 0.4;
    }
  }
  lowPass(out, 2400, rate);
  return normalise(out, 0.6);
}

/** A chat ping: two soft sine notes, a fifth apart. */
function chat(rate: number): Float32Array<ArrayBuffer> {
  const out = new Float32Array(Math.round(SOUND_SECONDS.chat * rate));
  const note = (hz: number, start: number, length: number) => {
    const first = Math.round(start * rate);
    const count = Math.min(out.length - first, Math.round(length * rate));
    for (let i = 0; i < count; i++) {
      const t = i / rate;
      const envelope = Math.min(1, t / 0.005) * Math.exp(-t * 28);
      out[first + i] += Math.sin(TAU * hz * t) * envelope;
    }
  };
  note(880, 0, 0.12);
  note(1320, 0.09, 0.15);
  return normalise(out, 0.35);
}

/**
 * The cave's bed: brown noise, low-passed to a rumble, with water drips (rising sine chirps) at
 * seeded moments. Made to loop: the last 0.25 s are cross-faded into the start.
 */
function ambient(rate: number, random: () => number): Float32Array<ArrayBuffer> {
  const length = Math.round(SOUND_SECONDS.ambient * rate);
  const fade = Math.round(0.25 * rate);
  const raw = new Float32Array(length + fade);
  let brown = 0;
  for (let i = 0; i < raw.length; i++) {
    brown = (brown + (random() * 2 - 1) * 0.02) * 0.998;
    raw[i] = brown;
  }
  lowPass(raw, 400, rate);
  normalise(raw, 0.25);
  for (let drip = 0; drip < 5; drip++) {
    const start = Math.round((0.3 + random() * (SOUND_SECONDS.ambient - 0.8)) * rate);
    const pitch = 900 + random() * 900;
    const loud = 0.08 + random() * 0.1;
    let phase = 0;
    for (let i = 0; i < Math.round(0.12 * rate) && start + i < length; i++) {
      const t = i / rate;
      phase += (pitch * (1 + t * 6)) / rate;
      raw[start + i] += Math.sin(TAU * phase) * Math.exp(-t * 40) * loud;
    }
  }
  const out = raw.slice(0, length);
  for (let i = 0; i < fade; i++) {
    const mix = i / fade;
    out[i] = out[i] * mix + raw[length + i] * (1 - mix);
  }
  return out;
}

/** The seed of each sound's variant 0; variant n is seed + n. */
const SEEDS: Readonly<Record<SoundName, number>> = { footstep: 101, hit: 202, door: 303, chat: 404, ambient: 505 };

/** Mono PCM in [-1, 1] for variant `variant` of `name` at `rate` samples a second; the same every time. */
export function synthesise(name: SoundName, rate: number, variant = 0): Float32Array<ArrayBuffer> {
  const random = mulberry32(SEEDS[name] + variant);
  switch (name) {
    case "footstep":
      return footstep(rate, random);
    case "hit":
      return hit(rate, random);
    case "door":
      return door(rate, random);
    case "chat":
      return chat(rate);
    case "ambient":
      return ambient(rate, random);
  }
}

/** The root mean square of `samples` (0 for silence): what the tests call audible. */
export function rms(samples: Float32Array): number {
  let sum = 0;
  for (const value of samples) sum += value * value;
  return samples.length === 0 ? 0 : Math.sqrt(sum / samples.length);
}
