// Every way joining can fail, said in plain words for the join screen: the
// server refused the nick or the account details (400), the name or password
// is wrong (401), the account is banned (403), the account name is taken (409),
// the server is full (503), speaks another protocol version, cannot be reached,
// or let us join but no link could be opened.
import { SessionError } from "../core/session-api.js";
import { TransportError } from "../transport/websocket.js";

/** Which request failed, from the SessionError's prefix, and the reason after it. */
function parse(error: SessionError): { what: string; reason: string } {
  const match = /^(join|world|login|register|spectate): ([\s\S]*)$/.exec(error.message);
  return match ? { what: match[1], reason: match[2] } : { what: "join", reason: error.message };
}

function sentence(text: string): string {
  const trimmed = text.trim();
  if (trimmed.length === 0) return trimmed;
  const capital = trimmed[0].toUpperCase() + trimmed.slice(1);
  return /[.!?]$/.test(capital) ? capital : capital + ".";
}

/** Why the server would not let this page watch (POST /api/spectate, docs/server.md § Spectators). */
function spectateRefusal(status: number, reason: string): string {
  switch (status) {
    case 401:
      return "Only admins may watch this world: give the admin token (a wrong one is refused too).";
    case 403:
      return `This server does not let you watch: ${sentence(reason)}`;
    case 503:
      return "As many spectators as the host allows are watching already. Try again in a little while.";
  }
  return `The server would not let you watch (HTTP ${status}): ${sentence(reason)}`;
}

/** What to tell the player when joining `serverUrl` failed with `error`. */
export function explainJoinError(error: unknown, serverUrl: string): string {
  if (error instanceof SessionError) {
    const { what, reason } = parse(error);
    const account = what === "login" || what === "register";
    const mismatch = /server speaks protocol (\d+), this client (\d+)/.exec(reason);
    if (mismatch) {
      return (
        `This page is out of date: the server speaks protocol version ${mismatch[1]}, ` +
        `this page version ${mismatch[2]}. Reload the page to get the current game.`
      );
    }
    if (what === "spectate" && error.status !== 0) return spectateRefusal(error.status, reason);
    switch (error.status) {
      case 400:
        return account
          ? `The server did not accept that: ${sentence(reason)}`
          : `The server did not accept that nick: ${sentence(reason)}`;
      case 401:
        return "Wrong account name or password. Check both and try again.";
      case 403:
        return `You cannot log in with this account: ${sentence(reason)}`;
      case 409:
        return "That account name is taken. Choose another, or log in if it is yours.";
      case 503:
        return /account created/.test(reason)
          ? "Your account was created, but the server is full right now. Log in a little later."
          : "The server is full right now. Please try again in a little while.";
      case 0:
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
