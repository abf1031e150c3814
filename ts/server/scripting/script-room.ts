// The scripting room (docs/content.md): the host's content scripts (<map>.content/*.lua), each in a Lua
// sandbox of its own (lua-sandbox.ts), and the content API they are written against — events in (a
// player talks to a creature, kills one, enters or leaves a zone, reaches a dungeon depth, picks up, uses
// or equips an item, a quest step changes, a timer fires, night falls or day breaks), actions out through
// the rooms that already own them (chat lines, dialogs, the item room's transfer path, quests, shops,
// warps, and the world actions of world-actions.ts: creatures, tiles, doors). A script reaches nothing else.
//
// Every call into a script runs under an instruction budget and its state under a memory cap; a script
// that fails (a syntax error, a runtime error, the budget, the memory) is stopped, logged with its file
// and line, and counted on the status; the world keeps its tick. A file that fails to load keeps the
// version loaded before it (hot reload, `reload`), or loads nothing. What must outlive a reload — quest
// progress, shop stock — lives in the room's stores, never in script variables.
//
// Calls never nest: what a script does that would reach a script again (a dialog's answer, a timer, a quest
// step it made) comes back later as an event of its own. Events that happen inside other rooms' work (an
// item picked up, a quest step) wait in a bounded queue for the end of the tick, in the order they happened. The work scripts do each entity tick is counted (scriptSteps), and the
// NPC room takes it from the next entity tick's think budget, so scripted creatures shed like the others.
import { addXp } from "../../progression.js";
import { mulberry32 } from "../../random.js";
import type { Tlv } from "../../protocol/tlv.js";
import { partOfDay } from "../../world-time.js";
import type { ContentFile } from "../content/content-files.js";
import type { Zone } from "../content/zones.js";
import type { ItemCatalogue } from "../content/item-catalogue.js";
import type { NpcKind } from "../content/npc-kinds.js";
import type { StoredEntity } from "../entities/entities.js";
import type { ItemEvent } from "../items/item-requests.js";
import type { Logger } from "../ops/log.js";
import type { QuestStorePort, WorldValuesPort } from "../persistence/quest-store.js";
import type { Session } from "../sessions/session.js";
import type { DialogSpec } from "../talk/dialogs.js";
import { conversation, MAX_CHOICE_CHARS, MAX_CHOICES, MAX_TEXT_CHARS, MAX_TITLE_CHARS } from "./dialog-layout.js";
import { LuaFunctionRef, type LuaRuntime, type LuaSandbox, type LuaValue, ScriptError } from "./lua-sandbox.js";
import { entityIdOf, npcValue, playerValue, questId, stacksOf, table, text, wholeNumber } from "./lua-values.js";
import { PlayerPlaces } from "./player-places.js";
import { MAX_QUEST_GOAL, MAX_QUESTS, type QuestDefinition, QuestBook } from "./quest-book.js";
import { itemNamed, requireName, type ShopDefinition, type ShopPorts, Shops, shopOf, type ShopSpec } from "./shops.js";
import { type WorldActionPorts, WorldActions } from "./world-actions.js";

/** Instructions a file's top level may run when it loads, and one event call. */
export const LOAD_BUDGET = 5_000_000;
export const EVENT_BUDGET = 500_000;
/** Memory one file's state may hold. */
export const SCRIPT_MEMORY_BYTES = 8 << 20;
/** How far (Chebyshev) a player may stand from a creature it talks to. */
export const TALK_REACH = 2;
/** Timers one file may have waiting, and how far ahead (ticks: one hour at 24 Hz). */
export const MAX_TIMERS_PER_FILE = 256;
export const MAX_TIMER_TICKS = 24 * 3600;
/** The most experience one grant gives (`give_xp`, a quest's `xp`): a fifth of the way to the highest level. */
export const MAX_XP_GRANT = 2000;
/** Dialog answers one file may have waiting (beyond, the oldest is let go: its reply then does nothing). */
export const MAX_ANSWERS_WAITING = 1024;
/** Script log lines kept for the status, and the longest. */
const LOG_KEPT = 50;
const LOG_LINE_MAX = 200;
/** Instructions that make one unit of the NPC think budget. */
export const STEPS_PER_THINK_UNIT = 1000;
/**
 * Events waiting for the end of the tick (items, quest steps). Beyond, the newest are dropped, counted and
 * logged: a tick's players cannot make this many (2000 players picking up each tick would be 2000).
 */
export const MAX_QUEUED_EVENTS = 8192;
/**
 * A file stopped at its budget or memory cap this many times within STOP_WINDOW_TICKS rests: its events
 * are skipped for REST_TICKS, doubled at each rest that follows another (up to MAX_REST_TICKS). Each stop
 * costs a whole budget (3–4 ms): a hostile file talked to 80 times a second took two thirds of the
 * server's CPU and the world fell to 18 ticks a second. Resting, a file costs at most this many budgets
 * per window. Counted in ticks: the same inputs rest the same files at the same ticks.
 */
export const STOPS_BEFORE_REST = 3;
export const STOP_WINDOW_TICKS = 240;
export const REST_TICKS = 240;
export const MAX_REST_TICKS = 24 * 300;

/** What the room reaches of the rest of the server. */
export interface ScriptPorts {
  readonly runtime: LuaRuntime;
  readonly catalogue: ItemCatalogue;
  readonly kinds: readonly NpcKind[];
  /** The creature standing as an entity, with its kind (the NPC room). */
  readonly npcs: { get(entityId: number): { readonly entity: StoredEntity; readonly kind: NpcKind } | undefined };
  readonly sessions: {
    byEntityId(entityId: number): Session | undefined;
    /** The sessions in play, in the order they joined. */
    values(): Iterable<Session>;
  };
  readonly chat: {
    systemNear(x: number, y: number, radius: number, text: string, speakerName?: string): void;
    tell(session: Session, text: string, speakerName?: string): void;
  };
  readonly dialogs: {
    open(
      session: Session,
      spec: DialogSpec,
      onReply: (reply: { returnCode: number }) => void,
      options?: { key?: string },
    ): number;
  };
  /** The item room's counts and its one exchange (the shops' port), and a player's own detail sent again. */
  readonly items: ShopPorts["items"] & {
    /** The player's own EntityDetail again (its quests changed). */
    sendDetail(session: Session, entity: StoredEntity): void;
  };
  readonly warps: { teleport(entity: StoredEntity, x: number, y: number): void };
  /** Players' experience (../combat/experience.ts): a script's grant (`give_xp`), a quest's `xp` reward. */
  readonly experience: {
    gain(player: StoredEntity, amount: number, why: string): number;
  };
  /** What scripts change in the world: creatures, tiles, doors, a line to everyone (world-actions.ts). */
  readonly world: Omit<WorldActionPorts, "kinds">;
  /** The map's named zones (../content/zones.ts). */
  readonly zones: readonly Zone[];
  /** The dungeon depth of a world cell: 0 on a map. */
  readonly depthAt: (x: number, y: number) => number;
  readonly walkable: (x: number, y: number) => boolean;
  readonly quests: QuestStorePort | null;
  readonly values: WorldValuesPort | null;
  /** The world's tick, and whether it is night now. */
  readonly clock: { readonly tick: number };
  readonly isNight: (tick: number) => boolean;
  readonly log: Logger;
  /** The seed of the scripts' random numbers (`random`): the same seed, the same draws. */
  readonly seed: number;
}

/** What one loaded file registered. */
interface Handlers {
  readonly talk: Map<string, LuaFunctionRef>;
  readonly kill: Map<string, LuaFunctionRef>;
  /** By zone name ("*": any zone). */
  readonly enter: Map<string, LuaFunctionRef>;
  readonly leave: Map<string, LuaFunctionRef>;
  readonly level: LuaFunctionRef[];
  /** By item name ("*": any item). */
  readonly pickup: Map<string, LuaFunctionRef>;
  readonly use: Map<string, LuaFunctionRef>;
  readonly equip: Map<string, LuaFunctionRef>;
  /** By quest id ("*": any quest). */
  readonly quest: Map<string, LuaFunctionRef>;
  readonly night: LuaFunctionRef[];
  readonly day: LuaFunctionRef[];
  readonly quests: Omit<QuestDefinition, "number">[];
  /** Each quest's reward, and what handing it in takes from the player, by id. */
  readonly rewards: Map<string, { itemId: number; count: number }[]>;
  /** Each quest's experience reward, by id (absent: none). */
  readonly xpRewards: Map<string, number>;
  readonly handIns: Map<string, { itemId: number; count: number }[]>;
  readonly shops: ShopDefinition[];
}

/** One content file as the room holds it. */
interface ScriptFile {
  readonly name: string;
  sandbox: LuaSandbox | null;
  handlers: Handlers;
  /** The last load's failure (the previous version, if any, still runs). */
  loadError: string | null;
  errors: number;
  lastError: string | null;
  timers: number;
  /**
   * The dialogs' answers still waiting, by "session token:dialog id", oldest first: each Lua callback is
   * let go once called, when the same dialog is asked again (the open one is re-sent, its first callback
   * kept), or as the oldest beyond MAX_ANSWERS_WAITING (a player who walked away never answers).
   */
  readonly answers: Map<string, LuaFunctionRef>;
  /** When the file's last error was logged, and the errors not logged since (one line a second at most). */
  loggedAtMs: number;
  unlogged: number;
  /** The ticks of its recent budget and memory stops (at most STOPS_BEFORE_REST kept). */
  readonly stopTicks: number[];
  /** Its events are skipped before this tick (0: not resting), and how long its last rest was. */
  restUntilTick: number;
  lastRestTicks: number;
  rests: number;
}

interface Timer {
  readonly dueTick: number;
  /** Order of setting, for timers due at the same tick. */
  readonly order: number;
  readonly file: ScriptFile;
  readonly sandbox: LuaSandbox;
  readonly callback: LuaFunctionRef;
}

/** An event that waits for the end of the tick. */
type QueuedEvent =
  | { readonly kind: "item"; readonly session: Session; readonly event: ItemEvent }
  | { readonly kind: "quest"; readonly session: Session; readonly quest: string };

export interface ScriptStats {
  loads: number;
  loadFailures: number;
  events: number;
  /** Events dropped because MAX_QUEUED_EVENTS were waiting. */
  eventsDropped: number;
  /** Events skipped because their file was resting (STOPS_BEFORE_REST). */
  eventsRested: number;
  errors: number;
  budgetStops: number;
  memoryStops: number;
  steps: number;
}

export class ScriptRoom {
  private readonly files: ScriptFile[] = [];
  readonly quests: QuestBook;
  readonly shops: Shops;
  private readonly timers: Timer[] = [];
  private timerOrder = 0;
  private night: boolean | null = null;
  private random: () => number;
  /** Instructions scripts ran since the NPC room last took them (scriptSteps). */
  private stepsSinceTaken = 0;
  /**
   * Callbacks that came due while a script call ran, oldest first: each runs once that call has returned.
   * An exchange with this process's SQLite is written and answered in the turn it is asked for, so the
   * outcome of `items.exchange` or `quest.complete` arrives inside the script's own call — and a call may
   * never start inside another (lua-sandbox.ts). Called there, the callback failed with "a script call
   * inside a script call": the items moved, durable, and the script (so the player) never heard how.
   */
  private readonly dueCallbacks: (() => void)[] = [];
  private runningDue = false;
  private readonly logLines: string[] = [];
  private readonly typeIds: Map<string, number>;
  private readonly kindNames = new Map<number, string>();
  readonly world: WorldActions;
  private readonly places: PlayerPlaces;
  private readonly queued: QueuedEvent[] = [];
  /** Whether any loaded file watches zones or depths (no file: no player is looked at). */
  private watchesPlaces = false;
  readonly stats: ScriptStats = {
    loads: 0,
    loadFailures: 0,
    events: 0,
    eventsDropped: 0,
    eventsRested: 0,
    errors: 0,
    budgetStops: 0,
    memoryStops: 0,
    steps: 0,
  };

  constructor(
    private readonly ports: ScriptPorts,
    files: readonly ContentFile[],
  ) {
    this.random = mulberry32(ports.seed ^ 0x5c7197);
    this.typeIds = new Map(ports.kinds.map((kind) => [kind.name, kind.typeId]));
    for (const kind of ports.kinds) this.kindNames.set(kind.typeId, kind.name);
    this.quests = new QuestBook(ports.quests, (session, id) => {
      this.showQuests(session);
      this.enqueue({ kind: "quest", session, quest: id });
    });
    this.world = new WorldActions({ ...ports.world, kinds: ports.kinds });
    this.places = new PlayerPlaces(ports.zones, ports.depthAt);
    this.shops = new Shops({
      items: ports.items,
      openDialog: (session, spec, onChoice, key) =>
        ports.dialogs.open(session, spec, (reply) => onChoice(reply.returnCode), { key }),
      tell: (session, text, speaker) => ports.chat.tell(session, text, speaker),
      values: ports.values,
    });
    // In name order: their states are made in the same order on every run.
    for (const file of [...files].sort((a, b) => (a.name < b.name ? -1 : 1))) {
      const loaded = newFile(file.name);
      this.files.push(loaded);
      this.load(loaded, file.source);
    }
    this.redefine();
  }

  /**
   * A file was edited (--watch): the new version loads in a new state; if it fails to compile or throws,
   * the previous version keeps running and the failure is logged and shown on the status. A new file is
   * added; `source` null removes the file. Returns the load's failure, or null.
   */
  reload(name: string, source: string | null): string | null {
    let file = this.files.find((each) => each.name === name);
    if (source === null) {
      if (file === undefined) return null;
      file.sandbox?.close();
      this.files.splice(this.files.indexOf(file), 1);
      this.redefine();
      return null;
    }
    if (file === undefined) {
      file = newFile(name);
      this.files.push(file);
      this.files.sort((a, b) => (a.name < b.name ? -1 : 1));
    }
    const error = this.load(file, source);
    this.redefine();
    return error;
  }

  /** Loads `source` into a new state for `file`; on success it replaces the file's state, else the old one stays. */
  private load(file: ScriptFile, source: string): string | null {
    const sandbox = this.ports.runtime.newSandbox(file.name, SCRIPT_MEMORY_BYTES);
    const handlers = emptyHandlers();
    this.bind(sandbox, file, handlers);
    try {
      sandbox.run(source, `@${file.name}`, LOAD_BUDGET);
      this.charge(sandbox.lastSteps);
    } catch (error) {
      sandbox.close();
      const message = error instanceof Error ? error.message : String(error);
      file.loadError = message;
      this.stats.loadFailures++;
      this.ports.log.error("content script not loaded", {
        file: file.name,
        error: message,
        running: file.sandbox === null ? "nothing" : "the previous version",
      });
      return message;
    }
    const before = file.sandbox;
    file.sandbox = sandbox;
    file.handlers = handlers;
    file.loadError = null;
    file.timers = 0;
    file.answers.clear(); // the old state's callbacks close with it
    // A new version starts unrested: the host may have mended what made the old one stop.
    file.stopTicks.length = 0;
    file.restUntilTick = 0;
    file.lastRestTicks = 0;
    // The old version's timers go with it: they would call into a closed state.
    for (let index = this.timers.length - 1; index >= 0; index--) {
      if (this.timers[index].file === file && this.timers[index].sandbox !== sandbox) this.timers.splice(index, 1);
    }
    before?.close();
    this.stats.loads++;
    this.ports.log.info("content script loaded", { file: file.name });
    this.runDueCallbacks(); // the top level may have asked for an exchange
    return null;
  }

  /** Quests and shops as every loaded file defines them now; a duplicate id is a failure of the later file. */
  private redefine(): void {
    const quests: Omit<QuestDefinition, "number">[] = [];
    const shops: ShopDefinition[] = [];
    const questIds = new Set<string>();
    const shopIds = new Set<string>();
    for (const file of this.files) {
      for (const quest of file.handlers.quests) {
        if (questIds.has(quest.id)) {
          this.fail(file, `quest "${quest.id}" is defined by two files; ${file.name}'s is ignored`);
          continue;
        }
        questIds.add(quest.id);
        quests.push(quest);
      }
      for (const shop of file.handlers.shops) {
        if (shopIds.has(shop.id)) {
          this.fail(file, `shop "${shop.id}" is defined by two files; ${file.name}'s is ignored`);
          continue;
        }
        shopIds.add(shop.id);
        shops.push(shop);
      }
    }
    this.quests.define(quests.slice(0, MAX_QUESTS));
    this.shops.define(shops);
    this.watchesPlaces = this.files.some(
      (file) => file.handlers.enter.size > 0 || file.handlers.leave.size > 0 || file.handlers.level.length > 0,
    );
  }

  /** The content API, bound to one file's state (docs/content.md § API). */
  private bind(sandbox: LuaSandbox, file: ScriptFile, handlers: Handlers): void {
    const { catalogue } = this.ports;
    const on = (table: Map<string, LuaFunctionRef>, what: string) => (args: LuaValue[]) => {
      const [name, fn] = args;
      if (typeof name !== "string") throw new Error(`${what}: the first argument is a kind's name (or "*")`);
      if (name !== "*" && !this.typeIds.has(name)) throw new Error(`${what}: no creature kind named "${name}"`);
      if (!(fn instanceof LuaFunctionRef)) throw new Error(`${what}: the second argument is a function`);
      table.get(name)?.sandbox.releaseRef(table.get(name)!);
      table.set(name, fn);
    };
    sandbox.expose("on.talk", on(handlers.talk, "on.talk"));
    sandbox.expose("on.kill", on(handlers.kill, "on.kill"));
    // The same, for handlers keyed by a name of another kind: a zone, an item, a quest (or "*").
    const onNamed =
      (map: Map<string, LuaFunctionRef>, what: string, known: (name: string) => boolean, of: string) =>
      (args: LuaValue[]) => {
        const [name, fn] = args;
        if (typeof name !== "string") throw new Error(`${what}: the first argument is ${of}'s name (or "*")`);
        if (name !== "*" && !known(name)) throw new Error(`${what}: no ${of} named "${name}"`);
        if (!(fn instanceof LuaFunctionRef)) throw new Error(`${what}: the second argument is a function`);
        map.get(name)?.sandbox.releaseRef(map.get(name)!);
        map.set(name, fn);
      };
    const isZone = (name: string) => this.places.named(name) !== undefined;
    const isItem = (name: string) => catalogue.named(name) !== undefined;
    sandbox.expose("on.enter", onNamed(handlers.enter, "on.enter", isZone, "zone"));
    sandbox.expose("on.leave", onNamed(handlers.leave, "on.leave", isZone, "zone"));
    sandbox.expose("on.pickup", onNamed(handlers.pickup, "on.pickup", isItem, "item"));
    sandbox.expose("on.use", onNamed(handlers.use, "on.use", isItem, "item"));
    sandbox.expose("on.equip", onNamed(handlers.equip, "on.equip", isItem, "item"));
    // A quest may be defined by a file loaded later: its id is checked by `content check`, not here.
    sandbox.expose(
      "on.quest",
      onNamed(handlers.quest, "on.quest", () => true, "quest"),
    );
    const onTime = (list: LuaFunctionRef[], what: string) => (args: LuaValue[]) => {
      if (!(args[0] instanceof LuaFunctionRef)) throw new Error(`${what}: the argument is a function`);
      list.push(args[0]);
    };
    sandbox.expose("on.night", onTime(handlers.night, "on.night"));
    sandbox.expose("on.day", onTime(handlers.day, "on.day"));
    sandbox.expose("on.level", onTime(handlers.level, "on.level"));
    this.world.bind(sandbox, file.name);

    sandbox.expose("quest.define", ([spec]) => {
      const quest = table(spec, "quest.define");
      const id = requireName(quest.id, "quest.define: id");
      const goal = quest.goal ?? 1;
      if (typeof goal !== "number" || !Number.isInteger(goal) || goal < 1 || goal > MAX_QUEST_GOAL) {
        throw new Error(`quest.define: goal must be a whole number 1 … ${MAX_QUEST_GOAL}`);
      }
      const giver = quest.giver ?? null;
      if (giver !== null && (typeof giver !== "string" || !this.typeIds.has(giver))) {
        throw new Error(`quest.define: giver must be a creature kind's name, got ${JSON.stringify(giver)}`);
      }
      const requires = quest.requires ?? [];
      if (!Array.isArray(requires) || requires.some((each) => typeof each !== "string")) {
        throw new Error("quest.define: requires must be a list of quest ids");
      }
      const give = stacksOf(quest.reward, catalogue, "quest.define: reward");
      const take = stacksOf(quest.hand_in, catalogue, "quest.define: hand_in");
      const xp =
        quest.xp === undefined || quest.xp === null ? 0 : wholeNumber(quest.xp, 0, MAX_XP_GRANT, "quest.define: xp");
      handlers.quests.push({
        id,
        title: text(quest.title ?? id, MAX_TITLE_CHARS),
        text: text(quest.text ?? "", MAX_TEXT_CHARS),
        goal,
        giver,
        requires: requires as string[],
        file: file.name,
      });
      handlers.rewards.set(id, give);
      if (xp > 0) handlers.xpRewards.set(id, xp);
      handlers.handIns.set(id, take);
    });
    sandbox.expose("shop.define", ([spec]) => {
      handlers.shops.push(shopOf(table(spec, "shop.define") as ShopSpec, catalogue, file.name));
    });

    // Actions.
    sandbox.expose("say", ([who, words]) => {
      const npc = this.npcOf(who, "say");
      this.ports.chat.systemNear(npc.entity.x, npc.entity.y, 12, text(words, MAX_TEXT_CHARS), npc.entity.name);
    });
    sandbox.expose("tell", ([who, words, speaker]) => {
      const session = this.sessionOf(who, "tell");
      this.ports.chat.tell(
        session,
        text(words, MAX_TEXT_CHARS),
        typeof speaker === "string" ? speaker.slice(0, 32) : "",
      );
    });
    sandbox.expose("ask", ([who, spec, callback]) => {
      const session = this.sessionOf(who, "ask");
      const dialog = table(spec, "ask");
      const choices = dialog.choices ?? ["Goodbye"];
      if (!Array.isArray(choices) || choices.length < 1 || choices.length > MAX_CHOICES) {
        throw new Error(`ask: choices must be a list of 1 … ${MAX_CHOICES} lines`);
      }
      if (callback !== undefined && callback !== null && !(callback instanceof LuaFunctionRef)) {
        throw new Error("ask: the third argument is a function(choice)");
      }
      const spec_ = conversation(
        text(dialog.title ?? "", MAX_TITLE_CHARS),
        text(dialog.text ?? "", MAX_TEXT_CHARS),
        choices.map((choice) => text(choice, MAX_CHOICE_CHARS)),
      );
      const answer = callback instanceof LuaFunctionRef ? callback : null;
      let waiting = "";
      const id = this.ports.dialogs.open(
        session,
        spec_,
        (reply) => {
          const kept = file.answers.get(waiting);
          if (kept === undefined) return; // let go since (the oldest beyond the bound, or a reload)
          file.answers.delete(waiting);
          // Later, as an event of its own (a reply can come while no script runs, but never inside one).
          this.callback(file, kept.sandbox, kept, [reply.returnCode], true);
        },
        { key: `script:${file.name}` },
      );
      if (answer === null) return;
      waiting = `${session.tokenHex}:${id}`;
      // The same dialog asked again while open: the open one is re-sent and keeps its first callback.
      if (file.answers.has(waiting)) return sandbox.releaseRef(answer);
      file.answers.set(waiting, answer);
      if (file.answers.size > MAX_ANSWERS_WAITING) {
        const [oldest, ref] = file.answers.entries().next().value!;
        file.answers.delete(oldest);
        sandbox.releaseRef(ref);
      }
    });
    sandbox.expose("shop.open", ([who, id, speaker]) => {
      const session = this.sessionOf(who, "shop.open");
      if (typeof id !== "string" || !this.shops.has(id))
        throw new Error(`shop.open: no shop ${JSON.stringify(id)} is defined`);
      this.shops.open(session, id, typeof speaker === "string" ? speaker : "");
    });
    sandbox.expose("shop.stock", ([id, item]) => {
      if (typeof id !== "string" || typeof item !== "string")
        throw new Error("shop.stock: a shop id and an item's name");
      return this.shops.stockOf(id, item);
    });
    sandbox.expose("items.count", ([who, item]) => {
      const session = this.sessionOf(who, "items.count");
      return this.ports.items.countOf(session, itemNamed(item, catalogue, "items.count").id);
    });
    sandbox.expose("items.exchange", ([who, spec, callback]) => {
      const session = this.sessionOf(who, "items.exchange");
      const change = table(spec, "items.exchange");
      const take = stacksOf(change.take, catalogue, "items.exchange: take");
      const give = stacksOf(change.give, catalogue, "items.exchange: give");
      const answer = callback instanceof LuaFunctionRef ? callback : null;
      this.ports.items.exchange(session, take, give, (outcome) => {
        if (answer !== null) this.callback(file, sandbox, answer, [outcome], true);
      });
    });
    sandbox.expose("quest.state", ([who, id]) => {
      const session = this.sessionOf(who, "quest.state");
      const standing = this.quests.standing(session, questId(id, "quest.state"));
      return { state: standing.state, progress: standing.progress, goal: standing.goal };
    });
    sandbox.expose("quest.offered", ([who, id]) =>
      this.quests.offered(this.sessionOf(who, "quest.offered"), questId(id, "quest.offered")),
    );
    sandbox.expose("quest.start", ([who, id]) =>
      this.quests.start(this.sessionOf(who, "quest.start"), questId(id, "quest.start")),
    );
    sandbox.expose("quest.progress", ([who, id, amount]) => {
      const session = this.sessionOf(who, "quest.progress");
      const standing = this.quests.progress(
        session,
        questId(id, "quest.progress"),
        typeof amount === "number" ? amount : 1,
      );
      return standing === null ? null : { state: standing.state, progress: standing.progress, goal: standing.goal };
    });
    sandbox.expose("quest.complete", ([who, id, callback]) => {
      const session = this.sessionOf(who, "quest.complete");
      const quest = questId(id, "quest.complete");
      const answer = callback instanceof LuaFunctionRef ? callback : null;
      this.handIn(session, quest, (outcome) => {
        if (answer !== null) this.callback(file, sandbox, answer, [outcome], true);
      });
    });
    sandbox.expose("warp", ([who, x, y]) => {
      const session = this.sessionOf(who, "warp");
      if (typeof x !== "number" || typeof y !== "number" || !Number.isInteger(x) || !Number.isInteger(y)) {
        throw new Error("warp: x and y are whole tile coordinates");
      }
      if (!this.ports.walkable(x, y)) throw new Error(`warp: (${x}, ${y}) is not a free tile`);
      this.ports.warps.teleport(session.entity, x, y);
    });
    sandbox.expose("give_xp", ([who, amount]) => {
      const session = this.sessionOf(who, "give_xp");
      const xp = wholeNumber(amount, 1, MAX_XP_GRANT, "give_xp: the experience");
      return this.ports.experience.gain(session.entity, xp, `script ${file.name}`);
    });
    sandbox.expose("after", ([ticks, callback]) => {
      wholeNumber(ticks, 1, MAX_TIMER_TICKS, "after: the ticks");
      if (!(callback instanceof LuaFunctionRef)) throw new Error("after: the second argument is a function");
      if (file.timers >= MAX_TIMERS_PER_FILE)
        throw new Error(`after: ${MAX_TIMERS_PER_FILE} timers are waiting already`);
      file.timers++;
      this.timers.push({
        dueTick: this.ports.clock.tick + (ticks as number),
        order: this.timerOrder++,
        file,
        sandbox,
        callback,
      });
    });
    sandbox.expose("random", ([n]) => {
      if (typeof n !== "number" || !Number.isInteger(n) || n < 1)
        throw new Error("random: a whole number n ≥ 1 (draws 1 … n)");
      return 1 + Math.floor(this.random() * n);
    });
    sandbox.expose("world.tick", () => this.ports.clock.tick);
    sandbox.expose("world.night", () => this.ports.isNight(this.ports.clock.tick));
    sandbox.expose("log", ([line]) => {
      this.remember(`${file.name}: ${text(line, LOG_LINE_MAX)}`);
    });
  }

  /**
   * A player talks to (uses) creature `entity`: the talk handlers of its kind, from every file, in file
   * order. True when there was one (the query was a conversation).
   */
  onQuery(session: Session, entity: StoredEntity): boolean {
    const npc = this.ports.npcs.get(entity.id);
    if (npc === undefined || entity.hp === 0) return false;
    const kind = npc.kind.name;
    const reach = Math.max(Math.abs(session.entity.x - entity.x), Math.abs(session.entity.y - entity.y));
    let handled = false;
    for (const file of this.files) {
      const fn = file.handlers.talk.get(kind);
      if (fn === undefined || file.sandbox === null) continue;
      handled = true;
      if (reach > TALK_REACH) continue;
      this.event(file, file.sandbox, fn, [npcValue(npc.entity, kind), playerValue(session)]);
    }
    return handled && reach <= TALK_REACH;
  }

  /** Whether creatures of kind `name` can be talked to (some file handles on.talk for it). */
  talks(kindName: string): boolean {
    return this.files.some((file) => file.handlers.talk.has(kindName));
  }

  /** A player killed a creature: the kill handlers of its kind and of "*". */
  onKill(killer: StoredEntity, victim: StoredEntity): void {
    const session = this.ports.sessions.byEntityId(killer.id);
    const kind = this.kindNames.get(victim.typeId);
    if (session === undefined || kind === undefined) return;
    for (const file of this.files) {
      if (file.sandbox === null) continue;
      for (const name of [kind, "*"]) {
        const fn = file.handlers.kill.get(name);
        if (fn !== undefined) this.event(file, file.sandbox, fn, [playerValue(session), npcValue(victim, kind)]);
      }
    }
  }

  /** Something happened to a player's items (the item room, once it is durable): heard at the end of the tick. */
  onItem(session: Session, event: ItemEvent): void {
    this.enqueue({ kind: "item", session, event });
  }

  /**
   * End of a tick: the events that waited for it (items, quest steps), where players moved to (zones,
   * depths), the timers due, then night falling or day breaking.
   */
  endTick(tick: number): void {
    this.deliverQueued();
    if (this.watchesPlaces) this.lookAtPlayers();
    if (this.timers.length > 0) {
      const due = this.timers
        .filter((timer) => timer.dueTick <= tick)
        .sort((a, b) => a.dueTick - b.dueTick || a.order - b.order);
      if (due.length > 0) {
        const dueSet = new Set(due);
        for (let index = this.timers.length - 1; index >= 0; index--)
          if (dueSet.has(this.timers[index])) this.timers.splice(index, 1);
        for (const timer of due) {
          timer.file.timers--;
          this.callback(timer.file, timer.sandbox, timer.callback, [], true);
        }
      }
    }
    const night = this.ports.isNight(tick);
    if (this.night !== null && night !== this.night) {
      for (const file of this.files) {
        if (file.sandbox === null) continue;
        for (const fn of night ? file.handlers.night : file.handlers.day) this.event(file, file.sandbox, fn, []);
      }
    }
    this.night = night;
    if (tick % 24 === 0) this.shops.second();
  }

  private enqueue(event: QueuedEvent): void {
    if (this.queued.length >= MAX_QUEUED_EVENTS) {
      this.stats.eventsDropped++;
      if (this.stats.eventsDropped === 1 || this.stats.eventsDropped % 1000 === 0) {
        this.ports.log.warn("content script events dropped", {
          dropped: this.stats.eventsDropped,
          waiting: MAX_QUEUED_EVENTS,
        });
      }
      return;
    }
    this.queued.push(event);
  }

  /** The events that waited for the end of the tick, in the order they happened (and those they make, after). */
  private deliverQueued(): void {
    // An event's handler may make more (a quest step in a pickup handler): those wait for the next tick,
    // so one tick's work stays bounded.
    const events = this.queued.splice(0, this.queued.length);
    for (const queued of events) {
      const session = queued.session;
      // The player left since: nobody to hand the event.
      if (this.ports.sessions.byEntityId(session.entity.id) !== session) continue;
      if (queued.kind === "quest") {
        if (this.quests.get(queued.quest) === undefined) continue;
        const standing = this.quests.standing(session, queued.quest);
        const value = { id: queued.quest, state: standing.state, progress: standing.progress, goal: standing.goal };
        this.toHandlers(
          (h) => h.quest,
          queued.quest,
          () => [playerValue(session), value],
        );
        continue;
      }
      const item = this.ports.catalogue.get(queued.event.itemId);
      if (item === undefined) continue;
      const which = queued.event.kind;
      this.toHandlers(
        (h) => h[which],
        item.name,
        () => [playerValue(session), item.name, queued.event.count],
      );
    }
  }

  /** Calls every file's handler for `name` and for "*" in `pick`'s map, in file order. */
  private toHandlers(
    pick: (handlers: Handlers) => Map<string, LuaFunctionRef>,
    name: string,
    args: () => LuaValue[],
  ): void {
    for (const file of this.files) {
      if (file.sandbox === null) continue;
      const map = pick(file.handlers);
      if (map.size === 0) continue;
      for (const key of name === "*" ? ["*"] : [name, "*"]) {
        const fn = map.get(key);
        if (fn !== undefined) this.event(file, file.sandbox, fn, args());
      }
    }
  }

  /** Each player in play who moved: the zones it entered and left, the depth it reached. */
  private lookAtPlayers(): void {
    for (const session of this.ports.sessions.values()) {
      const { x, y } = session.entity;
      for (const change of this.places.look(session, x, y)) {
        if (change.kind === "level") {
          for (const file of this.files) {
            if (file.sandbox === null) continue;
            for (const fn of file.handlers.level)
              this.event(file, file.sandbox, fn, [playerValue(session), change.depth]);
          }
          continue;
        }
        const zone = change.zone;
        const value = { name: zone.name, x: zone.x, y: zone.y, width: zone.width, height: zone.height };
        this.toHandlers(
          (h) => h[change.kind === "enter" ? "enter" : "leave"],
          zone.name,
          () => [playerValue(session), value],
        );
      }
    }
  }

  /** Instructions scripts ran since the last call: the NPC room takes them from its think budget. */
  takeSteps(): number {
    const steps = this.stepsSinceTaken;
    this.stepsSinceTaken = 0;
    return steps;
  }

  /** The think budget units `steps` instructions cost. */
  static unitsOf(steps: number): number {
    return Math.ceil(steps / STEPS_PER_THINK_UNIT);
  }

  /**
   * Hands quest `id` in: what it asks handed over (`hand_in`) leaves the bag, the reward enters it, its
   * experience is the player's and the quest is done — one transaction, all or nothing ("no_item" when
   * the player lacks what it asks).
   */
  private handIn(session: Session, id: string, done: (outcome: string) => void): void {
    const handIn = this.quests.handIn(session, id);
    if (handIn === null) return done("not_ready");
    const reward = this.files.flatMap((file) => file.handlers.rewards.get(id) ?? []);
    const take = this.files.flatMap((file) => file.handlers.handIns.get(id) ?? []);
    const xp = this.files.reduce((sum, file) => sum + (file.handlers.xpRewards.get(id) ?? 0), 0);
    this.ports.items.exchange(
      session,
      take,
      reward,
      (outcome) => {
        if (outcome === "ok") {
          if (xp > 0) this.ports.experience.gain(session.entity, xp, `quest ${id}`);
          handIn.apply();
        }
        done(outcome);
      },
      // The quest and its experience land with the items, in one transaction (ItemWrite.content).
      handIn.row === null
        ? undefined
        : {
            quests: [handIn.row],
            xp: xp > 0 ? [{ accountId: handIn.row.accountId, xp: addXp(session.entity.xp, xp) }] : [],
          },
    );
  }

  /** The status /api/status and the admin API show: each file, its failures, the last script log lines. */
  status(): Record<string, unknown> {
    return {
      ...this.stats,
      files: this.files.map((file) => ({
        name: file.name,
        running: file.sandbox !== null,
        loadError: file.loadError,
        errors: file.errors,
        lastError: file.lastError,
        memoryBytes: file.sandbox?.used ?? 0,
        timers: file.timers,
        resting: file.restUntilTick > this.ports.clock.tick,
        rests: file.rests,
      })),
      quests: [...this.quests.values()].map((quest) => quest.id),
      shops: { ...this.shops.stats },
      log: [...this.logLines],
    };
  }

  /** GET /api/quests: every quest's number, title and text, with the catalogue's version. */
  catalogue(): {
    version: number;
    quests: {
      number: number;
      id: string;
      title: string;
      text: string;
      goal: number;
      giver: string | null;
      /** What handing it in gives: items by name, and experience. */
      reward: { items: { item: string; count: number }[]; xp: number };
    }[];
  } {
    return {
      version: this.quests.catalogueVersion,
      quests: [...this.quests.values()].map((quest) => ({
        number: quest.number,
        id: quest.id,
        title: quest.title,
        text: quest.text,
        goal: quest.goal,
        giver: quest.giver,
        reward: {
          items: this.files.flatMap((file) =>
            (file.handlers.rewards.get(quest.id) ?? []).map(({ itemId, count }) => ({
              item: this.ports.catalogue.get(itemId)?.name ?? `item ${itemId}`,
              count,
            })),
          ),
          xp: this.files.reduce((sum, file) => sum + (file.handlers.xpRewards.get(quest.id) ?? 0), 0),
        },
      })),
    };
  }

  /** The `quests` and `quest_marks` TLVs of `session`'s own EntityDetail; none when no quest is defined. */
  detailTlvs(session: Session): Tlv[] {
    if (this.quests.catalogueVersion === 0 || [...this.quests.values()].length === 0) return [];
    const marks = this.quests.marks(session, (name) => this.typeIds.get(name));
    return [
      { kind: "quests", catalogueVersion: this.quests.catalogueVersion, quests: this.quests.entries(session) },
      ...(marks.length > 0 ? [{ kind: "quest_marks" as const, marks }] : []),
    ];
  }

  /** Closes every state (the server stops). */
  close(): void {
    for (const file of this.files) file.sandbox?.close();
    this.files.length = 0;
    this.timers.length = 0;
    this.dueCallbacks.length = 0;
  }

  /** An event into a file's state (the top of the stack: never inside another script call). */
  private event(file: ScriptFile, sandbox: LuaSandbox, fn: LuaFunctionRef, args: LuaValue[]): void {
    if (file.restUntilTick > this.ports.clock.tick) {
      this.stats.eventsRested++;
      return;
    }
    this.stats.events++;
    try {
      sandbox.callRef(fn, args, EVENT_BUDGET);
    } catch (error) {
      this.failed(file, error);
    } finally {
      this.charge(sandbox.lastSteps);
    }
    this.runDueCallbacks();
  }

  /** A callback the script handed over (a dialog's answer, an exchange's outcome, a timer): called once, then let go. */
  private callback(
    file: ScriptFile,
    sandbox: LuaSandbox,
    fn: LuaFunctionRef,
    args: LuaValue[],
    release: boolean,
  ): void {
    // Due inside a script call (an exchange answered in the same turn): it runs when that call returns.
    if (this.ports.runtime.current !== null) {
      this.dueCallbacks.push(() => this.callback(file, sandbox, fn, args, release));
      return;
    }
    // The file was reloaded or removed since: its old state is closed, and the callback goes with it.
    if (file.sandbox !== sandbox) return;
    this.event(file, sandbox, fn, args);
    if (release) sandbox.releaseRef(fn);
  }

  /** The callbacks that came due during script calls, in order, each an event of its own (once no call runs). */
  private runDueCallbacks(): void {
    if (this.runningDue || this.ports.runtime.current !== null) return;
    this.runningDue = true;
    try {
      // A callback may make more come due (an exchange in an exchange's outcome): they join the end.
      while (this.dueCallbacks.length > 0) this.dueCallbacks.shift()!();
    } finally {
      this.runningDue = false;
    }
  }

  private charge(steps: number): void {
    this.stats.steps += steps;
    this.stepsSinceTaken += steps;
  }

  /** A script stopped: logged with where, counted, shown on the status; one stopped too often rests. */
  private failed(file: ScriptFile, error: unknown): void {
    const message = error instanceof Error ? error.message : String(error);
    const costly = error instanceof ScriptError && (error.kind === "budget" || error.kind === "memory");
    if (error instanceof ScriptError && error.kind === "budget") this.stats.budgetStops++;
    if (error instanceof ScriptError && error.kind === "memory") this.stats.memoryStops++;
    this.fail(file, message);
    if (costly) this.stoppedAt(file, this.ports.clock.tick);
  }

  /** A budget or memory stop at `tick`: the STOPS_BEFORE_REST-th within STOP_WINDOW_TICKS starts a rest. */
  private stoppedAt(file: ScriptFile, tick: number): void {
    const stops = file.stopTicks;
    stops.push(tick);
    while (stops.length > 0 && stops[0] <= tick - STOP_WINDOW_TICKS) stops.shift();
    if (stops.length < STOPS_BEFORE_REST) return;
    stops.length = 0;
    // A rest right after the last one doubles (the file is still hostile); after a quiet window, the first length again.
    const again = file.rests > 0 && tick - file.restUntilTick < STOP_WINDOW_TICKS;
    const length = again ? Math.min(MAX_REST_TICKS, file.lastRestTicks * 2) : REST_TICKS;
    file.restUntilTick = tick + length;
    file.lastRestTicks = length;
    file.rests++;
    this.remember(
      `${file.name}: resting ${length} ticks: stopped ${STOPS_BEFORE_REST} times within ${STOP_WINDOW_TICKS} ticks`,
    );
    this.ports.log.warn("content script resting", {
      file: file.name,
      stops: STOPS_BEFORE_REST,
      withinTicks: STOP_WINDOW_TICKS,
      restTicks: length,
      lastError: file.lastError,
    });
  }

  private fail(file: ScriptFile, message: string): void {
    file.errors++;
    file.lastError = message;
    this.stats.errors++;
    // A script that fails at every event must not flood the log: a line a second per file, with a count.
    const nowMs = performance.now();
    if (nowMs - file.loggedAtMs < 1000) {
      file.unlogged++;
      return;
    }
    this.remember(`${file.name}: error: ${message}`);
    this.ports.log.warn("content script stopped", {
      file: file.name,
      error: message,
      ...(file.unlogged > 0 ? { alsoSince: file.unlogged } : {}),
    });
    file.loggedAtMs = nowMs;
    file.unlogged = 0;
  }

  private remember(line: string): void {
    this.logLines.push(line);
    if (this.logLines.length > LOG_KEPT) this.logLines.shift();
  }

  /** A player's quests changed: its own detail (with the quests TLV) goes out again. */
  private showQuests(session: Session): void {
    this.ports.items.sendDetail(session, session.entity);
  }

  /** The session a script names (a player table or an entity id); throws when it is not in play. */
  private sessionOf(who: LuaValue | undefined, what: string): Session {
    const id = entityIdOf(who);
    const session = id === null ? undefined : this.ports.sessions.byEntityId(id);
    if (session === undefined) throw new Error(`${what}: no player ${id ?? JSON.stringify(who)} is in play`);
    return session;
  }

  private npcOf(who: LuaValue | undefined, what: string): { readonly entity: StoredEntity } {
    const id = entityIdOf(who);
    const npc = id === null ? undefined : this.ports.npcs.get(id);
    if (npc === undefined) throw new Error(`${what}: no creature ${id ?? JSON.stringify(who)} is here`);
    return npc;
  }
}

/** A file as the room holds it before its first load. */
function newFile(name: string): ScriptFile {
  return {
    name,
    sandbox: null,
    handlers: emptyHandlers(),
    loadError: null,
    errors: 0,
    lastError: null,
    timers: 0,
    answers: new Map(),
    loggedAtMs: -Infinity,
    unlogged: 0,
    stopTicks: [],
    restUntilTick: 0,
    lastRestTicks: 0,
    rests: 0,
  };
}

function emptyHandlers(): Handlers {
  return {
    talk: new Map(),
    kill: new Map(),
    night: [],
    day: [],
    enter: new Map(),
    leave: new Map(),
    level: [],
    pickup: new Map(),
    use: new Map(),
    equip: new Map(),
    quest: new Map(),
    quests: [],
    rewards: new Map(),
    xpRewards: new Map(),
    handIns: new Map(),
    shops: [],
  };
}

/** Whether tick `tick` of a world whose clock says `timeOfDay` is night. */
export function nightAt(timeOfDay: number): boolean {
  return partOfDay(timeOfDay) === "night";
}
