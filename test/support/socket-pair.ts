// Two ends of one real loopback TCP connection, for tests that link cluster parts (link-frames.ts) inside
// one process; every pair made is destroyed by closeSocketPairs (afterEach / afterAll).
import { createConnection, createServer, type Socket } from "node:net";

const open: Socket[] = [];

/** A connected pair of loopback TCP sockets (Nagle off on both, as the cluster's links are). */
export async function socketPair(): Promise<[Socket, Socket]> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const accepted = new Promise<Socket>((resolve) => server.once("connection", resolve));
  const { port } = server.address() as { port: number };
  const dialed = createConnection({ host: "127.0.0.1", port });
  const other = await accepted;
  server.close();
  dialed.setNoDelay(true);
  other.setNoDelay(true);
  open.push(dialed, other);
  return [dialed, other];
}

/** Destroys every socket socketPair made so far. */
export function closeSocketPairs(): void {
  for (const socket of open.splice(0)) socket.destroy();
}
