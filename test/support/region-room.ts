// A region's room without sockets, for tests that drive it frame by frame: region `region` of the test map cut
// in two (tiles x 0…31 and 32…79) as region.ts makes it — its Game, its room — and one gateway link whose
// frames back go nowhere.
import { gridLayout } from "../../ts/cluster/layout.js";
import { FRAME_OPEN, NOWHERE } from "../../ts/cluster/link-frames.js";
import { type GatewayLink, RegionRoom } from "../../ts/cluster/region-room.js";
import { regionWorldOf } from "../../ts/cluster/region-world.js";
import { Game } from "../../ts/server/game-server.js";
import { Logger } from "../../ts/server/ops/log.js";
import type { Core } from "../../ts/wasm/core.js";

/** The bytes of a link frame's JSON payload. */
export const jsonBytes = (value: unknown) => new Uint8Array(Buffer.from(JSON.stringify(value)));

export function regionRoomOn(
  core: Core,
  mapPath: string,
  region: number,
): { game: Game; room: RegionRoom; link: GatewayLink; open(client: number): void } {
  const quiet = new Logger("silent");
  const layout = gridLayout(3, 3, 2);
  const made = regionWorldOf(mapPath, layout, region, {});
  const game = new Game(core, made.ground, made.options, quiet);
  const room = new RegionRoom({
    game,
    region,
    layout,
    npcKinds: [],
    npcSpawns: [],
    doors: [],
    levels: made.levels,
    inputs: null,
    sharedAccounts: false,
    host: { arrived: () => {}, handedOn: () => {} },
    log: quiet,
  });
  const link = room.gatewayLinked("g0", NOWHERE);
  /** A client of the gateway's, `client`, linked here (FRAME_OPEN). */
  const open = (client: number) =>
    room.gatewayFrame(link, FRAME_OPEN, client, jsonBytes({ address: "10.0.0.1", transport: "udp" }), 0);
  return { game, room, link, open };
}
