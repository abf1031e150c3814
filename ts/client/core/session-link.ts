// The current session and its transport: listening to the link, sending over
// it, dropping it when it is lost, and — with a reconnect factory — rejoining
// on a fresh session and link. Each link gets an id, so a late datagram or
// close from a dropped link is ignored rather than mistaken for the new one's.
import type { ClientParts } from "./parts.js";
import type { GuestSession } from "./session-api.js";
import type { Transport } from "./transport.js";

/** A fresh session and link, from the host (rejoin over HTTP with the same nick, new transport). */
export type ReconnectFn = () => Promise<{ session: GuestSession; transport: Transport }>;

type LinkParts = Pick<ClientParts, "now" | "connection" | "traffic" | "outbox" | "counters">;

export interface SessionLinkConfig {
  session: GuestSession;
  transport: Transport;
  reconnect: ReconnectFn | undefined;
  /** Every datagram arriving on the current link. */
  onDatagram: (datagram: Uint8Array) => void;
  /** A reconnect switched to `session`: everything tied to the old session starts over. */
  onNewSession: (session: GuestSession) => void;
}

export class SessionLink {
  private sessionValue: GuestSession;
  private transportValue: Transport;
  private linkId = 0;
  private readonly reconnectFn: ReconnectFn | undefined;
  private readonly onDatagram: (datagram: Uint8Array) => void;
  private readonly onNewSession: (session: GuestSession) => void;

  constructor(
    private readonly parts: LinkParts,
    config: SessionLinkConfig,
  ) {
    this.sessionValue = config.session;
    this.transportValue = config.transport;
    this.reconnectFn = config.reconnect;
    this.onDatagram = config.onDatagram;
    this.onNewSession = config.onNewSession;
  }

  get session(): GuestSession {
    return this.sessionValue;
  }

  get transport(): Transport {
    return this.transportValue;
  }

  /** Starts listening to the first link (once everything the datagrams reach is wired). */
  start(): void {
    this.listen(this.transportValue);
  }

  /** Sends over the current link, counted in the stats; dropped while no link is up. */
  send(datagram: Uint8Array): void {
    const state = this.parts.connection.state;
    if (state !== "playing" && state !== "connecting") return;
    this.parts.traffic.sent(datagram.length);
    this.transportValue.send(datagram);
  }

  /** From update(): drops a link silent too long, and starts a rejoin when one is due. */
  check(nowMs: number): void {
    const connection = this.parts.connection;
    if (connection.checkTimeout(nowMs)) this.drop();
    if (connection.reconnectDue(nowMs) && this.reconnectFn) this.startReconnect(this.reconnectFn);
  }

  /**
   * Closes the link for good; nothing is sent afterwards. A client still in the
   * game says so first (a LeavePacket, P-26): a UDP link has no close the server
   * could notice, and without it the player would stay in the world until the
   * server's 10 s timeout.
   */
  close(): void {
    const connection = this.parts.connection;
    if (connection.state === "closed") return;
    if (connection.state === "playing" || connection.state === "connecting") this.parts.outbox.sendLeave();
    connection.close();
    this.drop();
  }

  private listen(transport: Transport): void {
    const id = ++this.linkId;
    transport.onDatagram((datagram) => {
      if (id === this.linkId) this.onDatagram(datagram);
    });
    transport.onClose?.((reason) => {
      if (id !== this.linkId) return;
      this.parts.connection.lose(this.parts.now(), `transport closed: ${reason}`);
      this.drop();
    });
  }

  /** Stops listening to the current link and closes it. */
  private drop(): void {
    this.linkId++;
    this.transportValue.close();
  }

  private startReconnect(reconnect: ReconnectFn): void {
    const connection = this.parts.connection;
    connection.reconnectStarted();
    reconnect().then(
      ({ session, transport }) => {
        if (connection.state !== "reconnecting") {
          transport.close(); // closed meanwhile
          return;
        }
        this.attach(session, transport);
      },
      (error: unknown) => connection.reconnectFailed(this.parts.now(), String(error)),
    );
  }

  /** Switches to a new session and link. The chunk cache stays. */
  private attach(session: GuestSession, transport: Transport): void {
    this.sessionValue = session;
    this.transportValue = transport;
    this.parts.outbox.rebind(transport, session.token);
    this.listen(transport);
    this.onNewSession(session);
    this.parts.counters.reconnects++;
    this.parts.connection.linkStarted(this.parts.now());
  }
}
