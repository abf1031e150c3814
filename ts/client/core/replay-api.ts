// A recording's replay (`replay watch`, docs/recording.md § Watch): GET /api/replay reads where it is,
// POST /api/replay plays, pauses, changes the speed or seeks. The page watches the replayed world as a
// spectator (spectate-api.ts); these are the replay's own controls. Uses the platform fetch.
import { REPLAY_PATH, type ReplayControl, type ReplayState } from "../../replay-control.js";
import type { FetchFn } from "./session-api.js";

export type { ReplayControl, ReplayState } from "../../replay-control.js";

/** A refused control (a seek outside the recording): the server's words. */
export class ReplayControlError extends Error {}

export async function fetchReplayState(baseUrl: string, fetchFn: FetchFn = fetch): Promise<ReplayState> {
  const response = await fetchFn(`${baseUrl.replace(/\/+$/, "")}${REPLAY_PATH}`);
  if (!response.ok) throw new ReplayControlError(`the replay's state: status ${response.status}`);
  return (await response.json()) as ReplayState;
}

/** Sends a control; resolves with the state it left (a seek shown under way), rejects with the refusal. */
export async function controlReplay(
  baseUrl: string,
  control: ReplayControl,
  fetchFn: FetchFn = fetch,
): Promise<ReplayState> {
  const response = await fetchFn(`${baseUrl.replace(/\/+$/, "")}${REPLAY_PATH}`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(control),
  });
  const body = (await response.json()) as ReplayState & { error?: string };
  if (!response.ok) throw new ReplayControlError(body.error ?? `status ${response.status}`);
  return body;
}
