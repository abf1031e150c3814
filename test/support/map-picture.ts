// The whole map as the client's tile pass draws it: each cell's atlas tile (its id's look in the map's own
// art, the world's tile data as GET /api/world gives it), RGB332 expanded as the client expands it. The
// client's draw_tilemap draws exactly these tiles, so a picture of the world without its entities is this.
import { rgb24FromRgb332 } from "../../ts/client/assets/image.js";
import type { LoadedMap } from "../../ts/server/map/load-map.js";
import type { MapArt } from "../../ts/server/map/map-atlas.js";

export interface RgbaPicture {
  width: number;
  height: number;
  data: Uint8Array;
}

/** The map drawn cell by cell from its atlas: a cell with no look is transparent (the client's darkness). */
export function worldPicture(map: LoadedMap, art: MapArt): RgbaPicture {
  const tile = art.tileWidthPx;
  const width = map.width * tile;
  const height = map.height * tile;
  const data = new Uint8Array(width * height * 4);
  const stride = art.columns * tile;
  for (let cy = 0; cy < map.height; cy++) {
    for (let cx = 0; cx < map.width; cx++) {
      const look = art.looks.get(map.tiles[cy * map.width + cx]);
      if (look === undefined) continue;
      const left = (look % art.columns) * tile;
      const top = Math.floor(look / art.columns) * tile;
      for (let y = 0; y < tile; y++) {
        for (let x = 0; x < tile; x++) {
          const rgb = rgb24FromRgb332(art.pixels[(top + y) * stride + left + x]);
          const at = ((cy * tile + y) * width + cx * tile + x) * 4;
          data[at] = rgb >>> 16;
          data[at + 1] = (rgb >>> 8) & 0xff;
          data[at + 2] = rgb & 0xff;
          data[at + 3] = 255;
        }
      }
    }
  }
  return { width, height, data };
}
