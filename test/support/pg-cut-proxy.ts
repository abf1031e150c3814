// A loopback TCP proxy in front of a test's PostgreSQL that can cut a connection around its next COMMIT:
// `before` drops the COMMIT on its way and closes both sides (the server never sees it), `after` lets the
// COMMIT through and closes both sides as the server's answer comes back (the server committed; the client
// never hears it). Every other byte passes as it is; connections made after a cut pass untouched.
import { createConnection, createServer, type Server, type Socket } from "node:net";

/** A COMMIT sent as a simple query (pg sends a statement without parameters so): 'Q', its length, the text. */
const COMMIT_MESSAGE = Buffer.concat([Buffer.from("Q"), Buffer.from([0, 0, 0, 11]), Buffer.from("COMMIT\0")]);

export class PgCutProxy {
  /** Connections cut so far. */
  cuts = 0;
  private armed: "before" | "after" | null = null;
  private readonly sockets = new Set<Socket>();

  private constructor(
    private readonly server: Server,
    readonly port: number,
  ) {}

  /** Listens on a free loopback port, passing connections to PostgreSQL's `targetPort`. */
  static async start(targetPort: number): Promise<PgCutProxy> {
    const server = createServer();
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const proxy = new PgCutProxy(server, (server.address() as { port: number }).port);
    server.on("connection", (client) => proxy.link(client, targetPort));
    return proxy;
  }

  /** The next COMMIT any connection sends is cut, `before` or `after` the server ran it. */
  cutNextCommit(when: "before" | "after"): void {
    this.armed = when;
  }

  /** Cuts every connection open now, whatever it is doing (its backend may not notice yet). */
  cutNow(): void {
    this.cuts++;
    for (const socket of [...this.sockets]) socket.destroy();
  }

  async close(): Promise<void> {
    for (const socket of this.sockets) socket.destroy();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private link(client: Socket, targetPort: number): void {
    const server = createConnection({ host: "127.0.0.1", port: targetPort });
    for (const socket of [client, server]) {
      this.sockets.add(socket);
      socket.on("close", () => this.sockets.delete(socket));
      socket.on("error", () => {});
    }
    let cutOnAnswer = false;
    const cut = () => {
      this.cuts++;
      client.destroy();
      server.destroy();
    };
    client.on("data", (chunk: Buffer) => {
      if (this.armed !== null && chunk.includes(COMMIT_MESSAGE)) {
        const when = this.armed;
        this.armed = null;
        if (when === "before") return cut();
        cutOnAnswer = true;
      }
      server.write(chunk);
    });
    server.on("data", (chunk: Buffer) => {
      if (cutOnAnswer) return cut();
      client.write(chunk);
    });
    client.on("end", () => server.end());
    server.on("end", () => client.end());
  }
}
