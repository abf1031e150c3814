// The creatures alive in this room: by entity id, and by chunk in the room's own creatures-only index
// (npc-index.ts) that the wake pass reads. Every part of the room adds and removes creatures here, so
// the two stay one list.
import type { NpcKind } from "../content/npc-kinds.js";
import type { EntityStore, StoredEntity } from "../entities/entities.js";
import { type Npc, newNpc, type SpawnState } from "./npc.js";
import { NpcIndex } from "./npc-index.js";

export class NpcRoster {
  private readonly byEntity = new Map<number, Npc>();
  private readonly index = new NpcIndex<Npc>();

  constructor(private readonly entities: Pick<EntityStore, "remove">) {}

  get size(): number {
    return this.byEntity.size;
  }

  get(entityId: number): Npc | undefined {
    return this.byEntity.get(entityId);
  }

  values(): IterableIterator<Npc> {
    return this.byEntity.values();
  }

  /** The creatures indexed in chunk (cx, cy), unsorted; undefined for none. */
  inChunk(cx: number, cy: number): readonly Npc[] | undefined {
    return this.index.chunk(cx, cy);
  }

  /** A creature of `kind` standing as `entity`, idle and asleep with no energy as of `entityTick`, listed. */
  add(
    entity: StoredEntity,
    kind: NpcKind,
    spawn: SpawnState | null,
    spawnId: number,
    homeX: number,
    homeY: number,
    entityTick: number,
  ): Npc {
    const npc = newNpc(entity, kind, spawn, spawnId, homeX, homeY, entityTick);
    this.byEntity.set(entity.id, npc);
    this.index.add(npc);
    return npc;
  }

  /** npc's entity moved: its index bucket follows. */
  moved(npc: Npc): void {
    this.index.moved(npc);
  }

  /** Takes npc out of the room and the store; stale wheel and queue entries skip it (alive false). */
  remove(npc: Npc): void {
    npc.alive = false;
    npc.dueTick = -1;
    this.byEntity.delete(npc.entity.id);
    this.index.remove(npc);
    this.entities.remove(npc.entity);
  }
}
