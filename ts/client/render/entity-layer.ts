// The entities of a frame as sprites: each one's cell (entity-sprites.ts), its
// hostile mark, and where it is drawn. Entities do not block each other — only
// tiles do (the server's one movement rule) — so a player and an NPC, or two
// players, may stand on one tile; drawn at the same pixel, one would hide the
// other. The entities of one tile form a stack: the first is drawn on the tile,
// each later one STACK_STEP_PX further up and right, so a few pixels of every
// one show. The order is stable (the own player first, then by entity id) so a
// stack does not shuffle from frame to frame.
import { ENTITY_TYPE_DOOR } from "../../entity-types.js";
import { ENTITY_FLAG_HOSTILE } from "../../protocol/entity.js";
import { spriteCellFor } from "./entity-sprites.js";
import type { MapLook } from "./kind-looks.js";
import type { SpriteInstance } from "./frame.js";

/** An entity to draw, as the game loop knows it. */
export interface DrawnEntity {
  readonly id: number;
  readonly typeId: number;
  /** entity_flags (ENTITY_FLAG_*). */
  readonly flags: number;
  /** The tile it is on (authoritative; the predicted one for the own player): one tile, one stack. */
  readonly tileX: number;
  readonly tileY: number;
  /** Where it is drawn before stacking, in float world pixels (its glide). */
  readonly xPx: number;
  readonly yPx: number;
  /** Health (EntityEntry hp, hp_max): a bar over it when hurt, drawn as a corpse at 0 (hp_max 0: no health, a sign). */
  readonly hp?: number;
  readonly hpMax?: number;
  /** Struck a moment ago (ui/combat-effects.ts): drawn in the flash colour. */
  readonly flash?: boolean;
  /** A cell that replaces the type's own (a pile is drawn as its item: render/item-sprites.ts). */
  readonly cell?: number;
  /** Tiles of the map atlas it is drawn with instead (a kind in the host's own art: kind-looks.ts); absent: none. */
  readonly mapLook?: MapLook | null;
  /** Worn overlays over the sprite (the equipped armor, then the weapon), or NO_CELL (-1). */
  readonly wornArmor?: number;
  readonly wornWeapon?: number;
  /** The light it carries (a wielded torch: render/item-sprites.ts heldLight), a radius in tiles; absent or 0: none. */
  readonly light?: number;
}

/** How far each later entity of a stack is moved from the one before. */
export const STACK_STEP_PX = { x: 3, y: -2 } as const;
/** Steps a stack spreads over; a fifth entity and more share the last place (it stays within the tile's reach). */
export const STACK_STEPS_MAX = 3;

/**
 * The sprites of `entities` in drawing order: the others by id, the own player last (over everyone
 * else on its tile). `kindCells` from spriteCellsOfKinds.
 */
export function entitySprites(
  entities: readonly DrawnEntity[],
  ownId: number,
  kindCells: ReadonlyMap<number, number>,
): SpriteInstance[] {
  const ordered = [...entities].sort((a, b) => rank(a, ownId) - rank(b, ownId));
  const stackHeights = new Map<string, number>();
  const placed: { entity: DrawnEntity; sprite: SpriteInstance }[] = [];
  for (const entity of ordered) {
    // A door has no sprite: its tile shows whether it is open or closed (its name and prompt still show).
    if (entity.typeId === ENTITY_TYPE_DOOR) continue;
    const tile = `${entity.tileX},${entity.tileY}`;
    const index = stackHeights.get(tile) ?? 0;
    stackHeights.set(tile, index + 1);
    const step = Math.min(index, STACK_STEPS_MAX);
    const hp = entity.hp ?? 0;
    const hpMax = entity.hpMax ?? 0;
    const dead = hpMax > 0 && hp === 0;
    placed.push({
      entity,
      sprite: {
        xPx: entity.xPx + step * STACK_STEP_PX.x,
        yPx: entity.yPx + step * STACK_STEP_PX.y,
        cell:
          entity.cell !== undefined && entity.cell >= 0
            ? entity.cell
            : spriteCellFor(entity.typeId, entity.id, kindCells),
        wornArmor: entity.wornArmor ?? -1,
        wornWeapon: entity.wornWeapon ?? -1,
        ...(entity.mapLook ? { mapLook: entity.mapLook } : {}),
        // A corpse is no threat: no red frame.
        hostile: !dead && (entity.flags & ENTITY_FLAG_HOSTILE) !== 0,
        look: dead ? "dead" : entity.flash === true ? "flash" : "normal",
        hp,
        hpMax,
      },
    });
  }
  // Stack order is draw order, except that the own player is drawn last of all.
  const own = placed.filter((entry) => entry.entity.id === ownId);
  const others = placed.filter((entry) => entry.entity.id !== ownId);
  return [...others, ...own].map((entry) => entry.sprite);
}

/** The own player first in its stack, then everyone by id. */
function rank(entity: DrawnEntity, ownId: number): number {
  return entity.id === ownId ? -1 : entity.id;
}
