// How many players each transport carries (issue 18 item 10), for /api/status
// (`playersByTransport`) and /metrics (`caves_players_by_transport`). Counted
// when asked, over the sessions: a status request or a scrape walks them once;
// nothing is kept up to date on the datagram or tick paths.
import type { Session } from "../sessions/session.js";
import type { Peer } from "../edge/peer.js";

export type TransportCounts = Record<Peer["transport"] | "unbound", number>;

/** The sessions counted by the transport of their link. */
export function countByTransport(sessions: Iterable<Pick<Session, "peer">>): TransportCounts {
  const counts: TransportCounts = { udp: 0, webrtc: 0, websocket: 0, unbound: 0 };
  for (const session of sessions) counts[session.peer?.transport ?? "unbound"]++;
  return counts;
}
