// The HUD's message log: connection events and who came into or left view
// (chat joins it later). Bounded, oldest first.

export type LogKind = "info" | "good" | "bad";

export interface LogEntry {
  readonly text: string;
  readonly kind: LogKind;
}

export class MessageLog {
  private readonly lines: LogEntry[] = [];

  constructor(readonly limit = 64) {}

  add(text: string, kind: LogKind = "info"): void {
    this.lines.push({ text, kind });
    if (this.lines.length > this.limit) this.lines.splice(0, this.lines.length - this.limit);
  }

  get entries(): readonly LogEntry[] {
    return this.lines;
  }
}

/** The slice of an entity the watch needs. */
export interface PresenceEntity {
  readonly id: number;
  readonly typeId: number;
}

const PLAYER_TYPE = 0;

/**
 * Notices other players entering and leaving view. A player is announced
 * once its name is known (names arrive after the entity, by query), and its
 * leaving is announced only if its arrival was.
 */
export class PresenceWatch {
  private readonly announced = new Map<number, string>();

  /** Compares the entities in view with the last call; returns the messages to log. */
  update(
    entities: ReadonlyMap<number, PresenceEntity>,
    names: ReadonlyMap<number, string>,
    ownId: number,
  ): { text: string; kind: LogKind }[] {
    const messages: { text: string; kind: LogKind }[] = [];
    for (const [id, name] of this.announced) {
      if (!entities.has(id)) {
        this.announced.delete(id);
        messages.push({ text: `${name} left`, kind: "info" });
      }
    }
    for (const entity of entities.values()) {
      if (entity.typeId !== PLAYER_TYPE || entity.id === ownId || this.announced.has(entity.id)) continue;
      const name = names.get(entity.id);
      if (name === undefined) continue;
      this.announced.set(entity.id, name);
      messages.push({ text: `${name} is near`, kind: "good" });
    }
    return messages;
  }

  /** Names of the announced players in view, in the order they came. */
  get present(): string[] {
    return [...this.announced.values()];
  }

  /** Forget everyone (a new session sees the world afresh). */
  clear(): void {
    this.announced.clear();
  }
}
