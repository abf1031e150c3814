// What the server's kinds file and the clients' reading of /api/world agree on
// about NPC kinds: where their type_ids start and which behaviours exist. The
// server validates a map's kinds file with these (ts/server/content/npc-kinds.ts), the
// client validates the list the server sends (ts/client/core/kinds.ts).

/** type_ids below this are the built-in types (0 player, 1 creature, 2 chest, 3 sign post, …); NPC kinds start here. */
export const NPC_TYPE_ID_MIN = 16;

/**
 * - wander: a passive critter that ambles within `wander` tiles of its home and never notices anyone.
 * - hostile: notices the nearest player within `perception`, chases it, and walks home once the
 *   player is farther than `leash` from home (the BrowserQuest pattern).
 * - guard: stands on its post; turns hostile only when attacked, then as hostile.
 */
export type NpcBehaviour = "wander" | "hostile" | "guard";
export const NPC_BEHAVIOURS: readonly NpcBehaviour[] = ["wander", "hostile", "guard"];

/** Whether `typeId` belongs to an NPC kind rather than a built-in type. */
export function isNpcType(typeId: number): boolean {
  return typeId >= NPC_TYPE_ID_MIN;
}
