// What the pointer is over: the entity on the tile under it (another one before
// the own player, who may share the tile) and the label to show over it — its
// name from the name lookups (asked for on hover), or what it is while the name
// is unknown. Interactables within the player's reach get a prompt instead.
import { isFoe } from "../../combat-rules.js";
import type { EntityInfo } from "../core/entity-table.js";
import type { NpcKind } from "../core/kinds.js";
import type { SpriteInstance, WorldLabel } from "../render/frame.js";
import * as P from "../render/palette.js";
import { TILE_SIZE_PX } from "../render/layout.js";
import { foldForFont } from "./chat-log.js";

/** What a built-in type_id is, while its name is unknown (ts/entity-types.ts: 4 is a door). */
const TYPE_WORDS = ["player", "creature", "chest", "sign", "door"];
const NO_KINDS: ReadonlyMap<number, NpcKind> = new Map();

/** The interaction prompt over an interactable within reach. */
export const INTERACT_PROMPT = "E: use";

export function entityAtTile(
  entities: ReadonlyMap<number, EntityInfo>,
  tile: { x: number; y: number } | null,
  ownId: number,
): EntityInfo | null {
  if (!tile) return null;
  let own: EntityInfo | null = null;
  for (const entity of entities.values()) {
    if (entity.x !== tile.x || entity.y !== tile.y) continue;
    if (entity.id !== ownId) return entity;
    own = entity;
  }
  return own;
}

/**
 * The living creature on `tile` that a click attacks (combat-rules.ts isFoe, PvP off as the client's
 * attack() assumes), or null. The lowest id first, as the server picks its foe on a shared tile.
 */
export function foeAtTile(
  entities: ReadonlyMap<number, EntityInfo>,
  tile: { x: number; y: number } | null,
  ownId: number,
): EntityInfo | null {
  if (!tile) return null;
  let foe: EntityInfo | null = null;
  for (const entity of entities.values()) {
    if (entity.x !== tile.x || entity.y !== tile.y || entity.id === ownId) continue;
    if (isFoe(entity.typeId, entity.hp, entity.flags, false) && (foe === null || entity.id < foe.id)) foe = entity;
  }
  return foe;
}

/**
 * The name to show for `entity`: its looked-up name, else its kind's name (an NPC, before its
 * EntityDetail answers), else what it is.
 */
export function hoverText(
  entity: EntityInfo,
  names: ReadonlyMap<number, string>,
  kinds: ReadonlyMap<number, NpcKind> = NO_KINDS,
): string {
  const name = names.get(entity.id) ?? kinds.get(entity.typeId)?.name;
  return foldForFont(name ?? TYPE_WORDS[entity.typeId] ?? "something");
}

/**
 * A label over `entity`, placed where its sprite is drawn (players glide between
 * tiles): the drawn sprite nearest to the entity's tile, if one is within a tile.
 */
export function labelOver(
  entity: EntityInfo,
  text: string,
  colour: number,
  sprites: readonly SpriteInstance[],
): WorldLabel {
  let xPx = entity.x * TILE_SIZE_PX;
  let yPx = entity.y * TILE_SIZE_PX;
  let best = TILE_SIZE_PX;
  for (const sprite of sprites) {
    const distance = Math.max(
      Math.abs(sprite.xPx - entity.x * TILE_SIZE_PX),
      Math.abs(sprite.yPx - entity.y * TILE_SIZE_PX),
    );
    if (distance < best) {
      best = distance;
      xPx = sprite.xPx;
      yPx = sprite.yPx;
    }
  }
  return { xPx, yPx, text, colour };
}

export const HOVER_COLOUR = P.LABEL_NAME;
export const PROMPT_COLOUR = P.LABEL_PROMPT;
