// Entity deltas (P-21): what writeEntityDelta writes, applyEntityDelta turns back into
// exactly the current list, from any baseline — byte for byte and checksum for checksum.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  type EntityEntry,
  type Tlv,
  EntryList,
  MAX_DATAGRAM_BYTES,
  type DeltaWritten,
  STATE_DELTA_BODY_MAX,
  applyEntityDelta,
  emptyEntryList,
  encodeEntityEntry,
  validateEntityDelta,
  writeEntityDelta,
} from "../ts/protocol/index.js";

const entry = (id: number): fc.Arbitrary<EntityEntry> =>
  fc.record({
    id: fc.constant(id),
    typeId: fc.oneof(fc.constant(0), fc.integer({ min: 0, max: 0xffff })),
    x: fc.oneof(fc.integer({ min: -200, max: 200 }), fc.integer({ min: -0x8000, max: 0x7fff })),
    y: fc.oneof(fc.integer({ min: -200, max: 200 }), fc.integer({ min: -0x8000, max: 0x7fff })),
    hp: fc.integer({ min: 0, max: 0xffff }),
    hpMax: fc.integer({ min: 0, max: 0xffff }),
    elo: fc.integer({ min: 0, max: 0xffff }),
    flags: fc.integer({ min: 0, max: 0xff }),
    meta: fc.oneof<fc.Arbitrary<Tlv[]>[]>(
      fc.constant<Tlv[]>([]),
      fc.integer({ min: 1, max: 0xffff }).map((weapon) => [{ kind: "weapon" as const, value: weapon }]),
      fc
        .string({ minLength: 1, maxLength: 10, unit: "grapheme-ascii" })
        .filter((name) => /^[\x21-\x7e]+$/.test(name))
        .map((name) => [{ kind: "name" as const, value: name }]),
    ),
  });

/** Random ids (ascending, distinct) with random entries. */
const list = fc
  .uniqueArray(fc.oneof(fc.integer({ min: 0, max: 60 }), fc.integer({ min: 0, max: 0xffffffff })), { maxLength: 40 })
  .map((ids) => ids.sort((a, b) => a - b))
  .chain((ids) => fc.tuple(...ids.map(entry)));

/** The next tick's list: some entries kept as they were, some changed (a step, an hp), some gone, some new. */
const evolve = (entries: EntityEntry[]): fc.Arbitrary<EntityEntry[]> =>
  fc
    .tuple(fc.array(fc.integer({ min: 0, max: 3 }), { minLength: entries.length, maxLength: entries.length }), list)
    .chain(([fates, fresh]) =>
      fc.tuple(
        ...entries.map((e, i) =>
          fates[i] === 0
            ? fc.constant(e)
            : fates[i] === 1
              ? fc.constant({ ...e, x: Math.max(-0x8000, Math.min(0x7fff, e.x + 1)), hp: Math.max(0, e.hp - 1) })
              : fates[i] === 2
                ? fc.constant(null)
                : entry(e.id),
        ),
        fc.constant(fresh),
      ),
    )
    .map((parts) => {
      const fresh = parts.pop() as EntityEntry[];
      const kept = (parts as (EntityEntry | null)[]).filter((e): e is EntityEntry => e !== null);
      const byId = new Map<number, EntityEntry>();
      for (const e of [...fresh, ...kept]) byId.set(e.id, e);
      return [...byId.values()].sort((a, b) => a.id - b.id);
    });

function toList(entries: EntityEntry[], tick: number): EntryList {
  const out = new EntryList(16, 2); // small, so the growth paths run too
  const scratch = new Uint8Array(300);
  for (const e of entries) {
    const size = encodeEntityEntry(e, scratch, 0);
    out.append(scratch, 0, size);
  }
  out.tick = tick;
  out.checksum = out.computeChecksum();
  return out;
}

const written: DeltaWritten = { bytes: 0, removed: 0, changed: 0 };

function roundTrip(baseline: EntryList, current: EntryList, into?: EntryList): EntryList | null | "too_big" {
  const out = new Uint8Array(64 * 1024);
  writeEntityDelta(baseline, current, out, 0, out.length, written);
  expect(written.bytes).toBeGreaterThanOrEqual(0);
  expect(validateEntityDelta(out, 0, written.bytes, written.removed, written.changed)).toBeNull();
  return applyEntityDelta(baseline, out, 0, written.bytes, written.removed, written.changed, into);
}

/** One list every run of the property writes into, so each starts from what the one before left there. */
const spare = new EntryList(8, 1);

describe("entity deltas", () => {
  it("apply(baseline, delta(baseline → current)) is current, byte for byte, from any baseline", () => {
    fc.assert(
      fc.property(
        list.chain((a) => fc.tuple(fc.constant(a), evolve(a))),
        ([before, after]) => {
          const baseline = toList(before, 10);
          const current = toList(after, 12);
          const applied = roundTrip(baseline, current);
          expect(applied).not.toBeNull();
          const result = applied as EntryList;
          expect(result.bytes.subarray(0, result.byteLength)).toEqual(current.bytes.subarray(0, current.byteLength));
          expect(result.checksum).toBe(current.checksum);
          // From the empty baseline too: the delta is the whole list.
          const full = roundTrip(emptyEntryList(), current) as EntryList;
          expect(full.checksum).toBe(current.checksum);
          // Into a reused list (what the last run left in it is cleared first): the same bytes, that list.
          const into = roundTrip(baseline, current, spare) as EntryList;
          expect(into).toBe(spare);
          expect(into.count).toBe(current.count);
          expect(into.bytes.subarray(0, into.byteLength)).toEqual(current.bytes.subarray(0, current.byteLength));
          expect(into.checksum).toBe(current.checksum);
        },
      ),
      { numRuns: 300 },
    );
  });

  it("an unchanged list costs no bytes; a step costs 4", () => {
    const entries: EntityEntry[] = [1, 5, 9].map((id) => ({
      id,
      typeId: 16,
      x: 100 + id,
      y: 50,
      hp: 8,
      hpMax: 8,
      elo: 1000,
      flags: 0,
      meta: [],
    }));
    const out = new Uint8Array(1200);
    writeEntityDelta(toList(entries, 1), toList(entries, 2), out, 0, out.length, written);
    expect(written).toEqual({ bytes: 0, removed: 0, changed: 0 });
    const moved = entries.map((e) => (e.id === 5 ? { ...e, x: e.x + 1, y: e.y - 1 } : e));
    writeEntityDelta(toList(entries, 1), toList(moved, 2), out, 0, out.length, written);
    expect(written).toEqual({ bytes: 4, removed: 0, changed: 1 });
  });

  it("a delta that does not fit its room reports -1 and the caller sends the full entries", () => {
    const many: EntityEntry[] = Array.from({ length: 200 }, (_, i) => ({
      id: i + 1,
      typeId: 16,
      x: 1000 + i,
      y: 1000,
      hp: 8,
      hpMax: 8,
      elo: 1000,
      flags: 0,
      meta: [],
    }));
    const out = new Uint8Array(MAX_DATAGRAM_BYTES);
    writeEntityDelta(emptyEntryList(), toList(many, 1), out, 0, STATE_DELTA_BODY_MAX, written);
    expect(written.bytes).toBe(-1);
  });

  it("refuses to write its result over its baseline or the shared empty list", () => {
    const entry = { id: 3, typeId: 0, x: 1, y: 1, hp: 1, hpMax: 1, elo: 1, flags: 0, meta: [] };
    const baseline = toList([entry], 1);
    const out = new Uint8Array(100);
    writeEntityDelta(baseline, toList([{ ...entry, x: 2 }], 2), out, 0, out.length, written);
    const apply = (from: EntryList, into: EntryList) =>
      applyEntityDelta(from, out, 0, written.bytes, written.removed, written.changed, into);
    expect(() => apply(baseline, baseline)).toThrow(RangeError);
    expect(() => apply(baseline, emptyEntryList())).toThrow(RangeError);
    expect(emptyEntryList().count).toBe(0);
    expect(apply(baseline, new EntryList())?.checksum).toBe(toList([{ ...entry, x: 2 }], 2).checksum);
  });

  it("a delta meant for another baseline is refused (a removed id the baseline lacks)", () => {
    const a = toList([{ id: 3, typeId: 0, x: 1, y: 1, hp: 1, hpMax: 1, elo: 1, flags: 0, meta: [] }], 1);
    const b = toList([], 2);
    const out = new Uint8Array(100);
    writeEntityDelta(a, b, out, 0, out.length, written);
    expect(written.removed).toBe(1);
    expect(applyEntityDelta(emptyEntryList(), out, 0, written.bytes, written.removed, written.changed)).toBeNull();
  });
});
