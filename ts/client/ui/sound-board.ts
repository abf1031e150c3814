// The game's sound through Web Audio (issue 18 item 8): the recipes of
// assets/sounds.ts rendered once into AudioBuffers at the context's own rate,
// one-shot voices for footsteps, hits, doors and chat pings, and the cave's
// ambient bed looping under them. A button (and V) mutes it; the choice is
// remembered in localStorage. Muting suspends the context, so a muted page
// costs no audio CPU.
//
// The hook tests and tools read: the button's data-played lists how many of
// each sound were started on a running context ("footstep:3 hit:1 door:0
// chat:0 ambient:1"); data-context is the AudioContext's state. Nothing is
// counted while muted or before the context runs.
import { KEY_BINDINGS } from "../input.js";
import { SOUND_NAMES, SOUND_VARIANTS, type SoundName, synthesise } from "../assets/sounds.js";
import type { SynthesisAnswer, SynthesisRequest } from "../assets/sound-worker.js";

/** localStorage key of the mute toggle: "off" mutes; anything else (or nothing) plays. */
export const SOUND_STORAGE_KEY = "caves.sound";
/** The loudness of every voice, and of the ambient bed under them. */
export const MASTER_GAIN = 0.6;
export const AMBIENT_GAIN = 0.35;

export function soundWanted(storage: Pick<Storage, "getItem"> | null): boolean {
  try {
    return storage?.getItem(SOUND_STORAGE_KEY) !== "off";
  } catch {
    return true; // storage refused (a privacy mode): the default
  }
}

export function rememberSound(storage: Pick<Storage, "setItem"> | null, on: boolean): void {
  try {
    storage?.setItem(SOUND_STORAGE_KEY, on ? "on" : "off");
  } catch {
    // The toggle still holds until the page closes.
  }
}

/** What the game's cues need of the board. */
export interface SoundPlayer {
  play(name: SoundName): void;
}

/** Every variant of every sound, rendered for `context`'s sample rate. */
function makeBuffers(
  context: BaseAudioContext,
  samplesOf: (name: SoundName, variant: number) => Float32Array<ArrayBuffer> = (name, variant) =>
    synthesise(name, context.sampleRate, variant),
): Map<SoundName, AudioBuffer[]> {
  const buffers = new Map<SoundName, AudioBuffer[]>();
  for (const name of SOUND_NAMES) {
    const variants: AudioBuffer[] = [];
    for (let variant = 0; variant < SOUND_VARIANTS[name]; variant++) {
      const samples = samplesOf(name, variant);
      const buffer = context.createBuffer(1, samples.length, context.sampleRate);
      buffer.copyToChannel(samples, 0);
      variants.push(buffer);
    }
    buffers.set(name, variants);
  }
  return buffers;
}

/**
 * The buffers of every sound for `context`, synthesised in a worker (sound-worker.ts) so the page's main
 * thread stays free while a join starts; on this thread where a worker cannot be made.
 */
function buffersOffThread(context: BaseAudioContext): Promise<Map<SoundName, AudioBuffer[]>> {
  let worker: Worker;
  try {
    worker = new Worker(new URL("../assets/sound-worker.ts", import.meta.url), { type: "module" });
  } catch {
    return Promise.resolve(makeBuffers(context));
  }
  return new Promise((resolve) => {
    worker.onmessage = (event: MessageEvent<SynthesisAnswer>) => {
      worker.terminate();
      const samples = new Map(event.data.sounds.map((sound) => [`${sound.name}/${sound.variant}`, sound.samples]));
      resolve(makeBuffers(context, (name, variant) => samples.get(`${name}/${variant}`)!));
    };
    // A worker that fails to load or throws: the sounds are made here instead, late rather than never.
    worker.onerror = () => {
      worker.terminate();
      resolve(makeBuffers(context));
    };
    worker.postMessage({ rate: context.sampleRate } satisfies SynthesisRequest);
  });
}

/** The output bus: every voice goes through one gain at MASTER_GAIN, to the speakers (or an offline render). */
function masterBus(context: BaseAudioContext): GainNode {
  const master = context.createGain();
  master.gain.value = MASTER_GAIN;
  master.connect(context.destination);
  return master;
}

/** Starts `buffer` into `bus` now; the ambient bed loops at its own gain. */
function startVoice(
  context: BaseAudioContext,
  buffer: AudioBuffer,
  bus: AudioNode,
  loop: boolean,
): AudioBufferSourceNode {
  const source = context.createBufferSource();
  source.buffer = buffer;
  source.loop = loop;
  if (loop) {
    const gain = context.createGain();
    gain.gain.value = AMBIENT_GAIN;
    source.connect(gain).connect(bus);
  } else {
    source.connect(bus);
  }
  source.start();
  return source;
}

/**
 * Renders `name` (variant 0) through the same graph the page plays it through, in an
 * OfflineAudioContext at `rate`: what a player would hear, as samples. For tests and tools
 * (window.cavesSound.render with ?debug=1).
 */
export async function renderOffline(name: SoundName, rate = 48_000): Promise<Float32Array> {
  const length = Math.round(synthesise(name, rate).length);
  const context = new OfflineAudioContext(1, length, rate);
  const buffers = makeBuffers(context);
  startVoice(context, buffers.get(name)![0], masterBus(context), name === "ambient");
  const rendered = await context.startRendering();
  return rendered.getChannelData(0);
}

export class SoundBoard implements SoundPlayer {
  private context: AudioContext | null = null;
  private master: GainNode | null = null;
  private buffers: Map<SoundName, AudioBuffer[]> | null = null;
  private ambient: AudioBufferSourceNode | null = null;
  private on: boolean;
  private readonly played = new Map<SoundName, number>(SOUND_NAMES.map((name) => [name, 0]));
  private readonly turns = new Map<SoundName, number>();

  constructor(
    private readonly button: HTMLButtonElement,
    private readonly storage: Pick<Storage, "getItem" | "setItem"> | null,
  ) {
    this.on = soundWanted(storage);
    button.addEventListener("click", () => this.toggle());
    const view = button.ownerDocument.defaultView!;
    view.addEventListener("keydown", (event) => {
      const active = button.ownerDocument.activeElement;
      if (active instanceof HTMLInputElement || active instanceof HTMLTextAreaElement) return;
      if (event.ctrlKey || event.metaKey || event.altKey || event.repeat) return;
      const binding = KEY_BINDINGS[event.code];
      if (binding?.kind === "command" && binding.command === "sound") this.toggle();
    });
    this.show();
  }

  get enabled(): boolean {
    return this.on;
  }

  /**
   * Opens the audio and starts the ambient bed. Call it after a user gesture (the Play button):
   * browsers keep a context made before one suspended.
   */
  start(): void {
    this.button.hidden = false;
    if (this.context) return;
    try {
      this.context = new AudioContext();
    } catch {
      this.button.dataset.context = "unavailable";
      this.button.title = "This browser gives the page no sound.";
      return;
    }
    const context = this.context;
    this.master = masterBus(context);
    context.addEventListener("statechange", () => this.show());
    // The sounds come a moment later, from a worker: until then a sound to play is skipped.
    void buffersOffThread(context).then((buffers) => {
      this.buffers = buffers;
      this.apply();
    });
    this.apply();
  }

  play(name: SoundName): void {
    const context = this.context;
    if (!this.on || !context || context.state !== "running" || !this.buffers || !this.master) return;
    const variants = this.buffers.get(name)!;
    const turn = this.turns.get(name) ?? 0;
    this.turns.set(name, turn + 1);
    startVoice(context, variants[turn % variants.length], this.master, false);
    this.count(name);
  }

  toggle(): void {
    this.on = !this.on;
    rememberSound(this.storage, this.on);
    this.apply();
  }

  /** Resumes or suspends the context to match the toggle; the ambient bed starts on the first resume. */
  private apply(): void {
    const context = this.context;
    this.show();
    if (!context) return;
    if (!this.on) {
      void context.suspend();
      return;
    }
    void context.resume().then(() => {
      if (!this.on || this.ambient || !this.buffers || !this.master) return;
      this.ambient = startVoice(context, this.buffers.get("ambient")![0], this.master, true);
      this.count("ambient");
    });
  }

  private count(name: SoundName): void {
    this.played.set(name, this.played.get(name)! + 1);
    this.show();
  }

  private show(): void {
    const button = this.button;
    button.textContent = this.on ? "Sound on" : "Sound off";
    button.setAttribute("aria-pressed", String(this.on));
    button.dataset.sound = this.on ? "on" : "off";
    button.dataset.context = this.context?.state ?? button.dataset.context ?? "none";
    button.dataset.played = [...this.played].map(([name, n]) => `${name}:${n}`).join(" ");
  }
}
