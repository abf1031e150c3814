// The server's spatial index against a brute-force scan: after any sequence of
// spawns, moves and removals — across chunk edges, at negative coordinates, at
// the ends of the i16 range and beyond it — every square query returns exactly
// the entities inside the square, sorted by id (or in any order when unsorted);
// the broadcast's slot query returns the same entities by slot, and slots are
// reused without two living entities sharing one.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { EntityStore, type StoredEntity } from "../ts/server/entities/entities.js";

/** Coordinates where the bucket grid has edges: chunk borders, zero, both ends of i16 and past them. */
const coordinate = fc.oneof(
  fc.integer({ min: -80, max: 80 }),
  fc.integer({ min: -32768, max: -32700 }),
  fc.integer({ min: 32700, max: 32767 }),
  fc.integer({ min: -40000, max: 40000 }),
);

type Op =
  | { kind: "spawn"; x: number; y: number }
  | { kind: "move"; pick: number; x: number; y: number }
  | { kind: "step"; pick: number; dx: number; dy: number }
  | { kind: "remove"; pick: number }
  | { kind: "query"; x: number; y: number; radius: number; sorted: boolean };

const op: fc.Arbitrary<Op> = fc.oneof(
  fc.record({ kind: fc.constant("spawn" as const), x: coordinate, y: coordinate }),
  fc.record({ kind: fc.constant("move" as const), pick: fc.nat(), x: coordinate, y: coordinate }),
  fc.record({
    kind: fc.constant("step" as const),
    pick: fc.nat(),
    dx: fc.integer({ min: -1, max: 1 }),
    dy: fc.integer({ min: -1, max: 1 }),
  }),
  fc.record({ kind: fc.constant("remove" as const), pick: fc.nat() }),
  fc.record({
    kind: fc.constant("query" as const),
    x: coordinate,
    y: coordinate,
    radius: fc.integer({ min: 0, max: 70 }),
    sorted: fc.boolean(),
  }),
);

describe("EntityStore's spatial index", () => {
  it("answers every square query as a brute-force scan does, after any spawns, moves and removals", () => {
    fc.assert(
      fc.property(fc.array(op, { minLength: 1, maxLength: 200 }), (ops) => {
        const store = new EntityStore();
        const alive: StoredEntity[] = [];
        const out: StoredEntity[] = [];
        const slots: number[] = [];
        const check = (x: number, y: number, radius: number, sorted: boolean): void => {
          const count = store.inSquare(x, y, radius, out, sorted);
          const got = out.slice(0, count);
          const expected = alive
            .filter((e) => Math.abs(e.x - x) <= radius && Math.abs(e.y - y) <= radius)
            .sort((a, b) => a.id - b.id);
          if (sorted) expect(got.map((e) => e.id)).toEqual(expected.map((e) => e.id));
          else expect(got.map((e) => e.id).sort((a, b) => a - b)).toEqual(expected.map((e) => e.id));
          // The broadcast's query: the same entities, by slot, sorted by id; each slot names its entity.
          const slotCount = store.slotsInSquare(x, y, radius, slots);
          expect(slots.slice(0, slotCount).map((slot) => store.atSlot(slot))).toEqual(expected);
        };
        for (const step of ops) {
          if (step.kind === "spawn") {
            alive.push(
              store.spawn({ typeId: 1, x: step.x, y: step.y, hp: 1, hpMax: 1, elo: 0, flags: 0, name: "", meta: [] }),
            );
          } else if (step.kind === "query") {
            check(step.x, step.y, step.radius, step.sorted);
          } else if (alive.length > 0) {
            const index = step.pick % alive.length;
            const entity = alive[index];
            if (step.kind === "remove") {
              store.remove(entity);
              alive.splice(index, 1);
            } else if (step.kind === "move") {
              store.move(entity, step.x, step.y);
            } else {
              store.move(entity, entity.x + step.dx, entity.y + step.dy);
            }
          }
        }
        // Finally, every entity is found at its own tile, and the store holds exactly the living ones.
        for (const entity of alive) check(entity.x, entity.y, 0, true);
        expect(store.size).toBe(alive.length);
        // Slots are reused after removals: the living hold distinct slots, all below slotCount.
        const held = alive.map((e) => e.slot);
        expect(new Set(held).size).toBe(held.length);
        for (const slot of held) expect(slot).toBeLessThan(store.slotCount);
      }),
      { numRuns: 300 },
    );
  });
});

// A crowded view (the 100,000-creature world: ~100 entities in a view, from up to nine buckets whose ids
// interleave) is sorted by merging the buckets' runs rather than by insertion (slotsInSquare): the same
// answer as a brute-force scan, for any crowd, any ids and any square.
describe("a crowded square", () => {
  it("lists every entity in it, by id, whatever the buckets' runs", () => {
    fc.assert(
      fc.property(
        fc.array(fc.record({ x: fc.integer({ min: -70, max: 70 }), y: fc.integer({ min: -70, max: 70 }) }), {
          minLength: 33,
          maxLength: 400,
        }),
        fc.array(fc.nat({ max: 1_000_000 }), { minLength: 400, maxLength: 400 }),
        fc.integer({ min: -40, max: 40 }),
        fc.integer({ min: -40, max: 40 }),
        fc.integer({ min: 15, max: 60 }),
        (spots, idPool, x, y, radius) => {
          const store = new EntityStore();
          const used = new Set<number>();
          const alive: StoredEntity[] = [];
          spots.forEach((spot, index) => {
            let id = idPool[index] + 1;
            while (used.has(id)) id++;
            used.add(id);
            alive.push(
              store.spawn({ typeId: 1, ...spot, hp: 1, hpMax: 1, elo: 0, flags: 0, name: "", meta: [] }, "actions", id),
            );
          });
          const slots: number[] = [];
          const count = store.slotsInSquare(x, y, radius, slots);
          const expected = alive
            .filter((e) => Math.abs(e.x - x) <= radius && Math.abs(e.y - y) <= radius)
            .sort((a, b) => a.id - b.id);
          expect(slots.slice(0, count).map((slot) => store.atSlot(slot))).toEqual(expected);
        },
      ),
      { numRuns: 200, seed: 11 },
    );
  });
});

// A crowded view is capped (VIEW_ENTITIES_MAX): slotsInSquare with `max` keeps the `max` nearest by Chebyshev
// distance, the lowest ids among those at the farthest distance kept, and lists them by id — the same answer as
// the simple way (sort everything in the square by distance then id, take the first `max`, sort by id), for any
// crowd, ids, square and cap, after moves that carry entities across buckets.
describe("a crowded square with a cap", () => {
  it("keeps the nearest `max`, ties by lowest id, listed by id", () => {
    fc.assert(
      fc.property(
        // size "max": lengths spread over the whole range (fast-check's default keeps arrays short, and the cap
        // would seldom bite).
        fc.array(fc.record({ x: fc.integer({ min: -50, max: 50 }), y: fc.integer({ min: -50, max: 50 }) }), {
          minLength: 1,
          maxLength: 300,
          size: "max",
        }),
        fc.array(fc.nat({ max: 1_000_000 }), { minLength: 300, maxLength: 300 }),
        fc.array(
          fc.record({ pick: fc.nat(), dx: fc.integer({ min: -3, max: 3 }), dy: fc.integer({ min: -3, max: 3 }) }),
          {
            maxLength: 60,
          },
        ),
        fc.integer({ min: -40, max: 40 }),
        fc.integer({ min: -40, max: 40 }),
        fc.integer({ min: 0, max: 40 }),
        fc.integer({ min: 0, max: 120 }),
        (spots, idPool, moves, x, y, radius, max) => {
          const store = new EntityStore();
          const used = new Set<number>();
          const alive: StoredEntity[] = [];
          spots.forEach((spot, index) => {
            let id = idPool[index] + 1;
            while (used.has(id)) id++;
            used.add(id);
            alive.push(
              store.spawn({ typeId: 1, ...spot, hp: 1, hpMax: 1, elo: 0, flags: 0, name: "", meta: [] }, "actions", id),
            );
          });
          for (const move of moves) {
            const entity = alive[move.pick % alive.length];
            store.move(entity, entity.x + move.dx, entity.y + move.dy);
          }
          const distance = (e: StoredEntity): number => Math.max(Math.abs(e.x - x), Math.abs(e.y - y));
          const expected = alive
            .filter((e) => distance(e) <= radius)
            .sort((a, b) => distance(a) - distance(b) || a.id - b.id)
            .slice(0, max)
            .sort((a, b) => a.id - b.id);
          const slots: number[] = [];
          const count = store.slotsInSquare(x, y, radius, slots, max);
          expect(slots.slice(0, count).map((slot) => store.atSlot(slot).id)).toEqual(expected.map((e) => e.id));
          // No cap, or one the square does not reach: everything in it.
          const all = alive.filter((e) => distance(e) <= radius).length;
          expect(store.slotsInSquare(x, y, radius, slots, all)).toBe(all);
          expect(store.slotsInSquare(x, y, radius, slots)).toBe(all);
        },
      ),
      { numRuns: 300, seed: 38 },
    );
  });
});

// A cluster region can be given an entity under an id it already stores (a ghost of the neighbour's, or a
// player its checkpoint still had when it restarted). The chaos run's region died of it: the id map was
// overwritten alone, the old entity stayed in its bucket, and removing the old one afterwards took the
// newcomer's slot — its entity then sat in the bucket with no slot, and the broadcast read undefined.
describe("a spawn under an id already stored", () => {
  const fields = (x: number, y: number) => ({ typeId: 1, x, y, hp: 1, hpMax: 1, elo: 0, flags: 0, name: "", meta: [] });
  it("takes the id over: the old entity leaves its slot and bucket, and removing it later touches nothing", () => {
    const store = new EntityStore();
    const old = store.spawn(fields(10, 10), "actions", 77);
    const newcomer = store.spawn(fields(11, 10), "actions", 77);
    expect(store.get(77)).toBe(newcomer);
    store.remove(old); // the old one's holder lets go of it
    expect(store.get(77)).toBe(newcomer);
    const slots: number[] = [];
    const count = store.slotsInSquare(10, 10, 5, slots);
    // Every slot the query returns holds an entity (the broadcast reads each), and only the newcomer is there.
    const found = slots.slice(0, count).map((slot) => store.inSlot(slot));
    expect(found).toEqual([newcomer]);
    store.remove(newcomer);
    expect(store.slotsInSquare(10, 10, 5, slots)).toBe(0);
    expect(store.superseded).toBe(1); // and counted
  });
});
