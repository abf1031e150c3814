// The message log's combat lines (issue 13; kept apart from chat, issue 18):
// one sentence per blow this player took part in, from the CombatFeed's
// notices — "You hit the cave spider for 5.", "The cave spider misses you.",
// "You killed the cave rat (+8 rating).", "The skeleton killed you." A creature
// is named by its looked-up name or its kind's, with "the"; a player by its
// nick, without. The wording is a pure function so tests can read it.
import type { CombatNotice } from "../core/combat.js";
import type { EntityInfo } from "../core/entity-table.js";
import type { NpcKind } from "../core/kinds.js";
import type { HudLine } from "../render/hud.js";
import * as P from "../render/palette.js";
import { foldForFont } from "./chat-log.js";
import { isCreatureType } from "./creature-list.js";

/** Who took part in a blow, as a sentence names them. */
export interface Combatant {
  /** "cave spider", "Bob"; "" for the own player. */
  readonly name: string;
  readonly own: boolean;
  /** A creature takes "the"; a player does not. */
  readonly creature: boolean;
  /** Gone from view before its notice came: "something". */
  readonly unseen?: boolean;
}

/** The sources a name is looked up in: the entities in view, the name lookups, the world's kinds. */
export interface CombatNames {
  readonly ownId: number;
  readonly entities: ReadonlyMap<number, Pick<EntityInfo, "typeId">>;
  readonly names: ReadonlyMap<number, string>;
  readonly kinds: ReadonlyMap<number, NpcKind>;
}

/** Entity `id` as a combatant; one gone from view (and unnamed) before its notice came is "something". */
export function combatantOf(id: number, sources: CombatNames): Combatant {
  if (id === sources.ownId) return { name: "", own: true, creature: false };
  const entity = sources.entities.get(id);
  if (entity === undefined && !sources.names.has(id))
    return { name: "something", own: false, creature: false, unseen: true };
  const creature = entity !== undefined && isCreatureType(entity.typeId);
  const kindName = entity === undefined ? undefined : sources.kinds.get(entity.typeId)?.name;
  const name =
    sources.names.get(id) ?? kindName ?? (entity === undefined ? "something" : creature ? "creature" : "someone");
  return { name: foldForFont(name), own: false, creature };
}

/** How a sentence's subject names `who`: "You", "The cave rat", "Bob". */
export function subjectName(who: Combatant): string {
  if (who.own) return "You";
  if (who.unseen) return "Something";
  return who.creature ? `The ${who.name}` : who.name;
}

/** How a sentence's object names `who`: "you", "the cave rat", "Bob". */
export function objectName(who: Combatant): string {
  if (who.own) return "you";
  return who.creature ? `the ${who.name}` : who.name;
}

/** The sentence for one notice. */
export function combatSentence(
  notice: Pick<CombatNotice, "kind" | "amount">,
  attacker: Combatant,
  target: Combatant,
): string {
  const by = subjectName(attacker);
  const at = objectName(target);
  switch (notice.kind) {
    case "hit":
      return `${by} ${attacker.own ? "hit" : "hits"} ${at} for ${notice.amount}.`;
    case "miss":
      return `${by} ${attacker.own ? "miss" : "misses"} ${at}.`;
    case "kill":
      // The amount is the rating the killer gained: worth saying when it is ours.
      return attacker.own && notice.amount > 0
        ? `${by} killed ${at} (+${notice.amount} rating).`
        : `${by} killed ${at}.`;
  }
}

/** The log line for one notice, coloured by what it means for the player. */
export function combatLogLine(notice: CombatNotice, sources: CombatNames): HudLine {
  const attacker = combatantOf(notice.attackerId, sources);
  const target = combatantOf(notice.targetId, sources);
  const text = combatSentence(notice, attacker, target);
  if (notice.kind === "kill") return { text, colour: target.own ? P.COMBAT_DEATH : P.COMBAT_KILL };
  if (target.own) return { text, colour: notice.kind === "hit" ? P.COMBAT_TAKEN : P.COMBAT_QUIET };
  return { text, colour: notice.kind === "hit" ? P.COMBAT_DEALT : P.COMBAT_QUIET };
}
