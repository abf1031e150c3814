// Playing together, the talking part (issue 39, docs/social.md): private lines, replies, the ignore list,
// friends with their online status, and private lines that wait for a friend who is offline. Every verb
// comes in as a chat line starting with "/" (chat-commands.ts) and every answer goes out as a chat line:
// the player's own words as a private line (its speaker name tagged, protocol/chat-speakers.ts), the
// server's as a system line to that player alone. The party's verbs go on to the party room.
//
// Who is who: a player in play is found by nick among the sessions of this process (the nick rules make
// two players' nicks tell apart) — in a cluster's region, failing that, among the other regions' players
// (`elsewhere`); an account's friends and ignores are kept by account in the store, so they outlive
// sessions and nick changes; a guest's ignores live with its session.
//
// The store answers now (one process's SQLite) or later (a cluster's PostgreSQL): an account's lists are
// read once when its player starts playing and kept here (`SocialState`), and every change is written
// before the player hears it was made (`after`), so a change a player was told of is kept.
import { CHAT_SPEAKER_SYSTEM } from "../../protocol/chat.js";
import { taggedSpeaker } from "../../protocol/chat-speakers.js";
import { utf8ByteLength } from "../../protocol/text.js";
import type { Logger } from "../ops/log.js";
import type { AccountRef, Answer, SocialBook, SocialStorePort, WaitingLine } from "../persistence/social-store.js";
import type { Session } from "../sessions/session.js";
import { nickKey } from "../sessions/nick.js";
import type { ChatCommands, ChatService, Hearing } from "../talk/chat.js";
import { HELP_LINES, type Command, nickSplits, parseCommand, unescapedLine } from "./chat-commands.js";

/** What the party room answers to (parties.ts). */
export interface PartyVerbs {
  invite(session: Session, target: Session): void;
  /** `/invite` of a player that another region of a cluster plays. */
  inviteAcross(session: Session, nick: string, region: number): void;
  leave(session: Session): void;
  kick(session: Session, nick: string): void;
  speak(session: Session, text: string): void;
  list(session: Session): void;
}

/**
 * A private line on its way to another process of a cluster (ts/cluster/chat-relay.ts): every region hears
 * it, and the one whose player `rest` names delivers it and answers (RemoteTellAnswer).
 */
export interface RemoteTell {
  /** The sender's number for it (unique per sending process). */
  readonly id: number;
  readonly fromNick: string;
  /** The sender's key (an account's "a12", a guest's nick fold): what the recipient's ignores name. */
  readonly fromKey: string;
  readonly fromAccount: number | null;
  /** "nick text" as typed after /tell (a nick with spaces in quotes). */
  readonly rest: string;
}

/** The answer of the region that found the recipient of a RemoteTell. */
export interface RemoteTellAnswer {
  readonly id: number;
  readonly outcome: "delivered" | "ignored" | "empty";
  /** The recipient's nick, and what was delivered (the echo's words). */
  readonly toNick: string;
  readonly text: string;
}

/** A player in play as the social room names it: here or in another region of a cluster. */
export interface PlayerRef {
  /** Its key (playerKey): what ignore lists name. */
  readonly key: string;
  readonly nick: string;
  readonly accountId: number | null;
}

/** A player in play in a region of a cluster (the directory of players names it so). */
export interface PlayerThere extends PlayerRef {
  readonly region: number;
}

/** A player in play that a command named: a session here, or a player of another region. */
type FoundPlayer = PlayerRef & ({ readonly session: Session } | { readonly region: number });

/**
 * The other regions of a cluster, as the social room sees them (ts/cluster/players-online.ts and the chat
 * relay); null in one process, where every player in play is one of its own sessions.
 */
export interface SocialElsewhere {
  /** Tells the other regions that an account's player came or went: their players who keep it as a friend hear it. */
  presence(accountId: number, nick: string, online: boolean): void;
  /** Which of these accounts' players play in another region now. */
  onlineOf(accountIds: readonly number[]): Promise<Set<number>>;
  /**
   * Tells the other regions that `by` (its nick and key) added `accountId` as a friend: the region that plays
   * that account tells its player (SocialRoom.befriendedHere).
   */
  befriended(accountId: number, by: { nick: string; key: string }): void;
  /** The player in play in another region under `nick` (as nickKey folds it), and that region; or null. */
  playerNamed(nick: string): Promise<PlayerThere | null>;
}

/**
 * What a session's social state is when it moves to another region (a handoff, a checkpoint): its ignore
 * list (a guest's lives nowhere else), an account's friends as read at its login, who last told it something.
 */
export interface CarriedSocial {
  readonly ignores: [string, string][];
  readonly friends: [number, string][] | null;
  /** Waiting lines delivered and not yet acknowledged: [line id, chat seq] (the chat numbers travel too). */
  readonly delivering?: [number, number][];
  readonly lastFrom: { readonly key: string; readonly nick: string; readonly accountId: number | null } | null;
}

/**
 * What a new friend who is offline finds waiting (a line from the one who added them, stored and bounded as
 * a /tell to an offline friend is): "Ada (private): added you as a friend."
 */
export const BEFRIENDED_WAITING_TEXT = "added you as a friend.";

/** How long a private line waits for another region's answer before the player is told nobody has that nick. */
export const REMOTE_TELL_SECONDS = 2;

/** What the trade room answers to (trades.ts). */
export interface TradeVerbs {
  ask(session: Session, target: Session): void;
  /** `/trade nick` naming nobody here: a player of another region by the border is asked (false: none). */
  askAcross(session: Session, nicks: readonly string[]): boolean;
  /** `/trade nick` naming `nick`, who plays in another region (the directory says): asked once seen here, if soon. */
  askWhenSeen(session: Session, nicks: readonly string[], nick: string): void;
  offer(session: Session, rest: string): void;
  unoffer(session: Session, rest: string): void;
  confirm(session: Session): void;
  cancelBy(session: Session): void;
}

export interface SocialPorts {
  /** The session in play under a nick (or one it would pass for). */
  readonly byNick: (nick: string) => Session | undefined;
  /** The session in play of an account. */
  readonly byAccount: (accountId: number) => Session | undefined;
  readonly chat: Pick<ChatService, "tell" | "lineTo">;
  /** Friends, ignores and waiting lines: SQLite, or a cluster's PostgreSQL (ts/cluster/pg-social.ts); null: none kept. */
  readonly store: SocialStorePort | null;
  readonly parties: PartyVerbs;
  readonly trades: TradeVerbs;
  readonly log: Logger;
  /** Wall-clock time for the store's timestamps (never a tick's outcome). */
  readonly nowMs: () => number;
}

/** What the room keeps of one session in play. */
interface SocialState {
  /** The session's key (playerKey) and those it ignores, key → nick as shown. */
  readonly key: string;
  readonly ignores: Map<string, string>;
  /** An account's friends, account id → nick, once read from the store; null before that, and for a guest. */
  friends: Map<number, string> | null;
  /** Who last told it something: what /r answers. */
  lastFrom: { readonly key: string; readonly nick: string; readonly accountId: number | null } | null;
}

/** Waiting lines handed to a session's chat, deleted once its client acknowledged them. */
interface Delivery {
  readonly session: Session;
  readonly accountId: number;
  readonly lines: { readonly id: number; readonly seq: number }[];
}

export interface SocialStats {
  tells: number;
  /** Private lines refused: nobody by that name, ignored, a full mailbox, and the like. */
  tellsRefused: number;
  mailStored: number;
  mailDelivered: number;
  commands: number;
  unknownCommands: number;
  /** Store reads and writes that failed (the player was told nothing changed). */
  storeFailures: number;
}

/** The verbs that say something to others: a muted player may not use them. */
const SPEAKING = new Set(["tell", "reply", "party_say"]);

export class SocialRoom implements ChatCommands, Hearing {
  readonly stats: SocialStats = {
    tells: 0,
    tellsRefused: 0,
    mailStored: 0,
    mailDelivered: 0,
    commands: 0,
    unknownCommands: 0,
    storeFailures: 0,
  };
  private readonly states = new Map<Session, SocialState>();
  /** Sessions whose account's lists the store has not answered yet (a handoff waits for them: settled). */
  private readonly reading = new Set<Session>();
  /** Sessions in play that keep an account as a friend, by that account: who hears it come and go. */
  private readonly watchers = new Map<number, Set<Session>>();
  /** The other regions of a cluster (their players, their friends' presence); null in one process. */
  elsewhere: SocialElsewhere | null = null;
  private readonly deliveries: Delivery[] = [];
  /**
   * Where a private line for nobody here goes: null in one process; in a cluster's region, the relay that
   * hands it to the other regions (ts/cluster/chat-relay.ts).
   */
  remote: ((tell: RemoteTell) => void) | null = null;
  /** Private lines sent to the other regions, waiting for an answer (seconds left, then what to do). */
  private readonly pendingRemote = new Map<number, { session: Session; secondsLeft: number; otherwise: () => void }>();
  private nextRemoteId = 1;

  constructor(private readonly ports: SocialPorts) {}

  /**
   * A private line from another region: delivered when its recipient plays here (and does not ignore the
   * sender); the answer goes back to the sender's region. Null when nobody here is its recipient.
   */
  deliverRemote(tell: RemoteTell): RemoteTellAnswer | null {
    for (const { nick, text } of nickSplits(tell.rest)) {
      const target = this.ports.byNick(nick);
      if (target === undefined) continue;
      if (text === "") return { id: tell.id, outcome: "empty", toNick: target.nick, text };
      const state = this.stateOf(target);
      if (state.ignores.has(tell.fromKey)) return { id: tell.id, outcome: "ignored", toNick: target.nick, text };
      this.ports.chat.lineTo(target, CHAT_SPEAKER_SYSTEM, taggedSpeaker("private_from", tell.fromNick), text);
      state.lastFrom = { key: tell.fromKey, nick: tell.fromNick, accountId: tell.fromAccount };
      this.stats.tells++;
      return { id: tell.id, outcome: "delivered", toNick: target.nick, text };
    }
    return null;
  }

  /** Another region answered a private line this process sent. */
  remoteAnswered(answer: RemoteTellAnswer): void {
    const pending = this.pendingRemote.get(answer.id);
    if (pending === undefined) return; // answered already (two regions), or given up
    this.pendingRemote.delete(answer.id);
    const session = pending.session;
    if (!this.states.has(session)) return; // the sender left meanwhile
    if (answer.outcome === "ignored") return this.refuseTell(session, `${answer.toNick} is not taking your messages.`);
    if (answer.outcome === "empty") return this.refuseTell(session, `What do you want to tell ${answer.toNick}?`);
    this.ports.chat.lineTo(session, session.entity.id, taggedSpeaker("private_to", answer.toNick), answer.text);
    this.stats.tells++;
  }

  // ChatCommands: what ChatService asks of a line.

  kindOf(line: string): "speaks" | "acts" | null {
    const command = parseCommand(line);
    if (command === null) return null;
    return SPEAKING.has(command.verb) ? "speaks" : "acts";
  }

  postedLine(line: string): string {
    return unescapedLine(line);
  }

  run(session: Session, line: string): void {
    const command = parseCommand(line);
    if (command === null) return;
    this.stats.commands++;
    try {
      this.dispatch(session, command);
    } catch (error) {
      // A command is a player's input: whatever it trips over, the player is told and the tick goes on.
      this.ports.log.error("chat command failed", { nick: session.nick, line, error: String(error) });
      this.say(session, "That did not work; the server logged why.");
    }
  }

  /** Whether `listener` hears `speaker`: not when it ignores the speaker. */
  hears(listener: Session, speaker: Session): boolean {
    return this.hearsKey(listener, this.keyOf(speaker));
  }

  /** Hearing: whether `listener` hears the player whose key is `speakerKey` (said here or in another region). */
  hearsKey(listener: Session, speakerKey: string): boolean {
    const state = this.states.get(listener);
    return state === undefined || state.ignores.size === 0 || !state.ignores.has(speakerKey);
  }

  /** Hearing: the key a player is known by across sessions and regions. */
  keyOf(session: Session): string {
    return this.states.get(session)?.key ?? playerKey(session);
  }

  /** Whether `session` ignores `other` (invites and trades from an ignored player are refused too). */
  ignores(session: Session, other: Session): boolean {
    return !this.hears(session, other);
  }

  // The lifecycle: a session starts playing, a session ends.

  /**
   * A session started playing: its friends (here and in the other regions) hear it, and its lists are read —
   * its ignores, its friends — and its waiting lines delivered, once the store answers.
   */
  arrived(session: Session): void {
    const state = this.stateOf(session);
    const store = this.ports.store;
    const accountId = session.accountId;
    if (store === null || accountId === null) return;
    this.friendCameOrWent(accountId, session.nick, true);
    this.elsewhere?.presence(accountId, session.nick, true);
    const book = store.bookOf(accountId);
    if (book instanceof Promise) this.reading.add(session);
    this.after(
      session,
      book,
      (read: SocialBook) => {
        this.reading.delete(session);
        for (const ref of read.ignores) state.ignores.set(accountKey(ref.accountId), ref.nick);
        state.friends = new Map();
        for (const ref of read.friends) this.keepFriend(session, state, ref);
        if (read.mail.length > 0) this.deliver(session, accountId, read.mail);
      },
      () => {
        // The store unreachable: this session plays on with empty lists (its lines wait for the next login).
        this.reading.delete(session);
        state.friends = new Map();
        this.say(
          session,
          "Your friends and ignore lists could not be read just now: they come back at your next login.",
        );
      },
    );
  }

  /** Whether `session`'s lists are read (a handoff waits until they are, so they go with it). */
  settled(session: Session): boolean {
    return !this.reading.has(session);
  }

  /**
   * A session handed over from another region (or restored from its checkpoint) plays on here with what it
   * had: nobody hears it come (it never went), and its waiting lines are not delivered again.
   */
  adopt(session: Session, carried: CarriedSocial | null): void {
    const state = this.stateOf(session);
    if (carried === null) return;
    for (const [key, nick] of carried.ignores) state.ignores.set(key, nick);
    state.lastFrom = carried.lastFrom;
    const accountId = session.accountId;
    if (carried.friends !== null && accountId !== null) {
      state.friends = new Map();
      for (const [friendId, nick] of carried.friends) this.keepFriend(session, state, { accountId: friendId, nick });
    }
    // Lines delivered where it came from are deleted here once its client acknowledges them.
    const delivering = carried.delivering ?? [];
    if (delivering.length > 0 && accountId !== null)
      this.deliveries.push({ session, accountId, lines: delivering.map(([id, seq]) => ({ id, seq })) });
  }

  /** What a handoff carries of `session` to the region it goes to (adopt). */
  carried(session: Session): CarriedSocial {
    const state = this.stateOf(session);
    const delivering = this.deliveries
      .filter((delivery) => delivery.session === session)
      .flatMap((delivery) => delivery.lines.map((line): [number, number] => [line.id, line.seq]));
    return {
      ignores: [...state.ignores],
      friends: state.friends === null ? null : [...state.friends],
      lastFrom: state.lastFrom,
      delivering,
    };
  }

  /** A session ended (`continues`: its player plays on elsewhere — replaced, handed over — and is not gone). */
  left(session: Session, continues: boolean): void {
    const state = this.states.get(session);
    this.states.delete(session);
    this.reading.delete(session);
    for (const friendId of state?.friends?.keys() ?? []) this.unwatch(friendId, session);
    const accountId = session.accountId;
    if (continues || this.ports.store === null || accountId === null) return;
    this.friendCameOrWent(accountId, session.nick, false);
    this.elsewhere?.presence(accountId, session.nick, false);
  }

  /** An account's player came or went (here, or in another region): the players here who keep it as a friend hear it. */
  friendCameOrWent(accountId: number, nick: string, online: boolean): void {
    for (const watcher of this.watchers.get(accountId) ?? []) {
      if (watcher.accountId === accountId) continue;
      this.say(watcher, online ? `${nick} is online.` : `${nick} went offline.`);
    }
  }

  /** Once a second: waiting lines their clients acknowledged are deleted; unanswered remote lines give up. */
  tick(): void {
    for (const [id, pending] of this.pendingRemote) {
      if (--pending.secondsLeft > 0) continue;
      this.pendingRemote.delete(id);
      if (this.states.has(pending.session)) pending.otherwise();
    }
    this.deliverAcknowledged();
  }

  /** Deletes the waiting lines their clients acknowledged; forgets deliveries to sessions that ended. */
  private deliverAcknowledged(): void {
    const store = this.ports.store;
    if (store === null) return;
    for (let index = this.deliveries.length - 1; index >= 0; index--) {
      const delivery = this.deliveries[index];
      const acked = delivery.session.chat.ackedUpTo;
      const done = delivery.lines.filter((line) => line.seq <= acked);
      if (done.length > 0) {
        const deleted = store.deleteMail(
          delivery.accountId,
          done.map((line) => line.id),
        );
        // Not deleted (a store unreachable): the lines wait and are delivered again at the next login —
        // twice rather than lost.
        if (deleted instanceof Promise)
          deleted.catch((error: unknown) => {
            this.stats.storeFailures++;
            this.ports.log.warn("delivered lines not deleted: they come again", { error: String(error) });
          });
        this.stats.mailDelivered += done.length;
        delivery.lines.splice(0, done.length);
      }
      // A session that ended before its client acknowledged keeps the rest waiting for the next one.
      if (delivery.lines.length === 0 || !this.states.has(delivery.session)) this.deliveries.splice(index, 1);
    }
  }

  private dispatch(session: Session, command: Command): void {
    const parties = this.ports.parties;
    switch (command.verb) {
      case "unknown":
        this.stats.unknownCommands++;
        return this.say(session, `There is no command /${command.word}: /help lists them.`);
      case "help":
        for (const line of HELP_LINES) this.say(session, line);
        return;
      case "tell":
        return this.tell(session, command.rest);
      case "reply":
        return this.reply(session, command.rest);
      case "ignore":
        return command.rest === "" ? this.listIgnores(session) : this.ignore(session, command.rest);
      case "unignore":
        return this.unignore(session, command.rest);
      case "friend":
        return this.befriend(session, command.rest);
      case "unfriend":
        return this.unfriend(session, command.rest);
      case "friends":
        return this.listFriends(session);
      case "invite":
        // A player here, or in a cluster one that another region plays (the directory of players).
        return this.findPlayer(session, command.rest, "invite", (target) =>
          "session" in target
            ? parties.invite(session, target.session)
            : parties.inviteAcross(session, target.nick, target.region),
        );
      case "leave":
        return parties.leave(session);
      case "kick":
        if (command.rest === "") return this.say(session, "Whom? /kick nick");
        return parties.kick(session, command.rest);
      case "party_say":
        if (command.rest === "") return this.say(session, "Say what? /p text");
        return parties.speak(session, command.rest);
      case "party":
        return parties.list(session);
      case "trade": {
        // A player here, or in a cluster one of the next region standing by the border (seen here).
        const nicks = nickSplits(command.rest)
          .filter((split) => split.text === "")
          .map((split) => split.nick);
        if (command.rest !== "" && !nicks.some((nick) => this.ports.byNick(nick) !== undefined)) {
          if (this.ports.trades.askAcross(session, nicks)) return;
          // Not seen here: it may play in another region — out of sight of this border, or by it with its
          // ghost not here yet (a frame late, its region just restarted). The directory of players says.
          if (this.elsewhere !== null)
            return this.findPlayer(session, command.rest, "trade", (target) =>
              "session" in target
                ? this.ports.trades.ask(session, target.session)
                : this.ports.trades.askWhenSeen(session, nicks, target.nick),
            );
        }
        const target = this.playerNamed(session, command.rest, "trade");
        if (target !== null) this.ports.trades.ask(session, target);
        return;
      }
      case "offer":
        return this.ports.trades.offer(session, command.rest);
      case "unoffer":
        return this.ports.trades.unoffer(session, command.rest);
      case "confirm":
        return this.ports.trades.confirm(session);
      case "cancel":
        return this.ports.trades.cancelBy(session);
    }
  }

  private tell(session: Session, rest: string): void {
    if (rest === "") return this.refuseTell(session, "Tell whom? /tell nick text");
    const splits = nickSplits(rest);
    for (const { nick, text } of splits) {
      const target = this.ports.byNick(nick);
      if (target !== undefined) return this.tellTo(session, target, text);
    }
    // Nobody here: another region may hold the player; failing that, an offline friend; failing that, nobody.
    const otherwise = () => {
      for (const { nick, text } of splits) {
        const friend = this.friendNamed(session, nick);
        if (friend !== null) return this.tellOffline(session, friend, text);
      }
      const guess = splits[splits.length - 1].nick;
      this.refuseTell(
        session,
        session.accountId === null
          ? `Nobody called ${guess} is playing now.`
          : `Nobody called ${guess} is playing now (a line to an offline friend waits for them: /friend nick).`,
      );
    };
    this.tellElsewhere(session, rest, otherwise);
  }

  /** Sends a private line to the other regions, or does `otherwise` at once in one process. */
  private tellElsewhere(session: Session, rest: string, otherwise: () => void): void {
    if (this.remote === null) return otherwise();
    const id = this.nextRemoteId++;
    const state = this.stateOf(session);
    this.pendingRemote.set(id, { session, secondsLeft: REMOTE_TELL_SECONDS + 1, otherwise });
    this.remote({ id, fromNick: session.nick, fromKey: state.key, fromAccount: session.accountId, rest });
  }

  private reply(session: Session, text: string): void {
    const last = this.stateOf(session).lastFrom;
    if (last === null) return this.refuseTell(session, "Nobody told you anything yet: /tell nick text.");
    const target =
      last.accountId !== null ? this.ports.byAccount(last.accountId) : this.sessionWithKey(last.nick, last.key);
    if (target !== undefined) return this.tellTo(session, target, text);
    const otherwise = () => {
      const nick = last.accountId === null ? undefined : this.stateOf(session).friends?.get(last.accountId);
      if (nick !== undefined) return this.tellOffline(session, { accountId: last.accountId!, nick }, text);
      this.refuseTell(session, `${last.nick} is not playing now.`);
    };
    if (text === "") return this.refuseTell(session, `What do you want to tell ${last.nick}?`);
    this.tellElsewhere(session, `"${last.nick}" ${text}`, otherwise);
  }

  private tellTo(session: Session, target: Session, text: string): void {
    if (target === session) return this.refuseTell(session, "That is you.");
    if (text === "") return this.refuseTell(session, `What do you want to tell ${target.nick}?`);
    if (this.ignores(target, session)) return this.refuseTell(session, `${target.nick} is not taking your messages.`);
    const chat = this.ports.chat;
    chat.lineTo(target, session.entity.id, taggedSpeaker("private_from", session.nick), text);
    chat.lineTo(session, session.entity.id, taggedSpeaker("private_to", target.nick), text);
    const from = this.stateOf(session);
    this.stateOf(target).lastFrom = { key: from.key, nick: session.nick, accountId: session.accountId };
    this.stats.tells++;
  }

  /** A line to a friend who is offline: stored (unless they ignore the sender), and delivered when the friend next plays. */
  private tellOffline(session: Session, friend: AccountRef, text: string): void {
    const store = this.ports.store!;
    const accountId = session.accountId!;
    if (text === "") return this.refuseTell(session, `What do you want to tell ${friend.nick}?`);
    this.after(
      session,
      store.putMail(friend.accountId, accountId, session.nick, text, this.ports.nowMs()),
      (outcome) => {
        if (outcome === "ignored") return this.refuseTell(session, `${friend.nick} is not taking your messages.`);
        if (outcome === "full")
          return this.refuseTell(session, `${friend.nick} is offline and has too many messages waiting.`);
        this.stats.mailStored++;
        this.ports.chat.lineTo(session, session.entity.id, taggedSpeaker("private_to", friend.nick), text);
        this.say(session, `${friend.nick} is offline: your line waits for them.`);
      },
    );
  }

  private deliver(session: Session, accountId: number, waiting: readonly WaitingLine[]): void {
    this.say(
      session,
      waiting.length === 1 ? "A line came while you were away:" : `${waiting.length} lines came while you were away:`,
    );
    const lines = waiting.map((line) => ({
      id: line.id,
      seq: this.ports.chat.lineTo(
        session,
        CHAT_SPEAKER_SYSTEM,
        taggedSpeaker("private_from", line.fromNick),
        line.text,
      ),
    }));
    const state = this.stateOf(session);
    const last = waiting[waiting.length - 1];
    state.lastFrom = { key: accountKey(last.fromAccount), nick: last.fromNick, accountId: last.fromAccount };
    this.deliveries.push({ session, accountId, lines });
  }

  private ignore(session: Session, rest: string): void {
    this.findPlayer(session, rest, "ignore", (target) => {
      const state = this.stateOf(session);
      if (target.key === state.key) return this.say(session, "You cannot ignore yourself.");
      if (state.ignores.has(target.key)) return this.say(session, `You already ignore ${target.nick}.`);
      const kept = () => {
        state.ignores.set(target.key, target.nick);
        this.say(session, `You ignore ${target.nick}: you will not hear their lines, invites or trades.`);
      };
      const full = () => this.say(session, "Your ignore list is full: /unignore someone first.");
      const store = this.ports.store;
      if (store !== null && session.accountId !== null && target.accountId !== null) {
        return this.after(
          session,
          store.addIgnore(session.accountId, target.accountId, this.ports.nowMs()),
          (outcome) => (outcome === "full" ? full() : kept()),
        );
      }
      if (state.ignores.size >= GUEST_IGNORES_MAX) return full();
      kept();
    });
  }

  private unignore(session: Session, nick: string): void {
    if (nick === "") return this.say(session, "Whom? /unignore nick");
    const state = this.stateOf(session);
    const wanted = nickKey(nick);
    for (const [key, shown] of state.ignores) {
      if (nickKey(shown) !== wanted) continue;
      const heard = () => {
        state.ignores.delete(key);
        this.say(session, `You hear ${shown} again.`);
      };
      const store = this.ports.store;
      if (store !== null && session.accountId !== null && key.startsWith("a"))
        return this.after(session, store.removeIgnore(session.accountId, Number(key.slice(1))), heard);
      return heard();
    }
    this.say(session, `You do not ignore anyone called ${nick}.`);
  }

  private listIgnores(session: Session): void {
    const nicks = [...this.stateOf(session).ignores.values()];
    if (nicks.length === 0) return this.say(session, "You ignore nobody.");
    for (const line of listLines("You ignore: ", nicks)) this.say(session, line);
  }

  private befriend(session: Session, rest: string): void {
    const friends = this.friendsOf(session);
    if (friends === null) return;
    this.findPlayer(session, rest, "friend", (target) => {
      if (target.key === this.stateOf(session).key) return this.say(session, "You are your own friend already.");
      if (target.accountId === null)
        return this.say(session, `${target.nick} plays as a guest: only accounts keep friends.`);
      const friendId = target.accountId;
      this.after(session, this.ports.store!.addFriend(session.accountId!, friendId, this.ports.nowMs()), (outcome) => {
        if (outcome === "full") return this.say(session, "Your friends list is full: /unfriend someone first.");
        this.keepFriend(session, this.stateOf(session), { accountId: friendId, nick: target.nick });
        if (outcome === "already") return this.say(session, `${target.nick} is your friend already.`);
        this.say(session, `${target.nick} is now your friend: you will hear when they come and go.`);
        this.tellNewFriend(session, friendId);
      });
    });
  }

  /**
   * "Ada added you as a friend." to the account just added: its player here, or in the region of a cluster
   * that plays it (the directory of players, then the chat relay), or — offline by the time the friendship was
   * written — as a line that waits for its next login, bounded and refused for an ignorer as any waiting line
   * (the adder was told the friendship was made; a notice that cannot be kept is not worth a second answer).
   */
  private tellNewFriend(session: Session, friendId: number): void {
    const other = this.ports.byAccount(friendId);
    if (other !== undefined) {
      if (!this.ignores(other, session)) this.say(other, `${session.nick} added you as a friend.`);
      return;
    }
    const by = { nick: session.nick, key: this.keyOf(session) };
    const from = session.accountId!;
    const store = this.ports.store!;
    const failed = (error: unknown) => {
      this.stats.storeFailures++;
      this.ports.log.warn("a new friend's notice was not kept", { nick: by.nick, friendId, error: String(error) });
    };
    const leaveWaiting = (): void => {
      void Promise.resolve()
        .then(() => store.putMail(friendId, from, by.nick, BEFRIENDED_WAITING_TEXT, this.ports.nowMs()))
        .then((outcome) => {
          if (outcome === "stored") this.stats.mailStored++;
        }, failed);
    };
    const elsewhere = this.elsewhere;
    if (elsewhere === null) return leaveWaiting();
    elsewhere.onlineOf([friendId]).then((there) => {
      if (there.has(friendId)) elsewhere.befriended(friendId, by);
      else leaveWaiting();
    }, failed);
  }

  /**
   * Another region's player (`by`) added `accountId` as a friend: its player, if it plays here and does not
   * ignore them, is told. False when it does not play here.
   */
  befriendedHere(accountId: number, by: { nick: string; key: string }): boolean {
    const session = this.ports.byAccount(accountId);
    if (session === undefined) return false;
    if (this.hearsKey(session, by.key)) this.say(session, `${by.nick} added you as a friend.`);
    return true;
  }

  private unfriend(session: Session, nick: string): void {
    if (this.friendsOf(session) === null) return;
    if (nick === "") return this.say(session, "Whom? /unfriend nick");
    const friend = this.friendNamed(session, nick);
    if (friend === null) return this.say(session, `You have no friend called ${nick}.`);
    this.after(session, this.ports.store!.removeFriend(session.accountId!, friend.accountId), () => {
      this.stateOf(session).friends?.delete(friend.accountId);
      this.unwatch(friend.accountId, session);
      this.say(session, `${friend.nick} is no longer your friend.`);
    });
  }

  private listFriends(session: Session): void {
    const kept = this.friendsOf(session);
    if (kept === null) return;
    const friends = [...kept].map(([accountId, nick]) => ({ accountId, nick }));
    if (friends.length === 0) return this.say(session, "You have no friends yet: /friend nick adds one.");
    friends.sort((a, b) => compareNicks(a.nick, b.nick) || a.accountId - b.accountId);
    const here = new Set(
      friends.filter((ref) => this.ports.byAccount(ref.accountId) !== undefined).map((ref) => ref.accountId),
    );
    const show = (online: ReadonlySet<number>) => {
      const on = friends.filter((ref) => online.has(ref.accountId)).map((ref) => ref.nick);
      const off = friends.filter((ref) => !online.has(ref.accountId)).map((ref) => ref.nick);
      if (on.length > 0) for (const line of listLines("Friends online: ", on)) this.say(session, line);
      if (off.length > 0) for (const line of listLines("Friends offline: ", off)) this.say(session, line);
    };
    const elsewhere = this.elsewhere;
    const others = friends.filter((ref) => !here.has(ref.accountId)).map((ref) => ref.accountId);
    if (elsewhere === null || others.length === 0) return show(here);
    // In a cluster, the friends not here may play in another region (the directory of players in Redis).
    this.after(session, elsewhere.onlineOf(others), (there) => show(new Set([...here, ...there])));
  }

  /** `session`'s friends as kept here, or null after telling it why it has none. */
  private friendsOf(session: Session): Map<number, string> | null {
    if (session.accountId === null) {
      this.say(session, "Friends are kept with an account: register to keep a friends list.");
      return null;
    }
    if (this.ports.store === null) {
      this.say(session, "This world keeps no friends lists yet.");
      return null;
    }
    const friends = this.stateOf(session).friends;
    if (friends === null) this.say(session, "Your friends list is still being read: try again in a moment.");
    return friends;
  }

  /** Keeps `ref` among `session`'s friends, and `session` among those who hear `ref` come and go. */
  private keepFriend(session: Session, state: SocialState, ref: AccountRef): void {
    state.friends?.set(ref.accountId, ref.nick);
    let watching = this.watchers.get(ref.accountId);
    if (watching === undefined) {
      watching = new Set();
      this.watchers.set(ref.accountId, watching);
    }
    watching.add(session);
  }

  private unwatch(friendId: number, session: Session): void {
    const watching = this.watchers.get(friendId);
    if (watching === undefined) return;
    watching.delete(session);
    if (watching.size === 0) this.watchers.delete(friendId);
  }

  /**
   * Runs `then` with what the store (or the other regions) answered: at once when it answered already, and
   * otherwise once it does — if `session` still plays here. A failure is said to the player (nothing changed).
   */
  private after<T>(
    session: Session,
    answer: Answer<T>,
    then: (value: T) => void,
    failed: () => void = () => this.say(session, "The world could not keep that just now: nothing changed."),
  ): void {
    if (!(answer instanceof Promise)) return then(answer);
    answer.then(
      (value) => {
        if (!this.states.has(session)) return; // left (or moved on) meanwhile
        try {
          then(value);
        } catch (error) {
          this.ports.log.error("a social answer failed", { nick: session.nick, error: String(error) });
        }
      },
      (error: unknown) => {
        this.stats.storeFailures++;
        this.ports.log.warn("the social store did not answer", { nick: session.nick, error: String(error) });
        if (this.states.has(session)) failed();
      },
    );
  }

  /** The player in play that `rest` names, or null after telling `session` why there is none. */
  private playerNamed(session: Session, rest: string, verb: string): Session | null {
    if (rest === "") {
      this.say(session, `Whom? /${verb} nick`);
      return null;
    }
    for (const { nick, text } of nickSplits(rest)) {
      if (text !== "") continue;
      const target = this.ports.byNick(nick);
      if (target !== undefined) return target;
    }
    this.say(session, `Nobody called ${rest} is playing now.`);
    return null;
  }

  /**
   * The player in play that `rest` names — here, or in a cluster in another region — given to `then`;
   * or `session` is told there is none.
   */
  private findPlayer(session: Session, rest: string, verb: string, then: (target: FoundPlayer) => void): void {
    if (rest === "") return this.say(session, `Whom? /${verb} nick`);
    const nicks = nickSplits(rest)
      .filter((split) => split.text === "")
      .map((split) => split.nick);
    for (const nick of nicks) {
      const target = this.ports.byNick(nick);
      if (target !== undefined)
        return then({ key: this.keyOf(target), nick: target.nick, accountId: target.accountId, session: target });
    }
    const nobody = () => this.say(session, `Nobody called ${rest} is playing now.`);
    const elsewhere = this.elsewhere;
    if (elsewhere === null || nicks.length === 0) return nobody();
    this.after(session, Promise.all(nicks.map((nick) => elsewhere.playerNamed(nick))), (found) => {
      const target = found.find((ref) => ref !== null);
      return target === undefined || target === null ? nobody() : then(target);
    });
  }

  /** The friend of `session`'s account whose nick is `nick` (by nickKey), or null. */
  private friendNamed(session: Session, nick: string): AccountRef | null {
    const wanted = nickKey(nick);
    for (const [accountId, shown] of this.stateOf(session).friends ?? [])
      if (nickKey(shown) === wanted) return { accountId, nick: shown };
    return null;
  }

  /** The guest in play under `nick` whose key is `key` (a different guest under the same nick is not them). */
  private sessionWithKey(nick: string, key: string): Session | undefined {
    const session = this.ports.byNick(nick);
    return session !== undefined && this.stateOf(session).key === key ? session : undefined;
  }

  private refuseTell(session: Session, text: string): void {
    this.stats.tellsRefused++;
    this.say(session, text);
  }

  private say(session: Session, text: string): void {
    this.ports.chat.tell(session, text);
  }

  private stateOf(session: Session): SocialState {
    let state = this.states.get(session);
    if (state === undefined) {
      state = { key: playerKey(session), ignores: new Map(), friends: null, lastFrom: null };
      this.states.set(session, state);
    }
    return state;
  }
}

/** Players a guest may ignore (kept in memory with its session). */
const GUEST_IGNORES_MAX = 100;

/** Who a player is across sessions: its account, or for a guest its nick as nickKey folds it. */
function playerKey(session: Session): string {
  return session.accountId !== null ? accountKey(session.accountId) : `n${nickKey(session.nick)}`;
}

/** The friends list's order: by nick as a player reads it (SQLite's NOCASE), then by account. */
function compareNicks(a: string, b: string): number {
  const x = a.toLowerCase();
  const y = b.toLowerCase();
  return x < y ? -1 : x > y ? 1 : 0;
}

function accountKey(accountId: number): string {
  return `a${accountId}`;
}

/** `head` and the names, split into lines a chat line holds (200 bytes; names are at most 32). */
function listLines(head: string, names: readonly string[]): string[] {
  const lines: string[] = [];
  let line = head;
  for (const name of names) {
    const next = line === head ? line + name : `${line}, ${name}`;
    if (utf8ByteLength(next) > 190 && line !== head) {
      lines.push(line);
      line = head + name;
    } else {
      line = next;
    }
  }
  lines.push(line);
  return lines;
}
