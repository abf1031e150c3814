// The operators' command-line client for the admin API (docs/server.md § Admin).
//
//   npm run -s admin -- [--url URL] [--token-file F] COMMAND [ARGS]
//
// Exit codes: 0 done, 1 the server refused (the reason on stderr), 2 bad usage.
import { readFileSync } from "node:fs";
import { pathToFileURL } from "node:url";
import { parseArgs } from "node:util";

const USAGE = `Forgotten Caves admin client

usage: npm run -s admin -- [--url URL] [--token-file F] COMMAND [ARGS]

  --url URL          the server's HTTP address (default http://127.0.0.1:8080)
  --token-file F     the admin token (default: the CAVES_ADMIN_TOKEN environment variable)

commands:
  players                              who is in play (entity id, nick, account, address, hp, muted)
  kick NICK [REASON...]                end a player's session
  ban NICK [--minutes N] REASON...     ban a player in play: its account, or a guest's address
  ban --account NAME [--minutes N] REASON...
  ban --address IP [--minutes N] REASON...   an IPv6 address bans its /64
  unban --account NAME | --address IP
  mute NICK [--minutes N] [REASON...]  refuse the player's chat lines
  unmute NICK
  message NICK TEXT...                 a line from the server to that player only
  teleport NICK [X Y]                  move a player to the free tile (X, Y), or to the nearest spawn point
  announce TEXT...                     a system line to everyone
  bans                                 the address bans in force
  log [N]                              the newest N admin actions (default 20)

Without --minutes a ban or mute lasts until lifted. A nick shared by several
players in play is refused: use --entity ID instead of NICK.`;

export class AdminUsageError extends Error {}

interface Request {
  method: "GET" | "POST";
  path: string;
  body?: Record<string, unknown>;
}

const OPTIONS = {
  url: { type: "string", default: "http://127.0.0.1:8080" },
  "token-file": { type: "string" },
  minutes: { type: "string" },
  account: { type: "string" },
  address: { type: "string" },
  entity: { type: "string" },
  help: { type: "boolean", short: "h", default: false },
} as const;

/** Parses the whole command line; throws on an unknown option. */
export function parseCommandLine(argv: readonly string[]) {
  return parseArgs({ args: [...argv], options: OPTIONS, allowPositionals: true });
}

/** Turns the parsed command line into the admin API request it means. */
export function requestFor(
  values: ReturnType<typeof parseCommandLine>["values"],
  positionals: readonly string[],
): Request {
  const [command, ...rest] = positionals;
  const minutes = values.minutes === undefined ? undefined : Number(values.minutes);
  if (minutes !== undefined && !(minutes > 0)) throw new AdminUsageError("--minutes takes a number above 0");
  const entityId = values.entity === undefined ? undefined : Number(values.entity);
  if (entityId !== undefined && !(Number.isInteger(entityId) && entityId > 0)) {
    throw new AdminUsageError("--entity takes an entity id (a positive integer)");
  }
  /** The player: --entity ID, or the first word as the nick. */
  const player = (): { target: Record<string, unknown>; words: string[] } => {
    if (entityId !== undefined) return { target: { entityId }, words: rest };
    if (rest.length === 0) throw new AdminUsageError(`${command} needs a NICK (or --entity ID)`);
    return { target: { nick: rest[0] }, words: rest.slice(1) };
  };
  const text = (words: string[]): string | undefined => (words.length === 0 ? undefined : words.join(" "));
  switch (command) {
    case "players":
      return { method: "GET", path: "/api/admin/players" };
    case "bans":
      return { method: "GET", path: "/api/admin/bans" };
    case "log": {
      const limit = rest[0] ?? "20";
      if (!/^\d+$/.test(limit)) throw new AdminUsageError("log takes a number of entries");
      return { method: "GET", path: `/api/admin/log?limit=${limit}` };
    }
    case "kick": {
      const { target, words } = player();
      return { method: "POST", path: "/api/admin/kick", body: { ...target, reason: text(words) } };
    }
    case "ban": {
      let target: Record<string, unknown>;
      let words: string[];
      if (values.account !== undefined) [target, words] = [{ account: values.account }, rest];
      else if (values.address !== undefined) [target, words] = [{ address: values.address }, rest];
      else ({ target, words } = player());
      const reason = text(words);
      if (reason === undefined) throw new AdminUsageError("ban needs a REASON (it is shown to the banned)");
      return { method: "POST", path: "/api/admin/ban", body: { ...target, minutes, reason } };
    }
    case "unban":
      if (values.account === undefined && values.address === undefined) {
        throw new AdminUsageError("unban needs --account NAME or --address IP");
      }
      return { method: "POST", path: "/api/admin/unban", body: { account: values.account, address: values.address } };
    case "mute": {
      const { target, words } = player();
      return { method: "POST", path: "/api/admin/mute", body: { ...target, minutes, reason: text(words) } };
    }
    case "unmute":
      return { method: "POST", path: "/api/admin/unmute", body: player().target };
    case "message": {
      const { target, words } = player();
      const line = text(words);
      if (line === undefined) throw new AdminUsageError("message needs the TEXT to send");
      return { method: "POST", path: "/api/admin/message", body: { ...target, text: line } };
    }
    case "teleport": {
      const { target, words } = player();
      if (words.length === 0) return { method: "POST", path: "/api/admin/teleport", body: target };
      const [x, y] = words.map(Number);
      if (words.length !== 2 || !Number.isInteger(x) || !Number.isInteger(y)) {
        throw new AdminUsageError("teleport takes a NICK and then a tile X Y (whole numbers), or no tile");
      }
      return { method: "POST", path: "/api/admin/teleport", body: { ...target, x, y } };
    }
    case "announce": {
      const announcement = text(rest);
      if (announcement === undefined) throw new AdminUsageError("announce needs the TEXT to send");
      return { method: "POST", path: "/api/admin/announce", body: { text: announcement } };
    }
    case undefined:
      throw new AdminUsageError("no command given");
    default:
      throw new AdminUsageError(`unknown command "${command}"`);
  }
}

async function main(argv: string[]): Promise<number> {
  let request: Request;
  let token: string;
  let base: string;
  try {
    const { values, positionals } = parseCommandLine(argv);
    if (values.help) {
      process.stdout.write(`${USAGE}\n`);
      return 0;
    }
    request = requestFor(values, positionals);
    const tokenFile = values["token-file"];
    const raw = tokenFile !== undefined ? readFileSync(tokenFile, "utf8") : process.env.CAVES_ADMIN_TOKEN;
    if (raw === undefined || raw.trim() === "") {
      throw new AdminUsageError("no admin token: give --token-file F or set CAVES_ADMIN_TOKEN");
    }
    token = raw.trim();
    base = values.url;
  } catch (error) {
    process.stderr.write(`admin: ${(error as Error).message}\n(run with --help for usage)\n`);
    return 2;
  }
  let response: Response;
  try {
    response = await fetch(new URL(request.path, base), {
      method: request.method,
      headers: { authorization: `Bearer ${token}`, ...(request.body ? { "content-type": "application/json" } : {}) },
      body: request.body ? JSON.stringify(request.body) : undefined,
    });
  } catch (error) {
    process.stderr.write(`admin: cannot reach ${base}: ${(error as Error).message}\n`);
    return 1;
  }
  const text = await response.text();
  let body: unknown = text;
  try {
    body = JSON.parse(text);
  } catch {
    // not JSON: shown as it is
  }
  if (!response.ok) {
    const reason =
      typeof body === "object" && body !== null && "error" in body ? String((body as { error: unknown }).error) : text;
    process.stderr.write(`admin: the server refused (${response.status}): ${reason}\n`);
    return 1;
  }
  process.stdout.write(`${JSON.stringify(body, null, 2)}\n`);
  return 0;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  process.exitCode = await main(process.argv.slice(2));
}
