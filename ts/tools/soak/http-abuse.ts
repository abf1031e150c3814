// The soak's HTTP abuse, from loopback sources of its own (127.0.3.x): idle
// connections that send half a request and wait (slowloris), reopened as the
// server closes them; raw garbage instead of a request; and API calls the edge
// must refuse — a text/plain or form body (a cross-site form), a foreign
// Origin, broken JSON, oversized headers. Each reply is counted by what was
// sent and the status it got; a refused request that was accepted after all
// (2xx) is a breached defence.
import { connect, type Socket } from "node:net";
import { requestFrom } from "./http-from.js";

/**
 * Sources the idle connections come from (127.0.3.1–4) and the bad requests (127.0.3.5–8): few
 * enough that the idle ones run into the per-source connection cap.
 */
const ABUSE_SOURCES = 4;
const REOPEN_DELAY_MS = 1000;
const REQUEST_TIMEOUT_MS = 15_000;

function idleSourceAddress(index: number): string {
  return `127.0.3.${1 + (index % ABUSE_SOURCES)}`;
}

function requestSourceAddress(index: number): string {
  return `127.0.3.${1 + ABUSE_SOURCES + (index % ABUSE_SOURCES)}`;
}

export const ABUSE_KINDS = [
  "textPlainJoin",
  "formRegister",
  "foreignOrigin",
  "brokenJson",
  "hugeHeaders",
  "garbage",
  "unknownPath",
] as const;
export type AbuseKind = (typeof ABUSE_KINDS)[number];

/** The kinds whose request must never be accepted (their 2xx is a breach). */
const MUST_REFUSE: ReadonlySet<AbuseKind> = new Set([
  "textPlainJoin",
  "formRegister",
  "foreignOrigin",
  "brokenJson",
  "hugeHeaders",
]);

export interface HttpAbuseCounters {
  idle: {
    /** Connections that were accepted and held at some point. */
    opened: number;
    /** Of them, closed by the server (timeouts, caps). */
    closedByServer: number;
    /** Connection attempts that failed outright. */
    failed: number;
    /** Held open right now. */
    open: number;
    /** The most held at once. */
    maxOpen: number;
  };
  /** Requests by kind and answer ("415", "403", "closed", "timeout", …). */
  requests: Record<string, Record<string, number>>;
  /** Requests that must have been refused but got a 2xx. */
  breaches: number;
}

export class HttpAbuse {
  readonly counters: HttpAbuseCounters = {
    idle: { opened: 0, closedByServer: 0, failed: 0, open: 0, maxOpen: 0 },
    requests: {},
    breaches: 0,
  };
  private readonly idle = new Set<Socket>();
  private timers: NodeJS.Timeout[] = [];
  private stopping = false;
  private sent = 0;

  constructor(
    private readonly httpPort: number,
    private readonly idleConnections: number,
    private readonly rate: number,
  ) {}

  start(): void {
    for (let index = 0; index < this.idleConnections; index++) this.openIdle(index);
    if (this.rate > 0) {
      const periodMs = Math.max(1, 1000 / this.rate);
      this.timers.push(setInterval(() => this.sendOne(), periodMs));
    }
  }

  stop(): void {
    this.stopping = true;
    for (const timer of this.timers) clearInterval(timer);
    this.timers = [];
    for (const socket of this.idle) socket.destroy();
    this.idle.clear();
  }

  /** A connection that sends half a request line and headers, then nothing. */
  private openIdle(index: number): void {
    if (this.stopping) return;
    const idle = this.counters.idle;
    const socket = connect({ host: "127.0.0.1", port: this.httpPort, localAddress: idleSourceAddress(index) });
    let accepted = false;
    socket.on("connect", () => {
      accepted = true;
      idle.opened++;
      idle.open++;
      idle.maxOpen = Math.max(idle.maxOpen, idle.open);
      this.idle.add(socket);
      socket.write("GET /api/status HTTP/1.1\r\nHost: soak\r\n");
    });
    socket.on("data", () => {}); // a 408 or the like; the close follows
    socket.on("error", () => {});
    socket.on("close", () => {
      this.idle.delete(socket);
      if (accepted) {
        idle.open--;
        if (!this.stopping) idle.closedByServer++;
      } else {
        idle.failed++;
      }
      const timer = setTimeout(() => this.openIdle(index), REOPEN_DELAY_MS);
      timer.unref();
    });
  }

  private count(kind: AbuseKind, answer: string): void {
    const byAnswer = (this.counters.requests[kind] ??= {});
    byAnswer[answer] = (byAnswer[answer] ?? 0) + 1;
    if (MUST_REFUSE.has(kind) && /^2\d\d$/.test(answer)) this.counters.breaches++;
  }

  private sendOne(): void {
    const kind = ABUSE_KINDS[this.sent % ABUSE_KINDS.length];
    const from = requestSourceAddress(this.sent);
    this.sent++;
    if (kind === "garbage") return this.sendGarbage(from);
    const port = this.httpPort;
    const timeoutMs = REQUEST_TIMEOUT_MS;
    const body = JSON.stringify({ nick: `x${this.sent % 1000}`, name: `spam${this.sent}`, password: "password1" });
    const requests: Record<Exclude<AbuseKind, "garbage">, () => ReturnType<typeof requestFrom>> = {
      textPlainJoin: () =>
        requestFrom(port, "POST", "/api/guest", { body, headers: { "content-type": "text/plain" }, from, timeoutMs }),
      formRegister: () =>
        requestFrom(port, "POST", "/api/register", {
          body: "name=spam&password=password1&nick=spam",
          headers: { "content-type": "application/x-www-form-urlencoded" },
          from,
          timeoutMs,
        }),
      foreignOrigin: () =>
        requestFrom(port, "POST", "/api/guest", {
          body,
          headers: { "content-type": "application/json", origin: "http://evil.example" },
          from,
          timeoutMs,
        }),
      brokenJson: () =>
        requestFrom(port, "POST", "/api/login", {
          body: '{"name": "a", "password": ',
          headers: { "content-type": "application/json" },
          from,
          timeoutMs,
        }),
      hugeHeaders: () =>
        requestFrom(port, "GET", "/api/status", { headers: { "x-padding": "a".repeat(64 * 1024) }, from, timeoutMs }),
      unknownPath: () => requestFrom(port, "GET", "/../../etc/passwd", { from, timeoutMs }),
    };
    requests[kind]().then(
      (reply) => this.count(kind, String(reply.status)),
      (error: Error) => this.count(kind, /timeout/.test(error.message) ? "timeout" : "closed"),
    );
  }

  /** Bytes that are no HTTP request at all, then the connection's fate. */
  private sendGarbage(from: string): void {
    const socket = connect({ host: "127.0.0.1", port: this.httpPort, localAddress: from });
    let answer = "closed";
    socket.setTimeout(REQUEST_TIMEOUT_MS, () => {
      answer = "timeout";
      socket.destroy();
    });
    socket.on("connect", () => {
      const garbage = Buffer.alloc(256);
      for (let index = 0; index < garbage.length; index++) garbage[index] = (index * 131 + this.sent) & 0xff;
      socket.write(garbage);
    });
    socket.on("data", (data: Buffer) => {
      const status = /^HTTP\/1\.[01] (\d{3})/.exec(data.toString("latin1"));
      if (status) answer = status[1];
      socket.destroy();
    });
    socket.on("error", () => {});
    socket.on("close", () => this.count("garbage", answer));
  }
}
