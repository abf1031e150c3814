// The client's side of a character that grows (issue 39): the progress view (ts/client/core/progress.ts)
// reads the level from the own entries and the experience from the own detail, says when the level rose,
// and asks again when a detail describes a lower level than the entries (its push was lost); the words and
// the tags (the HUD's drawing: client-render.test.ts). Then the GameClient against the real server over
// UDP: a kill of a creature worth a level makes the level-up, the progress and the tag — also when the
// pushed own detail is lost on the way (the client asks for its own detail again).
import { afterEach, describe, expect, it } from "vitest";
import { type GameClient, type Transport } from "../ts/client/core/index.js";
import { levelOfMeta, progressShare, ProgressView } from "../ts/client/core/progress.js";
import { levelText, nameTagText } from "../ts/client/render/name-tags.js";
import { experienceGainLine, levelUpLine, progressText } from "../ts/client/ui/level-words.js";
import { decodeEntityDetailBody, encodeEntityDetail, type EntityDetailView } from "../ts/protocol/entity-detail.js";
import { decodePacketPlain } from "../ts/protocol/index.js";
import type { Tlv } from "../ts/protocol/tlv.js";
import { hpMaxAtLevel } from "../ts/progression.js";
import { drive, joinOverUdp } from "./client-core-support.js";
import { NpcGame } from "./support/npc-game.js";
import { testKind } from "./support/npc-map.js";

/** The own EntityDetail as the receiver hands it on: a view of the datagram's TLV block. */
function detailView(meta: Tlv[]): EntityDetailView {
  const bytes = new Uint8Array(1200);
  const size = encodeEntityDetail({ type: "entity_detail", clientType: 0, tick: 1, entityId: 7, meta }, bytes);
  const decoded = decodeEntityDetailBody(bytes.slice(0, size));
  if (!decoded.ok) throw new Error(decoded.error.message);
  return decoded.packet;
}

const level = (value: number): Tlv => ({ kind: "level", value });
const progress = (xp: number, levelXp: number, nextXp: number): Tlv => ({ kind: "progress", xp, levelXp, nextXp });

describe("the progress view", () => {
  it("says a level-up when the own entries' level rises from a known one, never for the first level seen", () => {
    const view = new ProgressView();
    const reached: number[] = [];
    view.listen((value) => reached.push(value));
    view.observeOwnEntry([{ kind: "appearance", value: 1 }, level(2)]);
    expect(view.level).toBe(2);
    view.observeOwnEntry([level(2)]);
    view.observeOwnEntry([level(3)]);
    view.observeOwnEntry([level(5)]);
    expect(reached).toEqual([3, 5]);
    // A new session starts from nothing: its first level is where it stands, not a level-up.
    view.reset();
    view.observeOwnEntry([level(7)]);
    expect(reached).toEqual([3, 5]);
    expect(view.level).toBe(7);
  });

  it("keeps the newest progress (details may arrive out of order) and asks once when the entries are ahead of it", () => {
    const view = new ProgressView();
    view.receiveOwnDetail(detailView([level(2), { kind: "name", value: "Ada" }, progress(60, 50, 150)]));
    view.observeOwnEntry([level(2)]);
    expect(view.progress).toEqual({ xp: 60, levelXp: 50, nextXp: 150 });
    expect(view.takeStale()).toBe(false);
    // An older detail after a newer one changes nothing.
    view.receiveOwnDetail(detailView([level(1), progress(20, 0, 50)]));
    expect(view.progress?.xp).toBe(60);
    // Level 3 in the entries, and the detail that said so lost: ask, once.
    view.observeOwnEntry([level(3)]);
    expect(view.takeStale()).toBe(true);
    expect(view.takeStale()).toBe(false);
    view.receiveOwnDetail(detailView([level(3), progress(170, 150, 300)]));
    expect(view.takeStale()).toBe(false);
    expect(progressShare(view.progress!)).toBeCloseTo(20 / 150);
  });

  it("tells each experience gained (not the session's first detail, not an older one; a lost push folds into the next)", () => {
    const view = new ProgressView();
    const gains: number[] = [];
    view.listenGains((xp) => gains.push(xp));
    view.receiveOwnDetail(detailView([level(2), progress(60, 50, 150)]));
    view.receiveOwnDetail(detailView([level(2), progress(72, 50, 150)]));
    view.receiveOwnDetail(detailView([level(2), progress(66, 50, 150)])); // older: let go
    view.receiveOwnDetail(detailView([level(2), progress(72, 50, 150)])); // the same: no gain
    view.receiveOwnDetail(detailView([level(3), progress(160, 150, 300)])); // two kills, one push lost
    expect(gains).toEqual([12, 88]);
    view.reset();
    view.receiveOwnDetail(detailView([level(3), progress(170, 150, 300)]));
    expect(gains).toEqual([12, 88]);
  });

  it("a server without levels: nothing shown, nothing asked", () => {
    const view = new ProgressView();
    view.receiveOwnDetail(detailView([{ kind: "name", value: "Ada" }]));
    view.observeOwnEntry([]);
    expect(view.level).toBeUndefined();
    expect(view.progress).toBeNull();
    expect(view.takeStale()).toBe(false);
  });
});

describe("the words and the tags", () => {
  it("a level beside the name, the log's line, the experience", () => {
    expect(levelOfMeta([{ kind: "appearance", value: 2 }, level(4)])).toBe(4);
    expect(levelOfMeta([])).toBeUndefined();
    expect(levelText(4)).toBe("L4");
    expect(nameTagText("Ada", 4)).toBe("Ada L4");
    expect(nameTagText("Ada", undefined)).toBe("Ada");
    expect(levelUpLine(3)).toBe("You reached level 3.");
    expect(experienceGainLine(12)).toBe("+12 experience");
    expect(progressText({ xp: 170, levelXp: 150, nextXp: 300 })).toBe("170/300 xp");
    expect(progressText({ xp: 9600, levelXp: 9500, nextXp: 0 })).toBe("9600 xp (highest level)");
    expect(progressShare({ xp: 9600, levelXp: 9500, nextXp: 0 })).toBe(1);
  });
});

describe("the GameClient against the real server", () => {
  const npcGame = new NpcGame();
  const clients: GameClient[] = [];
  afterEach(async () => {
    for (const client of clients.splice(0)) client.close();
    await npcGame.cleanup();
  });

  /** A sack of straw: one hit kills it, it never moves or bites, and it is worth 60 experience. */
  const sack = testKind({ name: "sack", typeId: 16, hp: 1, wander: 0, xp: 60, respawnSeconds: 1 });

  async function levelUp(wrap?: (udp: Transport) => Transport): Promise<{ client: GameClient; reached: number[] }> {
    const harness = await npcGame.start({
      width: 12,
      height: 8,
      spawn: { x: 4, y: 4 },
      kinds: [sack],
      spawns: [{ kind: "sack", x: 5, y: 4 }],
    });
    const client = await joinOverUdp(`http://127.0.0.1:${harness.httpPort}`, "Reaper", clients, wrap);
    const reached: number[] = [];
    client.progress.listen((value) => reached.push(value));
    await drive([client], "level 1 in the own entries", () => client.progress.level === 1);
    const sackId = () => [...client.entities.values()].find((entity) => entity.typeId === 16 && entity.hp > 0)?.id;
    await drive([client], "the sack in view", () => sackId() !== undefined);
    expect(client.attack(sackId()!)).toBeNull();
    await drive([client], "level 2", () => client.progress.level === 2, 15_000);
    await drive([client], "60 experience", () => client.progress.progress?.xp === 60, 5000);
    return { client, reached };
  }

  it("a kill worth a level: the level-up, the progress, the hp max and the tag over its head", async () => {
    const { client, reached } = await levelUp();
    expect(reached).toEqual([2]);
    expect(client.progress.progress).toEqual({ xp: 60, levelXp: 50, nextXp: 150 });
    const own = client.entities.get(client.ownEntityId)!;
    expect(own.hpMax).toBe(hpMaxAtLevel(2));
    expect(nameTagText("Reaper", levelOfMeta(own.meta))).toBe("Reaper L2");
  }, 30_000);

  it("the pushed own detail lost: the level from the entries, the progress asked for again", async () => {
    let detailsDropped = 0;
    let ownDetails = 0;
    // Drops the first own EntityDetail with experience in it: the one the server pushed after the kill.
    const dropPushes = (udp: Transport): Transport => ({
      name: udp.name,
      actionMac: udp.actionMac,
      send: (datagram) => udp.send(datagram),
      close: () => udp.close(),
      onDatagram: (handler) =>
        udp.onDatagram((datagram) => {
          const decoded = decodePacketPlain(datagram);
          const isProgress =
            decoded.ok &&
            decoded.packet.type === "entity_detail" &&
            decoded.packet.meta.some((tlv) => tlv.kind === "progress" && tlv.xp > 0);
          if (isProgress && ownDetails++ === 0) {
            detailsDropped++;
            return;
          }
          handler(datagram);
        }),
    });
    const { client, reached } = await levelUp(dropPushes);
    // The push of the 60 was lost; the level came in the entries, and the query it caused brought the rest.
    expect(detailsDropped).toBe(1);
    expect(reached).toEqual([2]);
    expect(client.progress.progress).toEqual({ xp: 60, levelXp: 50, nextXp: 150 });
  }, 30_000);
});
