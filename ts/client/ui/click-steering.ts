// Click-to-move and click-and-hold steering (roadmap: Click-to-move). A press
// on the viewport aims at the tile under the pointer; while the button stays
// down, the goal follows the tile under the pointer, re-aimed only when that
// tile changes — because the pointer moved or because the camera scrolled
// under a still pointer. A movement key ends the steering until the next press.
// A press on a living creature attacks it instead (click-to-attack, issue 13):
// the core then follows the creature, so the held button steers nothing more.
export interface TilePoint {
  readonly x: number;
  readonly y: number;
}

/** The GameClient calls steering makes; its answer "not-ready" means "try again next frame". */
export interface GoalSink {
  setGoal(x: number, y: number, options?: { steering?: boolean }): unknown;
  /** Click-to-attack (GameClient.attack): null when started, else why not ("not-ready": try next frame). */
  attack?(entityId: number): unknown;
}

/** The entity a press on `tile` attacks, or null: the game loop's look at the entities in view. */
export type FoeAt = (tile: TilePoint) => number | null;

export class ClickSteering {
  private held = false;
  private aimed: TilePoint | null = null;
  private fresh = false;

  /** The button went down over the game view. */
  press(): void {
    this.held = true;
    this.aimed = null;
    this.fresh = true;
  }

  /** The button went up (or the pointer was lost): the goal stays, steering stops. */
  release(): void {
    this.held = false;
  }

  /** A movement key was pressed: the keyboard takes over. */
  cancel(): void {
    this.held = false;
    this.aimed = null;
    this.fresh = false;
  }

  get steering(): boolean {
    return this.held;
  }

  /** A press not yet aimed (a tap shorter than a frame): the pointer's pixel must be kept until it is. */
  get aimPending(): boolean {
    return this.fresh;
  }

  /**
   * Called once per frame with the tile under the pointer now (null when the
   * pointer is off the viewport). The first aim of a press is a discrete click
   * (an unreachable tile releases the goal); later ones steer (an unreachable
   * tile keeps the current route). A click shorter than a frame still aims once.
   * A press on a tile `foeAt` names attacks that entity and ends the press's steering.
   * Returns the answer to a discrete click (so the page can say why a tile cannot be reached;
   * "attacking" when an attack started), undefined otherwise.
   */
  frame(tile: TilePoint | null, client: GoalSink, foeAt?: FoeAt): unknown {
    if ((!this.held && !this.fresh) || tile === null) return undefined;
    if (this.aimed !== null && this.aimed.x === tile.x && this.aimed.y === tile.y) return undefined;
    const discrete = this.fresh;
    const foe = discrete && foeAt !== undefined && client.attack !== undefined ? foeAt(tile) : null;
    if (foe !== null) {
      const answer = client.attack!(foe);
      if (answer === "not-ready") return undefined;
      this.aimed = { x: tile.x, y: tile.y };
      this.fresh = false;
      this.held = false;
      return answer === null ? "attacking" : answer;
    }
    const result = client.setGoal(tile.x, tile.y, { steering: !this.fresh });
    if (result === "not-ready") return undefined;
    this.aimed = { x: tile.x, y: tile.y };
    this.fresh = false;
    return discrete ? result : undefined;
  }
}
