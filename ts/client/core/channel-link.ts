// What the features layered on the GameClient (chat, dialogs, custom messages,
// interaction) need to send: the current session's token and the link, through
// GameClient.sendDatagram so every datagram is counted in the stats and none is
// sent while no link is up.
export interface ChannelLink {
  send(datagram: Uint8Array): void;
  /** The auth_token of the session in play (it changes on a reconnect). */
  token(): bigint;
  readonly clientType: number;
}
