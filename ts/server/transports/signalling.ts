// WebRTC signalling in one HTTP request: POST /api/rtc {token, sdp} -> {type: "answer", sdp}.
// Both sides gather all their ICE candidates before sending a description (no trickle), so a
// single round trip sets up the data channel. Only a live session may ask: the token is the one
// POST /api/guest returned, so strangers cannot make the server open peer connections.
import { HttpError, type HttpApi } from "../http/http-api.js";
import type { SessionRegistry } from "../sessions/session.js";
import { KeyedRateLimiter } from "../edge/rate-limit.js";
import { RtcRefusal, type WebRtcTransport } from "./webrtc.js";

export const RTC_SIGNALLING_PATH = "/api/rtc";

/** Largest offer accepted; a browser's data-channel-only offer is 1–3 KB even with many candidates. */
const MAX_OFFER_BYTES = 12 * 1024;

/** Each session may signal a burst of 3 offers, then one every 2 s: each offer costs a peer connection. */
const OFFERS_PER_SECOND = 0.5;
const OFFER_BURST = 3;

/**
 * Who may ask: something truthy for a live session's token. `source` is the asker's address, for a lookup
 * that costs (a cluster gateway asks its directory for a session another gateway routed, under the
 * RouteFinder's limits: ts/cluster/gateway.ts); the answer may come later.
 */
export interface RtcSessions {
  byTokenValue(token: bigint, source: string): unknown;
}

/**
 * `sessions`: who may ask — the game's registry, or a cluster gateway's routes and directory
 * (ts/cluster/gateway.ts), anything that knows a live session's token.
 */
export function installRtcSignalling(
  http: HttpApi,
  rtc: WebRtcTransport,
  sessions: Pick<SessionRegistry, "byTokenValue"> | RtcSessions,
): void {
  const offerLimiter = new KeyedRateLimiter(OFFERS_PER_SECOND, OFFER_BURST, 4096);
  http.route("POST", RTC_SIGNALLING_PATH, async ({ body, raw }) => {
    if (typeof body !== "object" || body === null || Array.isArray(body)) {
      throw new HttpError(400, "request body must be a JSON object {token, sdp}");
    }
    const fields = body as Record<string, unknown>;
    const token = fields.token;
    if (typeof token !== "string" || token === "") {
      throw new HttpError(401, '"token" is required: join first (POST /api/guest) and send its token');
    }
    const source = http.clientAddress(raw) || "unknown";
    if (!/^[0-9a-fA-F]{16}$/.test(token) || !(await sessions.byTokenValue(BigInt(`0x${token}`), source))) {
      throw new HttpError(403, "unknown or expired session token");
    }
    const sdp = fields.sdp;
    if (typeof sdp !== "string" || sdp.length === 0) throw new HttpError(400, '"sdp" must be the offer SDP string');
    if (sdp.length > MAX_OFFER_BYTES) throw new HttpError(400, `offer over ${MAX_OFFER_BYTES} bytes`);
    if (fields.type !== undefined && fields.type !== "offer") throw new HttpError(400, '"type" must be "offer"');
    if (!sdp.startsWith("v=0") || !/^m=application /m.test(sdp)) {
      throw new HttpError(400, "offer must be an SDP offer with a data channel (m=application)");
    }
    const owner = token.toLowerCase();
    if (!offerLimiter.take(owner, performance.now()))
      throw new HttpError(429, "too many offers; retry in a few seconds");
    try {
      const answer = await rtc.answer(owner, sdp, source);
      return { body: { type: "answer", sdp: answer } };
    } catch (error) {
      if (error instanceof RtcRefusal) throw new HttpError(error.status, error.message);
      throw error;
    }
  });
}
