// NPC kinds as GET /api/world describes them (`kinds`): which type_id is which
// creature, the sprite the client draws it with, how it behaves and how fast it
// acts (ts/action-points.ts). The entity packets carry only the type_id, so
// this list is how the client names a creature before its EntityDetail arrives,
// picks its sprite and times its glide. An older server sends no list: every
// entity is then drawn and timed as before.
import { SPEED_MAX, SPEED_MIN } from "../../action-points.js";
import { NPC_BEHAVIOURS, NPC_TYPE_ID_MIN, type NpcBehaviour } from "../../npc-types.js";

export { isNpcType, NPC_TYPE_ID_MIN, type NpcBehaviour } from "../../npc-types.js";
const BEHAVIOURS: readonly string[] = NPC_BEHAVIOURS;

export interface NpcKind {
  readonly typeId: number;
  /** Display name ("cave rat"); the EntityDetail name of each NPC says the same. */
  readonly name: string;
  /** Sprite name in the client's sheet (docs/art.md); an unknown one is drawn as the generic creature. */
  readonly sprite: string;
  readonly behaviour: NpcBehaviour;
  /** Energy per entity tick, SPEED_MIN..SPEED_MAX: actionIntervalMs(speed, tickHz) between its steps. */
  readonly speed: number;
  /** It glows: a light radius in tiles (1 … 8) the renderer lights around it at night; absent: none. */
  readonly light?: number;
  /**
   * Drawn with a tile of the map's own art instead of its sprite (the kinds file names it): an atlas tile
   * of the map atlas, cut transparent, and its frames when animated. Absent: the sprite.
   */
  readonly look?: KindLook;
}

/**
 * A kind's look in the map atlas (ts/server/map/map-atlas.ts KindLook): a `width` × `height` block of map
 * cells whose top-left is (`dx`, `dy`) from the creature's cell, and per frame its atlas tiles row-major
 * (0: nothing there). One frame (durationMs 0) when still; else the frames loop from time 0.
 */
export interface KindLook {
  readonly dx: number;
  readonly dy: number;
  readonly width: number;
  readonly height: number;
  readonly frames: readonly { readonly looks: readonly number[]; readonly durationMs: number }[];
}

/** The most cells a look spans a side, and frames it has (the server's KIND_LOOK_MAX_CELLS, MAX_FRAMES_PER_STACK). */
const LOOK_MAX_CELLS = 4;
const LOOK_MAX_FRAMES = 256;

/**
 * Validates the `kinds` field of /api/world. `undefined` (an older server) is an empty list; anything
 * else malformed returns the reason, naming the field, so the caller can refuse the answer as a whole.
 */
export function parseKinds(raw: unknown): NpcKind[] | string {
  if (raw === undefined) return [];
  if (!Array.isArray(raw)) return "kinds is not an array";
  const kinds: NpcKind[] = [];
  const seen = new Set<number>();
  for (const [index, entry] of (raw as unknown[]).entries()) {
    const where = `kinds[${index}]`;
    if (typeof entry !== "object" || entry === null) return `${where} is not an object`;
    const kind = entry as Record<string, unknown>;
    const { typeId, name, sprite, behaviour, speed } = kind;
    if (typeof typeId !== "number" || !Number.isInteger(typeId) || typeId < NPC_TYPE_ID_MIN || typeId > 0xffff) {
      return `${where}.typeId must be an integer ${NPC_TYPE_ID_MIN}..65535`;
    }
    if (seen.has(typeId)) return `${where}.typeId ${typeId} is listed twice`;
    seen.add(typeId);
    if (typeof name !== "string" || name.length === 0) return `${where}.name must be a non-empty string`;
    if (typeof sprite !== "string") return `${where}.sprite must be a string`;
    if (typeof behaviour !== "string" || !BEHAVIOURS.includes(behaviour)) {
      return `${where}.behaviour must be one of ${BEHAVIOURS.join(", ")}`;
    }
    if (typeof speed !== "number" || !(speed >= SPEED_MIN && speed <= SPEED_MAX)) {
      return `${where}.speed must be a number ${SPEED_MIN}..${SPEED_MAX}`;
    }
    const { light } = kind;
    if (light !== undefined && (typeof light !== "number" || !Number.isInteger(light) || light < 0 || light > 8)) {
      return `${where}.light must be an integer 0..8`;
    }
    const look = parseKindLook(kind.look);
    if (typeof look === "string") return `${where}.look ${look}`;
    kinds.push({
      typeId,
      name,
      sprite,
      behaviour: behaviour as NpcBehaviour,
      speed,
      ...(light ? { light } : {}),
      ...(look ? { look } : {}),
    });
  }
  return kinds;
}

/** The kinds by type_id, for the per-entity look-ups of a frame. */
export function kindsByTypeId(kinds: readonly NpcKind[]): ReadonlyMap<number, NpcKind> {
  return new Map(kinds.map((kind) => [kind.typeId, kind]));
}

/** A kind's `look` as /api/world sends it (undefined: none), or what is wrong with it. */
function parseKindLook(raw: unknown): KindLook | undefined | string {
  if (raw === undefined) return undefined;
  if (typeof raw !== "object" || raw === null) return "must be an object";
  const { dx, dy, width, height, frames } = raw as Record<string, unknown>;
  const whole = (value: unknown, min: number, max: number): value is number =>
    typeof value === "number" && Number.isInteger(value) && value >= min && value <= max;
  if (!whole(width, 1, LOOK_MAX_CELLS) || !whole(height, 1, LOOK_MAX_CELLS)) {
    return `width and height must be whole numbers 1..${LOOK_MAX_CELLS}`;
  }
  if (!whole(dx, -LOOK_MAX_CELLS, LOOK_MAX_CELLS) || !whole(dy, -LOOK_MAX_CELLS, LOOK_MAX_CELLS)) {
    return `dx and dy must be whole numbers -${LOOK_MAX_CELLS}..${LOOK_MAX_CELLS}`;
  }
  if (!Array.isArray(frames) || frames.length < 1 || frames.length > LOOK_MAX_FRAMES) {
    return `frames must be a list of 1..${LOOK_MAX_FRAMES}`;
  }
  const checked: { looks: number[]; durationMs: number }[] = [];
  for (const frame of frames as unknown[]) {
    const { looks, durationMs } = (frame ?? {}) as Record<string, unknown>;
    if (!Array.isArray(looks) || looks.length !== width * height || !looks.every((look) => whole(look, 0, 0xffff))) {
      return `frames must each have ${width * height} looks, atlas tiles or 0`;
    }
    const animated = frames.length > 1;
    if (typeof durationMs !== "number" || !Number.isInteger(durationMs) || durationMs < (animated ? 1 : 0)) {
      return "frames must each have a duration (positive when there are several)";
    }
    checked.push({ looks: looks as number[], durationMs });
  }
  return { dx, dy, width, height, frames: checked };
}
