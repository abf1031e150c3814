// When creatures think: the wake cycle and the timing wheel (docs/server.md § NPCs).
//  - Wake. Once a second — spread over the second's entity ticks, a slice of the players each — the
//    NPCs within WAKE_RADIUS of a player are found (through the roster's creatures-only index) and each
//    one's distance to the nearest player noted. The rest sleep: they gain no energy, think nothing and
//    cost nothing — creatures far from everyone go idle, as the big tile-MMO servers do.
//  - The wheel. An awake NPC's energy grows by `speed` per entity tick in closed form (npc.ts), so nothing
//    visits it until the tick its energy reaches ACTION_COST: the wheel holds each awake NPC under the
//    entity tick it is due. The NPCs due this tick join the ready queue (ready-queue.ts), nearest first,
//    where the think loop (npc-room.ts) takes them while the budget lasts.
import { CHUNK_SIZE } from "../../constants.js";
import { VIEW_RADIUS } from "../entities/view.js";
import { atPost, energyAt, type Npc, nextDue } from "./npc.js";
import type { NpcRoster } from "./npc-roster.js";
import { ReadyQueue } from "./ready-queue.js";

/** NPCs farther than this (Chebyshev) from every player sleep. Beyond the view square, so nothing in view is frozen. */
export const WAKE_RADIUS = VIEW_RADIUS + 9;
/**
 * One wake cycle looks near every player once, spread over this many entity ticks (1 s at 12 Hz):
 * each entity tick takes its slice of the players, so no tick carries the whole pass. An NPC is
 * awake while a player was near it in this cycle or the last. WAKE_RADIUS exceeds the view by 9
 * tiles, more than a player walks in the 2 s that can take, so nothing in view is ever asleep.
 */
export const WAKE_CYCLE_ENTITY_TICKS = 12;
/** Entity ticks the timing wheel spans: more than the longest wait for an action (ACTION_COST / SPEED_MIN = 100). */
const WHEEL_TICKS = 128;

export class WakeSchedule {
  /** The timing wheel: wheel[t % WHEEL_TICKS][0 .. wheelCounts[…]) are the NPCs filed under entity tick t (stale entries skipped). */
  private readonly wheel: (Npc | null)[][] = Array.from({ length: WHEEL_TICKS }, () => []);
  private readonly wheelCounts = new Int32Array(WHEEL_TICKS);
  /** NPCs whose energy is full, waiting for budget: nearest first (ready-queue.ts). */
  readonly ready = new ReadyQueue<Npc>(WAKE_RADIUS);
  /** The wake cycle being run; an NPC stamped with it or the one before is awake. */
  private wakeCycle = 1;
  /** The players of this cycle (taken at its start) and how many of them have been looked near. */
  private wakePlayers: { readonly x: number; readonly y: number }[] = [];
  private wakeDone = 0;
  /** NPCs found near a player so far in this cycle. */
  private cycleAwake = 0;
  private awakeCount = 0;
  /** NPCs that decided at least twice in the last complete wake cycle (one second). */
  decidingTwice = 0;
  /** The entity tick being run, or the last one run. */
  now = 0;

  constructor(
    private readonly roster: NpcRoster,
    /** The entities of the players the creatures wake near. */
    private readonly players: () => Iterable<{ readonly x: number; readonly y: number }>,
  ) {}

  /** NPCs a player was near in the last complete wake cycle (or this one, if more). */
  get awake(): number {
    return Math.max(this.awakeCount, this.cycleAwake);
  }

  /** Whether a player was near `npc` in this wake cycle or the last. */
  isAwake(npc: Npc): boolean {
    return npc.wakeStamp >= this.wakeCycle - 1;
  }

  /** Marks npc awake in this cycle (a creature arriving from another region was awake there). */
  keepAwake(npc: Npc): void {
    npc.wakeStamp = this.wakeCycle;
  }

  /** Files `npc` under entity tick `tick` (at least the next one) in the timing wheel. */
  file(npc: Npc, tick: number): void {
    const at = Math.max(tick, this.now + 1);
    npc.dueTick = at;
    const slot = at % WHEEL_TICKS;
    const count = this.wheelCounts[slot];
    const bucket = this.wheel[slot];
    if (count < bucket.length) bucket[count] = npc;
    else bucket.push(npc);
    this.wheelCounts[slot] = count + 1;
  }

  /**
   * Moves the NPCs filed under `entityTick` into the ready queue at their distance to the nearest
   * player. Entries that are stale (re-filed since, dead) are skipped; NPCs that fell asleep keep
   * their energy and leave the wheel until a wake pass finds a player near them again.
   */
  takeDue(entityTick: number): void {
    const slot = entityTick % WHEEL_TICKS;
    const bucket = this.wheel[slot];
    const filed = this.wheelCounts[slot];
    this.wheelCounts[slot] = 0;
    for (let i = 0; i < filed; i++) {
      const npc = bucket[i]!;
      bucket[i] = null; // an emptied slot keeps no removed NPC reachable
      if (!npc.alive || npc.dueTick !== entityTick) continue;
      npc.dueTick = -1;
      if (!this.isAwake(npc)) {
        npc.energy = energyAt(npc, entityTick);
        npc.energyTick = entityTick;
        continue;
      }
      npc.ready = true;
      this.ready.push(npc, npc.nearest);
    }
  }

  /**
   * This entity tick's slice of the wake cycle: for every NPC within WAKE_RADIUS of the slice's
   * players, its distance to the nearest of them; the newly woken are filed in the timing wheel.
   * Sleeping NPCs are never touched: only the creatures in the chunks around players are looked at.
   */
  wake(entityTick: number): void {
    const phase = entityTick % WAKE_CYCLE_ENTITY_TICKS;
    if (phase === 0) {
      this.tallyDecisions();
      this.awakeCount = this.cycleAwake;
      this.cycleAwake = 0;
      this.wakeCycle++;
      this.wakePlayers = this.roster.size === 0 ? [] : [...this.players()];
      this.wakeDone = 0;
    }
    const players = this.wakePlayers;
    const end = Math.ceil((players.length * (phase + 1)) / WAKE_CYCLE_ENTITY_TICKS);
    const cycle = this.wakeCycle;
    const roster = this.roster;
    for (; this.wakeDone < end; this.wakeDone++) {
      const player = players[this.wakeDone];
      const px = player.x;
      const py = player.y;
      const cx0 = Math.floor((px - WAKE_RADIUS) / CHUNK_SIZE);
      const cx1 = Math.floor((px + WAKE_RADIUS) / CHUNK_SIZE);
      const cy0 = Math.floor((py - WAKE_RADIUS) / CHUNK_SIZE);
      const cy1 = Math.floor((py + WAKE_RADIUS) / CHUNK_SIZE);
      for (let cy = cy0; cy <= cy1; cy++) {
        for (let cx = cx0; cx <= cx1; cx++) {
          const bucket = roster.inChunk(cx, cy);
          if (bucket === undefined) continue;
          for (let i = 0; i < bucket.length; i++) {
            const npc = bucket[i];
            const entity = npc.entity;
            const distance = Math.max(Math.abs(entity.x - px), Math.abs(entity.y - py));
            if (distance > WAKE_RADIUS) continue;
            if (npc.wakeStamp !== cycle) {
              npc.wakeStamp = cycle;
              npc.nearest = distance;
              this.cycleAwake++;
              // Newly woken (asleep, it gained nothing): filed under the tick its energy is full.
              // A guard at its post has nothing to decide and stays out of the wheel.
              if (npc.dueTick < 0 && !npc.ready && !atPost(npc)) {
                npc.energyTick = entityTick;
                this.file(npc, nextDue(npc));
              }
            } else if (distance < npc.nearest) {
              npc.nearest = distance;
            }
          }
        }
      }
    }
  }

  /**
   * At the end of a wake cycle (one second): how many NPCs decided at least twice in it — the
   * issue's measure of a live world — and a fresh count for the next. One pass over the NPCs a second.
   */
  private tallyDecisions(): void {
    let twice = 0;
    for (const npc of this.roster.values()) {
      if (npc.decisions >= 2) twice++;
      npc.decisions = 0;
    }
    this.decidingTwice = twice;
  }
}
