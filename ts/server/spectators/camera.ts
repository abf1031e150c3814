// A spectator's camera (issue 40, P-30): where its view is centred, and whom it
// follows. A spectator has no body, but every room that streams to a session —
// the broadcast, the chunk stream, tile updates — reads where the session's
// entity stands; so a spectator's session holds a camera record shaped like an
// entity and never put in the EntityStore. Nothing in the world can see it, step
// it, hit it or count it: only this module moves it.
import type { CameraPacket } from "../../protocol/camera.js";
import { ActionSlots } from "../entities/schedule.js";
import type { EntityStore, StoredEntity } from "../entities/entities.js";

/**
 * The id the camera record carries, which the StatePacket names as the receiving client's own entity:
 * 0, which no entity ever has (a store's ids start at 1), meaning "you have no body".
 */
export const CAMERA_ENTITY_ID = 0;

/** The map a camera stays inside. */
export interface CameraBounds {
  readonly mapWidth: number;
  readonly mapHeight: number;
}

export class Camera {
  /** The entity the camera follows, or 0 while it is free. */
  followId = 0;

  /** `view`: the record the spectator's session streams around (its `entity`). */
  constructor(readonly view: StoredEntity) {}

  /**
   * A CameraPacket arrived: follow its entity when the world holds it (the camera goes there at once),
   * else stand free at its tile, clamped to the map.
   */
  aim(
    packet: Pick<CameraPacket, "x" | "y" | "followEntityId">,
    entities: Pick<EntityStore, "get">,
    map: CameraBounds,
  ): void {
    const followed = packet.followEntityId === 0 ? undefined : entities.get(packet.followEntityId);
    if (followed !== undefined) {
      this.followId = followed.id;
      this.place(followed.x, followed.y, map);
      return;
    }
    this.followId = 0;
    this.place(packet.x, packet.y, map);
  }

  /** Before each broadcast: a following camera moves to its entity, or stays where it was, free, once the entity is gone. */
  track(entities: Pick<EntityStore, "get">, map: CameraBounds): void {
    if (this.followId === 0) return;
    const followed = entities.get(this.followId);
    if (followed === undefined) {
      this.followId = 0;
      return;
    }
    this.place(followed.x, followed.y, map);
  }

  private place(x: number, y: number, map: CameraBounds): void {
    this.view.x = clamp(x, map.mapWidth);
    this.view.y = clamp(y, map.mapHeight);
  }
}

/** A new camera record at (x, y), clamped to the map: the `entity` of a spectator's session. */
export function cameraRecord(x: number, y: number, map: CameraBounds): StoredEntity {
  return {
    id: CAMERA_ENTITY_ID,
    typeId: 0,
    x: clamp(x, map.mapWidth),
    y: clamp(y, map.mapHeight),
    hp: 0,
    hpMax: 0,
    elo: 0,
    flags: 0,
    name: "",
    xp: 0,
    meta: [],
    // Never offered an action (the spectators' datagram handler schedules nothing), never executed.
    slots: new ActionSlots(),
    slot: -1,
    metaEncodedFrom: null,
    metaEncoded: new Uint8Array(0),
  };
}

/** `value` within 0 … size − 1 (a whole tile of the map). */
function clamp(value: number, size: number): number {
  return Math.min(Math.max(Math.trunc(value), 0), Math.max(0, size - 1));
}
