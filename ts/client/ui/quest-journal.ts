// The quest journal (issue 38): a button with the count of quests under way ("Quests 2") and, when
// pressed (or J), the quest log — each quest's title, what to do, and where the player stands (3 / 5,
// "hand it in", "done"). Read from the client's quest log (core/quests.ts), which the server's pushes of
// the own EntityDetail keep current; the quests' words come from GET /api/quests, fetched when the log
// names a version of them this page does not hold.
import type { GameClient } from "../core/index.js";
import { KEY_BINDINGS } from "../input.js";
import { QUEST_DONE, QUEST_READY, type QuestLine, type QuestText } from "../core/quests.js";

/** How a quest line reads: "Rat cull — 3 / 5", "… — hand it in", "… — done". */
export function questStanding(line: QuestLine): string {
  if (line.state === QUEST_DONE) return "done";
  if (line.state === QUEST_READY) return "hand it in";
  return `${line.progress} / ${line.goal}`;
}

/** A quest's reward as the route serves it (absent from an older server). */
function rewardOk(reward: unknown): boolean {
  if (reward === undefined) return true;
  if (typeof reward !== "object" || reward === null) return false;
  const { items, xp } = reward as Record<string, unknown>;
  return (
    Number.isInteger(xp) &&
    Array.isArray(items) &&
    items.every(
      (entry) =>
        typeof entry === "object" &&
        entry !== null &&
        typeof (entry as { item: unknown }).item === "string" &&
        Number.isInteger((entry as { count: unknown }).count),
    )
  );
}

/** Reads a GET /api/quests body; null when it is not one. */
export function parseQuestCatalogue(body: unknown): { version: number; quests: QuestText[] } | null {
  if (typeof body !== "object" || body === null) return null;
  const { version, quests } = body as Record<string, unknown>;
  if (!Number.isInteger(version) || !Array.isArray(quests)) return null;
  const ok = quests.every(
    (quest) =>
      typeof quest === "object" &&
      quest !== null &&
      Number.isInteger((quest as QuestText).number) &&
      typeof (quest as QuestText).title === "string" &&
      typeof (quest as QuestText).text === "string" &&
      rewardOk((quest as QuestText).reward),
  );
  return ok ? { version: version as number, quests: quests as QuestText[] } : null;
}

export class QuestJournal {
  private readonly button: HTMLButtonElement;
  private readonly panel: HTMLElement;
  private readonly list: HTMLOListElement;
  private shownRevision = -1;
  private asking = false;

  constructor(
    root: HTMLElement,
    private readonly client: GameClient,
    private readonly serverUrl: string,
    /** Focus goes back here when the journal closes. */
    private readonly home: HTMLElement,
  ) {
    const doc = root.ownerDocument;
    this.button = doc.createElement("button");
    this.button.type = "button";
    this.button.className = "quest-button";
    this.button.dataset.testid = "quest-button";
    this.button.setAttribute("aria-expanded", "false");
    this.button.textContent = "Quests";
    this.button.addEventListener("click", () => this.toggle());
    this.panel = doc.createElement("section");
    this.panel.className = "quest-list";
    this.panel.dataset.testid = "quest-list";
    this.panel.setAttribute("aria-label", "Quest journal");
    this.panel.hidden = true;
    this.list = doc.createElement("ol");
    this.panel.append(this.list);
    root.replaceChildren(this.button, this.panel);
    doc.defaultView!.addEventListener("keydown", (event) => {
      const active = doc.activeElement;
      if (active instanceof HTMLInputElement || active instanceof HTMLTextAreaElement) return;
      if (event.ctrlKey || event.metaKey || event.altKey || event.repeat) return;
      const binding = KEY_BINDINGS[event.code];
      if (binding?.kind !== "command") return;
      if (binding.command === "quests") this.toggle();
      else if (binding.command === "cancel" && this.open) this.toggle();
    });
    const view = doc.defaultView!;
    const tick = () => {
      this.refresh();
      view.requestAnimationFrame(tick);
    };
    view.requestAnimationFrame(tick);
  }

  get open(): boolean {
    return !this.panel.hidden;
  }

  toggle(): void {
    const hadFocus = this.panel.contains(this.panel.ownerDocument.activeElement);
    this.panel.hidden = !this.panel.hidden;
    this.button.setAttribute("aria-expanded", String(this.open));
    if (!this.open && hadFocus) this.home.focus();
  }

  /** Redraws when the log moved, and fetches the quests' words when the log names others. */
  private refresh(): void {
    const quests = this.client.quests;
    const wanted = quests.wantedCatalogue;
    if (wanted !== null && !this.asking) void this.fetchCatalogue();
    if (quests.revision === this.shownRevision) return;
    this.shownRevision = quests.revision;
    const lines = quests.lines;
    const underWay = lines.filter((line) => line.state !== QUEST_DONE).length;
    this.button.textContent = underWay > 0 ? `Quests ${underWay}` : "Quests";
    this.button.dataset.count = String(underWay);
    const doc = this.panel.ownerDocument;
    if (lines.length === 0) {
      const empty = doc.createElement("li");
      empty.textContent = "No quests yet. Talk to the people of the world.";
      this.list.replaceChildren(empty);
      return;
    }
    this.list.replaceChildren(
      ...lines.map((line) => {
        const item = doc.createElement("li");
        item.dataset.state = String(line.state);
        const title = doc.createElement("strong");
        title.textContent = `${line.title} — ${questStanding(line)}`;
        const text = doc.createElement("p");
        text.textContent = line.text;
        item.append(title, text);
        if (line.reward !== "" && line.state !== QUEST_DONE) {
          const reward = doc.createElement("p");
          reward.className = "quest-reward";
          reward.textContent = line.reward;
          item.append(reward);
        }
        return item;
      }),
    );
  }

  private async fetchCatalogue(): Promise<void> {
    this.asking = true;
    try {
      const response = await fetch(`${this.serverUrl}/api/quests`);
      const catalogue = response.ok ? parseQuestCatalogue(await response.json()) : null;
      if (catalogue) this.client.quests.receiveCatalogue(catalogue);
    } catch {
      // The log shows "Quest 3" until the next try (each frame while the version is wanted, one at a time).
    } finally {
      setTimeout(() => (this.asking = false), 1000);
    }
  }
}
