// The party in the corner of the view (issue 39): shown while the player is in a party — each other
// member's name, whether they lead or are away, and their health as a bar, wherever they are in the
// world — with a button to leave. Read from the client's party view (core/party.ts), which the server's
// pushes of the own EntityDetail keep current; leaving is the /leave command, posted as chat.
import type { GameClient } from "../core/index.js";
import type { PartyMate } from "../core/party.js";

/** How a member's row reads: "Ada (leads)", "Bo (away)". */
export function mateLabel(mate: PartyMate): string {
  return `${mate.name}${mate.leads ? " (leads)" : ""}${mate.away ? " (away)" : ""}`;
}

/** A member's health as a share of its most, 0 … 1 (0 for a member whose most is unknown). */
export function healthShare(mate: PartyMate): number {
  return mate.hpMax > 0 ? Math.max(0, Math.min(1, mate.hp / mate.hpMax)) : 0;
}

export class PartyPanel {
  private readonly list: HTMLOListElement;
  private shownRevision = -1;

  constructor(
    private readonly root: HTMLElement,
    private readonly client: GameClient,
  ) {
    const doc = root.ownerDocument;
    const title = doc.createElement("h2");
    title.textContent = "Party";
    this.list = doc.createElement("ol");
    const leave = doc.createElement("button");
    leave.type = "button";
    leave.textContent = "Leave";
    leave.dataset.testid = "party-leave";
    leave.addEventListener("click", () => client.postChat("/leave"));
    root.replaceChildren(title, this.list, leave);
    root.hidden = true;
    const view = doc.defaultView!;
    const tick = () => {
      this.refresh();
      view.requestAnimationFrame(tick);
    };
    view.requestAnimationFrame(tick);
  }

  /** Redraws when the party changed. */
  refresh(): void {
    const party = this.client.party;
    if (party.revision === this.shownRevision) return;
    this.shownRevision = party.revision;
    this.root.hidden = !party.inParty;
    const doc = this.root.ownerDocument;
    this.list.replaceChildren(
      ...party.members.map((mate) => {
        const item = doc.createElement("li");
        item.dataset.away = String(mate.away);
        const name = doc.createElement("span");
        name.textContent = mateLabel(mate);
        const bar = doc.createElement("meter");
        bar.min = 0;
        bar.max = Math.max(1, mate.hpMax);
        bar.value = mate.hp;
        bar.low = bar.max * 0.3;
        bar.high = bar.max * 0.6;
        bar.optimum = bar.max;
        bar.title = `${mate.hp} / ${mate.hpMax}`;
        bar.setAttribute("aria-label", `${mate.name}'s health`);
        item.append(name, bar);
        return item;
      }),
    );
  }
}
