// The HUD as a bar of the page's own text over the top of the view (issue 42),
// for pages where the framebuffer's 80-px panel would be shown too small to read
// (pageLayout's hud "bar": a phone held either way, a map of large tiles at 1×).
// The same HudModel the panel draws (render/hud.ts), as one wrapping line — who
// and how healthy, where, the link, the time, who and what is near — that takes
// two rows on an upright phone and three on a phone held sideways. Written only
// when a part's text changes, so a frame costs a few string compares.
import { hpNumbers, type HudModel } from "../render/hud.js";
import { levelText } from "../render/name-tags.js";
import { cssColour } from "./log-panel.js";

/** Creature groups named in the bar; the rest are counted. */
const CREATURES_NAMED = 2;
/** Players named in the bar; more are counted. */
const NEARBY_NAMED = 2;

export class HudBar {
  private readonly parts = new Map<string, HTMLElement>();
  private readonly hpFill: HTMLElement;
  private readonly xpFill: HTMLElement;
  private readonly xpTrack: HTMLElement;
  private lastHeightPx = -1;

  constructor(
    private readonly root: HTMLElement,
    /** Told the bar's height when it changes, so what sits under it (buttons, the debug overlay) moves down. */
    private readonly onHeight: (heightPx: number) => void = () => {},
  ) {
    const doc = root.ownerDocument;
    const make = (tag: string, className: string, parent: HTMLElement): HTMLElement => {
      const element = doc.createElement(tag);
      element.className = className;
      parent.append(element);
      return element;
    };
    const first = root;
    this.part("name", make("span", "hud-name", first));
    this.part("level", make("span", "hud-level", first));
    const health = make("span", "hud-health", first);
    const track = make("span", "hud-track", health);
    this.hpFill = make("span", "hud-fill", track);
    this.part("hp", make("span", "hud-hp", health));
    this.xpTrack = make("span", "hud-xp", first);
    this.xpFill = make("span", "hud-fill", this.xpTrack);
    const second = root;
    this.part("position", make("span", "hud-position", second));
    this.part("status", make("span", "hud-status", second));
    this.part("clock", make("span", "hud-clock", second));
    this.part("near", make("span", "hud-near", second));
    this.part("creatures", make("span", "hud-creatures", second));
  }

  /** Shows `hud` (call every frame while the bar is shown); touches the page only where something changed. */
  show(hud: HudModel): void {
    let changed = this.text("name", hud.name);
    changed = this.text("level", hud.level === undefined ? "" : levelText(hud.level)) || changed;
    changed = this.text("hp", hpNumbers(hud.hp, hud.hpMax)) || changed;
    setWidth(this.hpFill, hud.hpMax > 0 ? Math.min(1, Math.max(0, hud.hp / hud.hpMax)) : 0);
    const low = String(hud.hp * 3 <= hud.hpMax);
    if (this.hpFill.dataset.low !== low) this.hpFill.dataset.low = low;
    if (this.xpTrack.hidden !== (hud.levelShare === undefined)) {
      this.xpTrack.hidden = hud.levelShare === undefined;
      changed = true;
    }
    setWidth(this.xpFill, hud.levelShare ?? 0);
    changed = this.text("position", hud.position ? `${hud.position.x},${hud.position.y}` : "-") || changed;
    changed = this.text("status", hud.status.text, cssColour(hud.status.colour)) || changed;
    changed = this.text("clock", hud.clock ?? "") || changed;
    changed = this.text("near", nearbyText(hud)) || changed;
    changed = this.text("creatures", creaturesText(hud)) || changed;
    // Its height is read (a layout) only when a text changed: a line more or less moves what is under it.
    if (!changed) return;
    const height = this.root.offsetHeight;
    if (height !== this.lastHeightPx) {
      this.lastHeightPx = height;
      this.onHeight(height);
    }
  }

  private part(name: string, element: HTMLElement): void {
    element.dataset.part = name;
    element.hidden = true; // until it has a text
    this.parts.set(name, element);
  }

  /** Writes a part's text (hidden when empty) and colour; whether its text changed. */
  private text(name: string, text: string, colour?: string): boolean {
    const element = this.parts.get(name)!;
    if (colour !== undefined && element.style.color !== colour) element.style.color = colour;
    if (element.textContent === text) return false;
    element.textContent = text;
    element.hidden = text === "";
    return true;
  }
}

/** "Near: Ada, Bob", "Near: 5" past NEARBY_NAMED, nothing while alone. */
export function nearbyText(hud: Pick<HudModel, "nearby">): string {
  if (hud.nearby.length === 0) return "";
  return `Near: ${hud.nearby.length > NEARBY_NAMED ? hud.nearby.length : hud.nearby.join(", ")}`;
}

/** "!skeleton, cave rat x3, +2 more": the panel's creature lines on one row, hostile first. */
export function creaturesText(hud: Pick<HudModel, "creatures">): string {
  const creatures = hud.creatures ?? [];
  const named = creatures.slice(0, CREATURES_NAMED).map((creature) => {
    const count = creature.count > 1 ? ` x${creature.count}` : "";
    return `${creature.hostile ? "!" : ""}${creature.name}${count}`;
  });
  if (creatures.length > CREATURES_NAMED) named.push(`+${creatures.length - CREATURES_NAMED} more`);
  return named.join(", ");
}

function setWidth(fill: HTMLElement, share: number): void {
  const width = `${Math.round(share * 100)}%`;
  if (fill.style.width !== width) fill.style.width = width;
}
