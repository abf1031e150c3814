// What a bot does with its client: the input a player would give — click a
// tile, hold a key — and nothing more. Routing, scheduling, prediction and
// recovery all stay in the shared client core (ts/client/core/); a behaviour
// only picks targets, so the bots exercise exactly the code the browser runs.
import type { GameClient } from "../client/core/index.js";
import { ACTION_MAX } from "../protocol/action.js";
import { SeededRandom } from "../netsim/index.js";
import { isNpcType } from "../npc-types.js";
import { isFoe } from "../combat-rules.js";
import { ENTITY_FLAG_HOSTILE } from "../protocol/entity.js";
import { DIALOG_RETURN_DISMISSED } from "../protocol/dialog.js";
import { chebyshev, INTERACT_REACH_TILES } from "../client/core/index.js";
import { dialogChoice, dialogValues, nearestTalker, READ_MS, TALK_AGAIN_MS, within } from "./talk.js";

export interface Point {
  x: number;
  y: number;
}

/** One bot's view of itself: its client, its own random stream, and what it has been asked to do. */
export class BotMind {
  readonly random: SeededRandom;
  /** The tile this bot last clicked, while the click is being walked. */
  target: Point | null = null;
  /** When the bot may act next (pauses between goals, key changes). */
  nextActMs = 0;
  /** Replans counter of the client when the current target was clicked. */
  private replansAtClick = 0;
  goalsSet = 0;
  goalsReached = 0;
  /** Goals released before arrival (unreachable, e.g. the route ran into unknown territory). */
  goalsAbandoned = 0;
  /** Most replans any one goal needed. */
  maxReplansPerGoal = 0;

  constructor(
    readonly client: GameClient,
    seed: number,
  ) {
    this.random = new SeededRandom(seed);
  }

  /** Uniform integer in [min, max]. */
  int(min: number, max: number): number {
    return min + Math.floor(this.random.nextFloat() * (max - min + 1));
  }

  /** Whether the client knows (x, y) as a tile anyone may stand on. */
  walkable(x: number, y: number): boolean {
    return this.client.sim.isFree(x, y);
  }

  /** Clicks (x, y); true when the client planned a route there. */
  click(x: number, y: number): boolean {
    if (this.client.setGoal(x, y) !== "planned") return false;
    this.target = { x, y };
    this.goalsSet++;
    this.replansAtClick = this.client.stats.replans;
    return true;
  }

  /**
   * Settles the last click once the client has let go of its goal: arrived
   * (confirmed on the target, nothing pending) or abandoned. True when the bot
   * is idle — no click being walked.
   */
  settle(): boolean {
    const target = this.target;
    if (!target) return true;
    const client = this.client;
    if (client.goal !== null || client.pending.length > 0) return false;
    const at = client.confirmed;
    if (at && at.x === target.x && at.y === target.y) this.goalsReached++;
    else this.goalsAbandoned++;
    this.maxReplansPerGoal = Math.max(this.maxReplansPerGoal, client.stats.replans - this.replansAtClick);
    this.target = null;
    return true;
  }

  /** A new session (the client reconnected) starts without the old intent. */
  forget(): void {
    this.target = null;
  }
}

export interface Behaviour {
  /** Called every loop round while the bot plays. */
  act(mind: BotMind, nowMs: number): void;
}

/** Candidate tiles tried per round when looking for a reachable goal: bounds the A* work of one round. */
const CLICK_TRIES_PER_ROUND = 3;

/** Click-to-move to random tiles within `radius` (Chebyshev) of the bot, pausing 0.3–1.5 s between goals. */
export class Wander implements Behaviour {
  constructor(readonly radius = 30) {}

  act(mind: BotMind, nowMs: number): void {
    const walking = mind.target !== null;
    if (!mind.settle()) return;
    if (walking) {
      mind.nextActMs = nowMs + mind.int(300, 1500); // a pause after each goal, as a player looks around
      return;
    }
    if (nowMs < mind.nextActMs) return;
    const at = mind.client.confirmed;
    if (!at) return;
    for (let attempt = 0; attempt < CLICK_TRIES_PER_ROUND; attempt++) {
      const x = at.x + mind.int(-this.radius, this.radius);
      const y = at.y + mind.int(-this.radius, this.radius);
      if ((x !== at.x || y !== at.y) && mind.walkable(x, y) && mind.click(x, y)) return;
    }
  }
}

/**
 * Everyone walks to one goal. A goal beyond what the bot has seen cannot be
 * routed (unknown tiles block), so the bot clicks the way a player would: the
 * farthest walkable tile it can see in the goal's direction, then again from
 * there as new chunks arrive.
 */
export class GoTo implements Behaviour {
  arrived = 0;

  constructor(readonly goal: Point) {}

  act(mind: BotMind, nowMs: number): void {
    if (!mind.settle() || nowMs < mind.nextActMs) return;
    const at = mind.client.confirmed;
    if (!at || (at.x === this.goal.x && at.y === this.goal.y)) return;
    if (mind.click(this.goal.x, this.goal.y)) return;
    const dx = this.goal.x - at.x;
    const dy = this.goal.y - at.y;
    const distance = Math.max(Math.abs(dx), Math.abs(dy));
    for (const reach of [30, 22, 14, 7]) {
      if (reach >= distance) continue;
      const x = at.x + Math.round((dx * reach) / distance);
      const y = at.y + Math.round((dy * reach) / distance);
      if (mind.walkable(x, y) && mind.click(x, y)) return;
    }
    mind.nextActMs = nowMs + 1000; // nothing reachable that way yet: look again when more is known
  }
}

/**
 * Seeks out creatures: clicks a free tile beside the nearest NPC in view (hostiles first), lingers
 * there 1–3 s, and wanders like Wander when none is in view — so a swarm walks into the NPC
 * areas, wakes them, is noticed and chased, and runs off again, exercising the NPC room.
 */
export class Hunt implements Behaviour {
  private readonly wander = new Wander();
  /** Bots that have clicked their way next to a creature at least once. */
  reachedCreature = 0;

  act(mind: BotMind, nowMs: number): void {
    const walking = mind.target !== null;
    if (!mind.settle()) return;
    if (walking) {
      mind.nextActMs = nowMs + mind.int(1000, 3000); // linger beside it (or wherever the walk ended)
      return;
    }
    if (nowMs < mind.nextActMs) return;
    const at = mind.client.confirmed;
    if (!at) return;
    let best: Point | null = null;
    let bestScore = Infinity;
    for (const entity of mind.client.entities.values()) {
      if (!isNpcType(entity.typeId)) continue;
      const distance = Math.max(Math.abs(entity.x - at.x), Math.abs(entity.y - at.y));
      // A hostile counts as 8 tiles nearer than it is: the bots go looking for trouble.
      const score = distance - ((entity.flags & ENTITY_FLAG_HOSTILE) !== 0 ? 8 : 0);
      if (distance > 1 && score < bestScore) {
        best = entity;
        bestScore = score;
      }
    }
    if (best !== null) {
      for (let attempt = 0; attempt < 3; attempt++) {
        const x = best.x + mind.int(-1, 1);
        const y = best.y + mind.int(-1, 1);
        if ((x !== best.x || y !== best.y) && mind.walkable(x, y) && mind.click(x, y)) {
          this.reachedCreature++;
          return;
        }
      }
    }
    this.wander.act(mind, nowMs);
  }
}

/**
 * Fights creatures: attacks the nearest living one in view (hostiles first) with click-to-attack
 * (GameClient.attack: walk up, bump once a window until it dies), and wanders when none is in view or
 * none can be reached. Dead, it waits for the respawn like a player. For load: every blow goes through
 * the server's combat room, every kill through a corpse and a respawn.
 */
export class Fight implements Behaviour {
  private readonly wander = new Wander();
  /** When each bot may look for a creature again: a look costs up to three A* searches. */
  private readonly nextLookMs = new WeakMap<BotMind, number>();
  /** Attacks started (a creature chosen and routed to). */
  attacksStarted = 0;

  act(mind: BotMind, nowMs: number): void {
    const client = mind.client;
    const own = client.entities.get(client.ownEntityId);
    if (own !== undefined && own.hp === 0) return; // dead: it waits for the respawn, as a player does
    if (client.attackTarget !== 0) return; // the core walks and bumps until the creature dies
    const at = client.confirmed;
    if (!at) return;
    if (nowMs >= (this.nextLookMs.get(mind) ?? 0)) {
      this.nextLookMs.set(mind, nowMs + 500);
      if (this.attackNearest(mind, at)) return;
    }
    this.wander.act(mind, nowMs);
  }

  /** Starts an attack on the nearest reachable living creature in view (hostiles count 8 tiles nearer). */
  private attackNearest(mind: BotMind, at: Point): boolean {
    const candidates: { id: number; score: number }[] = [];
    for (const entity of mind.client.entities.values()) {
      if (!isFoe(entity.typeId, entity.hp, entity.flags, false)) continue;
      const distance = Math.max(Math.abs(entity.x - at.x), Math.abs(entity.y - at.y));
      candidates.push({ id: entity.id, score: distance - ((entity.flags & ENTITY_FLAG_HOSTILE) !== 0 ? 8 : 0) });
    }
    candidates.sort((a, b) => a.score - b.score);
    for (let i = 0; i < Math.min(3, candidates.length); i++) {
      if (mind.client.attack(candidates[i].id) === null) {
        mind.forget(); // the attack replaced any wandering goal
        this.attacksStarted++;
        return true;
      }
    }
    return false;
  }
}

/**
 * Talks to the creatures content scripts talk for (flagged is_interactable; issue 38, docs/content.md), as a
 * player does: walks up beside the nearest one in view (another than the last, when there is one), uses it
 * (GameClient.interact: the query the server takes as a talk), reads each dialog it is shown a moment
 * (0.3–1.2 s) and presses one of its buttons at random (the core re-sends the reply until the server closes the
 * dialog), then wanders on; it talks again 3–6 s after each talk (ts/bots/talk.ts, the server bench's talkers'
 * pace too) and wanders while none is in view. For load: the scripting room's events, dialogs and quests; on
 * the bundled map, Mira, Old Tom and the guards.
 */
export class Talk implements Behaviour {
  private readonly wander = new Wander();
  private readonly state = new WeakMap<
    BotMind,
    { nextTalkMs: number; lastTalkerId: number; pressAtMs: Map<number, number> }
  >();
  /** Talks started (a use sent), and dialogs answered (a button pressed or the dialog dismissed). */
  talks = 0;
  answered = 0;

  act(mind: BotMind, nowMs: number): void {
    const client = mind.client;
    let state = this.state.get(mind);
    if (state === undefined) {
      state = { nextTalkMs: 0, lastTalkerId: 0, pressAtMs: new Map() };
      this.state.set(mind, state);
    }
    // A dialog on screen is read, then answered, before the bot walks on.
    const shown = client.dialogs.shown;
    if (shown.size > 0) {
      for (const dialog of shown.values()) {
        let pressAtMs = state.pressAtMs.get(dialog.id);
        if (pressAtMs === undefined) {
          pressAtMs = nowMs + within(READ_MS, mind.random.nextFloat());
          state.pressAtMs.set(dialog.id, pressAtMs);
        }
        if (nowMs < pressAtMs) continue;
        const returnCode = dialogChoice(dialog.elements, mind.random.nextFloat());
        if (returnCode === DIALOG_RETURN_DISMISSED) client.dismissDialog(dialog.id);
        else client.replyDialog(dialog.id, returnCode, dialogValues(dialog.elements));
        state.pressAtMs.delete(dialog.id);
        this.answered++;
      }
      return;
    }
    state.pressAtMs.clear(); // dialogs the server closed before they were answered
    const at = client.confirmed;
    if (nowMs < state.nextTalkMs || !at) return this.wander.act(mind, nowMs);
    const talker = nearestTalker(client.entities.values(), at, state.lastTalkerId);
    if (talker === null) return this.wander.act(mind, nowMs);
    // Walking (to it, or where wandering led): the use waits for the walk to end, as the core's reach rule does.
    if (!mind.settle()) return;
    if (chebyshev(at, talker) <= INTERACT_REACH_TILES) {
      if (client.interact(talker.id) === null) {
        this.talks++;
        state.lastTalkerId = talker.id;
        state.nextTalkMs = nowMs + within(TALK_AGAIN_MS, mind.random.nextFloat());
      }
      return;
    }
    for (let attempt = 0; attempt < 3; attempt++) {
      const x = talker.x + mind.int(-1, 1);
      const y = talker.y + mind.int(-1, 1);
      if ((x !== talker.x || y !== talker.y) && mind.walkable(x, y) && mind.click(x, y)) return;
    }
    this.wander.act(mind, nowMs);
  }
}

/**
 * The built-in tile "stairs down" (maps/caves.tiles.json, id 19): the bundled map draws its stairs with it
 * and every dungeon level its stairs down (a world has level slots only with the built-in tiles: P-24).
 */
export const STAIRS_DOWN_TILE = 19;
/** A delver on stairs that have not taken it in this long (every level slot in use) wanders a while. */
const STAIRS_WAIT_MS = 5000;
/** Tiles (Chebyshev) around the bot searched for stairs: the client's view. */
const STAIRS_LOOK_TILES = 15;

/**
 * Takes the stairs down, again and again (issue 15): clicks the nearest stairs down in view — the map's,
 * then each level's — stands on them while the server makes the level (the core snaps to the level's
 * stairs up: a teleport), and looks for that level's stairs down, wandering until they come into view. On
 * stairs that do not take it for STAIRS_WAIT_MS it wanders a while. For load: levels generated, put into
 * the world and dropped; for a look at them, with --count 1.
 */
export class Delve implements Behaviour {
  private readonly wander = new Wander();
  private readonly state = new WeakMap<
    BotMind,
    { last: Point | null; onStairsSinceMs: number; wanderUntilMs: number }
  >();
  /** Level changes seen (the bot's confirmed tile jumped: stairs taken). */
  descents = 0;

  act(mind: BotMind, nowMs: number): void {
    const at = mind.client.confirmed;
    if (!at) return;
    let state = this.state.get(mind);
    if (state === undefined) {
      state = { last: null, onStairsSinceMs: 0, wanderUntilMs: 0 };
      this.state.set(mind, state);
    }
    if (state.last !== null && Math.max(Math.abs(at.x - state.last.x), Math.abs(at.y - state.last.y)) > 1) {
      this.descents++;
      mind.forget(); // a route planned in the level above means nothing here
      state.onStairsSinceMs = 0;
    }
    state.last = { x: at.x, y: at.y };
    if (!mind.settle()) return;
    const sim = mind.client.sim;
    if (sim.getTile(at.x, at.y) === STAIRS_DOWN_TILE) {
      if (state.onStairsSinceMs === 0) state.onStairsSinceMs = nowMs;
      if (nowMs - state.onStairsSinceMs < STAIRS_WAIT_MS) return; // the level is being made
      state.onStairsSinceMs = 0;
      state.wanderUntilMs = nowMs + STAIRS_WAIT_MS;
    }
    if (nowMs >= state.wanderUntilMs) {
      const stairs = nearestTile(mind, at, STAIRS_DOWN_TILE);
      if (stairs !== null && mind.click(stairs.x, stairs.y)) return;
    }
    this.wander.act(mind, nowMs);
  }
}

/** The nearest tile with id `tileId` within STAIRS_LOOK_TILES of `at` (not `at` itself), or null. */
function nearestTile(mind: BotMind, at: Point, tileId: number): Point | null {
  const sim = mind.client.sim;
  for (let ring = 1; ring <= STAIRS_LOOK_TILES; ring++) {
    for (let dy = -ring; dy <= ring; dy++) {
      for (let dx = -ring; dx <= ring; dx++) {
        if (Math.max(Math.abs(dx), Math.abs(dy)) !== ring) continue;
        if (sim.getTile(at.x + dx, at.y + dy) === tileId) return { x: at.x + dx, y: at.y + dy };
      }
    }
  }
  return null;
}

/** Holds a random direction (1..8), changing it every 1.5–2.5 s. */
export class Keyboard implements Behaviour {
  act(mind: BotMind, nowMs: number): void {
    if (nowMs < mind.nextActMs) return;
    mind.client.setHeldAction(mind.int(1, ACTION_MAX));
    mind.nextActMs = nowMs + mind.int(1500, 2500);
  }
}

/**
 * The walkable tile farthest (in steps, by breadth-first search over THE rule)
 * from `from` among the tiles the client has seen: a default far goal for
 * `goto`. Ties go to the first found, so the choice is deterministic.
 */
export function farthestReachable(client: GameClient, from: Point): Point {
  const sim = client.sim;
  const width = sim.width;
  const height = sim.height;
  const originX = sim.originX;
  const originY = sim.originY;
  const distance = new Int32Array(width * height).fill(-1);
  const queue = new Int32Array(width * height);
  let head = 0;
  let tail = 0;
  const start = (from.y - originY) * width + (from.x - originX);
  distance[start] = 0;
  queue[tail++] = start;
  let farthest = start;
  while (head < tail) {
    const cell = queue[head++];
    const x = originX + (cell % width);
    const y = originY + Math.floor(cell / width);
    const allowed = sim.allowedSteps(x, y);
    for (let action = 1; action <= ACTION_MAX; action++) {
      if ((allowed & (1 << action)) === 0) continue;
      const nx = x + sim.actionDx(action) - originX;
      const ny = y + sim.actionDy(action) - originY;
      if (nx < 0 || ny < 0 || nx >= width || ny >= height) continue;
      const next = ny * width + nx;
      if (distance[next] >= 0) continue;
      distance[next] = distance[cell] + 1;
      if (distance[next] > distance[farthest]) farthest = next;
      queue[tail++] = next;
    }
  }
  return { x: originX + (farthest % width), y: originY + Math.floor(farthest / width) };
}
