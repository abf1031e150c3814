// What `npm start` says it runs on (issue 18 item 10): one line for the
// transports — UDP and its backend (batched system calls through
// native/udp-mmsg, or node:dgram and why), WebRTC data channels or why they are
// off, the WebSocket fallback — and one for where accounts and characters are kept.
import { MEMORY_DATABASE } from "../persistence/database.js";

export interface StartupFacts {
  /** The address as it goes into a URL (an IPv6 one in brackets). */
  readonly host: string;
  readonly httpPort: number;
  readonly udpPort: number;
  readonly udpBackend: "mmsg" | "dgram";
  /** Why "auto" fell back to node:dgram, if it did. */
  readonly udpFallbackReason?: string;
  /** Why WebRTC is off (node-datachannel did not load), or null when it is on. */
  readonly webrtcUnavailableReason: string | null;
  /** The --db path, or ":memory:". */
  readonly database: string;
}

/** The two lines, without newlines. */
export function startupSummary(facts: StartupFacts): [transports: string, storage: string] {
  const udp =
    facts.udpBackend === "mmsg"
      ? `UDP ${facts.host}:${facts.udpPort} (batched recvmmsg/sendmmsg, native/udp-mmsg)`
      : `UDP ${facts.host}:${facts.udpPort} (node:dgram${facts.udpFallbackReason ? `: ${facts.udpFallbackReason}` : ""})`;
  const webrtc =
    facts.webrtcUnavailableReason === null
      ? "WebRTC data channels (node-datachannel)"
      : `WebRTC off (${facts.webrtcUnavailableReason})`;
  const websocket = `WebSocket ws://${facts.host}:${facts.httpPort}/ws`;
  const storage =
    facts.database === MEMORY_DATABASE
      ? "Storage: SQLite in memory (accounts and characters are lost on exit; --db FILE keeps them)"
      : `Storage: SQLite ${facts.database}`;
  return [`Transports: ${udp}, ${webrtc}, ${websocket}`, storage];
}
