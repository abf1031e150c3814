// HTTP requests from a chosen loopback source address (127.0.0.2, 127.0.0.3, …, all of which reach a
// server on 127.0.0.1), one connection each: how the soak's attackers and the tests of per-source
// limits tell sources apart (fetch cannot choose its local address).
import { request } from "node:http";

export interface Reply {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: Record<string, unknown>;
}

export interface RequestOptions {
  body?: string;
  headers?: Record<string, string>;
  /** The local address to send from (default 127.0.0.1). */
  from?: string;
  /** Abandon the request after this long (rejects with "timeout"); default none. */
  timeoutMs?: number;
}

/** One HTTP request to 127.0.0.1:`port` from `from` (a loopback address), with its own connection. */
export function requestFrom(
  port: number,
  method: "GET" | "POST",
  path: string,
  options: RequestOptions = {},
): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: "127.0.0.1",
        port,
        method,
        path,
        localAddress: options.from ?? "127.0.0.1",
        agent: false,
        headers: { connection: "close", ...options.headers },
      },
      (res) => {
        let text = "";
        res.setEncoding("utf8");
        res.on("data", (chunk: string) => (text += chunk));
        res.on("end", () => {
          let body: Record<string, unknown> = {};
          try {
            body = JSON.parse(text) as Record<string, unknown>;
          } catch {
            body = { text };
          }
          resolve({ status: res.statusCode ?? 0, headers: res.headers, body });
        });
      },
    );
    req.on("error", reject);
    if (options.timeoutMs !== undefined) {
      req.setTimeout(options.timeoutMs, () => req.destroy(new Error("timeout")));
    }
    if (options.body !== undefined) req.write(options.body);
    req.end();
  });
}

/** POSTs `body` as JSON from `from`. */
export function postJsonFrom(
  port: number,
  path: string,
  body: unknown,
  from?: string,
  headers: Record<string, string> = {},
  timeoutMs?: number,
) {
  return requestFrom(port, "POST", path, {
    body: JSON.stringify(body),
    headers: { "content-type": "application/json", ...headers },
    from,
    timeoutMs,
  });
}
