// Fixtures for the client's NPC tests: the bundled map's kinds as the server
// will list them at /api/world (issue 12), entity entries built from them, and
// the datagrams a scripted server sends for them. No test here needs a server
// with NPCs: the client is fed decoded entities (or real encoded packets) we control.
import type { NpcKind } from "../ts/client/core/kinds.js";
import { ENTITY_FLAG_HOSTILE, type EntityEntry } from "../ts/protocol/entity.js";

export const CAVE_KINDS: NpcKind[] = [
  { typeId: 16, name: "cave rat", sprite: "rat", behaviour: "wander", speed: 25 },
  { typeId: 17, name: "glow beetle", sprite: "beetle", behaviour: "wander", speed: 17, light: 2 },
  { typeId: 18, name: "cave spider", sprite: "spider", behaviour: "hostile", speed: 34 },
  { typeId: 19, name: "skeleton", sprite: "skeleton", behaviour: "hostile", speed: 25 },
  { typeId: 20, name: "hall guard", sprite: "guard", behaviour: "guard", speed: 50 },
  { typeId: 21, name: "Mira the merchant", sprite: "guard", behaviour: "guard", speed: 50 },
  { typeId: 22, name: "Old Tom", sprite: "guard", behaviour: "guard", speed: 50 },
];

export const RAT = 16;
export const BEETLE = 17;
export const SPIDER = 18;
export const SKELETON = 19;
export const GUARD = 20;

/** An entity entry as the server encodes it (and the client's EntityTable holds it). */
export function entity(id: number, typeId: number, x: number, y: number, hostile = false): EntityEntry {
  return { id, typeId, x, y, hp: 10, hpMax: 10, elo: 0, flags: hostile ? ENTITY_FLAG_HOSTILE : 0, meta: [] };
}
