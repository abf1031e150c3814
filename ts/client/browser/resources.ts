// What the page needs before anyone can play: the wasm core and the three
// image sheets. Vite hands out their URLs (hashed files in dist/client, the
// sources in development); they are fetched in parallel and decoded here.
import coreUrl from "../../../build/core.wasm?url";
import fontUrl from "../assets/font.tga?url";
import spritesUrl from "../assets/sprites.tga?url";
import tilesUrl from "../assets/tiles.tga?url";
import { decodeTga } from "../assets/tga.js";
import { type Core, instantiateCore } from "../../wasm/core.js";
import type { SheetImages } from "../render/atlas.js";

export interface ClientResources {
  /** The one core instance of the page: the client's grid and the framebuffer live in it. */
  core: Core;
  images: SheetImages;
}

async function fetchBytes(url: string, what: string): Promise<Uint8Array> {
  let response: Response;
  try {
    response = await fetch(url);
  } catch (error) {
    throw new Error(`could not load ${what}: ${String(error)}`);
  }
  if (!response.ok) throw new Error(`could not load ${what}: HTTP ${response.status}`);
  return new Uint8Array(await response.arrayBuffer());
}

export async function loadResources(): Promise<ClientResources> {
  const [wasm, tiles, sprites, font] = await Promise.all([
    fetchBytes(coreUrl, "the game core (core.wasm)"),
    fetchBytes(tilesUrl, "tiles.tga"),
    fetchBytes(spritesUrl, "sprites.tga"),
    fetchBytes(fontUrl, "font.tga"),
  ]);
  return {
    core: await instantiateCore(wasm),
    images: { tiles: decodeTga(tiles), sprites: decodeTga(sprites), font: decodeTga(font) },
  };
}
