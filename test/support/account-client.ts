// An account played by the browser's own networking core (GameClient) over real
// loopback UDP: registered or logged in through the HTTP API, driven until it
// knows where its player stands. The system's chat lines it is told go into
// `told` from the first datagram on (a line sent while the session starts — why
// a character woke where it did — arrives before the caller could listen).
import { type AccountRequest, type ChatEvent, connectAccount, GameClient } from "../../ts/client/core/index.js";
import { UdpNodeTransport } from "../../ts/client/transport/udp-node.js";
import { loadCore } from "../../ts/wasm/node.js";
import { drive } from "../client-core-support.js";

/** Plays `request` on the server at `httpPort` until the own position is known; the caller closes the client. */
export async function playAccount(httpPort: number, request: AccountRequest, told: string[] = []): Promise<GameClient> {
  const connection = await connectAccount(`http://127.0.0.1:${httpPort}`, request, (session) =>
    UdpNodeTransport.connect("127.0.0.1", session.udpPort, session.key),
  );
  const client = GameClient.create({ core: await loadCore(), ...connection });
  client.chat.listen((event: ChatEvent) => {
    if (event.kind === "line") told.push(event.speakerName === "" ? event.text : `${event.speakerName}: ${event.text}`);
  });
  try {
    await drive([client], `${request.name} playing`, () => client.state === "playing" && client.confirmed !== null);
  } catch (error) {
    client.close();
    throw error;
  }
  return client;
}
