// Watching a recording (`replay watch`; docs/client.md § Watching a recording): the spectator's page
// (SpectateSession) on the replayed world, with the replay bar. It reads the replay's state a few times a
// second and shows it; the bar's play, speed, seek and follow go to the server (POST /api/replay) or to
// the camera. When the world is made again (a seek backwards), the page's session ended with the old
// world: the client rejoins at once, keeping its chunk cache and its camera.
import { controlReplay, fetchReplayState, type ReplayControl, type ReplayState } from "../core/replay-api.js";
import type { GameClient } from "../core/game-client.js";
import { ReplayBar } from "../ui/replay-bar.js";
import type { StatusLine } from "../ui/status-line.js";
import type { SpectateSession } from "./spectate-session.js";

/** How often the page asks where the replay is (the time shown, a seek's progress, the players). */
export const REPLAY_POLL_MS = 250;

export interface ReplayWatchParts {
  readonly baseUrl: string;
  readonly client: Pick<GameClient, "rejoin">;
  readonly session: Pick<SpectateSession, "follow" | "following" | "worldHeld">;
  /** Where the bar is built. */
  readonly bar: HTMLElement;
  readonly status: StatusLine;
}

export class ReplayWatch {
  private readonly bar: ReplayBar;
  private epoch: number | null = null;
  private timer: ReturnType<typeof setTimeout> | null = null;
  private stopped = false;

  constructor(private readonly parts: ReplayWatchParts) {
    this.bar = new ReplayBar(parts.bar, {
      play: (playing) => void this.send({ play: playing }),
      speed: (speed) => void this.send({ speed }),
      seek: (tick) => void this.send({ seekTick: tick }),
      follow: (player) => parts.session.follow(player.entityId, player),
    });
    void this.poll();
  }

  stop(): void {
    this.stopped = true;
    if (this.timer !== null) clearTimeout(this.timer);
  }

  private async poll(): Promise<void> {
    if (this.stopped) return;
    try {
      this.show(await fetchReplayState(this.parts.baseUrl));
    } catch (error) {
      this.parts.status.set(`The replay does not answer: ${(error as Error).message}`, "bad");
    }
    if (!this.stopped) this.timer = setTimeout(() => void this.poll(), REPLAY_POLL_MS);
  }

  private async send(control: ReplayControl): Promise<void> {
    try {
      this.show(await controlReplay(this.parts.baseUrl, control));
    } catch (error) {
      this.parts.status.set(`The replay refused: ${(error as Error).message}`, "bad");
    }
  }

  private show(state: ReplayState): void {
    const { session, client } = this.parts;
    this.bar.show(state);
    this.bar.following(session.following);
    // A paused or seeking replay sends no frames: that silence is no outage.
    session.worldHeld = !state.playing || state.seeking !== null;
    if (this.epoch !== null && state.epoch !== this.epoch) {
      client.rejoin("the replay's world was made again (a seek backwards)");
    }
    this.epoch = state.epoch;
  }
}
