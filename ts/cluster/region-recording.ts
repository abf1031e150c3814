// What a region records beyond one process's inputs (docs/recording.md § In a cluster): each frame its links
// bring to its Game, each link that comes or goes, each player it hands on, the point after a broadcast tick
// at which its creatures cross, and each time it sets its Game's clock on the world's timeline. Written at
// the room's door (region-room.ts) the moment each is applied, between ticks, as the Game records a join;
// read back by a replay of the region alone (region-replay.ts), which hands each to the same room.
import type { ByteReader } from "../server/recording/bytes.js";
import { RECORD } from "../server/recording/format.js";
import type { Recorder } from "../server/recording/recorder.js";

/** Where a frame came from: a gateway's link (named by its serial here) or a neighbour region's. */
export const ORIGIN_GATEWAY = 0;
export const ORIGIN_NEIGHBOUR = 1;

/** A link that came or went. */
export const LINK_GATEWAY_LINKED = 0;
export const LINK_GATEWAY_LOST = 1;
export const LINK_NEIGHBOUR_LINKED = 2;
export const LINK_NEIGHBOUR_LOST = 3;

/** The region's inputs as the room writes them (null: the region is not recorded). */
export interface RegionInputs {
  frame(origin: number, from: number, kind: number, client: number, nowMs: number, payload: Uint8Array): void;
  link(event: number, from: number, gatewayId: string): void;
  handOff(entityId: number, target: number): void;
  creaturesCross(tick: number): void;
  clockSet(tick: number, jumped: boolean): void;
}

/** A region's record as read back, or null for a record that is not one of a region's. */
export type RegionRecord =
  | {
      readonly type: "frame";
      readonly origin: number;
      readonly from: number;
      readonly kind: number;
      readonly client: number;
      readonly nowMs: number;
      readonly payload: Uint8Array;
    }
  | { readonly type: "link"; readonly event: number; readonly from: number; readonly gatewayId: string }
  | { readonly type: "handOff"; readonly entityId: number; readonly target: number }
  | { readonly type: "creaturesCross"; readonly tick: number }
  | { readonly type: "clockSet"; readonly tick: number; readonly jumped: boolean };

/** The region's inputs written by `recorder` (the records' layouts: format.ts's RECORD, docs/recording.md). */
export function regionInputsOf(recorder: Recorder): RegionInputs {
  return {
    frame(origin, from, kind, client, nowMs, payload) {
      recorder.hostRecord(RECORD.regionFrame, (out) => {
        out.u8(origin);
        out.varint(from);
        out.u8(kind);
        out.varint(client >>> 0);
        out.f64(nowMs);
        out.blob(payload);
      });
    },
    link(event, from, gatewayId) {
      recorder.hostRecord(RECORD.regionLink, (out) => {
        out.u8(event);
        out.varint(from);
        out.text(gatewayId);
      });
    },
    handOff(entityId, target) {
      recorder.hostRecord(RECORD.handOff, (out) => {
        out.varint(entityId);
        out.varint(target);
      });
    },
    creaturesCross(tick) {
      recorder.hostRecord(RECORD.creaturesCross, (out) => out.varint(tick));
    },
    clockSet(tick, jumped) {
      recorder.clockSet(tick, jumped);
    },
  };
}

/** Reads a region's record of `type` (its payload at its start), or null when `type` is not a region's. */
export function readRegionRecord(type: number, payload: ByteReader): RegionRecord | null {
  switch (type) {
    case RECORD.regionFrame:
      return {
        type: "frame",
        origin: payload.u8(),
        from: payload.varint(),
        kind: payload.u8(),
        client: payload.varint(),
        nowMs: payload.f64(),
        payload: payload.blob(),
      };
    case RECORD.regionLink:
      return { type: "link", event: payload.u8(), from: payload.varint(), gatewayId: payload.text() };
    case RECORD.handOff:
      return { type: "handOff", entityId: payload.varint(), target: payload.varint() };
    case RECORD.creaturesCross:
      return { type: "creaturesCross", tick: payload.varint() };
    case RECORD.clockSet:
      return { type: "clockSet", tick: payload.varint(), jumped: payload.u8() === 1 };
    default:
      return null;
  }
}
