// The side panel's "Creatures" section: the NPCs in view, apart from the
// players, one line per name of creature with a count ("cave rat x2"), the
// hostile ones first and marked, then the nearest first. A pure function of
// the entities, so the panel says the same thing for the same view every frame.
import type { EntityInfo } from "../core/entity-table.js";
import { isNpcType, type NpcKind } from "../core/kinds.js";
import { ENTITY_FLAG_HOSTILE } from "../../protocol/entity.js";
import { foldForFont } from "./chat-log.js";

/** The built-in wandering creature (docs/protocol.md § EntityEntry type_id 1): listed with the NPCs. */
const TYPE_CREATURE = 1;

export interface CreatureLine {
  /** The name shown, folded for the HUD font. */
  readonly name: string;
  /** How many of that name (and hostility) are in view. */
  readonly count: number;
  readonly hostile: boolean;
}

/** Whether `typeId` is a creature rather than a player or a thing (chest, sign). */
export function isCreatureType(typeId: number): boolean {
  return typeId === TYPE_CREATURE || isNpcType(typeId);
}

/**
 * The creatures in `entities`, grouped by the name shown (looked up, else the kind's, else
 * "creature") and by hostility, hostile groups first, then by the distance of their nearest member
 * from `from` (Chebyshev tiles; the own tile), then by name.
 */
export function creatureLines(
  entities: Iterable<EntityInfo>,
  names: ReadonlyMap<number, string>,
  kinds: ReadonlyMap<number, NpcKind>,
  from: { readonly x: number; readonly y: number } | null,
): CreatureLine[] {
  const groups = new Map<string, { name: string; hostile: boolean; count: number; nearest: number }>();
  for (const entity of entities) {
    if (!isCreatureType(entity.typeId)) continue;
    const name = foldForFont(names.get(entity.id) ?? kinds.get(entity.typeId)?.name ?? "creature");
    const hostile = (entity.flags & ENTITY_FLAG_HOSTILE) !== 0;
    const distance = from ? Math.max(Math.abs(entity.x - from.x), Math.abs(entity.y - from.y)) : 0;
    const key = `${hostile ? 1 : 0}${name}`;
    const group = groups.get(key);
    if (group) {
      group.count++;
      group.nearest = Math.min(group.nearest, distance);
    } else groups.set(key, { name, hostile, count: 1, nearest: distance });
  }
  return [...groups.values()]
    .sort(
      (a, b) =>
        Number(b.hostile) - Number(a.hostile) ||
        a.nearest - b.nearest ||
        (a.name < b.name ? -1 : a.name > b.name ? 1 : 0),
    )
    .map(({ name, count, hostile }) => ({ name, count, hostile }));
}
