// When the game makes a sound (issue 18 item 8): a footstep for each tile the
// own player steps (as predicted, so it is heard with the step, not a round trip
// later; a jump of more than a tile — a respawn — is silent), a hit for each blow
// this player deals or takes, a door when a door's tile in view turns (opens or
// closes, whoever used it), and a ping for each chat line another player says
// (not system lines: with 50 bots joining that would never stop). A spectator
// hears the steps and the blows of the one it follows (every blow the server
// tells it, near its camera, while its camera is free) and the doors around its
// camera (CueListener). Reads the client; plays through a SoundPlayer (ui/sound-board.ts).
import type { GameClient } from "../core/game-client.js";
import type { EntityInfo } from "../core/entity-table.js";
import { ENTITY_TYPE_DOOR } from "../../entity-types.js";
import { TILE_UNKNOWN } from "../../constants.js";
import type { SoundPlayer } from "./sound-board.js";

/** What the cues read of the client. */
export type CueSource = Pick<GameClient, "predicted" | "entities" | "ownEntityId" | "combat" | "chat"> & {
  readonly sim: { getTile(x: number, y: number): number };
};

/** Doors farther than this (tiles, either axis) from the player are not heard. */
export const DOOR_HEARD_TILES = 12;

/**
 * Where the cues listen from: a player hears its own steps and the doors around itself (its predicted
 * tile, the default); a spectator the steps of the one it follows and the doors around its camera.
 */
export interface CueListener {
  /** The tile of the one whose footsteps are heard, or null (nobody: a free camera). */
  walker(): { x: number; y: number } | null;
  /** Where doors are heard from, or null. */
  ear(): { x: number; y: number } | null;
  /** Whether a blow (not a miss) between these two is heard; absent: the own player's blows only. */
  hearsBlow?(attackerId: number, targetId: number): boolean;
}

export class SoundCues {
  private lastTile: { x: number; y: number } | null = null;
  /** The tile under each door last seen, by entity id. */
  private readonly doorTiles = new Map<number, number>();
  private readonly detach: (() => void)[] = [];

  constructor(
    private readonly client: CueSource,
    private readonly sounds: SoundPlayer,
    private readonly listener: CueListener = { walker: () => client.predicted, ear: () => client.predicted },
  ) {
    this.detach.push(
      client.combat.listen((notice) => {
        if (notice.kind === "miss") return;
        const own = client.ownEntityId;
        const heard =
          this.listener.hearsBlow?.(notice.attackerId, notice.targetId) ??
          (notice.attackerId === own || notice.targetId === own);
        if (heard) sounds.play("hit");
      }),
      client.chat.listen((event) => {
        if (event.kind === "line" && event.speakerEntityId !== 0 && event.speakerEntityId !== client.ownEntityId) {
          sounds.play("chat");
        }
      }),
    );
  }

  stop(): void {
    for (const undo of this.detach.splice(0)) undo();
  }

  /** Once a frame: footsteps and doors. */
  update(): void {
    const at = this.listener.walker();
    const last = this.lastTile;
    if (at && last && (at.x !== last.x || at.y !== last.y)) {
      if (Math.max(Math.abs(at.x - last.x), Math.abs(at.y - last.y)) === 1) this.sounds.play("footstep");
    }
    this.lastTile = at ? { x: at.x, y: at.y } : null;
    const ear = this.listener.ear();
    if (ear) this.listenToDoors(this.client.entities, ear);
  }

  private listenToDoors(entities: ReadonlyMap<number, EntityInfo>, at: { x: number; y: number }): void {
    for (const entity of entities.values()) {
      if (entity.typeId !== ENTITY_TYPE_DOOR) continue;
      const tile = this.client.sim.getTile(entity.x, entity.y);
      const before = this.doorTiles.get(entity.id);
      this.doorTiles.set(entity.id, tile);
      const near = Math.max(Math.abs(entity.x - at.x), Math.abs(entity.y - at.y)) <= DOOR_HEARD_TILES;
      // A chunk arriving turns TILE_UNKNOWN into the door's tile: that is no door moving.
      const turned = before !== undefined && before !== tile && before !== TILE_UNKNOWN && tile !== TILE_UNKNOWN;
      if (turned && near) this.sounds.play("door");
    }
  }
}
