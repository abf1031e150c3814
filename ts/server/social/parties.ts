// Parties (issue 39, docs/social.md): a few players who play together. The leader invites (the invited
// player answers in a dialog), anyone leaves, the leader removes; members hear the party channel, see each
// other's health and place in their own EntityDetail (the `party` TLV, docs/protocol.md § 18.9) however far
// apart they are, and share the credit of a kill made near them (sharersOf). A member whose session ends
// stays a member, shown away, for PARTY_GRACE_SECONDS: an account that plays again within it is back in
// its party; after it, the member has left.
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
  /** The tick the member's session ended (while `session` is null). */
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
  readonly clock: { readonly tick: number };
  readonly tickHz: number;
  readonly log: Logger;
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

  constructor(private readonly ports: PartyPorts) {
    this.graceTicks = Math.round(PARTY_GRACE_SECONDS * ports.tickHz);
  }

  /** How many parties there are (for /api/status). */
  get count(): number {
    return this.parties.size;
  }

  invite(session: Session, target: Session): void {
    if (target === session) return this.say(session, "That is you.");
    const party = this.partyOf(session);
    if (party !== undefined && party.members[0].session !== session)
      return this.say(session, `Only ${party.members[0].nick}, who leads your party, invites.`);
    if (party !== undefined && party.members.length >= PARTY_MAX)
      return this.say(session, `Your party is full (${PARTY_MAX}).`);
    const theirs = this.partyOf(target);
    if (theirs !== undefined)
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
    const party = this.partyOf(session);
    if (party === undefined) return this.say(session, "You are in no party.");
    this.say(session, "You left the party.");
    this.remove(party, this.memberOf(party, session)!, `${session.nick} left the party.`);
    this.ports.pushOwnDetail(session);
  }

  kick(session: Session, nick: string): void {
    const party = this.partyOf(session);
    if (party === undefined) return this.say(session, "You are in no party.");
    if (party.members[0].session !== session)
      return this.say(session, `Only ${party.members[0].nick}, who leads your party, removes members.`);
    const wanted = nickKey(nick);
    const member = party.members.find((candidate) => nickKey(candidate.nick) === wanted);
    if (member === undefined) return this.say(session, `Nobody called ${nick} is in your party.`);
    if (member.session === session) return this.say(session, "That is you: /leave to leave.");
    const removed = member.session;
    this.remove(party, member, `${session.nick} removed ${member.nick} from the party.`);
    if (removed !== null) {
      this.say(removed, `${session.nick} removed you from the party.`);
      this.ports.pushOwnDetail(removed);
    }
  }

  /** A line on the party channel: to every member present, the speaker too (that is its echo). */
  speak(session: Session, text: string): void {
    const own = this.partyOf(session);
    if (own === undefined) return this.say(session, "You are in no party: /invite nick to start one.");
    const speaker = taggedSpeaker("party", session.nick);
    for (const member of own.members)
      if (member.session !== null) this.ports.chat.lineTo(member.session, session.entity.id, speaker, text);
  }

  list(session: Session): void {
    const party = this.partyOf(session);
    if (party === undefined) return this.say(session, "You are in no party: /invite nick to start one.");
    const names = party.members.map(
      (member, index) => `${member.nick}${index === 0 ? " (leads)" : ""}${member.session === null ? " (away)" : ""}`,
    );
    this.say(session, `Your party (${party.members.length} of ${PARTY_MAX}): ${names.join(", ")}`);
  }

  /** The members of `session`'s party present within SHARE_RADIUS of (x, y), `session` first; just it alone without a party. */
  sharersOf(session: Session, x: number, y: number): Session[] {
    const party = this.partyOf(session);
    if (party === undefined) return [session];
    const out = [session];
    for (const member of party.members) {
      const other = member.session;
      if (other === null || other === session) continue;
      if (Math.abs(other.entity.x - x) <= SHARE_RADIUS && Math.abs(other.entity.y - y) <= SHARE_RADIUS) out.push(other);
    }
    return out;
  }

  /**
   * Of `sharers` (sharersOf's answer), the one whose turn it is for a shared kill's loot — in the party's
   * order, round-robin, skipping those not among the sharers; the turn then passes on.
   */
  lootTakerOf(sharers: readonly Session[]): Session {
    if (sharers.length === 1) return sharers[0];
    const party = this.partyOf(sharers[0])!;
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
    const party = this.partyOf(session);
    if (party === undefined) return { kind: "party", members: [] };
    const members: PartyMember[] = [];
    party.members.forEach((member, index) => {
      if (member.session === session) return;
      const present = member.session;
      if (present !== null) this.remember(member, present);
      members.push({
        entityId: present === null ? 0 : present.entity.id,
        hp: clampU16(member.hp),
        hpMax: clampU16(member.hpMax),
        x: clampU16(member.x),
        y: clampU16(member.y),
        flags: (index === 0 ? PARTY_LEADER : 0) | (present === null ? PARTY_AWAY : 0),
        name: member.nick,
      });
    });
    return { kind: "party", members };
  }

  /** A session started playing: an account's member that was away is back in its party. */
  arrived(session: Session): void {
    const party = this.byKey.get(keyOf(session));
    if (party === undefined) return;
    const member = this.memberOf(party, session, true)!;
    const wasAway = member.session === null;
    member.session = session;
    member.nick = session.nick;
    if (wasAway) this.tellParty(party, `${session.nick} is back.`, session);
    party.dirty = true;
  }

  /** A session ended; `continues`: its player plays on in another session (replaced, handed over). */
  left(session: Session, continues: boolean): void {
    const party = this.partyOf(session);
    if (party === undefined) return;
    const member = this.memberOf(party, session)!;
    this.remember(member, session);
    member.session = null;
    member.goneAtTick = this.ports.clock.tick;
    party.dirty = true;
    if (!continues) this.tellParty(party, `${session.nick} is away (${PARTY_GRACE_SECONDS} s to come back).`);
  }

  /**
   * Once a second (the Game calls it on the second's tick): members away for the grace period leave, and
   * each party that changed or whose members moved or were hurt is shown to its members again.
   */
  tick(): void {
    const tick = this.ports.clock.tick;
    for (const party of [...this.parties.values()]) {
      for (const member of [...party.members])
        if (member.session === null && tick - member.goneAtTick >= this.graceTicks) {
          this.stats.expired++;
          this.remove(party, member, `${member.nick} did not come back and left the party.`);
        }
    }
    for (const party of this.parties.values()) {
      if (!party.dirty && !this.moved(party)) continue;
      party.dirty = false;
      for (const member of party.members) if (member.session !== null) this.ports.pushOwnDetail(member.session);
    }
    for (const [key, at] of this.declined)
      if (tick - at >= DECLINED_COOLDOWN_SECONDS * this.ports.tickHz) this.declined.delete(key);
  }

  private answered(inviter: Session, target: Session, reply: DialogReply): void {
    const tell = (session: Session, text: string): void => this.say(session, text);
    if (reply.returnCode !== JOIN) {
      this.stats.declined++;
      this.declined.set(`${keyOf(inviter)}>${keyOf(target)}`, this.ports.clock.tick);
      return tell(inviter, `${target.nick} declined your invitation.`);
    }
    // Everything may have changed while the dialog stood open: checked again.
    if (this.partyOf(target) !== undefined) return tell(target, "You are in a party already: /leave it first.");
    let party = this.partyOf(inviter);
    if (party !== undefined && party.members[0].session !== inviter)
      return tell(target, `${inviter.nick} no longer leads a party.`);
    if (!this.ports.inPlay(inviter) || !this.ports.inPlay(target))
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

  /** Removes `member`; the next member leads if it led; a party of one is over. */
  private remove(party: Party, member: Member, line: string): void {
    const index = party.members.indexOf(member);
    if (index < 0) return;
    party.members.splice(index, 1);
    this.byKey.delete(member.key);
    if (party.lootTurn > index) party.lootTurn--;
    party.lootTurn = party.members.length === 0 ? 0 : party.lootTurn % party.members.length;
    party.dirty = true;
    this.tellParty(party, line);
    if (index === 0 && party.members.length > 1) this.tellParty(party, `${party.members[0].nick} leads the party now.`);
    if (party.members.length <= 1) {
      for (const last of party.members) {
        this.byKey.delete(last.key);
        if (last.session !== null) {
          this.ports.chat.tell(last.session, "The party is over.");
          this.ports.pushOwnDetail(last.session);
        }
      }
      party.members.length = 0;
      this.parties.delete(party.id);
    }
  }

  private tellParty(party: Party, text: string, except?: Session): void {
    for (const member of party.members)
      if (member.session !== null && member.session !== except) this.ports.chat.tell(member.session, text);
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
    return member !== undefined && (member.session === session || member.session === null) ? party : undefined;
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

/** Who a member is across sessions: an account, or a guest's own session (a guest never comes back). */
function keyOf(session: Session): string {
  return session.accountId !== null ? `a${session.accountId}` : `s${session.tokenHex}`;
}

function clampU16(value: number): number {
  return Math.max(0, Math.min(0xffff, Math.round(value)));
}
