// Tileset pictures for HTML (dialog image elements): the tile sheet converted
// once from RGB332 to an RGBA canvas, from which an 8×8 cell is copied on demand.
// The expansion is the framebuffer's (fb_to_rgba's table, ts/ref/blit.ts
// lutInit), so a tile in a dialog has exactly the colours of the same tile on
// the map beside it.
import { type Rgb332Image, RGB332_TRANSPARENT } from "../assets/image.js";
import { CELL_SIZE_PX, SHEET_COLUMNS } from "../assets/sheets.js";

export class TileImages {
  private readonly sheet: HTMLCanvasElement;
  private readonly cells: number;

  constructor(doc: Document, image: Rgb332Image) {
    this.sheet = doc.createElement("canvas");
    this.sheet.width = image.width;
    this.sheet.height = image.height;
    const context = this.sheet.getContext("2d")!;
    const rgba = context.createImageData(image.width, image.height);
    for (let index = 0; index < image.pixels.length; index++) {
      const colour = image.pixels[index];
      // Floored, as the table is: a clamped array would round instead.
      rgba.data[index * 4] = (((colour >> 5) * 255) / 7) | 0;
      rgba.data[index * 4 + 1] = ((((colour >> 2) & 7) * 255) / 7) | 0;
      rgba.data[index * 4 + 2] = (((colour & 3) * 255) / 3) | 0;
      rgba.data[index * 4 + 3] = colour === RGB332_TRANSPARENT ? 0 : 255;
    }
    context.putImageData(rgba, 0, 0);
    this.cells = (image.height / CELL_SIZE_PX) * SHEET_COLUMNS;
  }

  /**
   * An 8×8 canvas showing atlas cell `index` (tile id i at index i); blank beyond the sheet, and at 0
   * unless `drawZero` (tile 0 is the void; sprite cell 0 is the player).
   */
  cell(doc: Document, index: number, drawZero = false): HTMLCanvasElement {
    const canvas = doc.createElement("canvas");
    canvas.width = CELL_SIZE_PX;
    canvas.height = CELL_SIZE_PX;
    if ((index > 0 || (drawZero && index === 0)) && index < this.cells) {
      const sx = (index % SHEET_COLUMNS) * CELL_SIZE_PX;
      const sy = Math.floor(index / SHEET_COLUMNS) * CELL_SIZE_PX;
      canvas
        .getContext("2d")!
        .drawImage(this.sheet, sx, sy, CELL_SIZE_PX, CELL_SIZE_PX, 0, 0, CELL_SIZE_PX, CELL_SIZE_PX);
    }
    return canvas;
  }
}
