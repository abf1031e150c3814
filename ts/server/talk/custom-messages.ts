// Custom messages (docs/protocol.md § Custom messages): game code's own
// channel, a u16 subtype and an opaque payload, in both directions, without
// touching the protocol library. Delivery is a datagram's: a handler that
// needs acknowledgements or ordering builds them into its payloads.
import {
  CUSTOM_TO_CLIENT_PAYLOAD_MAX_BYTES,
  type CustomToServerPacket,
  encodeCustomToClient,
  CUSTOM_TO_CLIENT_HEADER_BYTES,
} from "../../protocol/custom.js";
import { checkU16, EncodeError } from "../../protocol/errors.js";
import type { Egress } from "../edge/egress.js";
import type { Logger } from "../ops/log.js";
import type { Metrics } from "../ops/metrics.js";
import type { Session } from "../sessions/session.js";

/**
 * Handles one custom message from `session`. The payload aliases the receive
 * buffer: copy what you keep beyond the call.
 */
export type CustomHandler = (session: Session, payload: Uint8Array, subtype: number) => void;

export class CustomMessages {
  private readonly handlers = new Map<number, CustomHandler>();
  /** Messages by outcome: handled, or dropped for want of a handler. */
  readonly stats = { handled: 0, unhandled: 0, sent: 0 };

  constructor(
    private readonly egress: Egress,
    private readonly metrics: Metrics,
    /** Where a failing handler is reported. */
    private readonly log: Logger,
  ) {}

  /** Routes client messages of `subtype` to `handler` (replacing any earlier one). */
  on(subtype: number, handler: CustomHandler): void {
    checkU16("subtype", subtype);
    this.handlers.set(subtype, handler);
  }

  off(subtype: number): void {
    this.handlers.delete(subtype);
  }

  /** A CustomToServer packet from an authenticated session. */
  dispatch(session: Session, packet: CustomToServerPacket): void {
    const handler = this.handlers.get(packet.subtype);
    if (!handler) {
      this.stats.unhandled++;
      this.metrics.drop("unknown_custom_subtype");
      return;
    }
    this.stats.handled++;
    try {
      handler(session, packet.payload, packet.subtype);
    } catch (error) {
      this.log.error("custom message handler failed", { subtype: packet.subtype, error: String(error) });
    }
  }

  /** Sends one custom message to `session`'s client; throws EncodeError beyond 1190 payload bytes. */
  send(session: Session, subtype: number, payload: Uint8Array): void {
    if (payload.length > CUSTOM_TO_CLIENT_PAYLOAD_MAX_BYTES) {
      throw new EncodeError(
        "oversize",
        `custom payload of ${payload.length} bytes exceeds ${CUSTOM_TO_CLIENT_PAYLOAD_MAX_BYTES}`,
      );
    }
    const out = new Uint8Array(CUSTOM_TO_CLIENT_HEADER_BYTES + payload.length);
    encodeCustomToClient({ type: "custom_to_client", clientType: 0, subtype, payload }, out);
    this.stats.sent++;
    this.egress.send(session, out);
  }
}
