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
  /** Whether `session` ignores `other` (its invitations are refused). */
  readonly ignores: (session: Session, other: Session) => boolean;
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
}

/** What a member playing in another region may ask of its party's home. */
export type RemoteVerb = "speak" | "leave" | "list";

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

  invite(session: Session, target: Session): void {
    if (target === session) return this.say(session, "That is you.");
    if (this.mirrors.has(keyOf(session))) return this.say(session, LED_AT_HOME);
    const party = this.partyOf(session);
    if (party !== undefined && party.members[0].session !== session)
      return this.say(session, `Only ${party.members[0].nick}, who leads your party, invites.`);
    if (party !== undefined && party.members.length >= PARTY_MAX)
      return this.say(session, `Your party is full (${PARTY_MAX}).`);
    const theirs = this.partyOf(target);
    if (theirs !== undefined || this.mirrors.has(keyOf(target)))
      return this.say(
        session,
        theirs === party ? `${target.nick} is in your party.` : `${target.nick} is in another party.`,
      );
    if (this.ports.ignores(target, session)) return this.say(session, `${target.nick} is not taking your invitations.`);
    const declinedKey = `${keyOf(session)}>${keyOf(target)}`;
    const declinedAt = this.declined.get(declinedKey);
    if (declinedAt !== undefined && this.ports.clock.tick - declinedAt < DECLINED_COOLDOWN_SECONDS * this.ports.tickHz)
      return this.say(session, `${target.nick} declined a moment ago: give them time.`);
    this.stats.invites++;
    const size = party?.members.length ?? 1;
    const spec = conversation(
      "Party",
      `${session.nick} invites you to play together as a party (${size + 1} of at most ${PARTY_MAX}).`,
      ["Join", "Decline"],
    );
    // One invitation open at a time: a newer one replaces it (the older one's inviter hears it lapsed).
    this.ports.dialogs.open(target, spec, (reply) => this.answered(session, target, reply), { key: "party-invite" });
    this.say(session, `You invited ${target.nick}.`);
  }

  leave(session: Session): void {
    if (this.toHome(session, "leave", "")) return;
    const party = this.partyOf(session);
    if (party === undefined) return this.say(session, "You are in no party.");
    this.say(session, "You left the party.");
    this.remove(party, this.memberOf(party, session)!, `${session.nick} left the party.`);
  }

  kick(session: Session, nick: string): void {
    if (this.mirrors.has(keyOf(session))) return this.say(session, LED_AT_HOME);
    const party = this.partyOf(session);
    if (party === undefined) return this.say(session, "You are in no party.");
    if (party.members[0].session !== session)
      return this.say(session, `Only ${party.members[0].nick}, who leads your party, removes members.`);
    const wanted = nickKey(nick);
    const member = party.members.find((candidate) => nickKey(candidate.nick) === wanted);
    if (member === undefined) return this.say(session, `Nobody called ${nick} is in your party.`);
    if (member.session === session) return this.say(session, "That is you: /leave to leave.");
    this.tellMember(member, `${session.nick} removed you from the party.`);
    this.remove(party, member, `${session.nick} removed ${member.nick} from the party.`);
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
    this.tellMember(member, "You left the party.");
    this.remove(party, member, `${member.nick} left the party.`);
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

  private answered(inviter: Session, target: Session, reply: DialogReply): void {
    const tell = (session: Session, text: string): void => this.say(session, text);
    if (reply.returnCode !== JOIN) {
      this.stats.declined++;
      this.declined.set(`${keyOf(inviter)}>${keyOf(target)}`, this.ports.clock.tick);
      return tell(inviter, `${target.nick} declined your invitation.`);
    }
    // Everything may have changed while the dialog stood open: checked again.
    if (this.partyOf(target) !== undefined || this.mirrors.has(keyOf(target)))
      return tell(target, "You are in a party already: /leave it first.");
    let party = this.partyOf(inviter);
    if (party !== undefined && party.members[0].session !== inviter)
      return tell(target, `${inviter.nick} no longer leads a party.`);
    if (!this.ports.inPlay(inviter) || !this.ports.inPlay(target) || this.mirrors.has(keyOf(inviter)))
      return tell(target, `${inviter.nick} is no longer playing.`);
    if (party !== undefined && party.members.length >= PARTY_MAX)
      return tell(target, `${inviter.nick}'s party is full.`);
    if (party === undefined) {
      party = { id: this.nextId++, members: [], lootTurn: 0, dirty: true };
      this.parties.set(party.id, party);
      this.add(party, inviter);
      this.stats.formed++;
    }
    this.add(party, target);
    this.tellParty(party, `${target.nick} joined the party.`);
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

/** Said to a member whose party's home is another region, asked to invite or remove. */
const LED_AT_HOME = "Your party is led from the region where it formed: invite and remove there.";

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
