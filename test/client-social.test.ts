// The client's side of playing together (issue 39): private and party lines filed in their own log
// channels and worded from their tagged speaker names, and the party view read from the own EntityDetail's
// party TLV — replaced by each detail that carries one, cleared by an empty one, kept by one without it.
import { describe, expect, it } from "vitest";
import type { ChatEvent } from "../ts/client/core/chat.js";
import { PartyView } from "../ts/client/core/party.js";
import { chatLogLine } from "../ts/client/ui/chat-log.js";
import { chatEventChannel, viewShows } from "../ts/client/ui/log-channels.js";
import { healthShare, mateLabel } from "../ts/client/ui/party-panel.js";
import * as P from "../ts/client/render/palette.js";
import { speakerChannel, taggedSpeaker } from "../ts/protocol/chat-speakers.js";
import { decodeEntityDetailBody, encodeEntityDetail } from "../ts/protocol/entity-detail.js";
import { PARTY_AWAY, PARTY_LEADER, type Tlv } from "../ts/protocol/tlv.js";
import { NAME_MAX_BYTES } from "../ts/protocol/tlv.js";

function line(speakerEntityId: number, speakerName: string, text: string): ChatEvent {
  return { kind: "line", seq: 1, speakerEntityId, speakerName, text } as ChatEvent;
}

function detail(meta: Tlv[]) {
  const out = new Uint8Array(1200);
  const size = encodeEntityDetail({ type: "entity_detail", clientType: 0, tick: 5, entityId: 9, meta }, out);
  const decoded = decodeEntityDetailBody(out.subarray(0, size));
  if (!decoded.ok) throw new Error(decoded.error.message);
  return decoded.packet;
}

describe("private and party lines in the log", () => {
  it("files them by their tagged speaker name and words them from it", () => {
    const names = new Map([[7, "Ada"]]);
    const from = line(7, taggedSpeaker("private_from", "Ada"), "see you at the hall");
    const to = line(3, taggedSpeaker("private_to", "Bo"), "on my way");
    const party = line(7, taggedSpeaker("party", "Ada"), "pull the rat");
    const waited = line(0, taggedSpeaker("private_from", "Cy"), "left while you were away");
    expect([from, to, party, waited].map(chatEventChannel)).toEqual(["private", "private", "party", "private"]);
    expect(chatLogLine(from, names)).toEqual({ text: "from Ada: see you at the hall", colour: P.CHAT_PRIVATE });
    expect(chatLogLine(to, names)).toEqual({ text: "to Bo: on my way", colour: P.CHAT_PRIVATE });
    expect(chatLogLine(party, names)).toEqual({ text: "[party] Ada: pull the rat", colour: P.CHAT_PARTY });
    expect(chatLogLine(waited, names).text).toBe("from Cy: left while you were away");
    // Chat and All show them; Combat and System do not.
    for (const channel of ["private", "party"] as const) {
      expect(viewShows("chat", channel) && viewShows("all", channel)).toBe(true);
      expect(viewShows("combat", channel) || viewShows("system", channel)).toBe(false);
    }
    // An ordinary line stays chat.
    expect(chatEventChannel(line(7, "Ada", "hi"))).toBe("chat");
  });

  it("tags no nick could forge, and cuts a nick too long for its tag at a character", () => {
    for (const channel of ["private_from", "private_to", "party"] as const)
      expect(speakerChannel(taggedSpeaker(channel, "Ada L"))).toEqual({ channel, nick: "Ada L" });
    expect(speakerChannel("Ada")).toBeNull();
    expect(speakerChannel("presence")).toBeNull();
    const long = "Ааааааааааааааа"; // 15 Cyrillic letters: 30 bytes
    const tagged = taggedSpeaker("private_from", long);
    expect(new TextEncoder().encode(tagged).length).toBeLessThanOrEqual(NAME_MAX_BYTES);
    expect(speakerChannel(tagged)?.nick.endsWith("…")).toBe(true);
  });
});

describe("the party view", () => {
  it("reads the members from the own detail's party TLV and clears on an empty one", () => {
    const view = new PartyView();
    const ada = { entityId: 7, hp: 12, hpMax: 20, x: 40, y: 50, flags: PARTY_LEADER, name: "Ada" };
    const bo = { entityId: 0, hp: 20, hpMax: 20, x: 9, y: 9, flags: PARTY_AWAY, name: "Bo" };
    view.receiveOwnDetail(detail([{ kind: "party", members: [ada, bo] }]));
    expect(view.inParty).toBe(true);
    expect(view.members.map(mateLabel)).toEqual(["Ada (leads)", "Bo (away)"]);
    expect(view.isMate(7)).toBe(true);
    expect(view.isMate(0)).toBe(false);
    expect(healthShare(view.members[0])).toBeCloseTo(0.6);
    const revision = view.revision;
    // A detail without the tag (an older server's) leaves the party as it was.
    view.receiveOwnDetail(detail([{ kind: "name", value: "Me" }]));
    expect(view.revision).toBe(revision);
    expect(view.inParty).toBe(true);
    view.receiveOwnDetail(detail([{ kind: "party", members: [] }]));
    expect(view.inParty).toBe(false);
  });
});
