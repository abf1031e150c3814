// Both directions of one connection, impaired: the shape every user of the core needs (the UDP proxy per
// client, the server's --netsim per peer, the bots per connection), so the per-direction seeding lives in one place.

import { type DeliverDatagram, ImpairedLink, type ImpairedLinkOptions } from "./impairment.js";
import { checkLinkProfile, type DuplexProfile } from "./profile.js";
import { deriveSeed } from "./rng.js";

export interface ImpairedDuplex {
  /** Client -> server: send what the client sent; it reaches deliverUp. */
  readonly up: ImpairedLink;
  /** Server -> client: send what the server sent; it reaches deliverDown. */
  readonly down: ImpairedLink;
  /** Changes both directions for datagrams sent from now on. */
  setProfile(profile: DuplexProfile): void;
  /** Closes both directions (in-flight datagrams are discarded). */
  close(): void;
}

/**
 * Creates the two links of one connection. Each direction gets its own random stream derived from seed, so
 * the fates of up and down datagrams do not depend on each other's traffic. For many connections, derive
 * one seed per connection first, e.g. deriveSeed(runSeed, connectionIndex).
 */
export function createImpairedDuplex(
  profile: DuplexProfile,
  seed: number,
  deliverUp: DeliverDatagram,
  deliverDown: DeliverDatagram,
  options: ImpairedLinkOptions = {},
): ImpairedDuplex {
  const up = new ImpairedLink(profile.up, deriveSeed(seed, "up"), deliverUp, options);
  const down = new ImpairedLink(profile.down, deriveSeed(seed, "down"), deliverDown, options);
  return {
    up,
    down,
    setProfile(next) {
      // Check both before changing either, so a bad profile leaves the connection as it was.
      checkLinkProfile(next.up);
      checkLinkProfile(next.down);
      up.setProfile(next.up);
      down.setProfile(next.down);
    },
    close() {
      up.close();
      down.close();
    },
  };
}
