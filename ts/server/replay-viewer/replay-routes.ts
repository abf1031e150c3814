// The replay's controls (docs/recording.md § Watch): GET /api/replay reads where the replay is — its
// span, its tick, playing or paused, its speed, a seek's progress, a divergence, the players to follow —
// and POST /api/replay changes it: `{"play"?: bool, "speed"?: x, "seekTick"?: n | "seekSeconds"?: s}`.
// Plain HTTP, not datagrams: a control is a rare request a person makes, and every viewer of the one
// replay sees the same world, so the controls are the replay's, not a session's.
import { HttpError, type HttpApi } from "../http/http-api.js";
import { REPLAY_PATH } from "../../replay-control.js";
import { type ReplayPlayer, SeekError } from "./replay-player.js";

export function installReplayRoutes(http: HttpApi, player: ReplayPlayer): void {
  const answer = () => ({
    body: { ...player.state(), ...(player.failure === null ? {} : { failure: player.failure.message }) },
  });
  http.route("GET", REPLAY_PATH, answer);
  http.route("POST", REPLAY_PATH, ({ body }) => {
    if (typeof body !== "object" || body === null || Array.isArray(body)) {
      throw new HttpError(400, "request body must be a JSON object");
    }
    const { play, speed, seekTick, seekSeconds, ...rest } = body as Record<string, unknown>;
    const unknown = Object.keys(rest);
    if (unknown.length > 0)
      throw new HttpError(400, `unknown field "${unknown[0]}" (play, speed, seekTick, seekSeconds)`);
    if (play !== undefined && typeof play !== "boolean") throw new HttpError(400, '"play" must be true or false');
    if (speed !== undefined && typeof speed !== "number") throw new HttpError(400, '"speed" must be a number');
    if (seekTick !== undefined && seekSeconds !== undefined) {
      throw new HttpError(400, 'give "seekTick" or "seekSeconds", not both');
    }
    if (seekTick !== undefined && typeof seekTick !== "number") throw new HttpError(400, '"seekTick" must be a tick');
    if (seekSeconds !== undefined && typeof seekSeconds !== "number") {
      throw new HttpError(400, '"seekSeconds" must be a number of seconds');
    }
    try {
      if (speed !== undefined) player.setSpeed(speed);
      const target = seekTick ?? (seekSeconds === undefined ? undefined : player.tickAtSeconds(seekSeconds));
      // The seek runs on; the answer shows it under way (`seeking`), and GET /api/replay its progress.
      if (target !== undefined) player.seekTo(target).catch(() => {});
    } catch (error) {
      if (error instanceof SeekError) throw new HttpError(400, error.message);
      throw error;
    }
    if (play === true) player.play();
    if (play === false) player.pause();
    return answer();
  });
}
