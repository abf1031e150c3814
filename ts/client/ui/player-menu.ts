// The menu a click on another player on the map opens (issue 39: "invite a player — click them, or
// /invite nick"): the player's name and the Tell, Invite and Trade buttons the who-is-online list has
// (player-actions.ts). It stands where the click was, waits for the name if the page has not learnt it
// yet, and goes on Escape, on an action, on a click elsewhere on the map, or when the player leaves view.
import { type PlayerActions, playerActionButtons } from "./player-actions.js";

/** The menu's edge from the window's edges, in CSS px. */
const MARGIN_PX = 4;

export class PlayerMenu {
  private readonly element: HTMLElement;
  private entityId = 0;
  private shownNick: string | null = null;
  private at = { x: 0, y: 0 };

  constructor(
    private readonly doc: Document,
    private readonly actions: PlayerActions,
  ) {
    this.element = doc.createElement("section");
    this.element.className = "player-menu";
    this.element.dataset.testid = "player-menu";
    this.element.hidden = true;
    doc.body.append(this.element);
  }

  /** Whether the menu shows (or waits for its player's name). */
  get open(): boolean {
    return this.entityId !== 0;
  }

  /** Opens the menu for player `entityId` at the page point (clientX, clientY) of the click. */
  openFor(entityId: number, at: { x: number; y: number }): void {
    this.entityId = entityId;
    this.shownNick = null;
    this.at = at;
    this.element.hidden = true;
  }

  /** Every frame: shows the menu once the name is known; closes it when the player is no longer in view. */
  update(names: ReadonlyMap<number, string>, inView: (entityId: number) => boolean): void {
    if (this.entityId === 0) return;
    if (!inView(this.entityId)) return this.close();
    const nick = names.get(this.entityId);
    if (nick === undefined || nick === this.shownNick) return;
    this.shownNick = nick;
    const title = this.doc.createElement("div");
    title.className = "player-menu-nick";
    title.textContent = nick;
    this.element.replaceChildren(
      title,
      ...playerActionButtons(this.doc, nick, this.actions, {
        className: "player-menu-action",
        testIdPrefix: "player-menu",
        done: () => this.close(),
      }),
    );
    this.element.setAttribute("aria-label", `What to do with ${nick}`);
    this.element.hidden = false;
    // Beside the click, kept inside the window.
    const view = this.doc.defaultView!;
    const box = this.element.getBoundingClientRect();
    const left = Math.min(this.at.x + 8, view.innerWidth - box.width - MARGIN_PX);
    const top = Math.min(this.at.y + 8, view.innerHeight - box.height - MARGIN_PX);
    this.element.style.left = `${Math.max(MARGIN_PX, left)}px`;
    this.element.style.top = `${Math.max(MARGIN_PX, top)}px`;
  }

  close(): void {
    this.entityId = 0;
    this.shownNick = null;
    this.element.hidden = true;
    this.element.replaceChildren();
  }

  /** Takes the menu off the page (the session ended). */
  remove(): void {
    this.close();
    this.element.remove();
  }
}
