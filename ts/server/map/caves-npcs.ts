// The bundled map's creatures: maps/caves.npcs.json (the kinds file,
// ts/server/content/npc-kinds.ts), written by scripts/make-map.ts beside caves.tmj.
// Speeds are action points per entity tick (ts/action-points.ts): 50 is a
// player's pace (6 steps/s); the hostiles are slower than a player, so
// running away works. attack / armor / elo feed the combat formula
// (ts/server/combat/formula.ts): a new player (elo 1000, bare hands) kills a
// rat in a blow or two and a spider in about five; a skeleton is a real fight.
// xp is what a kill is worth (docs/combat.md § Experience and levels): about
// the work of the fight (killXpFor), a rat a little more so that Old Tom's five
// and his reward make a newcomer's second level; the people of the hall nothing.
// Loot names items of caves.items.json (caves-items.ts); guards and rats drop nothing.
import type { NpcKind } from "../content/npc-kinds.js";
import { NPC_KINDS_VERSION } from "../content/npc-kinds.js";

export const CAVE_NPC_KINDS: NpcKind[] = [
  {
    name: "cave rat",
    typeId: 16,
    behaviour: "wander",
    speed: 25,
    hp: 8,
    perception: 0,
    leash: 0,
    wander: 5,
    respawnSeconds: 30,
    sprite: "rat",
    attack: 0,
    armor: 0,
    elo: 800,
    xp: 3,
    loot: [],
  },
  {
    name: "glow beetle",
    typeId: 17,
    behaviour: "wander",
    speed: 17,
    hp: 5,
    perception: 0,
    leash: 0,
    wander: 4,
    respawnSeconds: 30,
    sprite: "beetle",
    attack: 0,
    armor: 2,
    elo: 700,
    xp: 2,
    loot: [{ item: "glow crystal", chance: 0.3, min: 1, max: 1 }],
    light: 2,
  },
  {
    name: "cave spider",
    typeId: 18,
    behaviour: "hostile",
    speed: 34,
    hp: 20,
    perception: 6,
    leash: 14,
    wander: 4,
    respawnSeconds: 60,
    sprite: "spider",
    attack: 3,
    armor: 1,
    elo: 1050,
    xp: 10,
    loot: [{ item: "gold coin", chance: 0.5, min: 1, max: 3 }],
  },
  {
    name: "skeleton",
    typeId: 19,
    behaviour: "hostile",
    speed: 25,
    hp: 30,
    perception: 7,
    leash: 16,
    wander: 3,
    respawnSeconds: 90,
    sprite: "skeleton",
    attack: 4,
    armor: 3,
    elo: 1200,
    xp: 20,
    loot: [
      { item: "gold coin", chance: 0.8, min: 2, max: 6 },
      { item: "healing potion", chance: 0.25, min: 1, max: 1 },
      { item: "short sword", chance: 0.05, min: 1, max: 1 },
    ],
    // The dead know the caves' doors: a skeleton opens an unlocked one in its way (never a locked one).
    opensDoors: true,
  },
  {
    name: "hall guard",
    typeId: 20,
    behaviour: "guard",
    speed: 50,
    hp: 60,
    perception: 6,
    leash: 8,
    wander: 0,
    respawnSeconds: 120,
    sprite: "guard",
    attack: 7,
    armor: 6,
    elo: 1400,
    xp: 60,
    loot: [],
  },
  // The people of the great hall (issue 38): they stand at their posts, and the content scripts
  // (maps/caves.content/) give them words — a merchant, and an old man with work for newcomers. A
  // creature a script talks for is talked to, never fought (docs/combat.md).
  {
    name: "Mira the merchant",
    typeId: 21,
    behaviour: "guard",
    speed: 50,
    hp: 60,
    perception: 4,
    leash: 4,
    wander: 0,
    respawnSeconds: 60,
    sprite: "guard",
    attack: 5,
    armor: 4,
    elo: 1200,
    xp: 0,
    loot: [],
  },
  {
    name: "Old Tom",
    typeId: 22,
    behaviour: "guard",
    speed: 50,
    hp: 40,
    perception: 4,
    leash: 4,
    wander: 0,
    respawnSeconds: 60,
    sprite: "guard",
    attack: 3,
    armor: 2,
    elo: 1000,
    xp: 0,
    loot: [],
  },
];

/** caves.npcs.json: one kind per line. */
export function cavesNpcKindsJson(): string {
  // A kind without loot leaves the field out (the parser's default), as a host would write it.
  const lines = CAVE_NPC_KINDS.map(
    (kind) => "  " + JSON.stringify(kind.loot.length > 0 ? kind : { ...kind, loot: undefined }),
  );
  return `{\n "version": ${NPC_KINDS_VERSION},\n "kinds": [\n${lines.join(",\n")}\n ]\n}\n`;
}
