// What the content API hands a script and reads back from it (docs/content.md § Values): a player or a
// creature as a table of plain values, and the checks every API function puts its arguments through, so
// that a wrong argument is a clear error naming the function, never a crash or a silent default.
import { levelForXp } from "../../progression.js";
import type { ItemCatalogue } from "../content/item-catalogue.js";
import type { StoredEntity } from "../entities/entities.js";
import type { Session } from "../sessions/session.js";
import { LuaFunctionRef, type LuaValue } from "./lua-sandbox.js";
import { itemNamed } from "./shops.js";

/** The largest count of one item an API call takes (a quest's reward, an exchange). */
export const MAX_STACK_COUNT = 9999;

/** A player as a script sees it. */
export function playerValue(session: Session): LuaValue {
  const entity = session.entity;
  return {
    id: entity.id,
    name: session.nick,
    x: entity.x,
    y: entity.y,
    hp: entity.hp,
    hp_max: entity.hpMax,
    level: levelForXp(entity.xp),
    xp: entity.xp,
    account: session.accountId !== null,
  };
}

/** A creature as a script sees it. */
export function npcValue(entity: StoredEntity, kind: string): LuaValue {
  return {
    id: entity.id,
    name: entity.name ?? kind,
    kind,
    x: entity.x,
    y: entity.y,
    hp: entity.hp,
    hp_max: entity.hpMax,
  };
}

/** The entity id a script names: a player or creature table (its `id`), or the id itself. */
export function entityIdOf(who: LuaValue | undefined): number | null {
  if (typeof who === "number" && Number.isInteger(who)) return who;
  if (who !== null && typeof who === "object" && !Array.isArray(who) && !(who instanceof LuaFunctionRef)) {
    const id = (who as Record<string, LuaValue>).id;
    if (typeof id === "number" && Number.isInteger(id)) return id;
  }
  return null;
}

/** A table argument (a list comes as one keyed "1", "2", …). */
export function table(value: LuaValue | undefined, what: string): Record<string, LuaValue> {
  if (value === null || value === undefined || typeof value !== "object" || value instanceof LuaFunctionRef) {
    throw new Error(`${what}: expected a table`);
  }
  if (Array.isArray(value)) return Object.fromEntries(value.map((item, index) => [String(index + 1), item]));
  return value;
}

/** A text argument, cut to `max` characters. */
export function text(value: LuaValue | undefined, max: number): string {
  if (typeof value !== "string") throw new Error(`expected text, got ${value === null ? "nil" : typeof value}`);
  return value.length > max ? value.slice(0, max) : value;
}

export function questId(value: LuaValue | undefined, what: string): string {
  if (typeof value !== "string") throw new Error(`${what}: a quest id`);
  return value;
}

/** A whole number argument in [min, max]. */
export function wholeNumber(value: LuaValue | undefined, min: number, max: number, what: string): number {
  if (typeof value !== "number" || !Number.isInteger(value) || value < min || value > max) {
    throw new Error(
      `${what} must be a whole number ${min} … ${max}, got ${value === undefined ? "nil" : JSON.stringify(value)}`,
    );
  }
  return value;
}

/** `{ ["item name"] = count, … }` as stacks of catalogue items (nil: none). */
export function stacksOf(
  value: LuaValue | undefined,
  catalogue: ItemCatalogue,
  what: string,
): { itemId: number; count: number }[] {
  if (value === undefined || value === null) return [];
  return Object.entries(table(value, what)).map(([name, count]) => ({
    itemId: itemNamed(name, catalogue, what).id,
    count: wholeNumber(count, 1, MAX_STACK_COUNT, `${what}["${name}"]`),
  }));
}
