// Who is near: the other players in view, by name, for the side panel's "Near"
// list. Not a source of log lines (issue 18 item 1): walking into or out of view
// is no news — "X left" for a player who only walked off read like a quit, and
// "X is near" doubled the server's "X joined" — so the log hears of presence
// only from the server's own join and leave lines (log-channels.ts).

/** The slice of an entity the watch needs. */
export interface PresenceEntity {
  readonly id: number;
  readonly typeId: number;
}

const PLAYER_TYPE = 0;

/** The named players in view, in the order they came (names arrive after the entity, by query). */
export class PresenceWatch {
  private readonly near = new Map<number, string>();

  /** Compares the entities in view with the last call. */
  update(entities: ReadonlyMap<number, PresenceEntity>, names: ReadonlyMap<number, string>, ownId: number): void {
    for (const id of this.near.keys()) if (!entities.has(id)) this.near.delete(id);
    for (const entity of entities.values()) {
      if (entity.typeId !== PLAYER_TYPE || entity.id === ownId || this.near.has(entity.id)) continue;
      const name = names.get(entity.id);
      if (name !== undefined) this.near.set(entity.id, name);
    }
  }

  /** Names of the players in view, in the order they came. */
  get present(): string[] {
    return [...this.near.values()];
  }

  /** Forget everyone (a new session sees the world afresh). */
  clear(): void {
    this.near.clear();
  }
}
