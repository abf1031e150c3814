// The kinds file and the npc_spawn objects are validated strictly: every
// mistake a map author can make fails at load with the file and the field
// named, and nothing unknown is accepted silently.
import { describe, expect, it } from "vitest";
import { MapError } from "../ts/server/content/map-error.js";
import { parseNpcKinds } from "../ts/server/content/npc-kinds.js";
import { ReadyQueue } from "../ts/server/npc/ready-queue.js";
import { thinkBudget } from "../ts/server/npc/think-budget.js";
import { testKind, writeNpcMap } from "./support/npc-map.js";

const RAT = { name: "rat", typeId: 16, behaviour: "wander", speed: 25, hp: 8, respawnSeconds: 30, sprite: "rat" };
const kindsText = (...kinds: unknown[]) => JSON.stringify({ version: 1, kinds });

function refusal(text: string): string {
  try {
    parseNpcKinds(text, "x.npcs.json");
  } catch (error) {
    expect(error).toBeInstanceOf(MapError);
    return (error as Error).message;
  }
  throw new Error("accepted");
}

describe("the NPC kinds file", () => {
  it("accepts a minimal wanderer and fills its defaults", () => {
    expect(parseNpcKinds(kindsText(RAT), "x.npcs.json")).toEqual([
      { ...RAT, perception: 0, leash: 0, wander: 4, attack: 0, armor: 0, elo: 1000, loot: [] },
    ]);
  });

  it.each([
    ["not JSON", "{", /bad JSON/],
    ["another version", JSON.stringify({ version: 2, kinds: [] }), /version: expected 1, got 2/],
    ["an unknown top-level field", JSON.stringify({ version: 1, kinds: [], npcs: [] }), /unknown field "npcs"/],
    ["an unknown kind field", kindsText({ ...RAT, colour: "red" }), /kinds\[0\]: unknown field "colour"/],
    ["a built-in type_id", kindsText({ ...RAT, typeId: 3 }), /kinds\[0\].typeId: expected an integer 16..65535, got 3/],
    ["a fractional speed", kindsText({ ...RAT, speed: 2.5 }), /kinds\[0\].speed: expected an integer 1..100/],
    [
      "a speed beyond one action per entity tick",
      kindsText({ ...RAT, speed: 101 }),
      /speed: expected an integer 1..100/,
    ],
    [
      "an unknown behaviour",
      kindsText({ ...RAT, behaviour: "dance" }),
      /behaviour: expected one of wander, hostile, guard/,
    ],
    ["a hostile without perception", kindsText({ ...RAT, behaviour: "hostile" }), /perception: missing/],
    [
      "a leash shorter than the perception",
      kindsText({ ...RAT, behaviour: "hostile", perception: 8, leash: 4 }),
      /leash: expected an integer 8..64, got 4/,
    ],
    ["a name too long for EntityDetail", kindsText({ ...RAT, name: "r".repeat(33) }), /at most 32 bytes/],
    ["a blank name", kindsText({ ...RAT, name: " " }), /name: expected a non-empty string/],
    ["a sprite name with a path in it", kindsText({ ...RAT, sprite: "../rat" }), /sprite: expected 1..32 of a-z/],
    ["a duplicate name", kindsText(RAT, { ...RAT, typeId: 17 }), /kinds\[1\].name: "rat" appears twice/],
    ["a duplicate type_id", kindsText(RAT, { ...RAT, name: "mouse" }), /kinds\[1\].typeId: 16 appears twice/],
    ["no respawn time", kindsText({ ...RAT, respawnSeconds: undefined }), /respawnSeconds: missing/],
    [
      "a hostile without a weapon value",
      kindsText({ ...RAT, behaviour: "hostile", perception: 4, leash: 6 }),
      /kinds\[0\].attack: missing/,
    ],
    ["a negative armor", kindsText({ ...RAT, armor: -1 }), /armor: expected an integer 0..1000, got -1/],
    ["a rating below the floor", kindsText({ ...RAT, elo: 50 }), /elo: expected an integer 100..65535, got 50/],
    [
      "fewer creatures at night than by day",
      kindsText({ ...RAT, nightSpawns: 0.5 }),
      /nightSpawns: expected a number from 1 to 4, got 0.5/,
    ],
    ["a night radius as text", kindsText({ ...RAT, nightPerception: "far" }), /nightPerception: expected an integer/],
  ])("refuses %s", (_, text, message) => {
    expect(refusal(text)).toMatch(message);
  });
});

describe("npc_spawn objects", () => {
  const room = { width: 20, height: 12, spawn: { x: 2, y: 2 }, kinds: [testKind({ name: "rat", typeId: 16 })] };

  it("are read from the map with their area, count and respawn", () => {
    const npcMap = writeNpcMap({
      ...room,
      spawns: [{ kind: "rat", x: 5, y: 3, width: 4, height: 2, count: 3, respawn: 7 }],
    });
    try {
      const [spawn] = npcMap.map.npcSpawns!;
      expect(spawn).toMatchObject({ x: 5, y: 3, width: 4, height: 2, count: 3, respawnSeconds: 7 });
      expect(spawn.cells).toHaveLength(8);
    } finally {
      npcMap.dispose();
    }
  });

  it.each([
    ["an unknown kind", { kind: "bat", x: 5, y: 3 }, /kind "bat" is not in .*npcs.npcs.json/],
    ["a zero count", { kind: "rat", x: 5, y: 3, count: 0 }, /"count" must be an integer 1..10000, got 0/],
    ["an area with no floor", { kind: "rat", x: 0, y: 0, width: 1, height: 1 }, /no free tile to spawn on/],
  ])("refuse %s, naming the object", (_, spawn, message) => {
    expect(() => writeNpcMap({ ...room, spawns: [spawn] })).toThrow(message);
  });
});

describe("the think budget", () => {
  it("is BASE / (clients + 1) units per entity tick, never less than one decision", () => {
    expect(thinkBudget(4_000_000, 0)).toBe(4_000_000);
    expect(thinkBudget(4_000_000, 1999)).toBe(2000);
    expect(thinkBudget(10, 100)).toBe(1);
  });

  it("is spent nearest first, first come first served within a distance; the rest waits", () => {
    const queue = new ReadyQueue<number>(5);
    [5, 0, 3, 0, 9, 1].forEach((distance, id) => queue.push(id, distance));
    expect(queue.size).toBe(6);
    expect([queue.pop(), queue.pop(), queue.pop()]).toEqual([1, 3, 5]);
    expect(queue.countAt(5)).toBe(2); // 9 was clamped to the farthest distance
    queue.push(6, 0); // arrives later but nearer: next
    expect([queue.pop(), queue.pop(), queue.pop(), queue.pop(), queue.pop()]).toEqual([6, 2, 0, 4, undefined]);
    expect(queue.size).toBe(0);
  });
});
