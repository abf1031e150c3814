// Talking to creatures as a player does (issue 38, docs/content.md): which creatures are talked to, how
// often, how long a dialog is read and which button is pressed. Shared by the headless bots' `talk`
// behaviour (behaviours.ts, through the client core) and the server bench's thin talkers
// (bench/server/bots.ts --talk), so both make the same conversation.
import { isNpcType } from "../npc-types.js";
import { DIALOG_RETURN_DISMISSED, type DialogElement } from "../protocol/dialog.js";
import { ENTITY_FLAG_INTERACTABLE } from "../protocol/entity.js";

/**
 * A bot talks again this long after it started a talk (uniform in the range): "every few seconds" while a
 * creature to talk to is in view — far more often than a player, which is the load the bench wants.
 */
export const TALK_AGAIN_MS = { min: 3000, max: 6000 } as const;
/** How long a dialog is read before a button is pressed (uniform in the range). */
export const READ_MS = { min: 300, max: 1200 } as const;
/** How long a bot that talked stands waiting for a dialog before it walks on (a script may only say a line). */
export const TALK_WAIT_MS = 1000;

/** Whether an entity is a living creature a content script talks for (flagged is_interactable): one to talk to. */
export function isTalker(typeId: number, hp: number, flags: number): boolean {
  return isNpcType(typeId) && hp > 0 && (flags & ENTITY_FLAG_INTERACTABLE) !== 0;
}

/** A uniform draw from `range` with `random` in [0, 1). */
export function within(range: { readonly min: number; readonly max: number }, random: number): number {
  return range.min + random * (range.max - range.min);
}

/**
 * The button a bot presses: one of the dialog's buttons, chosen by `random` in [0, 1) — every choice alike, as
 * a player who reads them all; DIALOG_RETURN_DISMISSED (0) when the dialog has no button.
 */
export function dialogChoice(elements: readonly DialogElement[], random: number): number {
  let buttons = 0;
  for (const element of elements) if (element.kind === "button") buttons++;
  if (buttons === 0) return DIALOG_RETURN_DISMISSED;
  let pick = Math.min(buttons - 1, Math.floor(random * buttons));
  for (const element of elements) {
    if (element.kind !== "button") continue;
    if (pick-- === 0) return element.returnCode;
  }
  return DIALOG_RETURN_DISMISSED;
}

/** The reply's values: one per text input of the dialog, in element order, each left as the dialog wrote it. */
export function dialogValues(elements: readonly DialogElement[]): string[] {
  const values: string[] = [];
  for (const element of elements) if (element.kind === "text_input") values.push(element.text);
  return values;
}

/** An entity as a bot sees it in an update: enough to tell a creature to talk to and where it stands. */
export interface SeenEntity {
  readonly id: number;
  readonly typeId: number;
  readonly hp: number;
  readonly flags: number;
  readonly x: number;
  readonly y: number;
}

/**
 * The creature to talk to nearest (Chebyshev) to `at` among `entities`, the first of equals — another than
 * `except` (the one talked to last: a player moves on to the next person) unless it is the only one; null
 * when there is none.
 */
export function nearestTalker(
  entities: Iterable<SeenEntity>,
  at: { x: number; y: number },
  except = 0,
): SeenEntity | null {
  let best: SeenEntity | null = null;
  let bestDistance = Infinity;
  let last: SeenEntity | null = null;
  for (const entity of entities) {
    if (!isTalker(entity.typeId, entity.hp, entity.flags)) continue;
    if (entity.id === except) {
      last = entity;
      continue;
    }
    const distance = Math.max(Math.abs(entity.x - at.x), Math.abs(entity.y - at.y));
    if (distance < bestDistance) {
      best = entity;
      bestDistance = distance;
    }
  }
  return best ?? last;
}
