// The current session and its transport: listening to the link, sending over
// it, dropping it when it is lost, and — with a reconnect factory — rejoining
// on a fresh session and link. Each link gets an id, so a late datagram or
// close from a dropped link is ignored rather than mistaken for the new one's.
import type { ClientParts } from "./parts.js";
import type { GatewayAddress, GuestSession } from "./session-api.js";
import type { Transport } from "./transport.js";

/** A fresh session and link, from the host (rejoin over HTTP with the same nick, new transport). */
export type ReconnectFn = () => Promise<{ session: GuestSession; transport: Transport }>;

/** A link for the same session through another gateway of its cluster (docs/scaling.md § A gateway lost). */
export type MoveFn = (session: GuestSession, gateway: GatewayAddress) => Promise<Transport>;

/**
 * A link silent this long, of a session whose cluster named other gateways, goes on through the next one
 * (the server's session outlives its link for 10 s: DISCONNECT_AFTER_MS).
 */
export const GATEWAY_SILENT_MS = 3_000;

type LinkParts = Pick<ClientParts, "now" | "connection" | "traffic" | "outbox" | "counters">;

export interface SessionLinkConfig {
  session: GuestSession;
  transport: Transport;
  reconnect: ReconnectFn | undefined;
  /** Opens a link through another gateway (absent: the session never moves, it rejoins). */
  moveTo?: MoveFn;
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
  private readonly moveFn: MoveFn | undefined;
  /** Which of the session's gateways the link goes through (0: the one it joined through, listed first). */
  private gatewayIndex = 0;
  /** When a move was last tried (the next is tried only GATEWAY_SILENT_MS later); none yet: -Infinity. */
  private movedAtMs = -Infinity;
  private moving = false;
  /** The link closed under a session that may move (its gateway killed): it moves without waiting for silence. */
  private linkClosed = false;

  constructor(
    private readonly parts: LinkParts,
    config: SessionLinkConfig,
  ) {
    this.sessionValue = config.session;
    this.transportValue = config.transport;
    this.reconnectFn = config.reconnect;
    this.onDatagram = config.onDatagram;
    this.onNewSession = config.onNewSession;
    this.moveFn = config.moveTo;
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
    if (this.moveDue(nowMs)) this.startMove(this.moveFn!, nowMs);
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

  /** Drops the link as lost (`reason`); with a reconnect factory, the next check() rejoins. */
  rejoin(reason: string): void {
    const state = this.parts.connection.state;
    if (this.reconnectFn === undefined || (state !== "playing" && state !== "connecting")) return;
    this.parts.connection.lose(this.parts.now(), reason);
    this.drop();
  }

  private listen(transport: Transport): void {
    const id = ++this.linkId;
    transport.onDatagram((datagram) => {
      if (id === this.linkId) this.onDatagram(datagram);
    });
    transport.onClose?.((reason) => {
      if (id !== this.linkId) return;
      // A cluster's gateway that went away (a browser's WebSocket ends at once when its gateway is killed)
      // costs the link, not the session: the next check() goes on through another gateway.
      if (this.mayMove()) {
        this.linkId++;
        this.linkClosed = true;
        return;
      }
      this.parts.connection.lose(this.parts.now(), `transport closed: ${reason}`);
      this.drop();
    });
  }

  /** Stops listening to the current link and closes it. */
  private drop(): void {
    this.linkId++;
    this.transportValue.close();
  }

  /** Whether the session may go on through another gateway: it plays, and its cluster named more than one. */
  private mayMove(): boolean {
    const gateways = this.sessionValue.gateways;
    return (
      this.moveFn !== undefined &&
      gateways !== undefined &&
      gateways.length > 1 &&
      this.parts.connection.state === "playing"
    );
  }

  /**
   * Whether the link of a session that played has been silent long enough (or closed) to go on through
   * another gateway; a move is tried again only GATEWAY_SILENT_MS after the last.
   */
  private moveDue(nowMs: number): boolean {
    return (
      !this.moving &&
      this.mayMove() &&
      (this.linkClosed || this.parts.connection.silentMs(nowMs) >= GATEWAY_SILENT_MS) &&
      nowMs - this.movedAtMs >= GATEWAY_SILENT_MS
    );
  }

  /**
   * Opens a link through the next gateway for the same session and goes on over it: the next signed
   * ActionPacket moves the session there (docs/protocol.md § 6.2). Nothing tied to the session starts over.
   */
  private startMove(move: MoveFn, nowMs: number): void {
    const session = this.sessionValue;
    const gateways = session.gateways!;
    this.gatewayIndex = (this.gatewayIndex + 1) % gateways.length;
    this.moving = true;
    this.movedAtMs = nowMs;
    move(session, gateways[this.gatewayIndex]).then(
      (transport) => {
        this.moving = false;
        const state = this.parts.connection.state;
        if (this.sessionValue !== session || (state !== "playing" && state !== "connecting")) {
          transport.close(); // rejoined or closed meanwhile
          return;
        }
        this.drop();
        this.linkClosed = false;
        this.transportValue = transport;
        this.parts.outbox.moveTo(transport);
        this.listen(transport);
        this.parts.counters.gatewayMoves++;
        this.movedAtMs = this.parts.now();
      },
      () => {
        this.moving = false; // the next gateway is tried after GATEWAY_SILENT_MS more
      },
    );
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
    this.gatewayIndex = 0;
    this.linkClosed = false;
    this.transportValue = transport;
    this.parts.outbox.rebind(transport, session.token);
    this.listen(transport);
    this.onNewSession(session);
    this.parts.counters.reconnects++;
    this.parts.connection.linkStarted(this.parts.now());
  }
}
