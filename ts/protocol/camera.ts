// CameraPacket (type 29, 22 bytes, client → server, P-30): where a spectator's
// camera looks. A spectator session has no body (docs/server.md § Spectators),
// so no ActionPacket step can move what it sees: this packet places its camera
// at (pos_x, pos_y), or, with a follow_entity_id, has the server keep it on that
// entity. Only a spectator's own link may send it, like every packet but an
// Action (docs/protocol.md § 6.1, § 12.3).
import { readI16, readU32, readU64, writeU16, writeU32, writeU64 } from "./bytes.js";
import { type DecodeResult, checkI16, checkRoom, checkU32, checkU64, failure } from "./errors.js";
import { HEADER_BYTES, PACKET_CAMERA, encodeHeader, readClientType } from "./header.js";
import { int, layout, token } from "./layout.js";

export const CAMERA_BYTES = 22;
/** docs/protocol.md § CameraPacket. */
export const CAMERA_LAYOUT = layout("camera", HEADER_BYTES, CAMERA_BYTES, [
  token("auth_token"),
  int("pos_x", "i16", "x"),
  int("pos_y", "i16", "y"),
  int("follow_entity_id", "u32", "followEntityId"),
]);
const TOKEN_AT = CAMERA_LAYOUT.offset.auth_token;
const X_AT = CAMERA_LAYOUT.offset.pos_x;
const Y_AT = CAMERA_LAYOUT.offset.pos_y;
const FOLLOW_AT = CAMERA_LAYOUT.offset.follow_entity_id;

export interface CameraPacket {
  type: "camera";
  clientType: number;
  authToken: bigint;
  /** The tile the camera looks at (its view's centre) while it follows nobody. */
  x: number;
  y: number;
  /** The entity the camera follows, or 0: a free camera at (x, y). */
  followEntityId: number;
}

/** Writes a CameraPacket at `offset`; returns CAMERA_BYTES. Throws EncodeError on bad input. */
export function encodeCamera(packet: CameraPacket, out: Uint8Array, offset = 0): number {
  checkU64("auth_token", packet.authToken);
  checkI16("pos_x", packet.x);
  checkI16("pos_y", packet.y);
  checkU32("follow_entity_id", packet.followEntityId);
  checkRoom(out, offset, CAMERA_BYTES);
  encodeHeader(PACKET_CAMERA, packet.clientType, out, offset);
  writeU64(out, offset + TOKEN_AT, packet.authToken);
  writeU16(out, offset + X_AT, packet.x & 0xffff);
  writeU16(out, offset + Y_AT, packet.y & 0xffff);
  writeU32(out, offset + FOLLOW_AT, packet.followEntityId);
  return CAMERA_BYTES;
}

/** Decodes the body of a datagram whose header checkHeader accepted with type 29. */
export function decodeCameraBody(bytes: Uint8Array): DecodeResult<CameraPacket> {
  if (bytes.length < CAMERA_BYTES)
    return failure("truncated", bytes.length, `CameraPacket needs ${CAMERA_BYTES} bytes`);
  if (bytes.length > CAMERA_BYTES) {
    return failure("trailing_bytes", CAMERA_BYTES, `CameraPacket is ${CAMERA_BYTES} bytes`);
  }
  return {
    ok: true,
    packet: {
      type: "camera",
      clientType: readClientType(bytes),
      authToken: readU64(bytes, TOKEN_AT),
      x: readI16(bytes, X_AT),
      y: readI16(bytes, Y_AT),
      followEntityId: readU32(bytes, FOLLOW_AT),
    },
  };
}
