// What a chaos run's bot does (docs/scaling.md § The chaos run): the input a player gives, through the
// shared client core, so the run exercises the code the browser runs. It walks between the chests on
// both sides of the border (every walk there crosses it, so handoffs happen all the time), takes from a
// chest and puts back into one, drops part of its gold on the floor (a pile, which anyone walking over
// picks up), and now and then walks up to another player in view and strikes it (a step onto its tile:
// the chaos world allows PvP). It never uses
// what it carries: nothing the world holds is consumed, so the run can count every item.
import { ENTITY_TYPE_PLAYER } from "../../entity-types.js";
import { ACTION_DX, ACTION_DY } from "../../protocol/action.js";
import { ENTITY_TYPE_CHEST } from "../../item-types.js";
import { type Behaviour, type BotMind, Wander } from "../../bots/behaviours.js";
import { isEquipmentSlot } from "../../client/core/items.js";

/** Where a chest stands (the world's), for walking up to it. */
export interface ChestSpot {
  readonly x: number;
  readonly y: number;
}

/** A hook for trade between regions once it exists (issue 39): a bot next to another player may offer it something. */
export interface TradeHook {
  /** Called with the bot and a player beside it now and then; returns whether it did anything. */
  tryTrade(mind: BotMind, otherEntityId: number): boolean;
}

/** Counts of what the bots asked for (each request answered or not: the world's totals are the verdict). */
export interface CarrierCounts {
  takes: number;
  puts: number;
  drops: number;
  attacks: number;
  trades: number;
}

export class Carrier implements Behaviour {
  readonly counts: CarrierCounts = { takes: 0, puts: 0, drops: 0, attacks: 0, trades: 0 };
  private readonly wander = new Wander(12);

  constructor(
    private readonly chests: readonly ChestSpot[],
    private readonly trade: TradeHook | null = null,
  ) {}

  act(mind: BotMind, nowMs: number): void {
    const client = mind.client;
    const own = client.entities.get(client.ownEntityId);
    if (own !== undefined && own.hp === 0) return; // dead: it waits for the respawn
    if (client.attackTarget !== 0) return; // the core walks and bumps until the fight ends
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
      if (this.trade?.tryTrade(mind, other.id)) {
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
}
