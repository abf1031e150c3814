// The connection's state in words: the page's status line (long form) and
// the HUD panel (a word or two in the framebuffer font, ASCII only).
import type { ConnectionState } from "../core/connection.js";
import type { Outage } from "../core/readout.js";

/** Silence this long while playing is worth saying (packets come 12 times a second). */
export const QUIET_NOTICE_MS = 2000;

export type StatusLevel = "ok" | "busy" | "bad";

export interface StatusText {
  /** For the status line under the game. */
  readonly line: string;
  /** For the HUD panel: short and ASCII. */
  readonly short: string;
  readonly level: StatusLevel;
}

/**
 * The state in words. With `outage` (GameClient.outage) the words count down: a quiet server while
 * playing ("No word from the server for 3 s — reconnecting in 7 s if it stays quiet"), and the wait
 * before the next rejoin ("Connection lost — trying again in 4 s (attempt 3)").
 */
export function connectionStatus(
  state: ConnectionState,
  transport: string,
  nick: string,
  outage?: Outage,
  /** A spectator's page (no body): it watches, it does not play. */
  watching = false,
): StatusText {
  switch (state) {
    case "connecting":
      return { line: `Connecting as ${nick} via ${transport}…`, short: "connecting", level: "busy" };
    case "playing":
      if (outage !== undefined && outage.silentMs >= QUIET_NOTICE_MS) {
        const quiet = Math.floor(outage.silentMs / 1000);
        const left = Math.max(1, Math.ceil((outage.disconnectAfterMs - outage.silentMs) / 1000));
        return {
          line: `No word from the server for ${quiet} s — reconnecting in ${left} s if it stays quiet`,
          short: "quiet",
          level: "busy",
        };
      }
      return watching
        ? { line: `Watching the world via ${transport}`, short: "watching", level: "ok" }
        : { line: `Playing as ${nick} via ${transport}`, short: "online", level: "ok" };
    case "disconnected":
      if (outage !== undefined && outage.retryInMs > 0) {
        const seconds = Math.ceil(outage.retryInMs / 1000);
        const attempt = outage.attempts > 0 ? ` (attempt ${outage.attempts + 1})` : "";
        return {
          line: `Connection lost — trying again in ${seconds} s${attempt}`,
          short: `retry ${seconds}s`,
          level: "bad",
        };
      }
      return { line: "Disconnected — reconnecting…", short: "reconnecting", level: "bad" };
    case "reconnecting":
      return {
        line:
          outage !== undefined && outage.attempts > 1
            ? `Reconnecting… (attempt ${outage.attempts})`
            : "Disconnected — reconnecting…",
        short: "reconnecting",
        level: "bad",
      };
    case "closed":
      return { line: "Disconnected. Reload the page to play again.", short: "offline", level: "bad" };
  }
}
