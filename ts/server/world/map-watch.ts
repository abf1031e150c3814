// `--watch`: the server reloads its map when the host saves it in Tiled, and
// connected clients get the changed cells through the tile-update path
// (tile-updates.ts: a TileUpdate per chunk, the chunk's version bumped, so a
// client that misses it converges through the manifest and the cache diff).
//
// What a reload can change: the tiles of the running world, as long as every
// id the edited map needs is one the running world already has with the same
// meaning (flags, stack, art). The clients took the world's tile data (and the
// atlas) when they joined, and no packet updates it, so an id they do not know
// would be predicted and drawn wrongly: such an edit is refused with the reason
// and the old map stays, as for a map that does not load at all. Twins and
// stack ids are matched by what they are (drawn tile, flags, stack), not by
// number, because the flattener numbers them in the order it meets them.
// Not reloaded: the size, spawns, objects (signs, doors, creatures, chests,
// safe zones), the tile data's meaning and the art — restart for those.
import { type FSWatcher, watch } from "node:fs";
import { basename, dirname } from "node:path";
import { LOOK_NONE, loadMap, MapError, type LoadedMap, type TileInfo } from "../map/load-map.js";
import type { Logger } from "../ops/log.js";
import type { WorldMap } from "./world.js";

/** Saves within this long of each other are one reload (editors write a file in several steps). */
export const MAP_WATCH_DEBOUNCE_MS = 250;

/** What the watcher changes and reads: the running world's tiles, and the tile data its clients have. */
export interface WatchedWorld {
  readonly mapWidth: number;
  readonly mapHeight: number;
  readonly tileInfo: WorldMap["tileInfo"];
  /** Changes one tile and tells the clients that hold its chunk (Game.setTile). */
  setTile(x: number, y: number, tileId: number): boolean;
}

export type ReloadResult = { ok: true; changedCells: number } | { ok: false; error: string };

/** The identity of a tile id by what it is, so ids of two loads of one map can be matched. */
function meaningKey(info: {
  id: number;
  twinOf?: number;
  collides: boolean;
  opaque: boolean;
  stack?: number[];
  overStack?: number[];
}) {
  const base = info.twinOf ?? info.id;
  return `${base}|${info.twinOf === undefined ? "own" : "twin"}|${info.collides ? 1 : 0}${info.opaque ? 1 : 0}|${info.stack?.join(",") ?? ""}${info.overStack ? `|over ${info.overStack.join(",")}` : ""}`;
}

export class MapWatcher {
  private watcher: FSWatcher | null = null;
  private timer: NodeJS.Timeout | null = null;
  /** The tiles the map file said at the last load, in the running world's ids. */
  private fileTiles: Uint16Array;
  private readonly runningIdByMeaning = new Map<string, number>();
  private readonly runningInfo = new Map<number, WorldMap["tileInfo"][number]>();
  readonly stats = { reloads: 0, refused: 0 };

  constructor(
    private readonly path: string,
    private readonly world: WatchedWorld,
    /** The map as the server loaded it at start (its tiles and twin/stack ids). */
    loaded: LoadedMap,
    /** True when the world draws the map's own atlas: then an id needs an atlas look the clients have. */
    private readonly ownArt: boolean,
    private readonly logger: Logger,
    private readonly onReload: (result: ReloadResult) => void = () => {},
  ) {
    this.fileTiles = loaded.tiles.slice();
    for (const info of world.tileInfo) this.runningInfo.set(info.id, info);
    for (const info of loaded.tileData.values()) this.runningIdByMeaning.set(meaningKey(info), info.id);
  }

  /** Starts watching the map's folder (editors often save by writing a new file and renaming it over the old). */
  start(): void {
    const file = basename(this.path);
    this.watcher = watch(dirname(this.path), (_event, name) => {
      // The map, or anything beside it it reads (tile data, kinds, tilesets in the same folder).
      if (name !== null && name !== file && !/\.(tmx|tmj|json|tsx|tsj|csv)$/i.test(name)) return;
      if (this.timer) clearTimeout(this.timer);
      this.timer = setTimeout(() => {
        this.timer = null;
        this.reload();
      }, MAP_WATCH_DEBOUNCE_MS);
    });
    this.watcher.on("error", (error) =>
      this.logger.warn("map watch failed", { path: this.path, error: String(error) }),
    );
  }

  close(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    this.watcher?.close();
    this.watcher = null;
  }

  /** Loads the map file again and applies what changed; on any problem the running map stays. */
  reload(): ReloadResult {
    const result = this.tryReload();
    if (result.ok) {
      this.stats.reloads++;
      this.logger.info("map reloaded", { path: this.path, changedCells: result.changedCells });
    } else {
      this.stats.refused++;
      this.logger.warn("map reload refused; the running map stays", { path: this.path, error: result.error });
    }
    this.onReload(result);
    return result;
  }

  private tryReload(): ReloadResult {
    let next: LoadedMap;
    try {
      next = loadMap(this.path);
    } catch (error) {
      if (error instanceof MapError) return { ok: false, error: error.message };
      return { ok: false, error: `${this.path}: ${(error as Error).message}` };
    }
    const { mapWidth: width, mapHeight: height } = this.world;
    if (next.width !== width || next.height !== height) {
      return {
        ok: false,
        error: `the map is now ${next.width}×${next.height}, the running world ${width}×${height}: restart to resize`,
      };
    }
    const idMap = new Map<number, number>();
    const unknown: string[] = [];
    const translate = (id: number): number => {
      let running = idMap.get(id);
      if (running !== undefined) return running;
      const info = next.tileData.get(id)!;
      running = this.runningIdByMeaning.get(meaningKey(info));
      const problem = running === undefined ? "the running world has no such tile" : this.differs(running, info);
      if (problem !== null) {
        if (unknown.length < 3) unknown.push(`${info.name ?? `tile ${id}`}: ${problem}`);
        running = -1;
      }
      idMap.set(id, running!);
      return running!;
    };
    const tiles = new Uint16Array(next.tiles.length);
    let refused = 0;
    for (let cell = 0; cell < tiles.length; cell++) {
      const running = translate(next.tiles[cell]);
      if (running < 0) refused++;
      else tiles[cell] = running;
    }
    if (refused > 0) {
      return {
        ok: false,
        error:
          `${this.path}: ${refused} cells need tile ids the running world's clients do not have ` +
          `(${unknown.join("; ")}); restart the server to serve this edit`,
      };
    }
    let changedCells = 0;
    for (let cell = 0; cell < tiles.length; cell++) {
      if (tiles[cell] === this.fileTiles[cell]) continue;
      // Only cells the file changed: run-time changes elsewhere (an opened door) stay as they are.
      this.world.setTile(cell % width, Math.floor(cell / width), tiles[cell]);
      changedCells++;
    }
    this.fileTiles = tiles;
    return { ok: true, changedCells };
  }

  /** Why running id `running` does not mean what the edited map's `info` does, or null when it does. */
  private differs(running: number, info: TileInfo): string | null {
    const known = this.runningInfo.get(running);
    if (!known) return "the running world has no such tile";
    if (known.collides !== info.collides || known.opaque !== info.opaque) return "its collision or opacity changed";
    if (this.ownArt) {
      if (known.look === LOOK_NONE && info.look !== LOOK_NONE) return "the running atlas has no art for it";
    } else if (known.look !== info.look) return "its look changed";
    return null;
  }
}
