// Which pages may use a cluster gateway from another origin: those of its sibling gateways, and nobody
// else's (docs/scaling.md § A gateway lost). A browser that joined through one gateway goes on through
// another when its own stops answering — a WebRTC offer POSTed to the other's /api/rtc, or a WebSocket to
// its /ws — and that other gateway is another origin (another port, or another host). So each gateway lets
// exactly the cluster's gateways' origins in, as the directory lists them: a gateway with a public URL
// (`--gateway-url`) is that URL's origin; one without is its HTTP port on the host the request itself was
// sent to (the page and the gateway it calls were reached through the same host name).
import type { IncomingMessage } from "node:http";
import type { GatewayEndpoint } from "./directory.js";

/** Whether `origin` is the origin of one of `gateways`, for the request `req` (its Host names the host). */
export function isGatewayOrigin(origin: string, req: IncomingMessage, gateways: readonly GatewayEndpoint[]): boolean {
  const page = originOf(origin);
  if (page === null) return false;
  const host = req.headers.host;
  const hostname = host === undefined ? null : (originOf(`http://${host}`)?.hostname ?? null);
  return gateways.some((gateway) =>
    gateway.url !== undefined
      ? originOf(gateway.url)?.origin === page.origin
      : hostname !== null && page.hostname === hostname && effectivePort(page) === gateway.httpPort,
  );
}

/** The URL `text` as an http(s) origin, or null when it is something else. */
function originOf(text: string): URL | null {
  try {
    const url = new URL(text);
    return url.protocol === "http:" || url.protocol === "https:" ? url : null;
  } catch {
    return null;
  }
}

/** The port a URL reaches: its own, or its scheme's. */
function effectivePort(url: URL): number {
  return url.port !== "" ? Number(url.port) : url.protocol === "https:" ? 443 : 80;
}
