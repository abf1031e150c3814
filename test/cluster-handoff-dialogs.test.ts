// Dialog ids across a handoff (issue 41: most of the chaos run's trade requests ended "declined" though every
// bot presses Trade). A dialog id is unique per session (docs/protocol.md § Dialogs): the client remembers the
// ids it answered and answers a copy of one of them "closed" instead of showing it again. A region adopting a
// session numbered its dialogs from 1 again, so after a border crossing the new region's windows came under
// ids the client had answered already: each was acknowledged "closed" unseen — a dismissal, which a trade
// request takes for a decline. Two real Games, one player handed from one to the other, its client's real
// dialog state (ts/client/core/dialogs.ts) fed what the server sends it and answering through the Game. And a
// trade done closes its windows: one left open stayed on the client for good once its player crossed a border.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { arrivalOf, type HandoffState, handoffStateOf, restoreSession } from "../ts/cluster/handoff.js";
import { DialogState } from "../ts/client/core/dialogs.js";
import { FRAME_DATA } from "../ts/cluster/link-frames.js";
import { DIALOG_IDS_AFTER_CHECKPOINT } from "../ts/cluster/region-room.js";
import { ACTION_BYTES, createActionPacket, encodeAction } from "../ts/protocol/action.js";
import { decodePacketPlain } from "../ts/protocol/packet.js";
import { Game } from "../ts/server/game-server.js";
import { Logger } from "../ts/server/ops/log.js";
import { conversation } from "../ts/server/scripting/dialog-layout.js";
import type { Session } from "../ts/server/sessions/session.js";
import type { Core } from "../ts/wasm/core.js";
import { loadCore } from "../ts/wasm/node.js";
import { boundGuest, type CapturingPeer, floorMap } from "./support/game-without-network.js";
import { regionRoomOn } from "./support/region-room.js";
import { writeTestMap } from "./support/test-map.js";

let core: Core;
beforeAll(async () => {
  core = await loadCore();
});

/** Datagrams queued in a tick go out in a microtask (egress batching): let them. */
const flushed = () => new Promise((resolve) => setImmediate(resolve));

/** A player's client, as far as dialogs go: the client core's dialog state, talking to the Game serving it. */
class DialogClient {
  serving: { game: Game; session: Session };
  readonly dialogs: DialogState;

  constructor(
    game: Game,
    session: Session,
    private readonly peer: CapturingPeer,
  ) {
    this.serving = { game, session };
    this.dialogs = new DialogState({
      send: (datagram) => this.serving.game.receive(datagram, peer),
      token: () => this.serving.session.token,
      clientType: 0,
    });
  }

  /** Takes in what the server sent since the last call (dialogs and closes; the rest is not this test's). */
  async deliver(): Promise<void> {
    await flushed();
    for (const bytes of this.peer.datagrams.splice(0)) {
      const decoded = decodePacketPlain(bytes);
      if (!decoded.ok) continue;
      if (decoded.packet.type === "dialog") this.dialogs.receiveDialog(decoded.packet, performance.now());
      if (decoded.packet.type === "dialog_close") this.dialogs.receiveClose(decoded.packet);
    }
    await flushed();
  }

  /** Presses the button labelled `label` on the newest window showing one; the window's id. */
  press(label: string): number {
    const window = [...this.dialogs.shown.values()]
      .filter((dialog) => dialog.elements.some((e) => e.kind === "button" && e.label === label))
      .at(-1);
    if (window === undefined) throw new Error(`no window with ${label} shown`);
    const button = window.elements.find((e) => e.kind === "button" && e.label === label) as { returnCode: number };
    this.dialogs.reply(window.id, button.returnCode, [], performance.now());
    return window.id;
  }
}

describe("dialogs of a player handed to another region", () => {
  it("come under ids its client has not answered: a trade request after a crossing is shown and taken", async () => {
    const quiet = new Logger("silent");
    const old = new Game(core, floorMap("open", 64, { x: 30, y: 30 }), { firstEntityId: 1 }, quiet);
    const next = new Game(core, floorMap("open", 64, { x: 30, y: 30 }), { firstEntityId: 1 << 24 }, quiet);
    const { session: bob, peer } = boundGuest(old, "Bob", "gw:g0:1");
    const client = new DialogClient(old, bob, peer);
    // At the old region Bob reads and answers three windows (signs, a shop, a trade asked and taken).
    for (let i = 0; i < 3; i++) {
      old.dialogs.open(bob, conversation("Sign", `line ${i}`, ["Close"]), () => {});
      await client.deliver();
      client.press("Close");
      await client.deliver();
    }
    expect(old.dialogs.stats.replies).toBe(3);

    // Handed to the next region (through JSON, as the HANDOFF frame carries it).
    old.tick = 4000;
    next.tick = 4000;
    const state = JSON.parse(
      JSON.stringify(handoffStateOf(bob, 0, 1, old.nextWindow, old.items.carrying(bob), old.tick)),
    ) as HandoffState;
    old.releaseSession(bob);
    const adopted = next.adoptSession(arrivalOf(state), peer, performance.now());
    restoreSession(adopted, state, next.nextWindow);
    client.serving = { game: next, session: adopted };

    // Ann, beside him there, asks him to trade; he presses Trade.
    const { session: ann } = boundGuest(next, "Ann", "gw:g0:2");
    next.trades.ask(ann, adopted);
    await client.deliver();
    const asked = client.press("Trade");
    expect(asked).toBeGreaterThan(3);
    await client.deliver();
    // Taken, not declined (before: the request came as dialog 1, which his client had answered at the old
    // region — acknowledged "closed" unseen, a dismissal: "Bob declined to trade."), and the trade window is his.
    expect(next.trades.stats.cancelled).toBe(0);
    expect(
      [...client.dialogs.shown.values()].some((dialog) =>
        dialog.elements.some((e) => e.kind === "text" && e.text.startsWith("You give:")),
      ),
    ).toBe(true);

    // He confirms first (his window turns to "waiting"), she confirms: done — and no window of it stays open
    // (before, his "waiting" window did, for good once he crossed a border: the next region never closes it,
    // and a client showing DIALOGS_SHOWN_MAX windows answers every new one "closed", unseen).
    client.press("Confirm");
    await client.deliver();
    expect(client.dialogs.shown.size).toBe(1);
    next.trades.confirm(ann);
    await client.deliver();
    expect(next.trades.stats.done).toBe(1);
    expect(client.dialogs.shown.size).toBe(0);
    expect([...adopted.dialogs.open.values(), ...ann.dialogs.open.values()]).toEqual([]);
    old.shutdown();
    next.shutdown();
  });
});

describe("dialogs of a player restored from its region's checkpoint", () => {
  const map = writeTestMap();
  afterAll(() => map.dispose());

  it("go on past the ids given since the checkpoint was written", () => {
    const quiet = new Logger("silent");
    // Its region's last life had given it two windows by the checkpoint (and maybe more in the second after).
    const before = new Game(core, floorMap("open", 64, { x: 20, y: 30 }), { firstEntityId: 1 }, quiet);
    const { session: cato } = boundGuest(before, "Cato", "gw:g0:9");
    for (let i = 0; i < 2; i++) before.dialogs.open(cato, conversation("Sign", `line ${i}`, ["Close"]), () => {});
    const state = JSON.parse(
      JSON.stringify(handoffStateOf(cato, 0, 0, before.nextWindow, before.items.carrying(cato), before.tick)),
    ) as HandoffState;
    before.shutdown();
    expect(state.dialogs).toBe(3);

    // The region started again finds it in its checkpoint; its client's next ActionPacket takes it back.
    const { game, room, link, open } = regionRoomOn(core, map.path, 0);
    room.startAt(4000);
    room.restorable.set(state.tokenHex, state);
    open(9);
    const action = createActionPacket();
    action.authToken = BigInt(`0x${state.tokenHex}`);
    const bytes = new Uint8Array(ACTION_BYTES);
    encodeAction(action, bytes);
    room.gatewayFrame(link, FRAME_DATA, 9, bytes, 0);
    expect(room.stats.restored).toBe(1);
    const restored = game.sessions.byEntityId(state.entity.id)!;
    expect(restored.dialogs.nextId).toBe(3 + DIALOG_IDS_AFTER_CHECKPOINT);
    game.shutdown();
  });
});
