// NPC names: the client asks each NPC in view for its name with an EntityQuery,
// as it asks players (one query per entity, re-sent on loss), and shows the
// kind's name from /api/world until the answer is in. A whole GameClient (real
// wasm core) on a virtual clock against a scripted server sending real encoded
// packets; the NPCs are entries we put in its EntityPackets.
import { describe, expect, it } from "vitest";
import { kindsByTypeId } from "../ts/client/core/kinds.js";
import { hoverText } from "../ts/client/ui/hover.js";
import { scriptedClient } from "./client-chat-support.js";
import { nameDatagram, player, TEST_WORLD } from "./client-core-support.js";
import { CAVE_KINDS, entity, RAT, SKELETON } from "./client-npc-support.js";

type Scripted = Awaited<ReturnType<typeof scriptedClient>>;

/** Entity ids the client queried, in order, its own lookup aside. */
function queried(s: Scripted): number[] {
  return s.sent("entity_query").flatMap((query) => (query.entityId === 7 ? [] : [query.entityId]));
}

const world = { ...TEST_WORLD, kinds: CAVE_KINDS };

describe("NPC names", () => {
  it("asks every NPC in view once, like players, and not the built-in creature, until it answers", async () => {
    const s = await scriptedClient(
      [
        entity(30, RAT, 44, 40),
        entity(31, SKELETON, 46, 41, true),
        { ...player(32, 45, 42), typeId: 1 },
        player(9, 43, 40),
      ],
      { x: 40, y: 40 },
      { world },
    );
    s.advance(1);
    expect(new Set(queried(s))).toEqual(new Set([30, 31, 9]));
    s.link.deliver(nameDatagram(30, "cave rat"), nameDatagram(9, "Bob"));
    s.advance(250); // the skeleton's answer was lost: asked again, the others not
    expect(queried(s).filter((id) => id === 31)).toHaveLength(2);
    expect(queried(s).filter((id) => id === 30)).toHaveLength(1);
    s.link.deliver(nameDatagram(31, "skeleton"));
    s.advance(2000);
    s.heartbeat();
    s.advance(1000);
    expect(queried(s).filter((id) => id === 31)).toHaveLength(2);
    expect(s.client.names.get(30)).toBe("cave rat");
    expect(s.client.names.get(31)).toBe("skeleton");
    expect(queried(s)).not.toContain(32);
  });

  it("shows the kind's name over an NPC until its EntityDetail answers, then the answer", async () => {
    const s = await scriptedClient([entity(30, RAT, 44, 40)], { x: 40, y: 40 }, { world });
    const kinds = kindsByTypeId(s.client.world.kinds);
    const rat = s.client.entities.get(30)!;
    expect(hoverText(rat, s.client.names, kinds)).toBe("cave rat");
    s.advance(1);
    s.link.deliver(nameDatagram(30, "Whiskers"));
    expect(hoverText(rat, s.client.names, kinds)).toBe("Whiskers");
    // An NPC of a kind the world did not list is still named by its answer, and "something" before.
    expect(hoverText(entity(33, 99, 0, 0), new Map(), kinds)).toBe("something");
  });
});
