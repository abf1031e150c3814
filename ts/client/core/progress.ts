// A character that grows, on the client (issue 39; docs/client.md § Experience and levels): the player's
// level as its own entity entries say it — the `level` TLV every client in view reads, state that converges
// like every entry — and its experience as its own EntityDetail says it (the `progress` TLV: all of it,
// where its level began, where the next begins). Nothing is predicted and no curve is known here: the server
// decides and says. A level rise seen in the own entries is a level-up (the page writes its log line); an
// own detail that describes a lower level than the entries is stale (its push was lost), and the host asks
// for the own detail again (docs/protocol.md § 18.8, the loss model).
import type { EntityDetailView } from "../../protocol/entity-detail.js";
import { decodeTlvs, type Tlv } from "../../protocol/tlv.js";

/** What the own detail last said of the player's experience. */
export interface Progress {
  /** All the experience it has. */
  readonly xp: number;
  /** Where its level began and where the next begins (0: it is at the highest level). */
  readonly levelXp: number;
  readonly nextXp: number;
}

/** The level an entity's TLVs show, or undefined (a creature, or a server without levels). */
export function levelOfMeta(meta: readonly Tlv[]): number | undefined {
  for (let index = 0; index < meta.length; index++) {
    const tlv = meta[index];
    if (tlv.kind === "level") return tlv.value;
  }
  return undefined;
}

/** How far the player is through its level, 0 … 1 (1 at the highest level, where there is no next). */
export function progressShare(progress: Progress): number {
  if (progress.nextXp === 0) return 1;
  const span = progress.nextXp - progress.levelXp;
  return span > 0 ? Math.min(1, Math.max(0, (progress.xp - progress.levelXp) / span)) : 0;
}

export class ProgressView {
  /** The level the own entries show; undefined before the first (or on a server without levels). */
  private entryLevel: number | undefined = undefined;
  /** The level and the progress the newest own detail showed. */
  private detailLevel: number | undefined = undefined;
  private shown: Progress | null = null;
  /** Whether the host was told to ask for the own detail for the level the entries show now. */
  private asked = false;
  private readonly listeners = new Set<(level: number) => void>();
  private readonly gainListeners = new Set<(xp: number) => void>();
  /** Bumped on every change, so a host redraws only when it moved. */
  revision = 0;

  /** The player's level (its own entries), or undefined before the server said. */
  get level(): number | undefined {
    return this.entryLevel;
  }

  /** The player's experience (its own detail), or null before the server said. */
  get progress(): Progress | null {
    return this.shown;
  }

  /** Calls `listener` with the new level whenever the own level rises; returns a function that stops it. */
  listen(listener: (level: number) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /**
   * Calls `listener` with the experience gained whenever an own detail says more than the one before (a
   * kill, a share of a party's kill, a quest): the log's "+12 experience". A lost push folds its gain into
   * the next one's; the first detail of a session is where it stands, no gain. Returns a function that stops it.
   */
  listenGains(listener: (xp: number) => void): () => void {
    this.gainListeners.add(listener);
    return () => this.gainListeners.delete(listener);
  }

  /** The player's own detail arrived: its level and progress, when the server sends them. */
  receiveOwnDetail(view: EntityDetailView): void {
    let level: number | undefined;
    let progress: Progress | null = null;
    for (const tlv of decodeTlvs(view.bytes, view.metaStart, view.metaEnd)) {
      if (tlv.kind === "level") level = tlv.value;
      else if (tlv.kind === "progress") progress = { xp: tlv.xp, levelXp: tlv.levelXp, nextXp: tlv.nextXp };
    }
    this.asked = false;
    if (progress === null) return; // a server without levels, or a detail of another kind: nothing to show
    // Details may arrive out of order: experience never falls, so an older one is let go.
    if (this.shown !== null && progress.xp < this.shown.xp) return;
    const gained = this.shown === null ? 0 : progress.xp - this.shown.xp;
    this.shown = progress;
    if (gained > 0) for (const listener of this.gainListeners) listener(gained);
    this.detailLevel = level;
    this.revision++;
  }

  /** The own entity's entries were confirmed (the entity cursor advanced): its level as they show it. */
  observeOwnEntry(meta: readonly Tlv[]): void {
    const level = levelOfMeta(meta);
    if (level === this.entryLevel) return;
    const before = this.entryLevel;
    this.entryLevel = level;
    this.revision++;
    // A rise from a level seen before is a level-up; the first level of a session is only where it stands.
    if (before !== undefined && level !== undefined && level > before) {
      for (const listener of this.listeners) listener(level);
    }
  }

  /**
   * Whether the host should ask for the own detail now: the entries show a higher level than the newest
   * detail described (that detail's push was lost). True once per such level; asked again only after a
   * detail arrived and was still behind.
   */
  takeStale(): boolean {
    const stale =
      this.shown !== null &&
      this.entryLevel !== undefined &&
      (this.detailLevel === undefined || this.entryLevel > this.detailLevel);
    if (!stale || this.asked) return false;
    this.asked = true;
    return true;
  }

  /** A new session began: nothing is known of it yet. */
  reset(): void {
    this.entryLevel = undefined;
    this.detailLevel = undefined;
    this.shown = null;
    this.asked = false;
    this.revision++;
  }
}
