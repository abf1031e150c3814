// Parties (issue 39, docs/social.md): a few players who play together. The leader invites (the invited
// player answers in a dialog), anyone leaves, the leader removes; members hear the party channel, see each
// other's health and place in their own EntityDetail (the `party` TLV, docs/protocol.md § 18.9) however far
// apart they are, and share the credit of a kill made near them (sharersOf). A member whose session ends
// stays a member, shown away, for PARTY_GRACE_SECONDS: an account that plays again within it is back in
// its party; after it, the member has left.
//
// In a cluster (docs/scaling.md § Parties across regions) a party lives in the room of the region where it
// formed, its home; a member handed to another region stays a member there, "playing elsewhere" (`region`),
// and that region mirrors the party for it (`mirrors`): the home sends each such member its party TLV and
// its lines, and the member's region sends the home its place and health and its verbs (`elsewhere`).
// An invitation is checked in two places, each for what only it knows: the home (the inviter leads, the
// party has room: `inviteAs`) and the invited player's region (in a party already, ignoring the inviter,
// declined a moment ago: `showInvitation`, which shows the dialog); a Join is checked again at the home
// (`join`), and a player of another region joins as a member playing there.
//
// Time here is the world's tick, never the wall clock: who is in a party decides who shares a kill.
import { taggedSpeaker } from "../../protocol/chat-speakers.js";
import { PARTY_AWAY, PARTY_LEADER, type PartyMember, type Tlv } from "../../protocol/tlv.js";
import type { Logger } from "../ops/log.js";
import type { Session } from "../sessions/session.js";
import { nickKey } from "../sessions/nick.js";
import type { ChatService } from "../talk/chat.js";
import type { DialogReply, DialogService } from "../talk/dialogs.js";
import { conversation } from "../scripting/dialog-layout.js";
import type { PartyVerbs } from "./social-room.js";

/** Members a party holds at most: a screen's worth of allies, and a party TLV that fits its 255 bytes. */
export const PARTY_MAX = 5;
/** How long a member whose session ended stays in the party, away. */
export const PARTY_GRACE_SECONDS = 60;
/** A kill is shared by the members within this many tiles (Chebyshev) of it: those who took part. */
export const SHARE_RADIUS = 12;
/** After a declined invitation, the same leader may not invite the same player again for this long. */
export const DECLINED_COOLDOWN_SECONDS = 30;

/** The invitation's dialog buttons (return codes). */
const JOIN = 1;

interface Member {
  /** Who the member is across sessions: its account ("a12"), or a guest's own session ("s" + token). */
  readonly key: string;
  nick: string;
  session: Session | null;
  /** In a cluster, the region the member plays in while it is not here (null: here, or away). */
  region: number | null;
  /** Its entity (kept across a handoff: a cluster's entity ids are the world's). */
  entityId: number;
  /** The tick the member's session ended (while `session` and `region` are null). */
  goneAtTick: number;
  /** Last place and health seen, shown while away. */
  x: number;
  y: number;
  hp: number;
  hpMax: number;
}

interface Party {
  readonly id: number;
  /** members[0] leads. */
  readonly members: Member[];
  /** Whose turn it is for the next shared kill's loot (an index into the members present). */
  lootTurn: number;
  /** Changed since the members were last shown the party. */
  dirty: boolean;
}

export interface PartyPorts {
  readonly chat: Pick<ChatService, "tell" | "lineTo">;
  readonly dialogs: Pick<DialogService, "open">;
  /** Sends a player its own EntityDetail (which carries the party TLV). */
  readonly pushOwnDetail: (session: Session) => void;
  /** Whether `session` ignores the player whose social key (social-room.ts: "a12", a guest's nick fold) is `key`. */
  readonly ignoresKey: (session: Session, key: string) => boolean;
  /** A session's social key: what an ignore list names (social-room.ts's playerKey). */
  readonly socialKeyOf: (session: Session) => string;
  /** The session in play here under a nick (an invitation sent here from a party's home names its player so). */
  readonly byNick: (nick: string) => Session | undefined;
  /** Whether `session` is still in play here (an answer may come after its player left). */
  readonly inPlay: (session: Session) => boolean;
  /** The session in play here of a member key (an account's "a12", a guest's "s" + token), for a cluster's messages. */
  readonly sessionOfKey: (key: string) => Session | undefined;
  readonly clock: { readonly tick: number };
  readonly tickHz: number;
  readonly log: Logger;
}

/**
 * The other regions of a cluster, as a party sees them (ts/cluster/party-link.ts); null in one process. The
 * home sends to a member playing elsewhere; a member's region sends to the home.
 */
export interface PartyElsewhere {
  /** This region's number. */
  readonly region: number;
  /** To a member playing in `region`: a system line, a party line, its party TLV, the party over for it. */
  tell(region: number, key: string, text: string): void;
  line(region: number, key: string, speakerEntityId: number, speaker: string, text: string): void;
  detail(region: number, key: string, partyId: number, members: PartyMember[]): void;
  over(region: number, key: string): void;
  /** To the home: a member's verb (`speak`, `leave`, `list`), where it stands, or that its session ended. */
  verb(home: number, key: string, verb: RemoteVerb, text: string): void;
  moved(home: number, key: string, place: { x: number; y: number; hp: number; hpMax: number }): void;
  gone(home: number, key: string): void;
  /** To every region: an account plays again here; the home of a party it is away from takes it back. */
  back(key: string): void;
  /** To the home: its leader `key`, playing here, invites a player who plays in `target.region`. */
  askInvite(home: number, key: string, target: InviteAsked): void;
  /** From a party's home (or a leader-to-be's region) to the region of the player invited by `key`. */
  invitation(region: number, key: string, invitation: Invitation): void;
  /** Back to it: what became of `key`'s invitation. */
  invited(home: number, key: string, answer: InvitationAnswer): void;
}

/** What a member playing in another region may ask of its party's home (`kick`: the text is the nick). */
export type RemoteVerb = "speak" | "leave" | "list" | "kick";

/** A player invited by nick, in the region that plays it; `socialKey` is the inviter's (what ignores name). */
export interface InviteAsked {
  readonly nick: string;
  readonly region: number;
  readonly socialKey: string;
}

/** An invitation as the invited player's region sees it. */
export interface Invitation {
  /** The invited player. */
  readonly nick: string;
  readonly inviterNick: string;
  /** The inviter's social key: an invited player who ignores it is not asked. */
  readonly socialKey: string;
  /** The inviter's party (0: none yet) and how many it holds (1 when none). */
  readonly partyId: number;
  readonly size: number;
}

/** What the invited player's region says of an invitation: shown, declined, refused (`text`: why), or joined. */
export interface InvitationAnswer {
  readonly outcome: "shown" | "declined" | "refused" | "joined";
  /** The invited player's nick (or the nick asked for, when nobody has it). */
  readonly nick: string;
  readonly inviterNick: string;
  readonly text?: string;
  /** Who joined: its member key, entity, place and health. */
  readonly joiner?: RemoteJoiner;
}

export interface RemoteJoiner {
  readonly key: string;
  readonly entityId: number;
  readonly x: number;
  readonly y: number;
  readonly hp: number;
  readonly hpMax: number;
}

/** Who invites, as the party's home knows it: its member key, nick and social key. */
interface Inviter {
  readonly key: string;
  readonly nick: string;
  readonly socialKey: string;
}

/** Whom an invitation is for: a session here, or a player another region plays (by nick). */
type InviteTarget = { readonly session: Session } | { readonly nick: string; readonly region: number };

/** Who answered Join: a session here, or a player of region `region`. */
type Joiner =
  | { readonly session: Session; readonly nick: string; readonly key: string }
  | { readonly remote: RemoteJoiner; readonly region: number; readonly nick: string; readonly key: string };

/** A party as the region of a member playing away from its home sees it. */
interface Mirror {
  readonly home: number;
  partyId: number;
  members: PartyMember[];
  /** Place and health last sent to the home. */
  sent: { x: number; y: number; hp: number; hpMax: number } | null;
}

export interface PartyStats {
  formed: number;
  invites: number;
  declined: number;
  /** Members removed after the grace period. */
  expired: number;
}

export class PartyRoom implements PartyVerbs {
  readonly stats: PartyStats = { formed: 0, invites: 0, declined: 0, expired: 0 };
  private nextId = 1;
  /** Parties by id, in the order they formed (iteration order is creation order: deterministic). */
  private readonly parties = new Map<number, Party>();
  /** The party of each member key. */
  private readonly byKey = new Map<string, Party>();
  /** "leader key → invited key" of declined invitations, and the tick they were declined. */
  private readonly declined = new Map<string, number>();
  private readonly graceTicks: number;
  /** Parties whose home is another region, for the members playing here, by member key. */
  private readonly mirrors = new Map<string, Mirror>();
  /** Away from a party's home, the loot turn among its members playing here, by "home:party id". */
  private readonly awayTurns = new Map<string, number>();
  /** The other regions of a cluster; null in one process. */
  elsewhere: PartyElsewhere | null = null;

  constructor(private readonly ports: PartyPorts) {
    this.graceTicks = Math.round(PARTY_GRACE_SECONDS * ports.tickHz);
  }

  /** How many parties there are (for /api/status). */
  get count(): number {
    return this.parties.size;
  }

  /** `/invite` of a player who plays here. */
  invite(session: Session, target: Session): void {
    if (target === session) return this.say(session, "That is you.");
    this.inviteFrom(session, { session: target });
  }

  /** `/invite` of a player another region of a cluster plays (named in the directory of players). */
  inviteAcross(session: Session, nick: string, region: number): void {
    this.inviteFrom(session, { nick, region });
  }

  leave(session: Session): void {
    if (this.toHome(session, "leave", "")) return;
    const party = this.partyOf(session);
    if (party === undefined) return this.say(session, "You are in no party.");
    this.say(session, "You left the party.");
    this.remove(party, this.memberOf(party, session)!, `${session.nick} left the party.`);
  }

  kick(session: Session, nick: string): void {
    if (this.toHome(session, "kick", nick)) return;
    const party = this.partyOf(session);
    if (party === undefined) return this.say(session, "You are in no party.");
    const kicker = this.memberOf(party, session);
    if (kicker === undefined || party.members[0] !== kicker)
      return this.say(session, `Only ${party.members[0].nick}, who leads your party, removes members.`);
    this.kickAs(party, kicker, nick);
  }

  /** A line on the party channel: to every member present, the speaker too (that is its echo). */
  speak(session: Session, text: string): void {
    if (this.toHome(session, "speak", text)) return;
    const own = this.partyOf(session);
    if (own === undefined) return this.say(session, "You are in no party: /invite nick to start one.");
    this.speakAs(own, session.entity.id, session.nick, text);
  }

  list(session: Session): void {
    if (this.toHome(session, "list", "")) return;
    const party = this.partyOf(session);
    if (party === undefined) return this.say(session, "You are in no party: /invite nick to start one.");
    this.say(session, listLine(party));
  }

  /**
   * The members of `session`'s party present within SHARE_RADIUS of (x, y), `session` first; just it alone
   * without a party. In a cluster, "present" is in this region: a party whose home is elsewhere is shared
   * among its members playing here.
   */
  sharersOf(session: Session, x: number, y: number): Session[] {
    const near = (other: Session) =>
      Math.abs(other.entity.x - x) <= SHARE_RADIUS && Math.abs(other.entity.y - y) <= SHARE_RADIUS;
    const out = [session];
    const mirror = this.mirrors.get(keyOf(session));
    if (mirror !== undefined) {
      // A mirror waiting for its home's first detail (partyId 0: joining) shares with nobody yet.
      if (mirror.partyId === 0) return out;
      for (const [key, other] of this.mirrors) {
        if (other === mirror || other.home !== mirror.home || other.partyId !== mirror.partyId) continue;
        const sharer = this.ports.sessionOfKey(key);
        if (sharer !== undefined && sharer !== session && near(sharer)) out.push(sharer);
      }
      return out;
    }
    const party = this.partyOf(session);
    if (party === undefined) return out;
    for (const member of party.members) {
      const other = member.session;
      if (other !== null && other !== session && near(other)) out.push(other);
    }
    return out;
  }

  /**
   * Of `sharers` (sharersOf's answer), the one whose turn it is for a shared kill's loot — in the party's
   * order, round-robin, skipping those not among the sharers; the turn then passes on. Away from the
   * party's home (a cluster), the turn is this region's own, among the members in the order they came here.
   */
  lootTakerOf(sharers: readonly Session[]): Session {
    if (sharers.length === 1) return sharers[0];
    const party = this.partyOf(sharers[0]);
    if (party === undefined) {
      const mirror = this.mirrors.get(keyOf(sharers[0]))!;
      const turnKey = `${mirror.home}:${mirror.partyId}`;
      const turn = this.awayTurns.get(turnKey) ?? 0;
      this.awayTurns.set(turnKey, turn + 1);
      // In the order the members came to play here (not the killer first), so the turn goes round.
      const order = [...this.mirrors.keys()];
      const ordered = [...sharers].sort((a, b) => order.indexOf(keyOf(a)) - order.indexOf(keyOf(b)));
      return ordered[turn % ordered.length];
    }
    const count = party.members.length;
    for (let step = 0; step < count; step++) {
      const index = (party.lootTurn + step) % count;
      const member = party.members[index];
      if (member.session !== null && sharers.includes(member.session)) {
        party.lootTurn = (index + 1) % count;
        return member.session;
      }
    }
    return sharers[0];
  }

  /** The `party` TLV of `session`'s own detail: the other members, or none. */
  detailTlv(session: Session): Tlv {
    const mirror = this.mirrors.get(keyOf(session));
    if (mirror !== undefined) return { kind: "party", members: mirror.members };
    const party = this.partyOf(session);
    const member = party === undefined ? undefined : this.memberOf(party, session);
    if (party === undefined || member === undefined) return { kind: "party", members: [] };
    return { kind: "party", members: this.membersFor(party, member) };
  }

  /** A session started playing: an account's member that was away is back in its party. */
  arrived(session: Session): void {
    const party = this.byKey.get(keyOf(session));
    // In a cluster, a party it is away from may live in another region: that region's home takes it back.
    if (party === undefined && session.accountId !== null) this.elsewhere?.back(keyOf(session));
    if (party === undefined) return;
    const member = this.memberOf(party, session, true)!;
    const wasAway = member.session === null && member.region === null;
    member.session = session;
    member.region = null;
    member.entityId = session.entity.id;
    member.nick = session.nick;
    if (wasAway) this.tellParty(party, `${session.nick} is back.`, member);
    party.dirty = true;
  }

  /** A session ended; `continues`: its player plays on in another session (replaced, handed over). */
  left(session: Session, continues: boolean): void {
    const key = keyOf(session);
    const mirror = this.mirrors.get(key);
    if (mirror !== undefined) {
      this.mirrors.delete(key);
      if (!continues) this.elsewhere?.gone(mirror.home, key);
      return;
    }
    const party = this.partyOf(session);
    const member = party === undefined ? undefined : this.memberOf(party, session);
    if (party === undefined || member === undefined) return; // not a member, or handed over already
    this.remember(member, session);
    member.session = null;
    member.goneAtTick = this.ports.clock.tick;
    party.dirty = true;
    if (!continues) this.tellParty(party, `${session.nick} is away (${PARTY_GRACE_SECONDS} s to come back).`);
  }

  // A cluster: members crossing borders, and the messages between a party's home and its members' regions.

  /** The region `session`'s party lives in (a handoff carries it), or null: in no party, or one process. */
  homeOf(session: Session): number | null {
    const mirror = this.mirrors.get(keyOf(session));
    if (mirror !== undefined) return mirror.home;
    const party = this.partyOf(session);
    return party === undefined || this.elsewhere === null ? null : this.elsewhere.region;
  }

  /** `session` is being handed to region `to`: a member of a party at home here plays on there. */
  handOver(session: Session, to: number): void {
    const party = this.partyOf(session);
    const member = party === undefined ? undefined : this.memberOf(party, session);
    if (party === undefined || member === undefined) return;
    this.remember(member, session);
    member.session = null;
    member.region = to;
    party.dirty = true;
  }

  /** A session handed here from another region, in the party whose home is `home` (null: none). */
  adopted(session: Session, home: number | null): void {
    if (home === null || this.elsewhere === null) return;
    const key = keyOf(session);
    if (home === this.elsewhere.region) {
      // Back at the party's home (unless it ended or removed it meanwhile).
      const party = this.byKey.get(key);
      const member = party?.members.find((candidate) => candidate.key === key);
      if (party === undefined || member === undefined) return;
      member.session = session;
      member.region = null;
      member.entityId = session.entity.id;
      party.dirty = true;
      return;
    }
    this.mirrors.set(key, { home, partyId: 0, members: [], sent: null });
    this.sendPlace(key, this.mirrors.get(key)!, session);
  }

  /** The home hears a member's verb from the region it plays in. */
  remoteVerb(from: number, key: string, verb: RemoteVerb, text: string): void {
    const { party, member } = this.playingElsewhere(from, key);
    if (party === undefined || member === undefined) return this.elsewhere?.over(from, key);
    if (verb === "speak") return this.speakAs(party, member.entityId, member.nick, text);
    if (verb === "list") return this.tellMember(member, listLine(party));
    if (verb === "kick") {
      if (party.members[0] !== member)
        return this.tellMember(member, `Only ${party.members[0].nick}, who leads your party, removes members.`);
      return this.kickAs(party, member, text);
    }
    this.tellMember(member, "You left the party.");
    this.remove(party, member, `${member.nick} left the party.`);
  }

  /** The home hears its leader, playing in region `from`, invite a player (who plays in `target.region`). */
  remoteInvite(from: number, key: string, target: InviteAsked): void {
    const { party, member } = this.playingElsewhere(from, key);
    if (party === undefined || member === undefined) return this.elsewhere?.over(from, key);
    this.inviteAs({ key, nick: member.nick, socialKey: target.socialKey }, party, target);
  }

  /** The invited player's region hears an invitation of `key` from region `from` (the party's home). */
  remoteInvitation(from: number, key: string, invitation: Invitation): void {
    const target = this.ports.byNick(invitation.nick);
    if (target === undefined)
      return this.elsewhere?.invited(from, key, {
        outcome: "refused",
        nick: invitation.nick,
        inviterNick: invitation.inviterNick,
        text: `Nobody called ${invitation.nick} is playing now.`,
      });
    this.showInvitation(from, key, target, invitation);
  }

  /** The home hears from the invited player's region what became of `key`'s invitation. */
  remoteInvited(from: number, key: string, answer: InvitationAnswer): void {
    if (answer.outcome !== "joined" || answer.joiner === undefined) return this.tellInviter(key, answer);
    this.join(key, answer.inviterNick, {
      remote: answer.joiner,
      region: from,
      nick: answer.nick,
      key: answer.joiner.key,
    });
  }

  /** The home hears where a member playing in region `from` stands. */
  remoteMoved(from: number, key: string, place: { x: number; y: number; hp: number; hpMax: number }): void {
    const party = this.byKey.get(key);
    const member = party?.members.find((candidate) => candidate.key === key);
    if (party === undefined || member === undefined) return this.elsewhere?.over(from, key);
    if (member.session !== null) return; // it plays here now: a late message
    member.region = from;
    member.x = place.x;
    member.y = place.y;
    member.hp = place.hp;
    member.hpMax = place.hpMax;
    party.dirty = true;
  }

  /** The home hears that an account plays again in region `from`: a member away from its party is back. */
  remoteBack(from: number, key: string): void {
    const party = this.byKey.get(key);
    const member = party?.members.find((candidate) => candidate.key === key);
    if (party === undefined || member === undefined || member.session !== null || member.region !== null) return;
    member.region = from;
    party.dirty = true;
    this.tellParty(party, `${member.nick} is back.`, member);
  }

  /** The home hears that a member's session in region `from` ended: it is away, as if it had ended here. */
  remoteGone(from: number, key: string): void {
    const { party, member } = this.playingElsewhere(from, key);
    if (party === undefined || member === undefined) return;
    member.region = null;
    member.goneAtTick = this.ports.clock.tick;
    party.dirty = true;
    this.tellParty(party, `${member.nick} is away (${PARTY_GRACE_SECONDS} s to come back).`);
  }

  /** A member playing here hears from its party's home: a line, its party as it stands, the party over for it. */
  fromHome(
    home: number,
    key: string,
    message:
      | { kind: "tell"; text: string }
      | { kind: "line"; speakerEntityId: number; speaker: string; text: string }
      | { kind: "detail"; partyId: number; members: PartyMember[] }
      | { kind: "over" },
  ): void {
    const session = this.ports.sessionOfKey(key);
    if (session === undefined) return;
    if (message.kind === "tell") return this.say(session, message.text);
    if (message.kind === "line") {
      this.ports.chat.lineTo(session, message.speakerEntityId, message.speaker, message.text);
      return;
    }
    let mirror = this.mirrors.get(key);
    if (mirror === undefined && message.kind === "detail" && this.partyOf(session) === undefined) {
      // Back in its party (remoteBack) while playing here: mirrored from now on.
      mirror = { home, partyId: message.partyId, members: [], sent: null };
      this.mirrors.set(key, mirror);
    }
    if (mirror === undefined) return;
    if (message.kind === "over") this.mirrors.delete(key);
    else {
      mirror.partyId = message.partyId;
      mirror.members = message.members;
    }
    this.ports.pushOwnDetail(session);
  }

  /**
   * Once a second (the Game calls it on the second's tick): members away for the grace period leave, and
   * each party that changed or whose members moved or were hurt is shown to its members again. A member
   * playing here in a party whose home is elsewhere tells the home where it stands, when that changed.
   */
  tick(): void {
    const tick = this.ports.clock.tick;
    for (const party of [...this.parties.values()]) {
      for (const member of [...party.members])
        if (member.session === null && member.region === null && tick - member.goneAtTick >= this.graceTicks) {
          this.stats.expired++;
          this.remove(party, member, `${member.nick} did not come back and left the party.`);
        }
    }
    for (const party of this.parties.values()) {
      if (!party.dirty && !this.moved(party)) continue;
      party.dirty = false;
      for (const member of party.members) this.showParty(party, member);
    }
    for (const [key, at] of this.declined)
      if (tick - at >= DECLINED_COOLDOWN_SECONDS * this.ports.tickHz) this.declined.delete(key);
    for (const [key, mirror] of this.mirrors) {
      const session = this.ports.sessionOfKey(key);
      if (session !== undefined) this.sendPlace(key, mirror, session);
    }
  }

  /** An invitation by `session`: run by the party's home (here, or asked of it by its leader playing here). */
  private inviteFrom(session: Session, target: InviteTarget): void {
    const key = keyOf(session);
    const socialKey = this.ports.socialKeyOf(session);
    const mirror = this.mirrors.get(key);
    if (mirror !== undefined && this.elsewhere !== null) {
      const asked = "session" in target ? { nick: target.session.nick, region: this.elsewhere.region } : target;
      return this.elsewhere.askInvite(mirror.home, key, { ...asked, socialKey });
    }
    this.inviteAs({ key, nick: session.nick, socialKey }, this.partyOf(session), target);
  }

  /**
   * The home's part of an invitation: only the leader invites, into a party not full; the invitation is
   * then shown where the invited player plays (here, or its region asked).
   */
  private inviteAs(inviter: Inviter, party: Party | undefined, target: InviteTarget): void {
    if (party !== undefined && party.members[0].key !== inviter.key)
      return this.tellKey(inviter.key, `Only ${party.members[0].nick}, who leads your party, invites.`);
    if (party !== undefined && party.members.length >= PARTY_MAX)
      return this.tellKey(inviter.key, `Your party is full (${PARTY_MAX}).`);
    const invitation = (nick: string): Invitation => ({
      nick,
      inviterNick: inviter.nick,
      socialKey: inviter.socialKey,
      partyId: party?.id ?? 0,
      size: party?.members.length ?? 1,
    });
    if ("session" in target)
      return this.showInvitation(null, inviter.key, target.session, invitation(target.session.nick));
    if (this.elsewhere === null || target.region !== this.elsewhere.region)
      return this.elsewhere?.invitation(target.region, inviter.key, invitation(target.nick));
    const here = this.ports.byNick(target.nick);
    if (here === undefined) return this.tellKey(inviter.key, `Nobody called ${target.nick} is playing now.`);
    this.showInvitation(null, inviter.key, here, invitation(here.nick));
  }

  /**
   * The invited player's region: what only it knows is checked (a party already, an ignore, a decline a
   * moment ago), and the dialog shown. `home` is the region to answer (null: the party's home is here).
   */
  private showInvitation(home: number | null, inviterKey: string, target: Session, invitation: Invitation): void {
    const answer = (outcome: InvitationAnswer["outcome"], text?: string, joiner?: RemoteJoiner): void => {
      const said: InvitationAnswer = { outcome, nick: target.nick, inviterNick: invitation.inviterNick, text, joiner };
      if (home === null) this.tellInviter(inviterKey, said);
      else this.elsewhere?.invited(home, inviterKey, said);
    };
    const key = keyOf(target);
    if (key === inviterKey) return answer("refused", "That is you.");
    const theirs = this.partyOf(target);
    const mirror = this.mirrors.get(key);
    if (theirs !== undefined || mirror !== undefined) {
      const ours =
        invitation.partyId !== 0 &&
        (home === null
          ? theirs?.id === invitation.partyId
          : mirror?.home === home && mirror.partyId === invitation.partyId);
      return answer("refused", ours ? `${target.nick} is in your party.` : `${target.nick} is in another party.`);
    }
    if (this.ports.ignoresKey(target, invitation.socialKey))
      return answer("refused", `${target.nick} is not taking your invitations.`);
    const declinedAt = this.declined.get(`${inviterKey}>${key}`);
    if (declinedAt !== undefined && this.ports.clock.tick - declinedAt < DECLINED_COOLDOWN_SECONDS * this.ports.tickHz)
      return answer("refused", `${target.nick} declined a moment ago: give them time.`);
    this.stats.invites++;
    const spec = conversation(
      "Party",
      `${invitation.inviterNick} invites you to play together as a party (${invitation.size + 1} of at most ${PARTY_MAX}).`,
      ["Join", "Decline"],
    );
    // One invitation open at a time: a newer one replaces it.
    const replied = (reply: DialogReply): void => {
      if (reply.returnCode !== JOIN) {
        this.stats.declined++;
        this.declined.set(`${inviterKey}>${key}`, this.ports.clock.tick);
        return answer("declined");
      }
      // Everything may have changed while the dialog stood open: checked again, here and at the home.
      if (this.partyOf(target) !== undefined || this.mirrors.has(key))
        return this.say(target, "You are in a party already: /leave it first.");
      if (!this.ports.inPlay(target)) return;
      if (home === null)
        return this.join(inviterKey, invitation.inviterNick, { session: target, nick: target.nick, key });
      // Joining a party whose home is another region: a mirror for it at once (no other invitation taken
      // meanwhile), filled by the home's detail — or dropped by its `over`, with a line saying why.
      this.mirrors.set(key, { home, partyId: 0, members: [], sent: null });
      const { x, y, hp, hpMax } = target.entity;
      answer("joined", undefined, { key, entityId: target.entity.id, x, y, hp, hpMax });
    };
    this.ports.dialogs.open(target, spec, replied, { key: "party-invite" });
    answer("shown");
  }

  /** The home: `joiner` answered Join to `inviterKey`'s invitation; everything is checked again, then it joins. */
  private join(inviterKey: string, inviterNick: string, joiner: Joiner): void {
    const refuse = (text: string): void => {
      if ("session" in joiner) return this.say(joiner.session, text);
      this.elsewhere?.tell(joiner.region, joiner.key, text);
      this.elsewhere?.over(joiner.region, joiner.key);
    };
    if (!("session" in joiner) && this.byKey.has(joiner.key))
      return refuse("You are in a party already: /leave it first.");
    let party = this.byKey.get(inviterKey);
    const leader = party?.members[0];
    if (leader !== undefined && leader.key !== inviterKey) return refuse(`${inviterNick} no longer leads a party.`);
    const inviter = leader === undefined ? this.ports.sessionOfKey(inviterKey) : (leader.session ?? undefined);
    const playing =
      leader !== undefined && leader.region !== null
        ? true
        : inviter !== undefined && this.ports.inPlay(inviter) && !this.mirrors.has(inviterKey);
    const joinerPlays = "session" in joiner ? this.ports.inPlay(joiner.session) : true;
    if (!playing || !joinerPlays) return refuse(`${inviterNick} is no longer playing.`);
    if (party !== undefined && party.members.length >= PARTY_MAX) return refuse(`${inviterNick}'s party is full.`);
    if (party === undefined) {
      party = { id: this.nextId++, members: [], lootTurn: 0, dirty: true };
      this.parties.set(party.id, party);
      this.add(party, inviter!);
      this.stats.formed++;
    }
    if ("session" in joiner) this.add(party, joiner.session);
    else this.addRemote(party, joiner.key, joiner.nick, joiner.remote, joiner.region);
    this.tellParty(party, `${joiner.nick} joined the party.`);
  }

  private add(party: Party, session: Session): void {
    const member: Member = {
      key: keyOf(session),
      nick: session.nick,
      session,
      region: null,
      entityId: session.entity.id,
      goneAtTick: 0,
      x: session.entity.x,
      y: session.entity.y,
      hp: session.entity.hp,
      hpMax: session.entity.hpMax,
    };
    party.members.push(member);
    this.byKey.set(member.key, party);
    party.dirty = true;
  }

  /** A member who plays in region `region`: the home sends it the party from the next second on. */
  private addRemote(party: Party, key: string, nick: string, joiner: RemoteJoiner, region: number): void {
    const { entityId, x, y, hp, hpMax } = joiner;
    party.members.push({ key, nick, session: null, region, entityId, goneAtTick: 0, x, y, hp, hpMax });
    this.byKey.set(key, party);
    party.dirty = true;
  }

  /** The leader `kicker` removes the member called `nick`. */
  private kickAs(party: Party, kicker: Member, nick: string): void {
    const wanted = nickKey(nick);
    const member = party.members.find((candidate) => nickKey(candidate.nick) === wanted);
    if (member === undefined) return this.tellMember(kicker, `Nobody called ${nick} is in your party.`);
    if (member === kicker) return this.tellMember(kicker, "That is you: /leave to leave.");
    this.tellMember(member, `${kicker.nick} removed you from the party.`);
    this.remove(party, member, `${kicker.nick} removed ${member.nick} from the party.`);
  }

  /** The inviter `key` hears what became of its invitation (all but a Join, which the home runs). */
  private tellInviter(key: string, answer: InvitationAnswer): void {
    if (answer.outcome === "shown") return this.tellKey(key, `You invited ${answer.nick}.`);
    if (answer.outcome === "declined") return this.tellKey(key, `${answer.nick} declined your invitation.`);
    if (answer.text !== undefined) this.tellKey(key, answer.text);
  }

  /** A system line to the player of member key `key`: a member wherever it plays, or a session here. */
  private tellKey(key: string, text: string): void {
    const party = this.byKey.get(key);
    const member = party?.members.find((candidate) => candidate.key === key);
    if (member !== undefined && (member.session !== null || member.region !== null))
      return this.tellMember(member, text);
    const session = this.ports.sessionOfKey(key);
    if (session !== undefined) this.say(session, text);
  }

  /** Removes `member`, which then sees no party; the next member leads if it led; a party of one is over. */
  private remove(party: Party, member: Member, line: string): void {
    const index = party.members.indexOf(member);
    if (index < 0) return;
    party.members.splice(index, 1);
    this.byKey.delete(member.key);
    this.noParty(member);
    if (party.lootTurn > index) party.lootTurn--;
    party.lootTurn = party.members.length === 0 ? 0 : party.lootTurn % party.members.length;
    party.dirty = true;
    this.tellParty(party, line);
    if (index === 0 && party.members.length > 1) this.tellParty(party, `${party.members[0].nick} leads the party now.`);
    if (party.members.length <= 1) {
      for (const last of party.members) {
        this.byKey.delete(last.key);
        this.tellMember(last, "The party is over.");
        this.noParty(last);
      }
      party.members.length = 0;
      this.parties.delete(party.id);
    }
  }

  /** A member no longer in the party sees none: its own detail here, or its region told. */
  private noParty(member: Member): void {
    if (member.session !== null) this.ports.pushOwnDetail(member.session);
    else if (member.region !== null) this.elsewhere?.over(member.region, member.key);
  }

  /** Shows `member` the party as it stands: its own detail here, or its region sent the members. */
  private showParty(party: Party, member: Member): void {
    if (member.session !== null) this.ports.pushOwnDetail(member.session);
    else if (member.region !== null)
      this.elsewhere?.detail(member.region, member.key, party.id, this.membersFor(party, member));
  }

  /** The party TLV's members as `self` sees them: every other member. */
  private membersFor(party: Party, self: Member): PartyMember[] {
    const members: PartyMember[] = [];
    party.members.forEach((member, index) => {
      if (member === self) return;
      const present = member.session;
      if (present !== null) this.remember(member, present);
      const away = present === null && member.region === null;
      members.push({
        entityId: away ? 0 : member.entityId,
        hp: clampU16(member.hp),
        hpMax: clampU16(member.hpMax),
        x: clampU16(member.x),
        y: clampU16(member.y),
        flags: (index === 0 ? PARTY_LEADER : 0) | (away ? PARTY_AWAY : 0),
        name: member.nick,
      });
    });
    return members;
  }

  private speakAs(party: Party, speakerEntityId: number, nick: string, text: string): void {
    const speaker = taggedSpeaker("party", nick);
    for (const member of party.members) {
      if (member.session !== null) this.ports.chat.lineTo(member.session, speakerEntityId, speaker, text);
      else if (member.region !== null) this.elsewhere?.line(member.region, member.key, speakerEntityId, speaker, text);
    }
  }

  private tellParty(party: Party, text: string, except?: Member): void {
    for (const member of party.members) if (member !== except) this.tellMember(member, text);
  }

  /** A system line to a member present: here, or in the region it plays in. */
  private tellMember(member: Member, text: string): void {
    if (member.session !== null) this.ports.chat.tell(member.session, text);
    else if (member.region !== null) this.elsewhere?.tell(member.region, member.key, text);
  }

  /** Sends the home where a member playing here stands, when that changed since it was last sent. */
  private sendPlace(key: string, mirror: Mirror, session: Session): void {
    const { x, y, hp, hpMax } = session.entity;
    const sent = mirror.sent;
    if (sent !== null && sent.x === x && sent.y === y && sent.hp === hp && sent.hpMax === hpMax) return;
    mirror.sent = { x, y, hp, hpMax };
    this.elsewhere?.moved(mirror.home, key, mirror.sent);
  }

  /** Sends a verb of a member whose party's home is another region there; false when it is not such a member. */
  private toHome(session: Session, verb: RemoteVerb, text: string): boolean {
    const key = keyOf(session);
    const mirror = this.mirrors.get(key);
    if (mirror === undefined || this.elsewhere === null) return false;
    this.elsewhere.verb(mirror.home, key, verb, text);
    return true;
  }

  /** The party and member of `key`, when it is a member playing in region `from`. */
  private playingElsewhere(from: number, key: string): { party?: Party; member?: Member } {
    const party = this.byKey.get(key);
    const member = party?.members.find((candidate) => candidate.key === key);
    return member?.region === from ? { party, member } : {};
  }

  /** Whether any present member moved or changed health since the party was last shown. */
  private moved(party: Party): boolean {
    let changed = false;
    for (const member of party.members) {
      const session = member.session;
      if (session === null) continue;
      const entity = session.entity;
      if (entity.x !== member.x || entity.y !== member.y || entity.hp !== member.hp || entity.hpMax !== member.hpMax) {
        this.remember(member, session);
        changed = true;
      }
    }
    return changed && party.members.length > 1;
  }

  private remember(member: Member, session: Session): void {
    const entity = session.entity;
    member.x = entity.x;
    member.y = entity.y;
    member.hp = entity.hp;
    member.hpMax = entity.hpMax;
  }

  private partyOf(session: Session): Party | undefined {
    const party = this.byKey.get(keyOf(session));
    // A guest's key is its session's; an account's member is this session only while it is the one present.
    if (party === undefined) return undefined;
    const member = this.memberOf(party, session, true);
    return member !== undefined && (member.session === session || (member.session === null && member.region === null))
      ? party
      : undefined;
  }

  private memberOf(party: Party, session: Session, byKeyOnly = false): Member | undefined {
    const key = keyOf(session);
    return party.members.find((member) => member.key === key && (byKeyOnly || member.session === session));
  }

  /** A system line to one player. */
  private say(session: Session, text: string): void {
    this.ports.chat.tell(session, text);
  }
}

/** `/party`'s answer: the members, who leads, who is away. */
function listLine(party: Party): string {
  const names = party.members.map(
    (member, index) =>
      `${member.nick}${index === 0 ? " (leads)" : ""}${member.session === null && member.region === null ? " (away)" : ""}`,
  );
  return `Your party (${party.members.length} of ${PARTY_MAX}): ${names.join(", ")}`;
}

/** Who a member is across sessions: an account, or a guest's own session (a guest never comes back). */
function keyOf(session: Session): string {
  return session.accountId !== null ? `a${session.accountId}` : `s${session.tokenHex}`;
}

function clampU16(value: number): number {
  return Math.max(0, Math.min(0xffff, Math.round(value)));
}
