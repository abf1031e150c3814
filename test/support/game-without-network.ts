// For tests that drive the Game directly, datagram in and datagram out with no
// sockets between: a peer that keeps what the server sends it, and a plain
// all-floor map where every cell is free and nothing but the test places things.
import { ACTION_BYTES, createActionPacket, encodeAction } from "../../ts/protocol/action.js";
import type { Game } from "../../ts/server/game-server.js";
import type { Session } from "../../ts/server/sessions/session.js";
import type { Peer } from "../../ts/server/edge/peer.js";
import type { WorldMap } from "../../ts/server/world/world.js";

/** A UDP peer whose every datagram from the server is captured in order, instead of sent. */
export class CapturingPeer implements Peer {
  readonly transport = "udp";
  readonly datagrams: Uint8Array[] = [];
  constructor(
    readonly key: string,
    readonly address: string,
  ) {}
  send(datagram: Uint8Array): void {
    this.datagrams.push(datagram);
  }
}

/** A `size`×`size` map of floor (tile 1, which does not collide) with one spawn. */
export function floorMap(name: string, size: number, spawn: { x: number; y: number }): WorldMap {
  return {
    name,
    width: size,
    height: size,
    tiles: new Uint16Array(size * size).fill(1),
    flags: new Uint8Array(65536),
    spawns: [spawn],
    tileInfo: [{ id: 1, collides: false, opaque: false, look: 1 }],
  };
}

/**
 * A guest `nick` joined to `game` and bound to a CapturingPeer by its first ActionPacket (an idle one), as a
 * client's first datagram binds it; its address is the peer's join source (so its link counts as proven).
 */
export function boundGuest(game: Game, nick: string, key = `test:${nick}`): { session: Session; peer: CapturingPeer } {
  const peer = new CapturingPeer(key, "10.0.0.1");
  return { session: joinAndBind(game, nick, peer), peer };
}

/** A guest `nick` joined to `game` and bound to `peer` by its first ActionPacket (an idle one), from the peer's address. */
export function joinAndBind(game: Game, nick: string, peer: Peer & { readonly address: string }): Session {
  const session = game.join(nick);
  session.joinSource = peer.address;
  const action = createActionPacket();
  action.authToken = session.token;
  const bytes = new Uint8Array(ACTION_BYTES);
  encodeAction(action, bytes);
  game.receive(bytes, peer);
  return session;
}
