// EntityDetail replies (docs/protocol.md § 11): what one player is told about one entity when it asks
// (an EntityQuery) or when the server shows it again (its bag changed, a chest it stands by, its quests).
// The entity's own TLVs and its name, then what each room adds for this player — its own bag or a
// chest's contents (the item room), its quests and the kinds with a quest for it (the scripting room) —
// composed here, once, for the query's answer and the server's own sends alike.
import { encodeEntityDetail } from "../../protocol/entity-detail.js";
import { MAX_DATAGRAM_BYTES } from "../../protocol/header.js";
import type { Tlv } from "../../protocol/tlv.js";
import type { Egress } from "../edge/egress.js";
import type { StoredEntity } from "../entities/entities.js";
import type { Clock } from "../ops/clock.js";
import type { Session } from "../sessions/session.js";

/** What a room adds to `entity`'s detail for `session`: TLVs, a TLV, or nothing. */
export type DetailSource = (session: Session, entity: StoredEntity) => Tlv | readonly Tlv[] | null;

export class EntityDetails {
  constructor(
    private readonly ports: { readonly egress: Egress; readonly clock: Pick<Clock, "tick"> },
    /** The rooms' additions, in the order they are written. */
    private readonly sources: readonly DetailSource[],
  ) {}

  /** The detail's TLVs: the entity's own, its name, then each room's additions. */
  meta(session: Session, entity: StoredEntity): Tlv[] {
    const meta: Tlv[] = entity.name ? [...entity.meta, { kind: "name", value: entity.name }] : [...entity.meta];
    for (const source of this.sources) {
      const added = source(session, entity);
      if (added === null) continue;
      if (Array.isArray(added)) meta.push(...(added as readonly Tlv[]));
      else meta.push(added as Tlv);
    }
    return meta;
  }

  /** Sends `entity`'s EntityDetail to `session` (nothing while it has no link). */
  send(session: Session, entity: StoredEntity): void {
    if (session.peer === null) return;
    const out = new Uint8Array(MAX_DATAGRAM_BYTES);
    const size = encodeEntityDetail(
      {
        type: "entity_detail",
        clientType: 0,
        tick: this.ports.clock.tick,
        entityId: entity.id,
        meta: this.meta(session, entity),
      },
      out,
    );
    this.ports.egress.send(session, out.slice(0, size));
  }
}
