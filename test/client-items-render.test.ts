// Items in the frame, on the real wasm blitter: a pile on the ground is drawn
// as its item's sprite (from the inline `item` TLV, the sack for an item the
// catalogue lacks), and a player who wields a weapon and wears armor (the
// inline `weapon` / `armor` TLVs) is drawn with their worn overlays over it —
// also in a corpse's grey. Fed entities built here.
import { beforeAll, beforeEach, describe, expect, it } from "vitest";
import { FB_WIDTH } from "../ts/constants.js";
import type { Rgb332Image } from "../ts/client/assets/image.js";
import {
  CELL_SIZE_PX,
  SPRITE_DAGGER,
  SPRITE_ITEM,
  SPRITE_POTION,
  SPRITE_WORN_DAGGER,
  SPRITE_WORN_MAIL,
} from "../ts/client/assets/sheets.js";
import type { ItemDef } from "../ts/client/core/item-catalogue.js";
import { type DrawnEntity, entitySprites } from "../ts/client/render/entity-layer.js";
import { ItemLooks } from "../ts/client/render/item-sprites.js";
import { type FrameRenderer, type FrameScene } from "../ts/client/render/frame.js";
import { ENTITY_TYPE_ITEM } from "../ts/item-types.js";
import type { Tlv } from "../ts/protocol/tlv.js";
import type { WasmBlitter } from "../ts/wasm/blit.js";
import type { WasmSim } from "../ts/wasm/sim.js";
import { floorGrid, makeRenderRig, RIG_FLOOR, SHEETS, renderAtRigCamera, rigScreenOf } from "./client-render-rig.js";

const CATALOGUE: ItemDef[] = [
  { id: 2, name: "dagger", kind: "weapon", stack: 1, sprite: "dagger", damage: 9, armor: 0, heal: 0 },
  { id: 5, name: "chain mail", kind: "armor", stack: 1, sprite: "mail", damage: 0, armor: 6, heal: 0 },
  { id: 6, name: "healing potion", kind: "consumable", stack: 10, sprite: "potion", damage: 0, armor: 0, heal: 30 },
  { id: 9, name: "odd thing", kind: "treasure", stack: 1, sprite: "no-such-art", damage: 0, armor: 0, heal: 0 },
];
const looks = new ItemLooks(CATALOGUE);
let blitter: WasmBlitter;
let sim: WasmSim;
let renderer: FrameRenderer;

beforeAll(async () => {
  ({ blitter, sim, renderer } = await makeRenderRig());
});

beforeEach(() => floorGrid(sim));

/** An entity at rest on tile (x, y), with the looks its meta gives it (as the play session does). */
function at(id: number, typeId: number, x: number, y: number, meta: Tlv[]): DrawnEntity {
  const pile = typeId === ENTITY_TYPE_ITEM;
  return {
    id,
    typeId,
    flags: 0,
    tileX: x,
    tileY: y,
    xPx: x * CELL_SIZE_PX,
    yPx: y * CELL_SIZE_PX,
    cell: pile ? looks.pileCell(meta) : -1,
    wornArmor: pile ? -1 : looks.wornCell(meta, "armor"),
    wornWeapon: pile ? -1 : looks.wornCell(meta, "weapon"),
    hp: pile ? 0 : 10,
    hpMax: pile ? 0 : 10,
  };
}

function render(entities: FrameScene["entities"]): void {
  renderAtRigCamera({ renderer, sim }, entities);
}

const screen = rigScreenOf;

function block(x: number, y: number): number[] {
  const out: number[] = [];
  const fb = blitter.framebuffer();
  for (let row = 0; row < 8; row++) for (let col = 0; col < 8; col++) out.push(fb[(y + row) * FB_WIDTH + x + col]);
  return out;
}

/** Sheet cells drawn in order over the floor (transparent pixels show what is under them). */
function drawn(image: Rgb332Image, cells: number[]): number[] {
  const out: number[] = [];
  for (let row = 0; row < 8; row++) {
    for (let col = 0; col < 8; col++) {
      let value = SHEETS.tiles.pixels[row * SHEETS.tiles.width + RIG_FLOOR * 8 + col];
      for (const cell of cells) {
        const ink = image.pixels[(Math.floor(cell / 16) * 8 + row) * image.width + (cell % 16) * 8 + col];
        if (ink !== 0) value = ink;
      }
      out.push(value);
    }
  }
  return out;
}

describe("items in the world", () => {
  it("a pile is drawn as its item; an item without art of its own as the sack", () => {
    render(
      entitySprites(
        [
          at(30, ENTITY_TYPE_ITEM, 10, 12, [{ kind: "item", itemId: 2, count: 1 }]),
          at(31, ENTITY_TYPE_ITEM, 11, 12, [{ kind: "item", itemId: 6, count: 3 }]),
          at(32, ENTITY_TYPE_ITEM, 12, 12, [{ kind: "item", itemId: 9, count: 1 }]),
          at(33, ENTITY_TYPE_ITEM, 13, 12, [{ kind: "item", itemId: 77, count: 1 }]),
        ],
        0,
        new Map(),
      ),
    );
    const cells = [SPRITE_DAGGER, SPRITE_POTION, SPRITE_ITEM, SPRITE_ITEM];
    cells.forEach((cell, index) => {
      const { x, y } = screen(10 + index, 12);
      expect(block(x, y), `pile ${index}`).toEqual(drawn(SHEETS.sprites, [cell]));
    });
  });

  it("a player wielding a dagger in chain mail wears both over its sprite; without them it is the plain player", () => {
    const dressed = at(8, 0, 10, 12, [
      { kind: "weapon", value: 2 },
      { kind: "armor", value: 5 },
    ]);
    render(entitySprites([dressed, at(12, 0, 12, 12, [])], 0, new Map()));
    const dressedCell = entitySprites([dressed], 0, new Map())[0].cell;
    const { x, y } = screen(10, 12);
    expect(block(x, y)).toEqual(drawn(SHEETS.sprites, [dressedCell, SPRITE_WORN_MAIL, SPRITE_WORN_DAGGER]));
    expect(block(x, y)).not.toEqual(drawn(SHEETS.sprites, [dressedCell]));
    const plain = screen(12, 12);
    const plainCell = entitySprites([at(12, 0, 12, 12, [])], 0, new Map())[0].cell;
    expect(block(plain.x, plain.y)).toEqual(drawn(SHEETS.sprites, [plainCell]));
    expect(plainCell).not.toBe(SPRITE_WORN_DAGGER);
  });

  it("a dead player's worn things turn grey with it", () => {
    const corpse = { ...at(8, 0, 10, 12, [{ kind: "weapon", value: 2 }]), hp: 0 };
    render(entitySprites([corpse], 0, new Map()));
    const { x, y } = screen(10, 12);
    const floor = drawn(SHEETS.sprites, []);
    const ink = block(x, y).filter((value, index) => value !== floor[index]);
    expect(new Set(ink).size).toBe(1); // one grey over the body and the dagger
    // The dagger's blade tip (column 7, row 2) is inked only by the overlay.
    expect(block(x, y)[2 * 8 + 7]).not.toBe(floor[2 * 8 + 7]);
  });
});
