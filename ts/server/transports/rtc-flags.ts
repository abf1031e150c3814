// The WebRTC flags a host is started with (docs/transports.md § Configuration for real deployments), read
// once for every program that takes them: one server (`npm start`) and a cluster's launcher and gateways
// (`npm run cluster`). Each answers the value, or throws RtcFlagError with the words the program prints.

/** A bad --ice-server or --rtc-ports value: the message says which and why. */
export class RtcFlagError extends Error {
  override name = "RtcFlagError";
}

/** A STUN or TURN server as libdatachannel takes it: stun:HOST:PORT, turn:USER:PASS@HOST:PORT[?transport=tcp], turns:… */
export function iceServerFlag(value: string): string {
  if (!/^(stun|turns?):[^\s]+$/.test(value)) {
    throw new RtcFlagError(`--ice-server must be a stun:, turn: or turns: URL, got "${value}"`);
  }
  return value;
}

/** A UDP port range MIN-MAX for peer connections. */
export function rtcPortsFlag(value: string): { min: number; max: number } {
  const match = /^(\d+)-(\d+)$/.exec(value);
  const min = Number(match?.[1]);
  const max = Number(match?.[2]);
  if (!match || min < 1 || max > 65535 || min > max) {
    throw new RtcFlagError(`--rtc-ports must be MIN-MAX with 1 <= MIN <= MAX <= 65535, got "${value}"`);
  }
  return { min, max };
}

/**
 * `range` cut into `parts` ranges that do not overlap, in order, the first ones a port longer when it does not
 * divide evenly: each of a cluster's gateways gets its own (two processes binding one range would each find
 * the other's ports taken). Throws RtcFlagError when there are fewer ports than parts.
 */
export function splitRtcPorts(range: { min: number; max: number }, parts: number): { min: number; max: number }[] {
  const ports = range.max - range.min + 1;
  if (ports < parts) {
    throw new RtcFlagError(`--rtc-ports ${range.min}-${range.max} has ${ports} ports for ${parts} gateways`);
  }
  const each = Math.floor(ports / parts);
  const longer = ports % parts;
  const ranges: { min: number; max: number }[] = [];
  let next = range.min;
  for (let part = 0; part < parts; part++) {
    const length = each + (part < longer ? 1 : 0);
    ranges.push({ min: next, max: next + length - 1 });
    next += length;
  }
  return ranges;
}
