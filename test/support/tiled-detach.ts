// Tiled's picture of a map placed through object templates, for the tests that compare the game's drawing
// with tmxrasterizer's: Debian's tmxrasterizer (Tiled 1.8) reads no template — it draws each templated
// object as an empty marker, where the editor draws its tile — so the reference is the map with its
// templates detached, each object's template written into it, as Tiled's "Detach Template" does.
import { readFileSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";

/**
 * Writes beside `file` (its images and tilesets are relative to it) a copy with each `<object … template="…"/>`
 * replaced by the object with its template's attributes written in, and returns its path; the caller removes
 * it. Enough for sticker-knight, whose instances state only id, x and y and whose templates state name, class,
 * gid and size: the GIDs carry over unchanged only because every template numbers the map's own tileset from
 * 1 as the map does — checked, so a changed example fails here rather than drawing other tiles.
 */
export function detachedCopy(file: string, tag: string): string {
  const text = readFileSync(file, "utf8");
  const first = /<tileset firstgid="1" source="([^"]+)"\/>/.exec(text);
  if (first === null) throw new Error(`${file}: expected one tileset at firstgid 1`);
  const tileset = resolve(dirname(file), first[1]);
  const detached = text.replace(
    /<object ([^>]*?)template="([^"]+)"([^>]*?)\/>/g,
    (_, before: string, source: string, after: string) => {
      const path = resolve(dirname(file), source);
      const template = readFileSync(path, "utf8");
      const own = /<tileset firstgid="1" source="([^"]+)"\/>/.exec(template);
      if (own === null || resolve(dirname(path), own[1]) !== tileset) {
        throw new Error(`${path}: its tileset is not the map's at firstgid 1; cannot detach by copying its gid`);
      }
      const object = /<object ([^>]*?)\/?>/.exec(template);
      if (object === null) throw new Error(`${path}: no <object>`);
      return `<object ${before}${object[1]} ${after.trim()}/>`;
    },
  );
  const out = join(dirname(file), `${tag}-detached-${process.pid}.tmx`);
  writeFileSync(out, detached);
  return out;
}
