// Passing an HTTP request, or a WebSocket upgrade and then its bytes, on to another HTTP server and its answer
// back, streamed both ways (a recording may be a gigabyte, a replay's link lasts as long as its page). Used
// where a server reaches another one that the browser cannot: a server's replay viewers on its loopback
// (replay-viewer/viewer-pool.ts), and a cluster's regions behind a gateway (cluster/gateway-recordings.ts).
import { type IncomingHttpHeaders, type IncomingMessage, request, type ServerResponse } from "node:http";
import type { Duplex } from "node:stream";

/** Where a request is passed on to: the server, the path there (with its query) and the headers it is sent. */
export interface PassOnTarget {
  readonly host: string;
  readonly port: number;
  readonly path: string;
  readonly headers: IncomingHttpHeaders;
}

/** Hop-by-hop headers, which belong to one connection and are not passed on (but for an upgrade's). */
const HOP_BY_HOP = new Set(["connection", "keep-alive", "upgrade"]);

/** `headers` without those named in `withheld`, and (but for an upgrade) without the hop-by-hop ones. */
export function headersPassedOn(
  headers: IncomingHttpHeaders,
  withheld: ReadonlySet<string>,
  upgrade: boolean,
): IncomingHttpHeaders {
  const out: IncomingHttpHeaders = {};
  for (const [name, value] of Object.entries(headers)) {
    if (withheld.has(name)) continue;
    if (!upgrade && HOP_BY_HOP.has(name)) continue;
    out[name] = value;
  }
  return out;
}

/** Passes `req` on to `target` (its body streamed) and the answer back to `res` as it comes; 502 when none comes. */
export function passRequestOn(target: PassOnTarget, req: IncomingMessage, res: ServerResponse, who: string): void {
  const upstream = request(
    { host: target.host, port: target.port, method: req.method, path: target.path, headers: target.headers },
    (reply) => {
      res.writeHead(reply.statusCode ?? 502, reply.headers);
      reply.pipe(res);
    },
  );
  upstream.once("error", (error) => answerError(res, 502, `${who} did not answer: ${error.message}`));
  res.once("close", () => upstream.destroy());
  req.pipe(upstream);
}

/**
 * Passes a WebSocket upgrade on to `target` (its headers: the upgrade's); once it is taken there, its answer goes back on `socket`
 * and the link's bytes flow both ways until either side closes (both are then closed). `linked` is told the
 * link when it is made, and each time bytes come from the far side; a refusal there is answered on `socket`.
 */
export function passUpgradeOn(
  target: PassOnTarget,
  socket: Duplex,
  head: Buffer,
  linked: { opened?(): void; closed?(): void; data?(): void } = {},
): void {
  const upstream = request({
    host: target.host,
    port: target.port,
    method: "GET",
    path: target.path,
    headers: target.headers,
  });
  upstream.once("upgrade", (reply, link, linkHead) => {
    const lines = [`HTTP/1.1 101 Switching Protocols`];
    for (let i = 0; i < reply.rawHeaders.length; i += 2)
      lines.push(`${reply.rawHeaders[i]}: ${reply.rawHeaders[i + 1]}`);
    socket.write(`${lines.join("\r\n")}\r\n\r\n`);
    if (linkHead.length > 0) socket.write(linkHead);
    if (head.length > 0) link.write(head);
    linked.opened?.();
    let ended = false;
    const end = () => {
      if (ended) return;
      ended = true;
      linked.closed?.();
      link.destroy();
      socket.destroy();
    };
    if (linked.data !== undefined) link.on("data", linked.data);
    link.once("close", end).once("error", end);
    socket.once("close", end).once("error", end);
    link.pipe(socket);
    socket.pipe(link);
  });
  upstream.once("response", (reply) => {
    refuseUpgrade(socket, reply.statusCode ?? 502, reply.statusMessage ?? "Bad Gateway");
    reply.resume();
  });
  upstream.once("error", () => refuseUpgrade(socket, 502, "Bad Gateway"));
  upstream.end();
}

/** A JSON refusal, or the connection closed when the answer had begun already. */
export function answerError(res: ServerResponse, status: number, error: string): void {
  if (res.headersSent) return void res.destroy();
  res.writeHead(status, { "content-type": "application/json", "cache-control": "no-store" });
  res.end(JSON.stringify({ error }));
}

/** An upgrade refused with `status` (the socket closed after). */
export function refuseUpgrade(socket: Duplex, status: number, reason: string): void {
  if (socket.writable) socket.end(`HTTP/1.1 ${status} ${reason}\r\nconnection: close\r\ncontent-length: 0\r\n\r\n`);
  socket.destroy();
}
