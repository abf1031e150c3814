// NPC kinds as data: `<map>.npcs.json` beside the map (maps/caves.npcs.json for
// the bundled one) names every kind of creature — its type_id on the wire, its
// speed in action points, HP, behaviour, perception and leash radii, how far it
// wanders, how long its spawn waits to bring a new one, the sprite clients
// draw, and whether it opens doors. Validated strictly, like the tile data file: every problem names the
// field it is in, and nothing unknown is accepted, so a typo fails at start
// instead of making a creature silently behave differently.
import { dirname, isAbsolute, relative, resolve } from "node:path";
import { SPEED_MAX, SPEED_MIN } from "../../action-points.js";
import { ELO_MAX, ELO_MIN } from "../../combat-rules.js";
import { killXpFor } from "../../progression.js";
import { utf8ByteLength } from "../../protocol/text.js";
import { NAME_MAX_BYTES } from "../../protocol/tlv.js";
import { NPC_BEHAVIOURS, NPC_TYPE_ID_MIN, type NpcBehaviour } from "../../npc-types.js";
import { DataRecord, dataFilePathFor, parseDataFileList, readDataFile } from "./data-file.js";
import { MapError } from "./map-error.js";
import type { RawLootEntry } from "./item-specs.js";

export const NPC_KINDS_VERSION = 1;
/** The largest perception, leash or wander radius: more would reach far past any player's view. */
export const NPC_RADIUS_MAX = 64;
/** The longest respawn wait, in seconds: one day. */
export const NPC_RESPAWN_MAX_SECONDS = 86_400;

const BEHAVIOURS = NPC_BEHAVIOURS;

/** A tile of one of the map's tilesets, by the tileset's name and the tile's local id. */
export interface KindTile {
  tileset: string;
  id: number;
}

/** The largest edge of a kind's image look, in pixels (at most 4 × 4 cells of a 64 px map). */
export const KIND_IMAGE_MAX_PX = 256;
/** The most frames an image look animates through. */
export const KIND_IMAGE_FRAMES_MAX = 16;

/**
 * An image file beside the map that draws the kind (`"image": "baker.png"` or a rectangle of a sheet,
 * with frames): the rectangle's bottom-left stands on the creature's cell, as a tile's does in Tiled.
 */
export interface KindImage {
  /** The file as the kinds file names it (for messages). */
  file: string;
  /** Where it is: resolved against the kinds file's folder. */
  path: string;
  /** The rectangle's size; null: the whole image (still). */
  width: number | null;
  height: number | null;
  /** Each frame's top-left in the image (one: still). */
  frames: { x: number; y: number }[];
  /** How long each frame shows. */
  frameMs: number;
}

export interface NpcKind {
  /** Display name, served through EntityDetail like a player's nick. */
  name: string;
  typeId: number;
  behaviour: NpcBehaviour;
  /** Energy gained per entity tick (ts/action-points.ts): 25 is one step per 4 entity ticks, 3 per second. */
  speed: number;
  hp: number;
  /** Chebyshev radius within which a hostile notices a player (0 for kinds that never notice). */
  perception: number;
  /** Its perception between dusk and dawn (the world clock's night); absent: `perception` (nightPerceptionOf). */
  nightPerception?: number;
  /**
   * How many of a spawn's count it keeps at night, as a multiple (1 … 4); absent: 1.5 for hostiles —
   * the dark brings more of them — and 1 for the others (nightSpawnsOf).
   */
  nightSpawns?: number;
  /** A hostile gives up once its target is farther than this from the NPC's home. */
  leash: number;
  /** How far from home a wanderer strays, and an idle hostile paces. */
  wander: number;
  /** Seconds between an NPC's death and its spawn bringing a new one (a spawn may override it). */
  respawnSeconds: number;
  /** The client's sprite for the kind (an unknown name is drawn as a generic creature). */
  sprite: string;
  /**
   * Drawn instead with a tile of the map's own tilesets (its Tiled animation too), at the map's tile size:
   * the tileset's name and the tile's local id, as Tiled shows them. The map loader resolves it (a map with
   * the built-in art has no tilesets to name); absent: the sprite.
   */
  tile?: KindTile;
  /** Drawn instead with an image beside the map (KindImage), at the map's tile size; absent: sprite or tile. */
  image?: KindImage;
  /** Damage of its natural weapon (bite, blade) before the combat formula (0: it never fights back). */
  attack: number;
  /** Its natural armor in the combat formula (ts/server/combat/formula.ts). */
  armor: number;
  /** Its rating: what the combat formula compares, and what a kill of it moves the killer's rating by. */
  elo: number;
  /**
   * The experience a player's kill of it is worth (docs/combat.md § Experience and levels); absent: the
   * work of its fight (killXpOf). 0: nothing (a training dummy, the people of a town).
   */
  xp?: number;
  /** What may fall where it dies, by item name (checked against the item catalogue when the map loads). */
  loot: RawLootEntry[];
  /**
   * Whether it opens a closed, unlocked door that stands in its way (npc-room.ts § doors); absent
   * or false: a door stops it like a wall. No creature ever unlocks or closes a door.
   */
  opensDoors?: boolean;
  /** It glows (issue 15, docs/world-time.md § Light): a light radius in tiles, 1 … 8, drawn by clients at night; absent: none. */
  light?: number;
}

/** A hostile kind's nightSpawns when the file gives none, and the most any kind may have. */
export const NIGHT_SPAWNS_HOSTILE = 1.5;
export const NIGHT_SPAWNS_MAX = 4;

/** The experience a player's kill of a creature of `kind` is worth: its `xp`, or the work of its fight. */
export function killXpOf(kind: NpcKind): number {
  return kind.xp ?? killXpFor(kind);
}

/** The most experience one kill may be worth. */
export const NPC_XP_MAX = 100_000;

/** A kind's perception at night. */
export function nightPerceptionOf(kind: NpcKind): number {
  return kind.nightPerception ?? kind.perception;
}

/** How many times its spawn's count a kind keeps at night. */
export function nightSpawnsOf(kind: NpcKind): number {
  return kind.nightSpawns ?? (kind.behaviour === "hostile" ? NIGHT_SPAWNS_HOSTILE : 1);
}

/** The most lines a loot table has, and the most of one item a line drops. */
export const NPC_LOOT_LINES_MAX = 8;
export const NPC_LOOT_COUNT_MAX = 999;

/** A kind's rating when the file gives none: the same as a new player's. */
export const NPC_DEFAULT_ELO = 1000;
/** The largest natural attack or armor a kind may have. */
export const NPC_COMBAT_VALUE_MAX = 1000;

const KIND_KEYS = new Set([
  "name",
  "typeId",
  "behaviour",
  "speed",
  "hp",
  "perception",
  "nightPerception",
  "light",
  "nightSpawns",
  "leash",
  "wander",
  "respawnSeconds",
  "sprite",
  "tile",
  "image",
  "attack",
  "armor",
  "elo",
  "xp",
  "loot",
  "opensDoors",
]);

/** `maps/caves.tmj` → `maps/caves.npcs.json`. */
export function npcKindsPathFor(mapPath: string): string {
  return dataFilePathFor(mapPath, "npcs");
}

/** Reads and validates a kinds file; null when there is no such file (a map without creatures). */
export function readNpcKindsFile(path: string): NpcKind[] | null {
  const text = readDataFile(path, "NPC kinds");
  return text === null ? null : parseNpcKinds(text, path);
}

/** Validates kinds file text strictly: names and type_ids unique, every number in range. */
export function parseNpcKinds(text: string, file: string): NpcKind[] {
  const kinds = parseDataFileList(text, file, "NPC kinds", NPC_KINDS_VERSION, "kinds");
  const names = new Set<string>();
  const typeIds = new Set<number>();
  return kinds.map((value, index) => {
    const where = `kinds[${index}]`;
    const kind = parseKind(value, where, file);
    if (names.has(kind.name)) throw new MapError(file, `${where}.name: "${kind.name}" appears twice`);
    if (typeIds.has(kind.typeId)) throw new MapError(file, `${where}.typeId: ${kind.typeId} appears twice`);
    names.add(kind.name);
    typeIds.add(kind.typeId);
    return kind;
  });
}

function parseKind(value: unknown, where: string, file: string): NpcKind {
  const record = DataRecord.of(value, where, file, KIND_KEYS);
  const fields = record.fields;
  const integer = (key: string, min: number, max: number, fallback?: number): number =>
    record.integer(key, min, max, fallback);
  const name = record.displayName("name", NAME_MAX_BYTES, utf8ByteLength);
  const behaviour = record.choice("behaviour", BEHAVIOURS);
  const sprite = record.sprite("sprite");
  if (fields.tile !== undefined && fields.image !== undefined) {
    throw new MapError(file, `${where}: a kind is drawn with a tile or an image, not both`);
  }
  const opensDoors = fields.opensDoors ?? false;
  if (typeof opensDoors !== "boolean") {
    throw new MapError(file, `${where}.opensDoors: expected true or false, got ${JSON.stringify(opensDoors)}`);
  }
  const notices = behaviour !== "wander";
  const perception = integer("perception", notices ? 1 : 0, NPC_RADIUS_MAX, notices ? undefined : 0);
  const leash = integer("leash", notices ? perception : 0, NPC_RADIUS_MAX, notices ? undefined : 0);
  const nightPerception =
    fields.nightPerception === undefined ? undefined : integer("nightPerception", notices ? 1 : 0, NPC_RADIUS_MAX);
  const nightSpawns = fields.nightSpawns;
  if (
    nightSpawns !== undefined &&
    (typeof nightSpawns !== "number" || !(nightSpawns >= 1 && nightSpawns <= NIGHT_SPAWNS_MAX))
  ) {
    throw new MapError(
      file,
      `${where}.nightSpawns: expected a number from 1 to ${NIGHT_SPAWNS_MAX}, got ${JSON.stringify(nightSpawns)}`,
    );
  }
  return {
    name,
    typeId: integer("typeId", NPC_TYPE_ID_MIN, 0xffff),
    behaviour,
    speed: integer("speed", SPEED_MIN, SPEED_MAX),
    hp: integer("hp", 1, 0xffff),
    perception,
    // Only a kind that changes at night says so: the others read as they did before the world clock.
    ...(nightPerception !== undefined ? { nightPerception } : {}),
    ...(nightSpawns !== undefined ? { nightSpawns } : {}),
    leash,
    wander: integer("wander", 0, NPC_RADIUS_MAX, behaviour === "guard" ? 0 : 4),
    respawnSeconds: integer("respawnSeconds", 1, NPC_RESPAWN_MAX_SECONDS),
    sprite,
    ...(fields.tile !== undefined ? { tile: parseKindTile(fields.tile, `${where}.tile`, file) } : {}),
    ...(fields.image !== undefined ? { image: parseKindImage(fields.image, `${where}.image`, file) } : {}),
    attack: integer("attack", 0, NPC_COMBAT_VALUE_MAX, behaviour === "wander" ? 0 : undefined),
    armor: integer("armor", 0, NPC_COMBAT_VALUE_MAX, 0),
    elo: integer("elo", ELO_MIN, ELO_MAX, NPC_DEFAULT_ELO),
    // Only a kind that says what it is worth carries it: the others are worth their fight (killXpOf).
    ...(fields.xp !== undefined ? { xp: integer("xp", 0, NPC_XP_MAX) } : {}),
    loot: parseLoot(fields.loot, where, file),
    // Only a kind that opens doors says so: the others read as they did before doors existed.
    ...(opensDoors ? { opensDoors } : {}),
    ...(fields.light !== undefined && fields.light !== 0 ? { light: integer("light", 0, 8) } : {}),
  };
}

/**
 * `"baker.png"` (the whole image), or `{ "file": "sheet.png", "x", "y", "width", "height" }` (a rectangle),
 * or `{ "file", "width", "height", "frames": [{ "x", "y" }, …], "frameMs" }` (an animation): a PNG beside
 * the map, by a path relative to the kinds file that stays inside its folder.
 */
function parseKindImage(value: unknown, where: string, file: string): KindImage {
  const named = typeof value === "string" ? value : null;
  const record = named === null ? DataRecord.of(value, where, file, IMAGE_KEYS) : null;
  const name = named ?? record!.fields.file;
  const fileWhere = named === null ? `${where}.file` : where;
  if (typeof name !== "string" || !/\.png$/i.test(name) || name.length > 256) {
    throw new MapError(
      file,
      `${fileWhere}: expected the name of a PNG file beside the kinds file, got ${JSON.stringify(name)}`,
    );
  }
  const folder = dirname(resolve(file));
  const path = resolve(folder, name);
  if (isAbsolute(name) || relative(folder, path).startsWith("..")) {
    throw new MapError(
      file,
      `${fileWhere}: "${name}" is outside the kinds file's folder; put the image beside the map`,
    );
  }
  if (record === null) return { file: name, path, width: null, height: null, frames: [{ x: 0, y: 0 }], frameMs: 0 };
  const fields = record.fields;
  if ((fields.width === undefined) !== (fields.height === undefined)) {
    throw new MapError(file, `${where}: give both width and height, or neither (the whole image)`);
  }
  const width = fields.width === undefined ? null : record.integer("width", 1, KIND_IMAGE_MAX_PX);
  const height = fields.height === undefined ? null : record.integer("height", 1, KIND_IMAGE_MAX_PX);
  let frames: { x: number; y: number }[];
  if (fields.frames !== undefined) {
    if (fields.x !== undefined || fields.y !== undefined) {
      throw new MapError(file, `${where}: give x and y in each frame, or one x and y without frames`);
    }
    if (!Array.isArray(fields.frames) || fields.frames.length < 1 || fields.frames.length > KIND_IMAGE_FRAMES_MAX) {
      throw new MapError(
        file,
        `${where}.frames: expected a list of 1 to ${KIND_IMAGE_FRAMES_MAX} { "x", "y" } corners`,
      );
    }
    if (width === null) throw new MapError(file, `${where}: frames need a width and a height`);
    frames = fields.frames.map((frame, index) => {
      const corner = DataRecord.of(frame, `${where}.frames[${index}]`, file, CORNER_KEYS);
      return { x: corner.integer("x", 0, 0xffff), y: corner.integer("y", 0, 0xffff) };
    });
  } else {
    frames = [{ x: record.integer("x", 0, 0xffff, 0), y: record.integer("y", 0, 0xffff, 0) }];
  }
  const frameMs = frames.length > 1 ? record.integer("frameMs", 16, 60_000, 200) : 0;
  return { file: name, path, width, height, frames, frameMs };
}

const IMAGE_KEYS = new Set(["file", "x", "y", "width", "height", "frames", "frameMs"]);
const CORNER_KEYS = new Set(["x", "y"]);

/** `{ "tileset": "<name>", "id": <local id> }`: which tile of the map's tilesets draws the kind. */
function parseKindTile(value: unknown, where: string, file: string): KindTile {
  const record = DataRecord.of(value, where, file, new Set(["tileset", "id"]));
  const tileset = record.fields.tileset;
  if (typeof tileset !== "string" || tileset === "" || tileset.length > 128) {
    throw new MapError(
      file,
      `${where}.tileset: expected the name of one of the map's tilesets, got ${JSON.stringify(tileset)}`,
    );
  }
  return { tileset, id: record.integer("id", 0, 0xffff) };
}

const LOOT_KEYS = new Set(["item", "chance", "min", "max"]);

function parseLoot(value: unknown, where: string, file: string): RawLootEntry[] {
  if (value === undefined) return [];
  if (!Array.isArray(value) || value.length > NPC_LOOT_LINES_MAX) {
    throw new MapError(file, `${where}.loot: expected an array of at most ${NPC_LOOT_LINES_MAX} lines`);
  }
  return value.map((line: unknown, index) => {
    const at = `${where}.loot[${index}]`;
    if (line === null || typeof line !== "object" || Array.isArray(line)) {
      throw new MapError(file, `${at}: expected an object`);
    }
    const fields = line as Record<string, unknown>;
    for (const key of Object.keys(fields)) {
      if (!LOOT_KEYS.has(key)) throw new MapError(file, `${at}: unknown field "${key}"`);
    }
    if (typeof fields.item !== "string" || fields.item === "") {
      throw new MapError(file, `${at}.item: expected an item name`);
    }
    const chance = fields.chance;
    if (typeof chance !== "number" || !(chance > 0 && chance <= 1)) {
      throw new MapError(file, `${at}.chance: expected a number above 0 and at most 1, got ${JSON.stringify(chance)}`);
    }
    const count = (key: "min" | "max"): number => {
      const field = fields[key] ?? 1;
      if (typeof field !== "number" || !Number.isInteger(field) || field < 1 || field > NPC_LOOT_COUNT_MAX) {
        throw new MapError(
          file,
          `${at}.${key}: expected an integer 1..${NPC_LOOT_COUNT_MAX}, got ${JSON.stringify(field)}`,
        );
      }
      return field;
    };
    const min = count("min");
    const max = fields.max === undefined ? min : count("max");
    if (max < min) throw new MapError(file, `${at}.max: must be at least min (${min})`);
    return { item: fields.item, chance, min, max };
  });
}
