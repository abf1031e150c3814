// The sound recipes (ts/client/assets/sounds.ts) and when the game plays them
// (ts/client/ui/sound-cues.ts), without a browser: every sound is audible, in
// range, the same on every run and differs between variants; the ambient loop
// joins without a click; the cues fire a footstep per one-tile step (not for a
// respawn jump), a hit for blows this player is in, a ping for another's chat
// line only, and a door when a door's tile turns. The browser side (Web Audio,
// the mute toggle) is test/e2e/browser-sound.test.ts.
import { describe, expect, it } from "vitest";
import { rms, SOUND_NAMES, SOUND_SECONDS, SOUND_VARIANTS, synthesise } from "../ts/client/assets/sounds.js";
import { SoundCues, type CueSource } from "../ts/client/ui/sound-cues.js";
import type { SoundName } from "../ts/client/assets/sounds.js";
import { ENTITY_TYPE_DOOR } from "../ts/entity-types.js";
import { TILE_UNKNOWN } from "../ts/constants.js";
import { CombatFeed } from "../ts/client/core/combat.js";
import { COMBAT_HIT, COMBAT_KILL, COMBAT_MISS } from "../ts/protocol/combat.js";
import type { EntityInfo } from "../ts/client/core/entity-table.js";
import type { ChatEvent } from "../ts/client/core/chat.js";

const RATE = 48_000;

describe("the sound recipes", () => {
  it.each(SOUND_NAMES)("%s is audible, within [-1, 1], as long as it says, and the same every run", (name) => {
    const samples = synthesise(name, RATE);
    expect(samples.length).toBe(Math.round(SOUND_SECONDS[name] * RATE));
    expect(rms(samples)).toBeGreaterThan(0.02);
    let peak = 0;
    for (const value of samples) peak = Math.max(peak, Math.abs(value));
    expect(peak).toBeLessThanOrEqual(1);
    expect(Number.isFinite(peak)).toBe(true);
    // The same every run (compared as bytes: a deep equality over 384,000 floats takes seconds).
    expect(Buffer.from(synthesise(name, RATE).buffer).equals(Buffer.from(samples.buffer))).toBe(true);
    // At another device rate the length follows the rate.
    expect(synthesise(name, 44_100).length).toBe(Math.round(SOUND_SECONDS[name] * 44_100));
  });

  it("makes different variants of a sound that has several", () => {
    for (const name of SOUND_NAMES) {
      if (SOUND_VARIANTS[name] < 2) continue;
      const [first, second] = [synthesise(name, RATE, 0), synthesise(name, RATE, 1)];
      expect(Buffer.from(first.buffer).equals(Buffer.from(second.buffer))).toBe(false);
    }
  });

  it("loops the ambient bed without a click: the jump from the end to the start is no bigger than a step inside", () => {
    const bed = synthesise("ambient", RATE);
    let largestStep = 0;
    for (let i = 1; i < bed.length; i++) largestStep = Math.max(largestStep, Math.abs(bed[i] - bed[i - 1]));
    expect(Math.abs(bed[0] - bed[bed.length - 1])).toBeLessThanOrEqual(largestStep);
  });
});

/** A client as far as the cues read it: a position, entities, tiles, and the real combat and chat feeds' listen(). */
function fakeClientParts() {
  const chatListeners = new Set<(event: ChatEvent) => void>();
  const tiles = new Map<string, number>();
  const state = {
    predicted: { x: 5, y: 5 } as { x: number; y: number } | null,
    entities: new Map<number, EntityInfo>(),
  };
  const combat = new CombatFeed();
  const client = {
    get predicted() {
      return state.predicted;
    },
    get entities() {
      return state.entities;
    },
    ownEntityId: 7,
    combat,
    chat: {
      listen(listener: (event: ChatEvent) => void) {
        chatListeners.add(listener);
        return () => chatListeners.delete(listener);
      },
    },
    sim: { getTile: (x: number, y: number) => tiles.get(`${x},${y}`) ?? TILE_UNKNOWN },
  } as unknown as CueSource;
  return {
    client,
    state,
    tiles,
    combat,
    say: (event: ChatEvent) => chatListeners.forEach((listener) => listener(event)),
  };
}

describe("the sound cues", () => {
  const recorder = () => {
    const played: SoundName[] = [];
    return { played, player: { play: (name: SoundName) => played.push(name) } };
  };

  it("steps: one footstep per tile walked, none standing or after a jump of more than a tile", () => {
    const { client, state } = fakeClientParts();
    const { played, player } = recorder();
    const cues = new SoundCues(client, player);
    cues.update();
    cues.update();
    expect(played).toEqual([]);
    state.predicted = { x: 6, y: 5 };
    cues.update();
    state.predicted = { x: 7, y: 6 };
    cues.update();
    cues.update();
    expect(played).toEqual(["footstep", "footstep"]);
    state.predicted = { x: 40, y: 30 }; // a respawn
    cues.update();
    expect(played).toEqual(["footstep", "footstep"]);
  });

  it("a spectator's listener: the followed one's steps are heard, a free camera's pans are not", () => {
    const { client, state } = fakeClientParts();
    const { played, player } = recorder();
    let followed: { x: number; y: number } | null = { x: 3, y: 3 };
    const camera = { x: 20, y: 20 };
    const cues = new SoundCues(client, player, { walker: () => followed, ear: () => camera });
    cues.update();
    followed = { x: 4, y: 3 };
    cues.update();
    state.predicted = { x: 6, y: 5 }; // a spectator has no predicted tile: it is not listened to
    cues.update();
    expect(played).toEqual(["footstep"]);
    followed = null; // the camera let go, and pans
    camera.x = 21;
    cues.update();
    cues.update();
    expect(played).toEqual(["footstep"]);
  });

  it("chat: pings for another player's line, not for ours or the system's", () => {
    const { client, say } = fakeClientParts();
    const { played, player } = recorder();
    new SoundCues(client, player);
    say({ kind: "line", seq: 1, speakerEntityId: 0, speakerName: "system", text: "Bob joined" });
    say({ kind: "line", seq: 2, speakerEntityId: 7, speakerName: "Me", text: "hi" });
    say({ kind: "missed", count: 3 });
    expect(played).toEqual([]);
    say({ kind: "line", seq: 3, speakerEntityId: 9, speakerName: "Bob", text: "hello" });
    expect(played).toEqual(["chat"]);
  });

  it("hits: a blow this player deals or takes (hit or kill) sounds; a miss and others' fights do not", () => {
    const { client, combat } = fakeClientParts();
    const { played, player } = recorder();
    new SoundCues(client, player);
    const blow = (kind: number, attackerId: number, targetId: number) =>
      combat.receive(
        { type: "combat", clientType: 0, tick: 1, events: [{ kind, attackerId, targetId, amount: 3, targetHp: 5 }] },
        0,
      );
    blow(COMBAT_HIT, 7, 30);
    blow(COMBAT_HIT, 30, 7);
    blow(COMBAT_KILL, 7, 30);
    expect(played).toEqual(["hit", "hit", "hit"]);
    blow(COMBAT_MISS, 7, 30);
    blow(COMBAT_HIT, 31, 30);
    expect(played).toEqual(["hit", "hit", "hit"]);
  });

  it("doors: a door's tile turning near the player sounds once; its chunk arriving does not; stop() detaches", () => {
    const { client, state, tiles, say } = fakeClientParts();
    const { played, player } = recorder();
    const cues = new SoundCues(client, player);
    const door: EntityInfo = {
      id: 50,
      typeId: ENTITY_TYPE_DOOR,
      x: 8,
      y: 5,
      hp: 0,
      hpMax: 0,
      elo: 0,
      flags: 0,
      meta: [],
    };
    state.entities = new Map([[50, door]]);
    cues.update(); // the chunk is not here yet: TILE_UNKNOWN
    tiles.set("8,5", 17);
    cues.update(); // the chunk arrived: the closed door is seen, nothing turned
    expect(played).toEqual([]);
    tiles.set("8,5", 18);
    cues.update();
    cues.update();
    expect(played).toEqual(["door"]);
    cues.stop();
    say({ kind: "line", seq: 4, speakerEntityId: 9, speakerName: "Bob", text: "after stop" });
    expect(played).toEqual(["door"]);
  });
});
