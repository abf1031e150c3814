// What a line typed into chat asks for when it starts with "/" (docs/social.md): a private line, a reply,
// the friends and ignore lists, the party. Commands ride in ChatPost lines — the path that already
// numbers, acknowledges and rate-limits what a player types — so they need no packet of their own, and
// a line is a command on every client, the seed's too.

/** The verbs, each as its canonical word. */
export type Verb =
  | "tell"
  | "reply"
  | "ignore"
  | "unignore"
  | "friend"
  | "unfriend"
  | "friends"
  | "invite"
  | "leave"
  | "kick"
  | "party_say"
  | "party"
  | "trade"
  | "offer"
  | "unoffer"
  | "confirm"
  | "cancel"
  | "help";

/** Every word a player may type for a verb: the canonical first, then its aliases. */
const WORDS: Readonly<Record<Verb, readonly string[]>> = {
  tell: ["tell", "t", "w", "whisper", "msg"],
  reply: ["reply", "r"],
  ignore: ["ignore"],
  unignore: ["unignore"],
  friend: ["friend", "addfriend"],
  unfriend: ["unfriend", "removefriend"],
  friends: ["friends"],
  invite: ["invite"],
  leave: ["leave"],
  kick: ["kick"],
  party_say: ["p"],
  party: ["party"],
  trade: ["trade"],
  offer: ["offer"],
  unoffer: ["unoffer"],
  confirm: ["confirm"],
  cancel: ["cancel"],
  help: ["help", "?"],
};

const BY_WORD = new Map<string, Verb>(
  (Object.entries(WORDS) as [Verb, readonly string[]][]).flatMap(([verb, words]) =>
    words.map((word) => [word, verb] as const),
  ),
);

/** What /help answers: one line per group, each short enough for a chat line. */
export const HELP_LINES: readonly string[] = [
  "/tell nick text — a private line (also /t, /w); /r text — reply to the last who told you",
  "/friend nick, /unfriend nick, /friends — your friends and who of them is online",
  "/ignore nick, /unignore nick, /ignore — hide a player's lines, invites and trades",
  "/invite nick, /leave, /kick nick, /party — your party; /p text — say it to your party",
  "/trade nick (next to them), /offer 3 gold coin, /unoffer dagger, /confirm, /cancel — trade items",
];

export type Command =
  | { readonly verb: Verb; readonly rest: string }
  /** A word that names no command: the player is told, nothing is posted. */
  | { readonly verb: "unknown"; readonly word: string };

/**
 * The command `line` asks for, or null when it is an ordinary chat line. A line starting with "//" is
 * an ordinary line that starts with one "/" (how a player says "/help" to everyone).
 */
export function parseCommand(line: string): Command | null {
  if (!line.startsWith("/") || line.startsWith("//")) return null;
  const match = /^\/(\S*)\s*([\s\S]*)$/u.exec(line)!;
  const word = match[1].toLowerCase();
  const verb = BY_WORD.get(word);
  if (verb === undefined) return { verb: "unknown", word: match[1] };
  return { verb, rest: match[2].trim() };
}

/** The line an ordinary "//…" line posts: without its first "/". */
export function unescapedLine(line: string): string {
  return line.startsWith("//") ? line.slice(1) : line;
}

/**
 * The ways `rest` may split into a nick and what follows it, longest nick first: nicks may hold spaces
 * ("Ada L"), so "/tell Ada L hi" is tried as "Ada L" + "hi", then "Ada" + "L hi". A nick in double
 * quotes is the one way: `/tell "Ada L" hi`.
 */
export function nickSplits(rest: string, maxWords = 4): { nick: string; text: string }[] {
  const quoted = /^"([^"]+)"\s*([\s\S]*)$/u.exec(rest);
  if (quoted) return [{ nick: quoted[1].trim(), text: quoted[2].trim() }];
  const words = rest.split(/\s+/u).filter((word) => word !== "");
  const out: { nick: string; text: string }[] = [];
  for (let count = Math.min(maxWords, words.length); count >= 1; count--)
    out.push({ nick: words.slice(0, count).join(" "), text: words.slice(count).join(" ") });
  return out;
}
