// The platform-neutral part of netsim (no Node or DOM imports), for the server's --netsim, the bots and the
// browser alike. The UDP proxy is Node-only: import it from ./udp-proxy.js.
export { type Clock, realClock, type TimerHandle, VirtualClock } from "./clock.js";
export { createImpairedDuplex, type ImpairedDuplex } from "./duplex.js";
export {
  DEFAULT_MAX_QUEUED_BYTES,
  DEFAULT_MAX_QUEUED_DATAGRAMS,
  type DeliverDatagram,
  ImpairedLink,
  type ImpairedLinkOptions,
  type LinkCounts,
  sampleDelayMs,
} from "./impairment.js";
export {
  checkLinkProfile,
  type DuplexProfile,
  formatProfile,
  isPerfectLink,
  type LinkProfile,
  parseProfileSpec,
  parseSeed,
  PERFECT_DUPLEX,
  PERFECT_LINK,
  ProfileError,
  profileFromSettings,
  type ProfileSpec,
  PROFILE_SETTING_NAMES,
} from "./profile.js";
export { deriveSeed, randomSeed, SeededRandom } from "./rng.js";
