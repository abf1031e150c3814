// The replay bar of the page at /?replay (docs/client.md § Watching a recording): play / pause, the
// speed, a seek slider with the time, and the players of the recording to follow. It shows a ReplayState
// (core/replay-api.ts) and reports what the viewer asks for; it sends nothing itself. Space plays or
// pauses; the slider seeks where it is let go.
import { REPLAY_SPEEDS, type ReplayState } from "../../replay-control.js";

/** What the bar asks of the page. */
export interface ReplayBarActions {
  play(playing: boolean): void;
  speed(speed: number): void;
  seek(tick: number): void;
  follow(player: ReplayState["players"][number]): void;
}

/** `ticks` of the world as m:ss.s (the time since the recording's start). */
export function replayClock(ticks: number, tickHz: number): string {
  const tenths = Math.max(0, Math.round((ticks * 10) / tickHz));
  const minutes = Math.floor(tenths / 600);
  const seconds = (tenths % 600) / 10;
  return `${minutes}:${seconds.toFixed(1).padStart(4, "0")}`;
}

/** The bar's time line: where the replay is in its span, or how far a seek has come. */
export function replayTimeLine(state: ReplayState): string {
  const start = state.firstTick - 1;
  const total = replayClock(state.lastTick - start, state.tickHz);
  const seeking = state.seeking;
  if (seeking !== null) {
    const done =
      seeking.toTick === seeking.fromTick
        ? 1
        : (seeking.atTick - seeking.fromTick) / (seeking.toTick - seeking.fromTick);
    const percent = Math.round(Math.min(1, Math.max(0, done)) * 100);
    return `Seeking to ${replayClock(seeking.toTick - start, state.tickHz)} / ${total}… ${percent}%`;
  }
  const end = state.ended || state.tick >= state.lastTick ? " (end)" : "";
  return `${replayClock(state.tick - start, state.tickHz)} / ${total} · tick ${state.tick}${end}`;
}

export class ReplayBar {
  private readonly playButton: HTMLButtonElement;
  private readonly speedSelect: HTMLSelectElement;
  private readonly slider: HTMLInputElement;
  private readonly time: HTMLElement;
  private readonly warning: HTMLElement;
  private readonly players: HTMLElement;
  private state: ReplayState | null = null;
  /** The slider is held: its thumb is the viewer's, not the replay's. */
  private dragging = false;
  private shownPlayers = "";
  private followId = 0;

  constructor(
    private readonly root: HTMLElement,
    private readonly actions: ReplayBarActions,
  ) {
    const doc = root.ownerDocument;
    const make = <K extends keyof HTMLElementTagNameMap>(tag: K, testId: string, className: string) => {
      const element = doc.createElement(tag);
      element.dataset.testid = testId;
      element.className = className;
      return element;
    };
    this.playButton = make("button", "replay-play", "replay-play");
    this.playButton.type = "button";
    this.playButton.addEventListener("click", () => this.togglePlay());
    this.speedSelect = make("select", "replay-speed", "replay-speed");
    this.speedSelect.setAttribute("aria-label", "Speed");
    for (const speed of REPLAY_SPEEDS) {
      const option = doc.createElement("option");
      option.value = String(speed);
      option.textContent = `${speed}×`;
      this.speedSelect.append(option);
    }
    this.speedSelect.addEventListener("change", () => actions.speed(Number(this.speedSelect.value)));
    this.slider = make("input", "replay-seek", "replay-seek");
    this.slider.type = "range";
    this.slider.setAttribute("aria-label", "Seek");
    this.slider.addEventListener("input", () => {
      this.dragging = true;
      if (this.state !== null) this.time.textContent = `Seek to ${this.sliderTime(this.state)}`;
    });
    this.slider.addEventListener("change", () => {
      this.dragging = false;
      actions.seek(Number(this.slider.value));
    });
    this.time = make("span", "replay-time", "replay-time");
    this.time.setAttribute("aria-live", "off");
    this.warning = make("p", "replay-divergence", "replay-divergence");
    this.warning.setAttribute("role", "alert");
    this.warning.hidden = true;
    this.players = make("div", "replay-players", "replay-players");
    this.players.setAttribute("aria-label", "Players: click to follow, Esc for the free camera");
    const row = doc.createElement("div");
    row.className = "replay-row";
    row.append(this.playButton, this.speedSelect, this.slider, this.time);
    root.append(row, this.players, this.warning);
    root.hidden = false;
    doc.defaultView?.addEventListener("keydown", (event) => {
      if (event.code !== "Space" || event.target instanceof HTMLInputElement) return;
      event.preventDefault();
      this.togglePlay();
    });
  }

  /** Shows the replay as it is now (called a few times a second). */
  show(state: ReplayState): void {
    this.state = state;
    this.playButton.textContent = state.playing ? "Pause" : "Play";
    this.playButton.setAttribute("aria-pressed", String(state.playing));
    if (document.activeElement !== this.speedSelect) this.speedSelect.value = String(state.speed);
    this.slider.min = String(state.firstTick - 1);
    this.slider.max = String(state.lastTick);
    if (!this.dragging) {
      this.slider.value = String(state.seeking?.toTick ?? state.tick);
      this.time.textContent = replayTimeLine(state);
    }
    this.root.dataset.tick = String(state.tick);
    this.root.dataset.playing = String(state.playing);
    this.root.dataset.seeking = String(state.seeking !== null);
    const trouble =
      state.failure !== undefined
        ? `The replay stopped: ${state.failure}`
        : state.divergence !== null
          ? `The replay diverged from the recording at tick ${state.divergence.tick}: ${state.divergence.what.join("; ")}` +
            (state.divergence.details.length > 0 ? ` (${state.divergence.details.slice(0, 3).join("; ")})` : "")
          : "";
    this.warning.hidden = trouble === "";
    this.warning.textContent = trouble;
    this.showPlayers(state.players);
  }

  /** Marks the player the camera follows (0: a free camera). */
  following(entityId: number): void {
    if (entityId === this.followId) return;
    this.followId = entityId;
    for (const button of this.players.querySelectorAll("button")) {
      button.setAttribute("aria-pressed", String(Number(button.dataset.entityId) === entityId));
    }
  }

  private togglePlay(): void {
    if (this.state !== null) this.actions.play(!this.state.playing);
  }

  private sliderTime(state: ReplayState): string {
    return replayClock(Number(this.slider.value) - (state.firstTick - 1), state.tickHz);
  }

  /** The list of players, rebuilt only when who is in it changes. */
  private showPlayers(players: ReplayState["players"]): void {
    const key = players.map((player) => `${player.entityId}:${player.nick}`).join("|");
    if (key !== this.shownPlayers) {
      this.shownPlayers = key;
      const doc = this.root.ownerDocument;
      const buttons = players.map((player) => {
        const button = doc.createElement("button");
        button.type = "button";
        button.className = "replay-player";
        button.textContent = player.nick;
        button.dataset.entityId = String(player.entityId);
        button.setAttribute("aria-pressed", String(player.entityId === this.followId));
        return button;
      });
      this.players.replaceChildren(...buttons);
      if (players.length === 0) this.players.textContent = "No players at this moment";
    }
    // Each button follows the player where it stands now (the list is refreshed with the state).
    for (const button of this.players.querySelectorAll("button")) {
      const player = players.find((one) => one.entityId === Number(button.dataset.entityId));
      if (player !== undefined) button.onclick = () => this.actions.follow(player);
    }
  }
}
