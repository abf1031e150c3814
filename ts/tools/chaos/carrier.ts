// What a chaos run's bot does (docs/scaling.md § The chaos run): the input a player gives, through the
// shared client core, so the run exercises the code the browser runs. It walks between the chests on
// both sides of the border (every walk there crosses it, so handoffs happen all the time), takes from a
// chest and puts back into one, drops part of its gold on the floor (a pile, which anyone walking over
// picks up), now and then walks up to another player in view and trades with it (trader.ts) or strikes it
// (a step onto its tile: the chaos world allows PvP), and takes the stairs down now and then: below, it walks
// about the level a while (dropping part of what it carries there too, a pile kept with the level) and goes
// back up by the stairs it came down — it strikes nobody below, so nothing but a fault or a bug moves it out
// of a level any other way. It never uses what it carries: nothing the world holds is consumed, so the run
// can count every item.
import { ENTITY_TYPE_PLAYER } from "../../entity-types.js";
import { ACTION_DX, ACTION_DY } from "../../protocol/action.js";
import { ENTITY_TYPE_CHEST } from "../../item-types.js";
import { type Behaviour, type BotMind, Wander } from "../../bots/behaviours.js";
import { isEquipmentSlot } from "../../client/core/items.js";
import type { TradeHook } from "./trader.js";

/** Where a chest stands (the world's), for walking up to it. */
export interface ChestSpot {
  readonly x: number;
  readonly y: number;
}

/** Where a bot is below: the level's stairs up it arrived on, and when it goes back up. */
interface Below {
  readonly entry: { readonly x: number; readonly y: number };
  readonly upAtMs: number;
}

/** Counts of what the bots asked for (each request answered or not: the world's totals are the verdict). */
export interface CarrierCounts {
  takes: number;
  puts: number;
  drops: number;
  attacks: number;
  trades: number;
  /** Walks onto stairs down begun, and arrivals below seen. */
  stairsDown: number;
  arrivedBelow: number;
  /** Walks back to a level's stairs up begun. */
  stairsUp: number;
}

export class Carrier implements Behaviour {
  readonly counts: CarrierCounts = {
    takes: 0,
    puts: 0,
    drops: 0,
    attacks: 0,
    trades: 0,
    stairsDown: 0,
    arrivedBelow: 0,
    stairsUp: 0,
  };
  private readonly wander = new Wander(12);
  private readonly below = new Map<BotMind, Below>();

  constructor(
    private readonly chests: readonly ChestSpot[],
    private readonly trade: TradeHook | null = null,
    /** The map's stairs down, and whether a tile is on the map (off it is a dungeon level). */
    private readonly stairs: {
      readonly down: readonly ChestSpot[];
      onMap(x: number, y: number): boolean;
    } | null = null,
  ) {}

  act(mind: BotMind, nowMs: number): void {
    const client = mind.client;
    const own = client.entities.get(client.ownEntityId);
    if (own !== undefined && own.hp === 0) return; // dead: it waits for the respawn
    if (client.attackTarget !== 0) return; // the core walks and bumps until the fight ends
    if (this.trade?.busy(mind, nowMs)) return; // it stays beside the other trader until the trade is over
    const walking = mind.target !== null;
    if (!mind.settle()) return;
    if (walking) {
      mind.nextActMs = nowMs + mind.int(200, 900);
      return;
    }
    if (nowMs < mind.nextActMs) return;
    const at = client.confirmed;
    if (!at) return;
    mind.nextActMs = nowMs + mind.int(300, 1200);
    if (client.items.pending.length > 0) return; // one item request at a time, as a player clicks
    const bag = client.items.inventory?.stacks.filter((stack) => !isEquipmentSlot(stack.slot)) ?? [];
    if (this.stairs !== null && !this.stairs.onMap(at.x, at.y)) return this.actBelow(mind, nowMs, at, bag);
    this.below.delete(mind);
    if (this.stairs !== null && mind.random.nextFloat() < 0.06) {
      // Down the stairs: a click onto them (the step onto the tile takes the player down).
      const spot = this.stairs.down[mind.int(0, this.stairs.down.length - 1)];
      if (mind.click(spot.x, spot.y)) {
        this.counts.stairsDown++;
        return;
      }
    }
    const chest = [...client.entities.values()].find(
      (entity) =>
        entity.typeId === ENTITY_TYPE_CHEST && Math.max(Math.abs(entity.x - at.x), Math.abs(entity.y - at.y)) <= 1,
    );
    const roll = mind.random.nextFloat();
    if (chest !== undefined && roll < 0.45) {
      // Beside a chest: take a slot (part of it), or put a stack (part of it) in.
      if (bag.length === 0 || mind.random.nextFloat() < 0.5) {
        if (client.take(chest.id, mind.int(0, 3), mind.int(0, 40)) !== null) this.counts.takes++;
      } else {
        const stack = bag[mind.int(0, bag.length - 1)];
        if (client.put(chest.id, stack.slot, mind.int(0, stack.count)) !== null) this.counts.puts++;
      }
      return;
    }
    if (bag.length > 0 && roll < 0.6) {
      const stack = bag[mind.int(0, bag.length - 1)];
      if (client.drop(stack.slot, mind.int(1, stack.count)) !== null) this.counts.drops++;
      return;
    }
    const other = [...client.entities.values()].find(
      (entity) =>
        entity.typeId === ENTITY_TYPE_PLAYER &&
        entity.id !== client.ownEntityId &&
        entity.hp > 0 &&
        Math.max(Math.abs(entity.x - at.x), Math.abs(entity.y - at.y)) <= 6,
    );
    if (other !== undefined && roll < 0.75) {
      const near = Math.max(Math.abs(other.x - at.x), Math.abs(other.y - at.y)) <= 2;
      if (near && mind.random.nextFloat() < 0.5 && this.trade?.tryTrade(mind, other.id, nowMs)) {
        this.counts.trades++;
        return;
      }
      const dx = Math.sign(other.x - at.x);
      const dy = Math.sign(other.y - at.y);
      if (Math.max(Math.abs(other.x - at.x), Math.abs(other.y - at.y)) === 1) {
        // Beside it: a step onto its tile is a blow (PvP), as a player's key press is.
        client.pressAction(ACTION_DX.findIndex((x, code) => code > 0 && x === dx && ACTION_DY[code] === dy));
        mind.nextActMs = nowMs + mind.int(150, 400);
        this.counts.attacks++;
        return;
      }
      if (mind.walkable(other.x - dx, other.y - dy) && mind.click(other.x - dx, other.y - dy)) return;
    }
    if (roll < 0.9) {
      // Off to another chest, most likely across the border.
      const spot = this.chests[mind.int(0, this.chests.length - 1)];
      for (let attempt = 0; attempt < 3; attempt++) {
        const x = spot.x + mind.int(-1, 1);
        const y = spot.y + mind.int(-1, 1);
        if ((x !== spot.x || y !== spot.y) && mind.walkable(x, y) && mind.click(x, y)) return;
      }
    }
    this.wander.act(mind, nowMs);
  }

  /** Below, in a level: it walks about (and drops things) a while, then walks back onto the stairs up. */
  private actBelow(
    mind: BotMind,
    nowMs: number,
    at: { x: number; y: number },
    bag: readonly { slot: number; count: number }[],
  ): void {
    let below = this.below.get(mind);
    if (below === undefined) {
      // Just arrived: on the level's stairs up.
      below = { entry: { x: at.x, y: at.y }, upAtMs: nowMs + mind.int(4_000, 15_000) };
      this.below.set(mind, below);
      this.counts.arrivedBelow++;
    }
    const { entry } = below;
    if (nowMs >= below.upAtMs) {
      if (at.x !== entry.x || at.y !== entry.y) {
        if (mind.click(entry.x, entry.y)) this.counts.stairsUp++;
        else this.wander.act(mind, nowMs);
        return;
      }
      // Standing on the stairs up (back from a restart, or never off them): a step off, then back on.
    }
    const client = mind.client;
    if (bag.length > 0 && mind.random.nextFloat() < 0.15) {
      const stack = bag[mind.int(0, bag.length - 1)];
      if (client.drop(stack.slot, mind.int(1, stack.count)) !== null) this.counts.drops++;
      return;
    }
    const other = [...client.entities.values()].find(
      (entity) =>
        entity.typeId === ENTITY_TYPE_PLAYER &&
        entity.id !== client.ownEntityId &&
        Math.max(Math.abs(entity.x - at.x), Math.abs(entity.y - at.y)) <= 2,
    );
    if (other !== undefined && mind.random.nextFloat() < 0.3 && this.trade?.tryTrade(mind, other.id, nowMs)) {
      this.counts.trades++;
      return;
    }
    // Near the stairs up: a short walk about, so it finds its way back.
    for (let attempt = 0; attempt < 3; attempt++) {
      const x = entry.x + mind.int(-4, 4);
      const y = entry.y + mind.int(-4, 4);
      if ((x !== entry.x || y !== entry.y) && mind.walkable(x, y) && mind.click(x, y)) return;
    }
  }
}
