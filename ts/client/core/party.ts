// The player's party on the client (issue 39; docs/client.md § Party): the other members as the server
// last listed them in the player's own EntityDetail — the `party` TLV, with each member's health and
// place even out of view, the leader, who is away. Nothing here is predicted: the server pushes the own
// detail whenever the party changes and once a second while its members move or are hurt.
import type { EntityDetailView } from "../../protocol/entity-detail.js";
import { decodeTlvs, PARTY_AWAY, PARTY_LEADER, type PartyMember } from "../../protocol/tlv.js";

/** One other member, as the sidebar and the minimap show it. */
export interface PartyMate extends PartyMember {
  readonly leads: boolean;
  readonly away: boolean;
}

export class PartyView {
  private mates: readonly PartyMate[] = [];
  /** Bumped on every change, so a host redraws only when it moved. */
  revision = 0;

  /** The player's own detail arrived: its party (if it carries one) replaces the one held. */
  receiveOwnDetail(view: EntityDetailView): void {
    for (const tlv of decodeTlvs(view.bytes, view.metaStart, view.metaEnd)) {
      if (tlv.kind !== "party") continue;
      this.mates = tlv.members.map((member) => ({
        ...member,
        leads: (member.flags & PARTY_LEADER) !== 0,
        away: (member.flags & PARTY_AWAY) !== 0,
      }));
      this.revision++;
      return;
    }
  }

  /** The other members (empty: in no party). */
  get members(): readonly PartyMate[] {
    return this.mates;
  }

  /** Whether the player is in a party. */
  get inParty(): boolean {
    return this.mates.length > 0;
  }

  /** Whether entity `entityId` is a member present here (drawn as an ally). */
  isMate(entityId: number): boolean {
    return entityId !== 0 && this.mates.some((mate) => mate.entityId === entityId);
  }

  /** Forgets the party (a new session knows none until the server says). */
  reset(): void {
    this.mates = [];
    this.revision++;
  }
}
