// One flags-table builder and one free-tile predicate (ts/tile-flags.ts): the
// server's map loader and the client's session API hand out the same builder,
// every shape of tile meanings gives the same table with the reserved ids
// colliding, and the predicate agrees with the wasm rule for every tile id.
import { beforeAll, describe, expect, it } from "vitest";
import { TILE_BORDER, TILE_FLAG_COLLIDES, TILE_FLAG_OPAQUE, TILE_UNKNOWN } from "../ts/constants.js";
import { tileFlagsTable as clientBuilder } from "../ts/client/core/session-api.js";
import { mulberry32 } from "../ts/random.js";
import { tileFlagsTable as serverBuilder } from "../ts/server/map/load-map.js";
import { TILE_ID_COUNT, type TileMeaning, isFreeTile, tileFlagsTable } from "../ts/tile-flags.js";
import type { Core } from "../ts/wasm/core.js";
import { loadCore } from "../ts/wasm/node.js";
import { WasmSim } from "../ts/wasm/sim.js";

let core: Core;
beforeAll(async () => {
  core = await loadCore();
});

const MEANINGS: TileMeaning[] = [
  { id: 0, collides: true, opaque: false },
  { id: 1, collides: false, opaque: false },
  { id: 5, collides: true, opaque: true },
  { id: 7, collides: false, opaque: true },
  // A meaning that claims a reserved id is free must not make it so.
  { id: TILE_BORDER, collides: false, opaque: false },
];

describe("the flags table", () => {
  it("is built by one function, whichever side asks", () => {
    expect(serverBuilder).toBe(tileFlagsTable);
    expect(clientBuilder).toBe(tileFlagsTable);
  });

  it("gives the same table from a list, a Map by id and a world description, with the reserved ids colliding", () => {
    const fromList = tileFlagsTable(MEANINGS);
    expect(fromList.length).toBe(TILE_ID_COUNT);
    const same = (table: Uint8Array) => Buffer.from(table).equals(Buffer.from(fromList));
    expect(same(tileFlagsTable(new Map(MEANINGS.map((tile) => [tile.id, tile]))))).toBe(true);
    expect(same(tileFlagsTable({ tiles: MEANINGS }))).toBe(true);
    expect([fromList[0], fromList[1], fromList[5], fromList[7], fromList[300]]).toEqual([
      TILE_FLAG_COLLIDES,
      0,
      TILE_FLAG_COLLIDES | TILE_FLAG_OPAQUE,
      TILE_FLAG_OPAQUE,
      0,
    ]);
    expect(fromList[TILE_BORDER]).toBe(TILE_FLAG_COLLIDES);
    expect(fromList[TILE_UNKNOWN]).toBe(TILE_FLAG_COLLIDES);
    expect(tileFlagsTable([])[TILE_UNKNOWN]).toBe(TILE_FLAG_COLLIDES);
  });
});

describe("the free-tile predicate", () => {
  it("agrees with the wasm rule for every tile id, under a random flags table", () => {
    const random = mulberry32(0xf1a95);
    const flags = new Uint8Array(TILE_ID_COUNT);
    for (let tile = 0; tile < TILE_ID_COUNT; tile++) flags[tile] = Math.floor(random() * 4);
    // Even with the reserved ids' COLLIDES bits cleared, neither is free.
    flags[TILE_BORDER] = 0;
    flags[TILE_UNKNOWN] = 0;
    const sim = new WasmSim(core);
    expect(sim.initGrid(2, 1, 0, 0)).toBe(true);
    sim.setFlags(flags);
    const wasmFlags = core.u8.slice(core.layout.TILE_FLAGS, core.layout.TILE_FLAGS + TILE_ID_COUNT);
    let free = 0;
    for (let tile = 0; tile < TILE_ID_COUNT; tile++) {
      sim.setTile(1, 0, tile);
      const byRule = sim.stepAllowed(0, 0, 2); // E onto (1, 0): allowed iff its tile is free
      const predicate = isFreeTile(flags, tile);
      // One expect per id would take seconds; the first disagreement fails with its id.
      if (predicate !== byRule || sim.isFree(1, 0) !== byRule || isFreeTile(wasmFlags, tile) !== byRule) {
        expect({ tile, predicate, wasmTable: isFreeTile(wasmFlags, tile), isFree: sim.isFree(1, 0) }).toEqual({
          tile,
          predicate: byRule,
          wasmTable: byRule,
          isFree: byRule,
        });
      }
      if (byRule) free++;
    }
    // About half the ids have no COLLIDES bit; both reserved ids are blocked.
    expect(free).toBeGreaterThan(30000);
    expect(free).toBeLessThan(35000);
    expect(isFreeTile(flags, TILE_BORDER) || isFreeTile(flags, TILE_UNKNOWN)).toBe(false);
  });

  it("calls cells off the grid not free", () => {
    const sim = new WasmSim(core);
    expect(sim.initGrid(2, 2, 10, 10)).toBe(true);
    sim.setFlags(tileFlagsTable(MEANINGS));
    sim.tiles.fill(1);
    expect([sim.isFree(10, 10), sim.isFree(11, 11), sim.isFree(9, 10), sim.isFree(12, 10)]).toEqual([
      true,
      true,
      false,
      false,
    ]);
  });
});
