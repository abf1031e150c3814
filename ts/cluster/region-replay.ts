// A replay of one region's recording, alone (docs/recording.md § In a cluster): its Game is made as region.ts
// makes it (its ground's spawns, chests and doors, its entity ids' range, its share of the dungeon levels:
// region-world.ts), and each input its links brought — frames from gateways and neighbours, links that came
// and went, players handed on, creatures crossing, the clock set on the world's timeline — is handed to the
// same room (region-room.ts) with no sockets: what the room sends goes nowhere. The Game's own records
// (datagrams, joins, the tape) are replayed by replay-world.ts as for one process.
import { RecordingError } from "../server/recording/bytes.js";
import type { GameOptions } from "../server/game-options.js";
import { RECORD, type RecordingHeader } from "../server/recording/format.js";
import { REPLAYED_ACCOUNTS, type ReplayedStore, replayedPorts } from "./store-tape.js";
import type { ReplayHost } from "../server/replay-world.js";
import { OffTheRecord } from "../server/replay-world.js";
import type { ClusterLayout } from "./layout.js";
import { FrameError, NOWHERE } from "./link-frames.js";
import type { RegionGame } from "./region-game.js";
import {
  LINK_GATEWAY_LINKED,
  LINK_GATEWAY_LOST,
  LINK_NEIGHBOUR_LINKED,
  LINK_NEIGHBOUR_LOST,
  ORIGIN_GATEWAY,
  type RegionRecord,
  readRegionRecord,
} from "./region-recording.js";
import { RegionRoom } from "./region-room.js";
import { type RegionWorld, regionWorldOf } from "./region-world.js";

/** The replay host of a region's recording, or undefined for a recording of one process. */
export function regionReplayHost(header: RecordingHeader): ReplayHost | undefined {
  const recorded = header.region;
  if (recorded === undefined) return undefined;
  const layout = recorded.layout as ClusterLayout;
  if (
    !Number.isInteger(recorded.id) ||
    typeof layout !== "object" ||
    layout === null ||
    !Number.isInteger(layout.regionCount) ||
    !Array.isArray(layout.rects) ||
    recorded.id < 0 ||
    recorded.id >= layout.regionCount
  ) {
    throw new RecordingError("the recording's header names a region without a whole layout", "corrupt");
  }
  let ground: RegionWorld | null = null;
  /** A region on the shared store: its answers, from the recording (store-tape.ts). */
  let store: ReplayedStore | null = null;
  return {
    world(_map, mapPath, take) {
      ground = regionWorldOf(mapPath, layout, recorded.id, header.options as Partial<GameOptions>);
      if (recorded.sharedStore !== true) return { map: ground.ground, options: ground.options };
      store = replayedPorts(take);
      return {
        map: ground.ground,
        options: { ...ground.options, ...store.ports, sharedAccounts: REPLAYED_ACCOUNTS },
      };
    },
    attach(game: RegionGame, log) {
      const made = ground!;
      if (recorded.idsReservedThrough !== null) game.entities.reserveThrough(recorded.idsReservedThrough);
      const room = new RegionRoom({
        game,
        region: recorded.id,
        layout,
        npcKinds: made.map.npcKinds ?? [],
        npcSpawns: made.map.npcSpawns ?? [],
        doors: made.map.doors ?? [],
        levels: made.levels,
        inputs: null,
        // Without the shared store a region's accounts stay in region 0; with it they cross borders.
        sharedAccounts: recorded.sharedStore === true,
        host: { arrived: () => {}, handedOn: () => {} },
        log,
      });
      return {
        input(type, payload) {
          if (type === RECORD.storeAnswer && store !== null) {
            store.answer(payload);
            return true;
          }
          const record = readRegionRecord(type, payload);
          if (record === null) return false;
          apply(room, game, record);
          return true;
        },
        actsLater: (type) => type === RECORD.storeAnswer,
      };
    },
  };
}

function apply(room: RegionRoom, game: RegionGame, record: RegionRecord): void {
  switch (record.type) {
    case "frame": {
      try {
        if (record.origin === ORIGIN_GATEWAY) {
          const link = room.gatewayOf(record.from);
          if (link === undefined)
            throw new OffTheRecord(`a frame names gateway link ${record.from}, which the recording never linked`);
          room.gatewayFrame(link, record.kind, record.client, record.payload, record.nowMs);
        } else {
          room.neighbourFrame(record.from, record.kind, record.client, record.payload, record.nowMs);
        }
      } catch (error) {
        // A frame that broke its link's rules broke it when recorded too: the link's loss follows in the recording.
        if (!(error instanceof FrameError)) throw error;
      }
      return;
    }
    case "link": {
      if (record.event === LINK_GATEWAY_LINKED) {
        const link = room.gatewayLinked(record.gatewayId, NOWHERE);
        if (link.serial !== record.from)
          throw new OffTheRecord(`gateway link ${record.from} is link ${link.serial} in the replay`);
      } else if (record.event === LINK_GATEWAY_LOST) {
        const link = room.gatewayOf(record.from);
        if (link !== undefined) room.gatewayLost(link);
      } else if (record.event === LINK_NEIGHBOUR_LINKED) {
        room.neighbourLinked(record.from, NOWHERE);
      } else if (record.event === LINK_NEIGHBOUR_LOST) {
        room.neighbourLost(record.from);
      }
      return;
    }
    case "handOff": {
      const session = game.sessions.byEntityId(record.entityId);
      if (session === undefined)
        throw new OffTheRecord(
          `entity ${record.entityId} was handed on to region ${record.target}, but is not in play`,
        );
      room.handOn(session, record.target);
      return;
    }
    case "creaturesCross":
      if (record.tick !== game.tick)
        throw new OffTheRecord(`the creatures crossed after tick ${record.tick}, the replay stands at ${game.tick}`);
      room.creaturesCross();
      return;
    case "clockSet":
      if (record.jumped) room.rejoin(record.tick);
      else room.startAt(record.tick);
      return;
  }
}
