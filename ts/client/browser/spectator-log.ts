// What a spectator's page hears (issue 40; docs/client.md § Spectating): the public chat lines the server
// lets it overhear and the blows near its camera, in the message log a player's page has — the panel
// beside or under the view, its tabs, and the visually hidden mirrors (#log, #combat-log) a screen reader
// announces. A spectator has no body: no blow is "yours", every sentence names both sides ("Bob hits the
// cave rat for 5."). The damage numbers are the session's (CombatEffects); this is the log.
import type { CombatNotice } from "../core/combat.js";
import type { GameClient } from "../core/game-client.js";
import type { NpcKind } from "../core/kinds.js";
import { chatLogLine } from "../ui/chat-log.js";
import { combatLogLine } from "../ui/combat-log.js";
import { ChannelLog, chatEventChannel } from "../ui/log-channels.js";
import { LogMirror } from "../ui/log-mirror.js";
import { LogPanel } from "../ui/log-panel.js";
import type { CanvasView } from "./canvas-view.js";
import { LogDockView } from "./log-dock-view.js";
import { browserStorage, COMBAT, NOT_COMBAT } from "./play-session.js";

/** The page's elements the log fills: all optional (a page without them logs nothing). */
export interface SpectatorLogParts {
  readonly logPanel?: HTMLElement;
  /** The element clipping the view, which the docked panel shares (log-dock-view.ts). */
  readonly viewClip?: HTMLElement;
  readonly logMirror?: HTMLElement;
  readonly combatMirror?: HTMLElement;
}

export class SpectatorLog {
  readonly messages = new ChannelLog();
  private readonly mirrors: LogMirror[] = [];
  private readonly panel: LogPanel | null;
  private readonly dock: LogDockView | null;
  private readonly detach: (() => void)[] = [];

  constructor(
    private readonly client: GameClient,
    private readonly kinds: ReadonlyMap<number, NpcKind>,
    private readonly view: CanvasView,
    parts: SpectatorLogParts,
  ) {
    if (parts.logMirror) this.mirrors.push(new LogMirror(parts.logMirror, this.messages, NOT_COMBAT));
    if (parts.combatMirror) this.mirrors.push(new LogMirror(parts.combatMirror, this.messages, COMBAT));
    this.panel = parts.logPanel
      ? new LogPanel(parts.logPanel, this.messages, (shown) => (view.canvas.dataset.logTab = shown), browserStorage())
      : null;
    this.dock = parts.logPanel && parts.viewClip ? new LogDockView(parts.logPanel, view, parts.viewClip) : null;
    this.detach.push(
      client.chat.listen((event) => {
        const line = chatLogLine(event, client.names);
        this.messages.add(chatEventChannel(event), line.text, line.colour);
      }),
    );
  }

  /** A blow near the camera, as a sentence in the combat log. */
  blow(notice: CombatNotice): void {
    const client = this.client;
    const line = combatLogLine(notice, { ownId: 0, entities: client.entities, names: client.names, kinds: this.kinds });
    this.messages.add("combat", line.text, line.colour);
  }

  /** Once a frame (and from the background timer): the panel fitted to the view, the mirrors rewritten. */
  update(nowMs: number): void {
    this.panel?.update(this.view.canvas.clientWidth);
    this.dock?.update(nowMs);
    for (const mirror of this.mirrors) mirror.show();
  }

  stop(): void {
    for (const undo of this.detach.splice(0)) undo();
  }
}
