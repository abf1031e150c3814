// The connection's state in words: the page's status line (long form) and
// the HUD panel (a word or two in the framebuffer font, ASCII only).
import type { ConnectionState } from "../core/connection.js";

export type StatusLevel = "ok" | "busy" | "bad";

export interface StatusText {
  /** For the status line under the game. */
  readonly line: string;
  /** For the HUD panel: short and ASCII. */
  readonly short: string;
  readonly level: StatusLevel;
}

export function connectionStatus(state: ConnectionState, transport: string, nick: string): StatusText {
  switch (state) {
    case "connecting":
      return { line: `Connecting as ${nick} via ${transport}…`, short: "connecting", level: "busy" };
    case "playing":
      return { line: `Playing as ${nick} via ${transport}`, short: "online", level: "ok" };
    case "disconnected":
    case "reconnecting":
      return { line: "Disconnected — reconnecting…", short: "reconnecting", level: "bad" };
    case "closed":
      return { line: "Disconnected. Reload the page to play again.", short: "offline", level: "bad" };
  }
}
