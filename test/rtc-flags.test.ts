// The WebRTC flags one server and a cluster read alike (ts/server/transports/rtc-flags.ts): a cluster's
// --rtc-ports is cut into one range per gateway, none overlapping, every port used.
import { describe, expect, it } from "vitest";
import { iceServerFlag, RtcFlagError, rtcPortsFlag, splitRtcPorts } from "../ts/server/transports/rtc-flags.js";

describe("the WebRTC flags", () => {
  it("cut a port range into one per gateway, in order, the first ones a port longer", () => {
    expect(splitRtcPorts({ min: 6000, max: 6009 }, 2)).toEqual([
      { min: 6000, max: 6004 },
      { min: 6005, max: 6009 },
    ]);
    expect(splitRtcPorts({ min: 6000, max: 6010 }, 3)).toEqual([
      { min: 6000, max: 6003 },
      { min: 6004, max: 6007 },
      { min: 6008, max: 6010 },
    ]);
    expect(splitRtcPorts({ min: 7000, max: 7000 }, 1)).toEqual([{ min: 7000, max: 7000 }]);
    expect(() => splitRtcPorts({ min: 6000, max: 6001 }, 3)).toThrow(RtcFlagError);
  });

  it("read a range and an ICE server, or say what is wrong", () => {
    expect(rtcPortsFlag("6000-6099")).toEqual({ min: 6000, max: 6099 });
    for (const bad of ["6000", "0-10", "10-5", "1-70000", "a-b"])
      expect(() => rtcPortsFlag(bad), bad).toThrow(RtcFlagError);
    expect(iceServerFlag("turn:user:pass@turn.example:3478?transport=tcp")).toBe(
      "turn:user:pass@turn.example:3478?transport=tcp",
    );
    expect(() => iceServerFlag("https://stun.example")).toThrow(/--ice-server must be/);
  });
});
