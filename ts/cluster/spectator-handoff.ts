// A spectator's camera moving between region processes with the entity it follows (docs/scaling.md
// § Following across regions): the console's Follow at a gateway watches through the region that holds
// the entity, and when the entity crosses a border the old region hands the spectator's session to the
// new one on the same path a player's handoff takes (a HANDOFF frame on the gateway's link, forwarded by
// the gateway ahead of the client's next datagram). The page keeps its link, token and view; only the
// region serving it changes. Written once by the old region, read once (checked) by the new.
import { REPLAY_WINDOW } from "../server/edge/replay-window.js";
import type { ChatChannelState } from "../server/sessions/chat-channel.js";
import type { Session } from "../server/sessions/session.js";
import type { SpectatorArrival } from "../server/spectators/spectator-room.js";
import { FrameError } from "./link-frames.js";

/** The JSON a HANDOFF frame carries for a spectator (a player's is a HandoffState: handoff.ts). */
export interface SpectatorHandoff {
  /** What tells it from a player's handoff on the same frame. */
  readonly spectator: true;
  readonly from: number;
  readonly to: number;
  /** The old region's tick when it let the spectator go: it may have sent it frames up to this tick. */
  readonly tick: number;
  readonly tokenHex: string;
  readonly keyHex: string;
  readonly keyed: boolean;
  readonly proven: boolean;
  readonly joinSource: string | null;
  readonly reads: number;
  readonly camera: { x: number; y: number; follow: number };
  readonly replay: { newest: number; received: number[] };
  readonly chat: ChatChannelState;
}

/** Whether a HANDOFF frame's state is a spectator's. */
export function isSpectatorHandoff(state: unknown): state is SpectatorHandoff {
  return typeof state === "object" && state !== null && (state as { spectator?: unknown }).spectator === true;
}

/** What region `from` writes down of spectator `session`, following entity `follow`, for region `to`. */
export function spectatorHandoffOf(
  session: Session,
  follow: number,
  from: number,
  to: number,
  tick: number,
): SpectatorHandoff {
  return {
    spectator: true,
    from,
    to,
    tick,
    tokenHex: session.tokenHex,
    keyHex: session.keyHex,
    keyed: session.keyed,
    proven: session.proof.proven,
    joinSource: session.joinSource,
    reads: session.reads,
    camera: { x: session.entity.x, y: session.entity.y, follow },
    replay: session.replay.snapshot(),
    chat: session.chat.snapshot(),
  };
}

/** The arrival the new region's spectators' room adopts; throws FrameError on a state that is not one. */
export function spectatorArrivalOf(state: SpectatorHandoff): SpectatorArrival {
  if (!/^[0-9a-f]{16}$/.test(state.tokenHex) || !/^[0-9a-f]{64}$/.test(state.keyHex)) {
    throw new FrameError("spectator handoff: bad token or key");
  }
  const camera = state.camera as Partial<SpectatorHandoff["camera"]> | undefined;
  if (
    camera === undefined ||
    ![camera.x, camera.y, camera.follow].every((n) => Number.isSafeInteger(n) && (n as number) >= 0) ||
    (camera.follow as number) > 0xffffffff
  ) {
    throw new FrameError("spectator handoff: bad camera");
  }
  if (
    typeof state.keyed !== "boolean" ||
    typeof state.proven !== "boolean" ||
    !(state.joinSource === null || typeof state.joinSource === "string") ||
    !(Number.isInteger(state.reads) && state.reads >= 0 && state.reads <= 0xffff) ||
    !Number.isSafeInteger(state.tick)
  ) {
    throw new FrameError("spectator handoff: bad session fields");
  }
  const replay = state.replay as Partial<SpectatorHandoff["replay"]> | undefined;
  if (
    replay === undefined ||
    !Number.isSafeInteger(replay.newest) ||
    !Array.isArray(replay.received) ||
    replay.received.length !== REPLAY_WINDOW ||
    !replay.received.every((n) => Number.isSafeInteger(n))
  ) {
    throw new FrameError("spectator handoff: bad replay window");
  }
  if (typeof state.chat !== "object" || state.chat === null) throw new FrameError("spectator handoff: bad chat");
  return {
    token: BigInt(`0x${state.tokenHex}`),
    key: new Uint8Array(Buffer.from(state.keyHex, "hex")),
    keyed: state.keyed,
    proven: state.proven,
    joinSource: state.joinSource,
    reads: state.reads,
    camera: { x: camera.x!, y: camera.y!, followEntityId: camera.follow! },
    quietThroughTick: state.tick,
    replay: { newest: replay.newest!, received: replay.received },
    chat: state.chat,
  };
}
