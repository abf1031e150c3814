// Parties whose members play in several regions (docs/scaling.md § Parties across regions): the messages
// between a party's home — the region whose PartyRoom holds it (ts/server/social/parties.ts) — and the
// regions its members play in, on one Redis pub/sub channel (`fc:party`). Each message names the region it
// is for (`to`) and the member (`key`; for an invitation, the inviter's); the rules are the PartyRoom's,
// on both sides: this file only carries and checks what travels. An invitation across a border is three
// of them: a leader playing away asks its home (`askInvite`), the home asks the invited player's region
// (`invitation`), and that region answers what became of it (`invited`: shown, declined, refused, joined).
import type { Redis } from "ioredis";
import {
  PARTY_MAX,
  type InviteAsked,
  type Invitation,
  type InvitationAnswer,
  type PartyElsewhere,
  type PartyRoom,
  type RemoteJoiner,
  type RemoteVerb,
} from "../server/social/parties.js";
import type { Logger } from "../server/ops/log.js";
import type { PartyMember } from "../protocol/tlv.js";
import { RegionChannel } from "./region-channel.js";

/** What one message may weigh: a party TLV of PARTY_MAX members, or a chat line, with room to spare. */
const MAX_MESSAGE_BYTES = 4096;
const VERBS: readonly string[] = ["speak", "leave", "list", "kick"] satisfies RemoteVerb[];
const OUTCOMES: readonly string[] = ["shown", "declined", "refused", "joined"] satisfies InvitationAnswer["outcome"][];

/** What the link calls of the party room. */
export type PartyLinkRoom = Pick<
  PartyRoom,
  | "remoteVerb"
  | "remoteMoved"
  | "remoteGone"
  | "remoteBack"
  | "remoteInvite"
  | "remoteInvitation"
  | "remoteInvited"
  | "fromHome"
  | "elsewhere"
>;

/** A message's `to` for every region. */
const EVERY_REGION = -1;

export class PartyLink implements PartyElsewhere {
  /** Messages sent and taken. */
  readonly stats = { sent: 0, received: 0 };
  private readonly channel: RegionChannel;

  constructor(
    readonly region: number,
    publisher: Redis,
    private readonly parties: PartyLinkRoom,
    log: Logger,
    prefix = "fc:",
  ) {
    this.channel = new RegionChannel(region, publisher, `${prefix}party`, MAX_MESSAGE_BYTES, log, (fields) =>
      this.onMessage(fields),
    );
  }

  get dropped(): number {
    return this.channel.dropped;
  }

  async start(): Promise<void> {
    await this.channel.start();
    this.parties.elsewhere = this;
  }

  async close(): Promise<void> {
    this.parties.elsewhere = null;
    await this.channel.close();
  }

  tell(region: number, key: string, text: string): void {
    this.send(region, { key, tell: text });
  }

  line(region: number, key: string, speakerEntityId: number, speaker: string, text: string): void {
    this.send(region, { key, line: { speakerEntityId, speaker, text } });
  }

  detail(region: number, key: string, partyId: number, members: PartyMember[]): void {
    this.send(region, { key, detail: { partyId, members } });
  }

  over(region: number, key: string): void {
    this.send(region, { key, over: true });
  }

  verb(home: number, key: string, verb: RemoteVerb, text: string): void {
    this.send(home, { key, verb, text });
  }

  moved(home: number, key: string, place: { x: number; y: number; hp: number; hpMax: number }): void {
    this.send(home, { key, moved: place });
  }

  gone(home: number, key: string): void {
    this.send(home, { key, gone: true });
  }

  back(key: string): void {
    this.send(EVERY_REGION, { key, back: true });
  }

  askInvite(home: number, key: string, target: InviteAsked): void {
    this.send(home, { key, askInvite: target });
  }

  invitation(region: number, key: string, invitation: Invitation): void {
    this.send(region, { key, invitation });
  }

  invited(home: number, key: string, answer: InvitationAnswer): void {
    this.send(home, { key, invited: answer });
  }

  private send(to: number, fields: Record<string, unknown>): void {
    this.stats.sent++;
    this.channel.publish({ to, ...fields });
  }

  /** Another region's message: this region's when `to` names it; false for one that is not well formed. */
  private onMessage(fields: Record<string, unknown>): boolean {
    if (!Number.isInteger(fields.to)) return false;
    if (fields.to !== this.region && fields.to !== EVERY_REGION) return true;
    const from = fields.from as number;
    const key = fields.key;
    if (!memberKey(key)) return false;
    const parties = this.parties;
    if (typeof fields.tell === "string" && fields.tell.length <= 400) {
      parties.fromHome(from, key, { kind: "tell", text: fields.tell });
    } else if (isLine(fields.line)) {
      parties.fromHome(from, key, { kind: "line", ...fields.line });
    } else if (isDetail(fields.detail)) {
      parties.fromHome(from, key, { kind: "detail", ...fields.detail });
    } else if (fields.over === true) {
      parties.fromHome(from, key, { kind: "over" });
    } else if (typeof fields.verb === "string" && VERBS.includes(fields.verb) && typeof fields.text === "string") {
      if (fields.text.length > 400) return false;
      parties.remoteVerb(from, key, fields.verb as RemoteVerb, fields.text);
    } else if (isPlace(fields.moved)) {
      parties.remoteMoved(from, key, fields.moved);
    } else if (fields.gone === true) {
      parties.remoteGone(from, key);
    } else if (fields.back === true) {
      parties.remoteBack(from, key);
    } else if (isAsked(fields.askInvite)) {
      parties.remoteInvite(from, key, fields.askInvite);
    } else if (isInvitation(fields.invitation)) {
      parties.remoteInvitation(from, key, fields.invitation);
    } else if (isAnswer(fields.invited)) {
      parties.remoteInvited(from, key, fields.invited);
    } else {
      return false;
    }
    this.stats.received++;
    return true;
  }
}

const u16 = (value: unknown): value is number =>
  Number.isInteger(value) && (value as number) >= 0 && (value as number) <= 0xffff;
const shortText = (value: unknown): value is string => typeof value === "string" && value.length <= 400;
const nick = (value: unknown): value is string => typeof value === "string" && value.length <= 64;
const region = (value: unknown): value is number => Number.isInteger(value) && (value as number) >= 0;
const memberKey = (value: unknown): value is string =>
  typeof value === "string" && /^(a\d{1,15}|s[0-9a-f]{16})$/.test(value);
/** A social key (social-room.ts): an account's "a12", a guest's "n" + its nick's fold. */
const socialKey = (value: unknown): value is string =>
  typeof value === "string" && value.length <= 80 && /^[an]/.test(value);

function isAsked(value: unknown): value is InviteAsked {
  if (typeof value !== "object" || value === null) return false;
  const asked = value as Record<string, unknown>;
  return nick(asked.nick) && region(asked.region) && socialKey(asked.socialKey);
}

function isInvitation(value: unknown): value is Invitation {
  if (typeof value !== "object" || value === null) return false;
  const invitation = value as Record<string, unknown>;
  return (
    nick(invitation.nick) &&
    nick(invitation.inviterNick) &&
    socialKey(invitation.socialKey) &&
    Number.isSafeInteger(invitation.partyId) &&
    Number.isInteger(invitation.size) &&
    (invitation.size as number) >= 1 &&
    (invitation.size as number) < PARTY_MAX
  );
}

function isAnswer(value: unknown): value is InvitationAnswer {
  if (typeof value !== "object" || value === null) return false;
  const answer = value as Record<string, unknown>;
  if (typeof answer.outcome !== "string" || !OUTCOMES.includes(answer.outcome)) return false;
  if (!nick(answer.nick) || !nick(answer.inviterNick)) return false;
  if (answer.text !== undefined && !shortText(answer.text)) return false;
  return answer.outcome !== "joined" || isJoiner(answer.joiner);
}

function isJoiner(value: unknown): value is RemoteJoiner {
  if (typeof value !== "object" || value === null) return false;
  const joiner = value as Record<string, unknown>;
  return (
    memberKey(joiner.key) &&
    Number.isSafeInteger(joiner.entityId) &&
    [joiner.x, joiner.y, joiner.hp, joiner.hpMax].every((n) => Number.isInteger(n))
  );
}

function isLine(value: unknown): value is { speakerEntityId: number; speaker: string; text: string } {
  if (typeof value !== "object" || value === null) return false;
  const line = value as Record<string, unknown>;
  return Number.isSafeInteger(line.speakerEntityId) && shortText(line.speaker) && shortText(line.text);
}

function isPlace(value: unknown): value is { x: number; y: number; hp: number; hpMax: number } {
  if (typeof value !== "object" || value === null) return false;
  const place = value as Record<string, unknown>;
  return (
    Number.isInteger(place.x) &&
    Number.isInteger(place.y) &&
    Number.isInteger(place.hp) &&
    Number.isInteger(place.hpMax)
  );
}

function isDetail(value: unknown): value is { partyId: number; members: PartyMember[] } {
  if (typeof value !== "object" || value === null) return false;
  const detail = value as Record<string, unknown>;
  return (
    Number.isSafeInteger(detail.partyId) &&
    Array.isArray(detail.members) &&
    detail.members.length < PARTY_MAX &&
    detail.members.every((member: unknown) => {
      if (typeof member !== "object" || member === null) return false;
      const m = member as Record<string, unknown>;
      return (
        Number.isSafeInteger(m.entityId) &&
        [m.hp, m.hpMax, m.x, m.y].every(u16) &&
        Number.isInteger(m.flags) &&
        (m.flags as number) >= 0 &&
        (m.flags as number) <= 0xff &&
        typeof m.name === "string" &&
        m.name.length <= 64
      );
    })
  );
}
