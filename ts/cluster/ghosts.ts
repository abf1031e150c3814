// Ghosts (docs/scaling.md § Ghosts): read-only copies of a neighbour region's entities near this
// region's ground, held in this region's entity store, so the broadcast shows players on both sides
// of a border to each other without knowing about regions. A ghost is never simulated here (it is
// spawned with the "room" driver: no movement window takes it, no room moves it); each GHOSTS frame
// from its owner replaces the set that owner publishes here, and an entity this region owns itself is
// never overwritten by a ghost (a frame sent before a handoff may arrive after it).
import type { Tlv } from "../protocol/tlv.js";
import { ENTITY_TYPE_PLAYER, type EntityStore, type StoredEntity } from "../server/entities/entities.js";
import { type ClusterLayout, distanceToRegion, GHOST_RADIUS_TILES } from "./layout.js";
import { FrameError } from "./link-frames.js";

/** One ghost as a GHOSTS frame carries it: id, typeId, x, y, hp, hpMax, elo, flags, name, meta. */
export type GhostEntry = [number, number, number, number, number, number, number, number, string, Tlv[]];

/** Of the entities `owned` (this region's own), those within the ghost radius of `neighbour`'s ground. */
export function ghostsFor(layout: ClusterLayout, neighbour: number, owned: Iterable<StoredEntity>): GhostEntry[] {
  const out: GhostEntry[] = [];
  for (const e of owned) {
    if (distanceToRegion(layout, neighbour, e.x, e.y) > GHOST_RADIUS_TILES) continue;
    out.push([e.id, e.typeId, e.x, e.y, e.hp, e.hpMax, e.elo, e.flags, e.name, e.meta]);
  }
  return out;
}

export class GhostTable {
  /** The ghosts each neighbour region published here, by entity id. */
  private readonly byRegion = new Map<number, Map<number, StoredEntity>>();
  /** Each ghost's meta as its last frame carried it (JSON): a frame's meta is a new array every time. */
  private readonly metaText = new Map<number, string>();
  stats = { frames: 0, spawned: 0, removed: 0, skippedOwned: 0 };

  constructor(private readonly entities: EntityStore) {}

  /** Whether `id` is a ghost here (not an entity this region owns). */
  isGhost(id: number): boolean {
    for (const ghosts of this.byRegion.values()) if (ghosts.has(id)) return true;
    return false;
  }

  /** Ghost `id`, if it is one here. */
  get(id: number): StoredEntity | undefined {
    for (const ghosts of this.byRegion.values()) {
      const ghost = ghosts.get(id);
      if (ghost !== undefined) return ghost;
    }
    return undefined;
  }

  /** The region that published ghost `id` here, or null when `id` is no ghost here. */
  ownerOf(id: number): number | null {
    for (const [region, ghosts] of this.byRegion) if (ghosts.has(id)) return region;
    return null;
  }

  /** The ghosts that are players (a neighbour's creatures wake near them: Game.otherPlayers). */
  *players(): IterableIterator<StoredEntity> {
    for (const ghosts of this.byRegion.values()) {
      for (const ghost of ghosts.values()) if (ghost.typeId === ENTITY_TYPE_PLAYER) yield ghost;
    }
  }

  get size(): number {
    let count = 0;
    for (const ghosts of this.byRegion.values()) count += ghosts.size;
    return count;
  }

  /** Replaces what region `from` publishes here with `entries`; throws FrameError on a malformed list. */
  apply(from: number, entries: unknown): void {
    if (!Array.isArray(entries)) throw new FrameError("ghosts: not a list");
    this.stats.frames++;
    let ghosts = this.byRegion.get(from);
    if (ghosts === undefined) {
      ghosts = new Map();
      this.byRegion.set(from, ghosts);
    }
    const seen = new Set<number>();
    for (const entry of entries as unknown[]) {
      if (!Array.isArray(entry) || entry.length !== 10 || !entry.slice(0, 8).every((n) => Number.isInteger(n))) {
        throw new FrameError("ghosts: bad entry");
      }
      const [id, typeId, x, y, hp, hpMax, elo, flags, name, meta] = entry as GhostEntry;
      const tlvs = Array.isArray(meta) ? meta : [];
      const metaText = JSON.stringify(tlvs);
      const existing = ghosts.get(id);
      if (existing === undefined && this.entities.get(id) !== undefined) {
        // Ours (handed here already), or another neighbour's ghost of it in flight: keep what is held.
        this.stats.skippedOwned++;
        continue;
      }
      seen.add(id);
      if (existing === undefined) {
        const fields = {
          typeId,
          x,
          y,
          hp,
          hpMax,
          elo,
          flags,
          name: String(name),
          meta: tlvs,
        };
        ghosts.set(id, this.entities.spawn(fields, "room", id));
        this.metaText.set(id, metaText);
        this.stats.spawned++;
        continue;
      }
      // The owner's changes show here as its own do there: hits, ratings, flags, and a new look (equipment
      // worn is meta) or kind; a frame that repeats the ghost changes nothing, so its kept entry stands.
      const metaChanged = this.metaText.get(id) !== metaText;
      if (
        existing.hp !== hp ||
        existing.hpMax !== hpMax ||
        existing.elo !== elo ||
        existing.flags !== flags ||
        existing.typeId !== typeId ||
        metaChanged
      ) {
        existing.hp = hp;
        existing.hpMax = hpMax;
        existing.elo = elo;
        existing.flags = flags;
        existing.typeId = typeId;
        if (metaChanged) {
          existing.meta = tlvs;
          this.metaText.set(id, metaText);
        }
        this.entities.changed(existing);
      }
      if (existing.x !== x || existing.y !== y) this.entities.move(existing, x, y);
    }
    for (const [id, ghost] of ghosts) {
      if (seen.has(id)) continue;
      ghosts.delete(id);
      this.metaText.delete(id);
      this.entities.remove(ghost);
      this.stats.removed++;
    }
  }

  /** The entity `id` arrived here as this region's own: its ghost (from whichever neighbour) goes first. */
  drop(id: number): void {
    for (const ghosts of this.byRegion.values()) {
      const ghost = ghosts.get(id);
      if (ghost === undefined) continue;
      ghosts.delete(id);
      this.metaText.delete(id);
      this.entities.remove(ghost);
      this.stats.removed++;
    }
  }
}
