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
}

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
    kinds.push({ typeId, name, sprite, behaviour: behaviour as NpcBehaviour, speed, ...(light ? { light } : {}) });
  }
  return kinds;
}

/** The kinds by type_id, for the per-entity look-ups of a frame. */
export function kindsByTypeId(kinds: readonly NpcKind[]): ReadonlyMap<number, NpcKind> {
  return new Map(kinds.map((kind) => [kind.typeId, kind]));
}
