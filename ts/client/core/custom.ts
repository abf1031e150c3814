// Custom messages on the client (docs/protocol.md § 17, P-14): game code's own
// channel, a u16 subtype chosen by the game and an opaque payload, both ways.
// Delivery is a datagram's — lost, duplicated or reordered like any other — so a
// game whose messages need more numbers and acknowledges them inside the payload.
import { type CustomToClientPacket, encodeCustomToServer } from "../../protocol/custom.js";
import { MAX_DATAGRAM_BYTES } from "../../protocol/header.js";
import type { ChannelLink } from "./channel-link.js";

/**
 * Handles one message from the server. `payload` aliases the datagram: copy
 * what you keep beyond the call.
 */
export type CustomMessageHandler = (payload: Uint8Array, subtype: number) => void;

function checkSubtype(subtype: number): void {
  if (!Number.isInteger(subtype) || subtype < 0 || subtype > 0xffff) {
    throw new RangeError(`custom subtype must be 0..65535, got ${subtype}`);
  }
}

export class CustomRegistry {
  private readonly handlers = new Map<number, CustomMessageHandler>();
  private readonly out = new Uint8Array(MAX_DATAGRAM_BYTES);
  readonly counters = { sent: 0, handled: 0, unhandled: 0, handlerErrors: 0 };

  constructor(
    private readonly link: ChannelLink,
    /** Told when a handler throws; the error does not escape into the receive path. */
    private readonly onHandlerError: (error: unknown, subtype: number) => void = () => {},
  ) {}

  /** Routes server messages of `subtype` to `handler`, replacing any earlier one. */
  on(subtype: number, handler: CustomMessageHandler): void {
    checkSubtype(subtype);
    this.handlers.set(subtype, handler);
  }

  off(subtype: number): void {
    this.handlers.delete(subtype);
  }

  /** Sends one message; throws EncodeError for a payload above 1182 bytes, RangeError for a bad subtype. */
  send(subtype: number, payload: Uint8Array): void {
    checkSubtype(subtype);
    const size = encodeCustomToServer(
      { type: "custom_to_server", clientType: this.link.clientType, authToken: this.link.token(), subtype, payload },
      this.out,
    );
    this.counters.sent++;
    this.link.send(this.out.slice(0, size));
  }

  /** A CustomToClient packet: true when a handler took it. */
  dispatch(packet: CustomToClientPacket): boolean {
    const handler = this.handlers.get(packet.subtype);
    if (!handler) {
      this.counters.unhandled++;
      return false;
    }
    this.counters.handled++;
    try {
      handler(packet.payload, packet.subtype);
    } catch (error) {
      this.counters.handlerErrors++;
      this.onHandlerError(error, packet.subtype);
    }
    return true;
  }
}
