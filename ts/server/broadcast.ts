// Per-client egress at 12 Hz: the StatePacket (tick, 3×3 manifest, player id,
// entity checksum) followed by the EntityPackets for everything in view.
//
// The entity entries are skipped when they equal the last ones sent to this
// client (decision 10): the unchanged checksum in the StatePacket tells the
// client nothing was lost, so an idle or sparse client costs one 72-byte
// datagram per broadcast. A keep-alive from the client (sent when its checksum
// differs) sets `resendEntities`, which re-sends the current entries.
import { CHUNK_SIZE } from "../constants.js";
import { chunkId } from "../protocol/chunk-id.js";
import { ENTITY_CHECKSUM_START, entityChecksumUpdate } from "../protocol/entity-checksum.js";
import { encodeEntityRange, entityBatchEnd } from "../protocol/entity.js";
import { MAX_DATAGRAM_BYTES } from "../protocol/header.js";
import { createStatePacket, encodeState, MANIFEST_ENTRIES, STATE_BYTES } from "../protocol/state.js";
import type { Entity } from "./entities.js";
import { type Game, VIEW_RADIUS } from "./game-server.js";
import type { Session } from "./session.js";

const state = createStatePacket();
/** Encoded entity datagrams of the current broadcast: [start, end) byte ranges in `entityBuffer`. */
let entityBuffer = new Uint8Array(4 * MAX_DATAGRAM_BYTES);
const datagramEnds: number[] = [];

/** Sends one broadcast to `session` (which must be bound to a peer). */
export function broadcastTo(game: Game, session: Session, viewScratch: Entity[]): void {
  const entity = session.entity;
  const inView = game.entities.inSquare(entity.x, entity.y, VIEW_RADIUS, viewScratch);

  // Encode every EntityPacket of this tick back to back and checksum the entries.
  datagramEnds.length = 0;
  let checksum = ENTITY_CHECKSUM_START;
  let at = 0;
  let start = 0;
  do {
    const end = entityBatchEnd(inView, start);
    if (at + MAX_DATAGRAM_BYTES > entityBuffer.length) {
      const grown = new Uint8Array(entityBuffer.length * 2);
      grown.set(entityBuffer.subarray(0, at));
      entityBuffer = grown;
    }
    const size = encodeEntityRange(0, game.tick, inView, start, end, end < inView.length, entityBuffer, at);
    checksum = entityChecksumUpdate(checksum, entityBuffer.subarray(at, at + size));
    at += size;
    datagramEnds.push(at);
    start = end;
  } while (start < inView.length);

  // State first: the client reads the checksum, then the entries that match it.
  state.tick = game.tick;
  state.playerEntityId = entity.id;
  state.entityChecksum = checksum;
  const centreX = Math.floor(entity.x / CHUNK_SIZE);
  const centreY = Math.floor(entity.y / CHUNK_SIZE);
  for (let index = 0; index < MANIFEST_ENTRIES; index++) {
    const cx = centreX + (index % 3) - 1;
    const cy = centreY + Math.floor(index / 3) - 1;
    state.chunks[index].chunkId = chunkId(cx, cy);
    state.chunks[index].version = game.world.chunkVersion(cx, cy);
  }
  const stateBytes = new Uint8Array(STATE_BYTES);
  encodeState(state, stateBytes);
  send(game, session, stateBytes);

  const unchanged = checksum === session.lastEntityChecksum && !session.resendEntities;
  if (unchanged && !game.options.sendUnchangedEntities) return;
  let from = 0;
  for (const end of datagramEnds) {
    send(game, session, entityBuffer.slice(from, end));
    from = end;
  }
  session.lastEntityChecksum = checksum;
  session.lastEntityTick = game.tick;
  session.resendEntities = false;
}

function send(game: Game, session: Session, datagram: Uint8Array): void {
  game.metrics.datagramsOut++;
  game.metrics.bytesOut += datagram.length;
  session.peer!.send(datagram);
}
