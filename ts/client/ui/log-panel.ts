// The message log in the page (issue 18 item 1): a translucent panel over the
// bottom of the game view with a tab per view (All, Chat, Combat, System), the
// lines in the page's own font — a line is a line: at the game view's width a
// chat line of 60 characters fits one row, where the framebuffer's 80-px side
// panel broke it word by word into five — and a scrollback that stays put.
//
// Scrolling: while the list is at its bottom, new lines keep it there; once the
// player scrolls up (wheel, PageUp/PageDown on the game or the list, Home/End on
// the list) it holds still, and a "new messages" marker counts what came below
// until the player goes back down (End, the marker, or scrolling to the bottom).
// A tab that is not shown lights up when a line for it arrives.
//
// Fed by PlaySession every frame with the ChannelLog; only the lines newer than
// the last shown are appended, and the list keeps at most the log's cap per view.
//
// Where it lies is the page's (browser/log-dock-view.ts, issue 42: beside or under
// the view, not over it). A button at the end of the tabs folds it to its tab row
// and opens it again; the choice is kept (localStorage LOG_STORAGE_KEY).
import { FB_WIDTH } from "../../constants.js";
import {
  type ChannelLog,
  type LogChannel,
  LOG_VIEW_LABELS,
  LOG_VIEWS,
  type LogView,
  viewShows,
} from "./log-channels.js";

/** How close to the bottom (CSS px) counts as "at the bottom": a fractional scroll is still following. */
const BOTTOM_SLACK_PX = 4;
/** Rows shown at most in the list (the log's cap per channel × the views' channels is more than anyone reads). */
const ROWS_KEPT = 400;
/** Where the folded or open log is remembered: "collapsed", else open. */
export const LOG_STORAGE_KEY = "caves.log";

/** The part of localStorage the panel uses (tests and a page without storage pass their own). */
export interface LogStorage {
  getItem(key: string): string | null;
  setItem(key: string, value: string): void;
}

/** The remembered choice; a page whose storage is refused (privacy settings) just starts open. */
function readStorage(storage: LogStorage | null): string | null {
  try {
    return storage?.getItem(LOG_STORAGE_KEY) ?? null;
  } catch {
    return null;
  }
}

function writeStorage(storage: LogStorage | null, value: string): void {
  try {
    storage?.setItem(LOG_STORAGE_KEY, value);
  } catch {
    // Not remembered; the page still folds.
  }
}

/** An RGB332 colour as CSS (the framebuffer's own expansion: 3 bits red and green, 2 blue). */
export function cssColour(rgb332: number): string {
  const red = Math.floor(((rgb332 >> 5) * 255) / 7);
  const green = Math.floor((((rgb332 >> 2) & 7) * 255) / 7);
  const blue = Math.floor(((rgb332 & 3) * 255) / 3);
  return `rgb(${red}, ${green}, ${blue})`;
}

export class LogPanel {
  private view: LogView = "all";
  private readonly list: HTMLElement;
  private readonly marker: HTMLButtonElement;
  private readonly tabs = new Map<LogView, HTMLButtonElement>();
  /** The newest seq put in the list (or looked at for the unread marks). */
  private shownSeq = 0;
  /** Lines that arrived below while the player was reading further up. */
  private unseen = 0;
  private fittedWidthPx = -1;
  private readonly fold: HTMLButtonElement;
  private folded = false;

  constructor(
    private readonly root: HTMLElement,
    private readonly log: ChannelLog,
    /** Told when the shown view changes (the canvas's data-log-tab). */
    private readonly onView: (view: LogView) => void = () => {},
    private readonly storage: LogStorage | null = null,
  ) {
    const doc = root.ownerDocument;
    const tabRow = doc.createElement("div");
    tabRow.className = "log-tabs";
    tabRow.setAttribute("role", "tablist");
    tabRow.setAttribute("aria-label", "Message log");
    for (const view of LOG_VIEWS) {
      const tab = doc.createElement("button");
      tab.type = "button";
      tab.textContent = LOG_VIEW_LABELS[view];
      tab.dataset.testid = `log-tab-${view}`;
      tab.dataset.view = view;
      tab.setAttribute("role", "tab");
      // A click on a tab must not take the keyboard from the game.
      tab.tabIndex = -1;
      tab.addEventListener("mousedown", (event) => event.preventDefault());
      tab.addEventListener("click", () => this.showView(view));
      tabRow.append(tab);
      this.tabs.set(view, tab);
    }
    this.fold = doc.createElement("button");
    this.fold.type = "button";
    this.fold.className = "log-fold";
    this.fold.dataset.testid = "log-fold";
    this.fold.tabIndex = -1;
    this.fold.addEventListener("mousedown", (event) => event.preventDefault());
    this.fold.addEventListener("click", () => this.setCollapsed(!this.folded));
    tabRow.append(this.fold);
    this.list = doc.createElement("div");
    this.list.className = "log-lines";
    this.list.dataset.testid = "log-lines";
    this.list.tabIndex = 0;
    this.list.setAttribute("role", "tabpanel");
    this.list.addEventListener("scroll", () => this.onScroll());
    this.marker = doc.createElement("button");
    this.marker.type = "button";
    this.marker.className = "log-new";
    this.marker.dataset.testid = "log-new";
    this.marker.tabIndex = -1;
    this.marker.hidden = true;
    this.marker.addEventListener("mousedown", (event) => event.preventDefault());
    this.marker.addEventListener("click", () => this.toBottom());
    root.replaceChildren(tabRow, this.list, this.marker);
    this.setCollapsed(readStorage(storage) === "collapsed", false);
    this.showView(this.view);
  }

  get collapsed(): boolean {
    return this.folded;
  }

  /** Folds the log to its tab row (true) or opens it; `remember`: kept for the next visit. */
  setCollapsed(collapsed: boolean, remember = true): void {
    this.folded = collapsed;
    this.root.dataset.collapsed = String(collapsed);
    this.fold.textContent = collapsed ? "▴" : "▾";
    this.fold.title = collapsed ? "Show the log" : "Hide the log";
    this.fold.setAttribute("aria-label", this.fold.title);
    this.fold.setAttribute("aria-expanded", String(!collapsed));
    if (remember) writeStorage(this.storage, collapsed ? "collapsed" : "open");
    if (!collapsed) this.toBottom();
  }

  get shown(): LogView {
    return this.view;
  }

  /** Shows `view`: its lines from the log, at the bottom. */
  showView(view: LogView): void {
    this.view = view;
    for (const [name, tab] of this.tabs) {
      tab.setAttribute("aria-selected", String(name === view));
      if (name === view) delete tab.dataset.unread;
    }
    this.root.dataset.view = view;
    this.list.replaceChildren(
      ...this.log
        .linesOf(view)
        .slice(-ROWS_KEPT)
        .map((line) => this.row(line)),
    );
    this.shownSeq = this.log.lastSeq;
    this.toBottom();
    this.onView(view);
  }

  /**
   * Takes the log's new lines: appended to the list when the view shows them, marked on the tabs that
   * do. `canvasWidthPx` (the canvas's CSS width) sizes the font with the picture.
   */
  update(canvasWidthPx: number): void {
    if (canvasWidthPx !== this.fittedWidthPx) this.fit(canvasWidthPx);
    if (this.log.lastSeq === this.shownSeq) return;
    const fresh = this.log.since(this.shownSeq);
    this.shownSeq = this.log.lastSeq;
    const following = this.atBottom();
    let added = 0;
    for (const line of fresh) {
      this.markUnread(line.channel);
      if (!viewShows(this.view, line.channel)) continue;
      this.list.append(this.row(line));
      added++;
    }
    while (this.list.childElementCount > ROWS_KEPT) this.list.firstElementChild!.remove();
    if (added === 0) return;
    if (following) this.toBottom();
    else {
      this.unseen += added;
      this.marker.hidden = false;
      this.marker.textContent = `${this.unseen} new message${this.unseen === 1 ? "" : "s"} below`;
    }
  }

  /**
   * The font follows the canvas's scale (CSS px per framebuffer pixel), between a readable 11 px and
   * 15 px: about 36 characters a line at 1×, 66 at 2×, 85 at 3× — a chat line is one row.
   */
  private fit(canvasWidthPx: number): void {
    this.fittedWidthPx = canvasWidthPx;
    const scale = canvasWidthPx / FB_WIDTH;
    this.root.style.setProperty("--log-font-px", `${Math.round(Math.min(15, Math.max(11, 7 + 2.5 * scale)))}px`);
  }

  /** PageUp (-1) or PageDown (+1): the list scrolls by most of its height. */
  page(direction: -1 | 1): void {
    this.list.scrollTop += direction * Math.max(1, this.list.clientHeight - 16);
    this.onScroll();
  }

  /** Back to the newest line, following again. */
  toBottom(): void {
    this.list.scrollTop = this.list.scrollHeight;
    this.unseen = 0;
    this.marker.hidden = true;
  }

  private onScroll(): void {
    if (this.atBottom()) {
      this.unseen = 0;
      this.marker.hidden = true;
    }
  }

  private atBottom(): boolean {
    const list = this.list;
    return list.scrollHeight - list.clientHeight - list.scrollTop <= BOTTOM_SLACK_PX;
  }

  private markUnread(channel: LogChannel): void {
    for (const [view, tab] of this.tabs) {
      // Only news the shown view does not already show: All showing a chat line leaves Chat unmarked.
      if (view !== this.view && viewShows(view, channel) && !viewShows(this.view, channel)) tab.dataset.unread = "true";
    }
  }

  private row(line: { text: string; colour: number; channel: LogChannel }): HTMLElement {
    const row = this.root.ownerDocument.createElement("p");
    row.textContent = line.text;
    row.dataset.channel = line.channel;
    row.style.color = cssColour(line.colour);
    return row;
  }
}
