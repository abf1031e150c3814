// What a spectator's client tells the server of its camera (docs/protocol.md
// § 12.3): the tile it looks at, or the entity it follows, in CameraPackets.
// Sent when the aim changes — at most every CAMERA_SEND_MIN_MS, so a drag sends
// a few a second, well inside the session's rate limit — and again every
// CAMERA_REPEAT_MS while nothing changes, so a lost one is repaired. The host
// calls update() each frame; nothing here keeps time of its own.
import { CAMERA_BYTES, encodeCamera } from "../../protocol/camera.js";

/** The shortest gap between two CameraPackets of a changing aim. */
export const CAMERA_SEND_MIN_MS = 100;
/** A CameraPacket repeats this often while the aim stands still (a lost one is repaired). */
export const CAMERA_REPEAT_MS = 1000;

/** Where the feed sends: the client's link (GameClient.sendDatagram) and its session's token. */
export interface CameraLink {
  sendDatagram(datagram: Uint8Array): void;
  readonly session: { readonly token: bigint };
}

export class CameraFeed {
  private x = 0;
  private y = 0;
  private followId = 0;
  /** Whether the aim changed since the last send. */
  private changed = true;
  private lastSentMs = -Infinity;
  /** CameraPackets sent, in all. */
  sent = 0;

  constructor(
    private readonly link: CameraLink,
    private readonly clientType = 0,
  ) {}

  /** The entity the camera follows, or 0 while it is free. */
  get following(): number {
    return this.followId;
  }

  /** A free camera at tile (x, y). */
  aim(x: number, y: number): void {
    const tileX = Math.round(x);
    const tileY = Math.round(y);
    if (this.followId === 0 && tileX === this.x && tileY === this.y) return;
    this.x = tileX;
    this.y = tileY;
    this.followId = 0;
    this.changed = true;
  }

  /** Follows entity `entityId` (the server keeps the camera on it); (x, y) where it stands now. */
  follow(entityId: number, x: number, y: number): void {
    if (this.followId === entityId) return;
    this.followId = entityId;
    this.x = Math.round(x);
    this.y = Math.round(y);
    this.changed = true;
  }

  /** Sends the aim when it changed (not sooner than CAMERA_SEND_MIN_MS after the last) or is due again. */
  update(nowMs: number): void {
    const since = nowMs - this.lastSentMs;
    if (!(this.changed ? since >= CAMERA_SEND_MIN_MS : since >= CAMERA_REPEAT_MS)) return;
    const out = new Uint8Array(CAMERA_BYTES);
    encodeCamera(
      {
        type: "camera",
        clientType: this.clientType,
        authToken: this.link.session.token,
        // The wire's tile is an i16: a map is never that large, so clamping only guards the encoder.
        x: Math.max(-0x8000, Math.min(0x7fff, this.x)),
        y: Math.max(-0x8000, Math.min(0x7fff, this.y)),
        followEntityId: this.followId,
      },
      out,
    );
    this.link.sendDatagram(out);
    this.lastSentMs = nowMs;
    this.changed = false;
    this.sent++;
  }
}
