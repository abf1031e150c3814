// Synthesises the game's sounds (sounds.ts) off the page's main thread. Asked at Play with the audio
// context's sample rate, it answers every sound's every variant as samples, their buffers transferred.
// On the main thread the ambient bed alone (8 s of filtered noise) took a task of 20–110 ms right where
// the join starts, and six times that on a slow phone: the join's first request waited behind it.
import { SOUND_NAMES, SOUND_VARIANTS, synthesise } from "./sounds.js";
import type { SoundName } from "./sounds.js";

/** What the page asks: the sample rate of its audio context. */
export interface SynthesisRequest {
  rate: number;
}

/** What the worker answers: one entry per sound and variant, in SOUND_NAMES order. */
export interface SynthesisAnswer {
  sounds: { name: SoundName; variant: number; samples: Float32Array<ArrayBuffer> }[];
}

const scope = self as unknown as {
  onmessage: ((event: MessageEvent<SynthesisRequest>) => void) | null;
  postMessage(message: SynthesisAnswer, transfer: Transferable[]): void;
};

scope.onmessage = (event) => {
  const sounds: SynthesisAnswer["sounds"] = [];
  for (const name of SOUND_NAMES) {
    for (let variant = 0; variant < SOUND_VARIANTS[name]; variant++) {
      sounds.push({ name, variant, samples: synthesise(name, event.data.rate, variant) });
    }
  }
  scope.postMessage(
    { sounds },
    sounds.map((sound) => sound.samples.buffer),
  );
};
