// A region's ghosts of its neighbour's entities (ts/cluster/ghosts.ts) follow what the owner publishes —
// a new look (worn equipment is meta) and kind included — and a frame that repeats a ghost leaves it, and
// its kept broadcast entry, as it was.
import { describe, expect, it } from "vitest";
import { type GhostEntry, GhostTable } from "../ts/cluster/ghosts.js";
import { EntityStore } from "../ts/server/entities/entities.js";

const EAST = 1;

function entry(overrides: Partial<{ typeId: number; hp: number; meta: GhostEntry[9] }> = {}): GhostEntry {
  return [
    1 << 24,
    overrides.typeId ?? 1,
    40,
    12,
    overrides.hp ?? 90,
    100,
    1000,
    0,
    "Ada",
    overrides.meta ?? [{ kind: "appearance", value: 3 }],
  ];
}

describe("ghosts", () => {
  it("take the owner's new meta and kind, and a repeated frame changes nothing", () => {
    const entities = new EntityStore();
    const ghosts = new GhostTable(entities);
    // Frames arrive as JSON: every one carries new arrays.
    const send = (ghost: GhostEntry): void => ghosts.apply(EAST, JSON.parse(JSON.stringify([ghost])));
    send(entry());
    const ghost = ghosts.get(1 << 24)!;
    const count = (): number => entities.changeCounts[ghost.slot];
    const spawned = count();

    send(entry());
    expect(count()).toBe(spawned);

    const armed = [
      { kind: "appearance", value: 3 },
      { kind: "weapon", value: 7 },
    ] as GhostEntry[9];
    send(entry({ meta: armed }));
    expect(ghost.meta).toEqual(armed);
    expect(count()).toBe(spawned + 1);
    send(entry({ meta: armed }));
    expect(count()).toBe(spawned + 1);

    send(entry({ meta: armed, typeId: 2, hp: 40 }));
    expect(ghost.typeId).toBe(2);
    expect(ghost.hp).toBe(40);
    expect(count()).toBe(spawned + 2);

    send(entry({ meta: armed, typeId: 2, hp: 40 }));
    expect(count()).toBe(spawned + 2);
    expect(ghosts.size).toBe(1);
  });
});
