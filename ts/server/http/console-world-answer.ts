// The console's world answer (GET /api/admin/world: where every player and creature is), built once and
// shared by every console that asks (issue 43: "many consoles at once: bounded cost to the server"). Each
// open console asks every second; built per request, ten consoles at 2000 bots cost ten walks over the
// entities and ten JSON encodings of up to 20,000 creatures a second, on the thread that runs the tick (the
// consoles bench: tick p99 7.7 → 12.2 ms). Built here at most once per MAX_AGE_MS, and only when the world
// has run a tick since, however many consoles ask: the cost is a constant, not one per console. An answer
// is at most MAX_AGE_MS older than the request; the page redraws once a second.
import { performance } from "node:perf_hooks";
import type { AdminService } from "../admin/admin-service.js";
import { JsonBytes } from "./json-bytes.js";

/** What the console shows of the game (the Game is one). */
export interface ConsoleWorld {
  readonly tick: number;
  readonly world: {
    readonly name: string;
    readonly mapWidth: number;
    readonly mapHeight: number;
    walkable(x: number, y: number): boolean;
  };
  readonly entities: {
    readonly size: number;
    values(): Iterable<ConsoleEntity>;
    get(id: number): ConsoleEntity | undefined;
  };
  readonly sessions: { byEntityId(id: number): { readonly nick: string } | undefined };
  /** Players are described as the admin API lists them (one description: AdminService.player). */
  readonly admin: Pick<AdminService, "player">;
  /**
   * In a cluster's region: the ground it owns, in tiles (x0, y0 inclusive, x1, y1 exclusive), so a gateway's
   * console can draw the regions' borders (ts/cluster/admin-fanout.ts). Absent in one process.
   */
  readonly ground?: ConsoleGround;
}

/** A region's ground, as the console's world answer carries it (`regions`). */
export interface ConsoleGround {
  readonly region: number;
  readonly rects: readonly { readonly x0: number; readonly y0: number; readonly x1: number; readonly y1: number }[];
}

interface ConsoleEntity {
  id: number;
  name: string;
  typeId: number;
  x: number;
  y: number;
  hp: number;
  hpMax: number;
  xp: number;
}

/** How long one world answer serves every console (ms): half the page's refresh period. */
export const WORLD_ANSWER_MAX_AGE_MS = 500;

/** The most creatures one answer lists (a world of 100,000 would be megabytes a second); the count says the rest. */
export const CONSOLE_CREATURES_MAX = 20_000;

export class ConsoleWorldAnswer {
  /** Answers built, and answers given (each request one): the second over the first is what sharing saves. */
  readonly stats = { built: 0, served: 0 };
  private json: Buffer | null = null;
  /** Scratch the answers are written into, grown once and reused (json-bytes.ts). */
  private readonly out = new JsonBytes();
  private readonly creatures = new JsonBytes();
  private builtAtMs = 0;
  private builtTick = -1;

  constructor(
    private readonly game: ConsoleWorld,
    private readonly maxAgeMs = WORLD_ANSWER_MAX_AGE_MS,
    /** The clock an answer's age is measured by (a test's own; the machine's otherwise). */
    private readonly nowMs: () => number = () => performance.now(),
  ) {}

  /** The answer as JSON bytes: the one built last while it is young enough or the world has not moved, else a new one. */
  current(): Buffer {
    const nowMs = this.nowMs();
    const fresh = this.json !== null && (nowMs - this.builtAtMs < this.maxAgeMs || this.game.tick === this.builtTick);
    if (!fresh) {
      this.json = this.build();
      this.builtAtMs = nowMs;
      this.builtTick = this.game.tick;
      this.stats.built++;
    }
    this.stats.served++;
    return this.json!;
  }

  /**
   * Every player and (up to CONSOLE_CREATURES_MAX) creature, as the console's page reads them (docs/server.md §
   * Admin), as JSON bytes written straight out (json-bytes.ts says why).
   */
  private build(): Buffer {
    const game = this.game;
    const out = this.out.reset();
    // Creatures as [id, x, y, hp, hpMax, typeId]: the bulk of the answer, kept compact; their kinds' names once.
    const creatures = this.creatures.reset();
    const kinds: Record<number, string> = {};
    let listed = 0;
    let creatureCount = 0;
    out
      .raw('{"tick":')
      .number(game.tick)
      .raw(',"map":')
      .value({ name: game.world.name, width: game.world.mapWidth, height: game.world.mapHeight })
      .raw(',"players":[');
    let players = 0;
    for (const entity of game.entities.values()) {
      const session = game.sessions.byEntityId(entity.id);
      if (session !== undefined) {
        out.raw(players++ === 0 ? '{"entityId":' : ',{"entityId":').number(entity.id);
        out.raw(',"nick":').value(session.nick);
        out.raw(',"x":').number(entity.x).raw(',"y":').number(entity.y);
        out.raw(',"hp":').number(entity.hp).raw(',"hpMax":').number(entity.hpMax).raw("}");
      } else {
        creatureCount++;
        if (listed < CONSOLE_CREATURES_MAX) {
          if (listed++ > 0) creatures.raw(",");
          creatures.row6(entity.id, entity.x, entity.y, entity.hp, entity.hpMax, entity.typeId);
          kinds[entity.typeId] ??= entity.name;
        }
      }
    }
    out.raw('],"creatures":[').append(creatures).raw('],"creatureCount":').number(creatureCount);
    out.raw(',"kinds":').value(kinds);
    if (game.ground !== undefined) out.raw(',"regions":').value([game.ground]);
    return out.raw("}").bytes();
  }
}
