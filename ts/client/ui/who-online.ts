// Who is online (issue 18 item 8): a button with the count ("3 online") and,
// when pressed (or O), a list of the nicks, both from GET /api/online
// (ts/server/http/online-route.ts). Asked every POLL_MS while the page plays and
// every OPEN_POLL_MS while the list is open — inside the route's ration of 30 a
// minute — and at once on opening; a refused or failed request keeps the last
// answer and says so.
import { KEY_BINDINGS } from "../input.js";
import { type PlayerActions, playerActionButtons } from "./player-actions.js";

const POLL_MS = 15_000;
const OPEN_POLL_MS = 5_000;
/**
 * The list is made once this page has joined, so it counts this player — but the server lists a session
 * only from its first datagram, which may land after the first ask. An answer of nobody is asked again
 * this soon, a few times, instead of showing "0 online" to a player who is in the world for 15 s.
 */
const NOBODY_RETRY_MS = 1_000;
const NOBODY_RETRIES = 5;

/** The answer of GET /api/online, checked. */
export interface OnlineAnswer {
  count: number;
  nicks: string[];
  truncated: boolean;
}

/** Reads an /api/online body; null when it is not one. */
export function parseOnline(body: unknown): OnlineAnswer | null {
  if (typeof body !== "object" || body === null) return null;
  const { count, nicks, truncated } = body as Record<string, unknown>;
  if (!Number.isInteger(count) || (count as number) < 0) return null;
  if (!Array.isArray(nicks) || !nicks.every((nick) => typeof nick === "string")) return null;
  return { count: count as number, nicks: nicks as string[], truncated: truncated === true };
}

/** Nicks in the order a person reads a list: bot2 before bot10, case aside. */
export function sortNicks(nicks: readonly string[]): string[] {
  const collator = new Intl.Collator(undefined, { numeric: true, sensitivity: "base" });
  return [...nicks].sort(collator.compare);
}

/** The button's words. */
export function onlineLabel(count: number): string {
  return `${count} online`;
}

/** What a player can do with another from the list (issue 39): the actions, and the own nick (no buttons). */
export interface ListActions extends PlayerActions {
  /** The player's own nick: no buttons beside it. */
  readonly ownNick: string;
}

export class WhoOnline {
  private readonly button: HTMLButtonElement;
  private readonly list: HTMLElement;
  private readonly items: HTMLOListElement;
  private readonly note: HTMLElement;
  private timer: ReturnType<typeof setTimeout> | null = null;
  private asking = false;
  private nobodyRetries = NOBODY_RETRIES;
  private lastCount = -1;

  constructor(
    root: HTMLElement,
    private readonly serverUrl: string,
    /** Focus goes back here when the list closes. */
    private readonly home: HTMLElement,
    /** Tell, invite, trade: buttons beside each other player's nick; none without. */
    private readonly actions: ListActions | null = null,
  ) {
    const doc = root.ownerDocument;
    this.button = doc.createElement("button");
    this.button.type = "button";
    this.button.className = "who-button";
    this.button.dataset.testid = "who-button";
    this.button.setAttribute("aria-expanded", "false");
    this.button.textContent = "… online";
    this.button.addEventListener("click", () => this.toggle());
    this.list = doc.createElement("section");
    this.list.className = "who-list";
    this.list.dataset.testid = "who-list";
    this.list.setAttribute("aria-label", "Who is online");
    this.list.hidden = true;
    this.items = doc.createElement("ol");
    this.note = doc.createElement("p");
    this.note.className = "who-note";
    this.list.append(this.items, this.note);
    root.replaceChildren(this.button, this.list);
    doc.defaultView!.addEventListener("keydown", (event) => {
      const active = doc.activeElement;
      if (active instanceof HTMLInputElement || active instanceof HTMLTextAreaElement) return;
      if (event.ctrlKey || event.metaKey || event.altKey || event.repeat) return;
      const binding = KEY_BINDINGS[event.code];
      if (binding?.kind !== "command") return;
      if (binding.command === "who-online") this.toggle();
      else if (binding.command === "cancel" && this.open) this.toggle();
    });
    void this.ask();
  }

  get open(): boolean {
    return !this.list.hidden;
  }

  toggle(): void {
    const hadFocus = this.list.contains(this.list.ownerDocument.activeElement);
    this.list.hidden = !this.list.hidden;
    this.button.setAttribute("aria-expanded", String(this.open));
    if (!this.open && hadFocus) this.home.focus();
    void this.ask();
  }

  /** Asks now, then again after the poll interval (one request in flight at most). */
  private async ask(): Promise<void> {
    if (this.timer !== null) clearTimeout(this.timer);
    this.timer = null;
    if (!this.asking) {
      this.asking = true;
      try {
        const response = await fetch(`${this.serverUrl}/api/online`);
        const answer = response.ok ? parseOnline(await response.json()) : null;
        if (answer) this.show(answer);
        else this.note.textContent = response.status === 429 ? "Asked too often; the list is a little old." : "";
      } catch {
        this.note.textContent = "The server did not answer; the list may be old.";
      } finally {
        this.asking = false;
      }
    }
    const soon = this.lastCount === 0 && this.nobodyRetries > 0;
    if (soon) this.nobodyRetries--;
    this.timer = setTimeout(() => void this.ask(), soon ? NOBODY_RETRY_MS : this.open ? OPEN_POLL_MS : POLL_MS);
  }

  private show(answer: OnlineAnswer): void {
    this.lastCount = answer.count;
    this.button.textContent = onlineLabel(answer.count);
    this.button.dataset.count = String(answer.count);
    const doc = this.list.ownerDocument;
    this.items.replaceChildren(
      ...sortNicks(answer.nicks).map((nick) => {
        const item = doc.createElement("li");
        const name = doc.createElement("span");
        name.className = "who-nick";
        name.dataset.testid = "who-nick";
        name.textContent = nick;
        item.append(name);
        const actions = this.actions;
        if (actions !== null && nick !== actions.ownNick) {
          item.append(...playerActionButtons(doc, nick, actions, { className: "who-action", testIdPrefix: "who" }));
        }
        return item;
      }),
    );
    this.note.textContent = answer.truncated ? `and ${answer.count - answer.nicks.length} more` : "";
  }
}
