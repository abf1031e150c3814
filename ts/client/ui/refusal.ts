// Every way joining can fail, said in plain words for the join screen: the
// server refused the nick (400), is full (503), speaks another protocol
// version, cannot be reached, or let us join but no link could be opened.
import { SessionError } from "../core/session-api.js";
import { TransportError } from "../transport/websocket.js";

/** The reason part of a SessionError message ("join: nick must not be empty" → "nick must not be empty"). */
function reasonOf(error: SessionError): string {
  return error.message.replace(/^(join|world): /, "");
}

function sentence(text: string): string {
  const trimmed = text.trim();
  if (trimmed.length === 0) return trimmed;
  const capital = trimmed[0].toUpperCase() + trimmed.slice(1);
  return /[.!?]$/.test(capital) ? capital : capital + ".";
}

/** What to tell the player when joining `serverUrl` failed with `error`. */
export function explainJoinError(error: unknown, serverUrl: string): string {
  if (error instanceof SessionError) {
    const reason = reasonOf(error);
    const mismatch = /server speaks protocol (\d+), this client (\d+)/.exec(reason);
    if (mismatch) {
      return (
        `This page is out of date: the server speaks protocol version ${mismatch[1]}, ` +
        `this page version ${mismatch[2]}. Reload the page to get the current game.`
      );
    }
    if (error.status === 400) return `The server did not accept that nick: ${sentence(reason)}`;
    if (error.status === 503) return "The server is full right now. Please try again in a little while.";
    if (error.status === 0) {
      return `Cannot reach the game server at ${serverUrl}. Is it running? (${reason})`;
    }
    return `The server could not let you in (HTTP ${error.status}): ${sentence(reason)}`;
  }
  if (error instanceof TransportError) {
    return (
      `Joined, but no connection to the game could be opened (${error.message}). ` +
      "A firewall or proxy may be blocking it; try again."
    );
  }
  return `Something went wrong while joining: ${error instanceof Error ? error.message : String(error)}`;
}
