// A recording's replay (`replay watch`, docs/recording.md § Watch): GET /api/replay reads where it is,
// POST /api/replay plays, pauses, changes the speed or seeks. The page watches the replayed world as a
// spectator (spectate-api.ts); these are the replay's own controls. Uses the platform fetch.
import type { FetchFn } from "./session-api.js";

/** What GET /api/replay answers (ts/server/replay-viewer/replay-player.ts ReplayState). */
export interface ReplayState {
  readonly tickHz: number;
  /** The recording's first tick and its last: the span a seek may go to (from firstTick − 1, its start). */
  readonly firstTick: number;
  readonly lastTick: number;
  /** The tick the replayed world stands at. */
  readonly tick: number;
  readonly playing: boolean;
  readonly speed: number;
  /** Changes when the world was made again (a seek backwards): the page's session ended with the old one. */
  readonly epoch: number;
  readonly seeking: { readonly fromTick: number; readonly toTick: number; readonly atTick: number } | null;
  readonly divergence: {
    readonly tick: number;
    readonly what: readonly string[];
    readonly details: readonly string[];
  } | null;
  readonly ended: boolean;
  readonly players: readonly {
    readonly entityId: number;
    readonly nick: string;
    readonly x: number;
    readonly y: number;
  }[];
  /** Why the replay stopped, when it failed (the file unreadable mid-run). */
  readonly failure?: string;
}

/** What POST /api/replay may change; absent fields stay as they are. */
export interface ReplayControl {
  readonly play?: boolean;
  readonly speed?: number;
  readonly seekTick?: number;
  readonly seekSeconds?: number;
}

/** A refused control (a seek outside the recording): the server's words. */
export class ReplayControlError extends Error {}

export async function fetchReplayState(baseUrl: string, fetchFn: FetchFn = fetch): Promise<ReplayState> {
  const response = await fetchFn(`${baseUrl.replace(/\/+$/, "")}/api/replay`);
  if (!response.ok) throw new ReplayControlError(`the replay's state: status ${response.status}`);
  return (await response.json()) as ReplayState;
}

/** Sends a control; resolves with the state it left (a seek shown under way), rejects with the refusal. */
export async function controlReplay(
  baseUrl: string,
  control: ReplayControl,
  fetchFn: FetchFn = fetch,
): Promise<ReplayState> {
  const response = await fetchFn(`${baseUrl.replace(/\/+$/, "")}/api/replay`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(control),
  });
  const body = (await response.json()) as ReplayState & { error?: string };
  if (!response.ok) throw new ReplayControlError(body.error ?? `status ${response.status}`);
  return body;
}
