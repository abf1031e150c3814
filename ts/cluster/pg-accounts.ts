// Accounts and characters in the PostgreSQL store a cluster's processes share (docs/scaling.md §
// Accounts): the AccountPort registration and login use, and the CharacterSink the CharacterSaver
// writes to. The schema is the SQLite one (pg-migrate.ts runs the same migrations).
//
// A character is written by exactly one process at a time. Before a process plays a character it
// takes the character's lease — a session-level advisory lock on its connection, which PostgreSQL
// frees when that connection dies — and gives it back after the character's last save, when its
// session ends or moves to another process. The lease is not only remembered here: every save is
// an UPDATE that writes only the rows whose lease this very connection holds in pg_locks, so a
// process that lost its lease (its connection replaced, a bug) cannot overwrite the new writer.
//
// Saves are asynchronous (the tick must not wait on the network): each account's newest unwritten
// state waits in `pending`, one batch is in flight at a time, a failed batch is tried again a
// second later with whatever is newest by then.
import { type AccountPort, CharacterBusyError } from "../server/accounts/account-port.js";
import { accountNameKey } from "../server/accounts/account-rules.js";
import { type AccountRecord, NameTakenError } from "../server/accounts/account-store.js";
import type { Logger } from "../server/ops/log.js";
import type { CharacterSink } from "../server/persistence/character-saver.js";
import { type CharacterState, type DungeonPlace, NEW_CHARACTER } from "../server/persistence/character-store.js";
import { QUEST_STATES, type QuestRecord, type QuestState } from "../server/persistence/quest-store.js";
import { StoreUnavailableError } from "../server/persistence/store-unavailable.js";
import type { Queryable } from "./pg-connection.js";

/** The advisory lock space (first key) of character leases ("fc-char"); the account id is the second key. */
export const CHARACTER_LOCK_SPACE = 0x66636368;
/**
 * SQL true when this very connection holds the lease of the character whose account id is `account`
 * (an SQL expression), `space` being the parameter that carries CHARACTER_LOCK_SPACE: the guard of every
 * write of a character's rows (here, and its bag: pg-items.ts).
 */
export function leaseHeld(account: string, space: string): string {
  return `EXISTS (SELECT 1 FROM pg_locks l
                  WHERE l.locktype = 'advisory' AND l.granted AND l.pid = pg_backend_pid()
                    AND l.classid = ${space}::bigint::oid AND l.objid = (${account})::oid AND l.objsubid = 2)`;
}

/** How long a login waits for a lease another process is giving back (a handoff under way). */
const LOGIN_WAIT_MS = 2_000;
/** How long a session arriving from another process waits for that process to give the lease back. */
const ADOPT_WAIT_MS = 30_000;
const RETRY_MS = 50;
/** A failed batch is tried again after this long. */
const FAILED_RETRY_MS = 1_000;

export interface PgAccountStats {
  /** Batches written, character rows they wrote, rows the lease check refused, batches that failed. */
  batches: number;
  rows: number;
  refused: number;
  failures: number;
  /** Leases taken, and attempts that found the lease held elsewhere. */
  acquired: number;
  busy: number;
}

interface Pending {
  state: CharacterState;
  nowMs: number;
}

interface AccountRow {
  id: string;
  name: string;
  nick: string;
  password_hash: string;
  banned_reason: string | null;
  banned_until_ms: string | null;
  appearance: number | null;
}

interface CharacterRow {
  map: string | null;
  x: string | null;
  y: string | null;
  hp: string;
  hp_max: string;
  elo: string;
  xp: string;
  dungeon_seed: string | null;
  dungeon_depth: string | null;
  dungeon_size: string | null;
  dungeon_x: string | null;
  dungeon_y: string | null;
}

/** The row's place in a dungeon level (migration 0012), when all of its columns are set. */
function dungeonOf(row: CharacterRow): DungeonPlace | null {
  const columns = [row.dungeon_seed, row.dungeon_depth, row.dungeon_size, row.dungeon_x, row.dungeon_y];
  if (columns.some((value) => value === null)) return null;
  const [seed, depth, size, x, y] = columns.map(Number);
  return { seed, depth, size, x, y };
}

/** A quest standing waiting to be written, and the saves that settle when it is. */
interface QuestWrite {
  record: QuestRecord;
  waiters: { resolve: () => void; reject: (error: Error) => void }[];
}

/** The most quest rows one batch writes. */
const QUEST_BATCH_MAX = 500;

const numberOrNull = (value: string | null) => (value === null ? null : Number(value));

export class PgAccounts implements AccountPort, CharacterSink {
  readonly stats: PgAccountStats = { batches: 0, rows: 0, refused: 0, failures: 0, acquired: 0, busy: 0 };
  /** Leases this connection holds. */
  private readonly held = new Set<number>();
  private readonly acquiring = new Map<number, Promise<boolean>>();
  /** Leases to give back once their character's last state is written. */
  private readonly releasing = new Set<number>();
  private readonly pending = new Map<number, Pending>();
  private inFlight = new Map<number, Pending>();
  /** Quest standings waiting to be written, by account and quest: the newest, and who waits for it. */
  private readonly questWrites = new Map<number, Map<string, QuestWrite>>();
  /** The quests read with a character at its login, until its session asks for them (questsOf). */
  private readonly questsRead = new Map<number, QuestRecord[]>();
  private flushing: Promise<void> | null = null;
  private retryTimer: NodeJS.Timeout | null = null;
  private closed = false;
  /**
   * Called when a login finds the character played by another process: a cluster asks that process to
   * end its session (account-kicks.ts), which gives the lease back while the login waits.
   */
  onBusy: ((accountId: number) => void) | null = null;

  constructor(
    private readonly client: Queryable,
    private readonly log: Logger,
  ) {}

  /**
   * Called for each character whose lease could not be taken again after the connection was lost (another
   * process took it meanwhile): its session here must end, as its saves would be refused.
   */
  onLeaseLost: ((accountId: number) => void) | null = null;

  /**
   * Takes every lease this process held again, on `client`: the new connection made after the old one
   * (and with it every lease) was lost (pg-connection.ts). A lease another process took meanwhile is
   * given up here (onLeaseLost).
   */
  async relock(client: Queryable): Promise<void> {
    const lost: number[] = [];
    for (const accountId of this.held) {
      const result = await client.query<{ ok: boolean }>("SELECT pg_try_advisory_lock($1, $2) AS ok", [
        CHARACTER_LOCK_SPACE,
        accountId,
      ]);
      if (!result.rows[0].ok) lost.push(accountId);
    }
    for (const accountId of lost) {
      this.held.delete(accountId);
      this.pending.delete(accountId);
      // Its quest steps waiting here are not written: their players are not told of them.
      for (const write of this.questWrites.get(accountId)?.values() ?? []) {
        for (const waiter of write.waiters)
          waiter.reject(new Error(`character ${accountId}'s lease was taken elsewhere`));
      }
      this.questWrites.delete(accountId);
      this.log.error("a character's lease was taken elsewhere while the store was unreachable: its session ends", {
        accountId,
      });
      this.onLeaseLost?.(accountId);
    }
  }

  async findByName(name: string): Promise<AccountRecord | undefined> {
    const result = await this.client.query<AccountRow>(
      "SELECT id, name, nick, password_hash, banned_reason, banned_until_ms, appearance FROM accounts WHERE name_key = $1",
      [accountNameKey(name)],
    );
    const row = result.rows[0];
    return (
      row && {
        id: Number(row.id),
        name: row.name,
        nick: row.nick,
        passwordHash: row.password_hash,
        bannedReason: row.banned_reason,
        bannedUntilMs: numberOrNull(row.banned_until_ms),
        appearance: row.appearance === null ? null : Number(row.appearance),
      }
    );
  }

  /** The account and its character in one statement: both rows land, or neither. */
  async create(
    name: string,
    nick: string,
    passwordHash: string,
    character: CharacterState,
    nowMs: number,
    appearance: number | null,
  ): Promise<AccountRecord> {
    try {
      const result = await this.client.query<{ account_id: string }>(
        `WITH account AS (
           INSERT INTO accounts (name, name_key, nick, password_hash, created_at_ms, appearance)
           VALUES ($1, $2, $3, $4, $5, $6) RETURNING id)
         INSERT INTO characters (account_id, map, x, y, hp, hp_max, elo, xp, saved_at_ms)
         SELECT id, $7::text, $8::bigint, $9::bigint, $10::bigint, $11::bigint, $12::bigint, $13::bigint, $5 FROM account
         RETURNING account_id`,
        [
          name,
          accountNameKey(name),
          nick,
          passwordHash,
          nowMs,
          appearance,
          character.map,
          character.x,
          character.y,
          character.hp,
          character.hpMax,
          character.elo,
          character.xp,
        ],
      );
      const id = Number(result.rows[0].account_id);
      return { id, name, nick, passwordHash, bannedReason: null, bannedUntilMs: null, appearance };
    } catch (error) {
      if ((error as { code?: string }).code === "23505") throw new NameTakenError(`name "${name}" is taken`);
      throw error;
    }
  }

  async setAppearance(accountId: number, appearance: number): Promise<void> {
    await this.client.query("UPDATE accounts SET appearance = $1 WHERE id = $2", [appearance, accountId]);
  }

  async recordLogin(accountId: number, nowMs: number): Promise<void> {
    await this.client.query("UPDATE accounts SET last_login_at_ms = $1 WHERE id = $2", [nowMs, accountId]);
  }

  /** Takes the character's lease (waiting a little for one being handed over), then reads it. */
  async loadCharacter(accountId: number): Promise<CharacterState> {
    if (!(await this.acquire(accountId, LOGIN_WAIT_MS, true))) {
      throw new CharacterBusyError(`character ${accountId} is played by another process`);
    }
    await this.readQuests(accountId);
    // What this process has not written yet is newer than the row: nobody else may write it.
    const local = this.pending.get(accountId) ?? this.inFlight.get(accountId);
    if (local !== undefined) return local.state;
    const result = await this.client.query<CharacterRow>(
      `SELECT map, x, y, hp, hp_max, elo, xp, dungeon_seed, dungeon_depth, dungeon_size, dungeon_x, dungeon_y
       FROM characters WHERE account_id = $1`,
      [accountId],
    );
    const row = result.rows[0];
    if (row === undefined) return NEW_CHARACTER;
    return {
      map: row.map,
      x: numberOrNull(row.x),
      y: numberOrNull(row.y),
      hp: Number(row.hp),
      hpMax: Number(row.hp_max),
      elo: Number(row.elo),
      xp: Number(row.xp),
      dungeon: dungeonOf(row),
    };
  }

  /**
   * Takes a session's character that another process is handing over: its saves wait here until
   * that process has written its last one and given the lease back. False when it never did.
   */
  adopt(accountId: number): Promise<boolean> {
    return this.acquire(accountId, ADOPT_WAIT_MS).then((ok) => {
      if (!ok) this.log.error("a character handed over never got its lease: its saves are refused", { accountId });
      return ok;
    });
  }

  /**
   * The quests of a character whose lease is here, read with it at its login (QuestStorePort.load, for
   * the session that starts next): what the store holds, with what this process has not written yet.
   */
  questsOf(accountId: number): QuestRecord[] {
    const read = this.questsRead.get(accountId) ?? [];
    this.questsRead.delete(accountId);
    const byQuest = new Map(read.map((record) => [record.quest, record]));
    for (const [quest, write] of this.questWrites.get(accountId) ?? []) byQuest.set(quest, write.record);
    return [...byQuest.values()].sort((a, b) => (a.quest < b.quest ? -1 : a.quest > b.quest ? 1 : 0));
  }

  /**
   * Writes a quest's standing (QuestStorePort.save) with the character's other rows: after its lease
   * is here (a handoff's waits), before the lease goes back, tried again while the store is away. The
   * promise settles once it is written — or refused: the lease is not here.
   */
  saveQuest(accountId: number, record: QuestRecord): Promise<void> {
    return new Promise((resolve, reject) => {
      let quests = this.questWrites.get(accountId);
      if (quests === undefined) {
        quests = new Map();
        this.questWrites.set(accountId, quests);
      }
      const write = quests.get(record.quest);
      if (write === undefined) quests.set(record.quest, { record, waiters: [{ resolve, reject }] });
      else {
        write.record = record;
        write.waiters.push({ resolve, reject });
      }
      this.schedule();
    });
  }

  private async readQuests(accountId: number): Promise<void> {
    const result = await this.client.query<{ quest: string; state: string; progress: string }>(
      "SELECT quest, state, progress FROM character_quests WHERE account_id = $1 ORDER BY quest",
      [accountId],
    );
    this.questsRead.set(
      accountId,
      result.rows.flatMap((row) =>
        (QUEST_STATES as readonly string[]).includes(row.state)
          ? [{ quest: row.quest, state: row.state as QuestState, progress: Number(row.progress) }]
          : [],
      ),
    );
  }

  /** CharacterSink: a character handed over from another process; its saves wait here for its lease. */
  takeCharacter(accountId: number): void {
    this.adopt(accountId).catch((error: unknown) => {
      this.log.error("a character handed over never got its lease: its saves are refused", {
        accountId,
        error: String(error),
      });
    });
  }

  /**
   * Whether this connection holds the character's lease, once a taking under way has ended; starts no
   * taking of its own (so it cannot keep a lease a session's end is giving back).
   */
  leased(accountId: number): Promise<boolean> {
    if (this.held.has(accountId)) return Promise.resolve(true);
    return this.acquiring.get(accountId) ?? Promise.resolve(false);
  }

  /** Whether this connection holds the character's lease. */
  holds(accountId: number): boolean {
    return this.held.has(accountId);
  }

  /**
   * Takes the lease of `accountId`, trying again for up to `waitMs` (asking its holder to let go, with
   * `askHolder`: onBusy); false when another process keeps it.
   */
  acquire(accountId: number, waitMs = 0, askHolder = false): Promise<boolean> {
    if (!Number.isSafeInteger(accountId) || accountId <= 0 || accountId > 0x7fffffff) {
      return Promise.reject(new RangeError(`account id ${accountId} is not a lease key`));
    }
    this.releasing.delete(accountId);
    if (this.held.has(accountId)) return Promise.resolve(true);
    const underway = this.acquiring.get(accountId);
    if (underway !== undefined) return underway;
    const attempt = (async () => {
      const deadline = performance.now() + waitMs;
      let asked = false;
      for (;;) {
        let result: { rows: { ok: boolean }[] };
        try {
          result = await this.client.query<{ ok: boolean }>("SELECT pg_try_advisory_lock($1, $2) AS ok", [
            CHARACTER_LOCK_SPACE,
            accountId,
          ]);
        } catch (error) {
          // The store unreachable: tried again within the wait (it may come back), then refused.
          if (this.closed || performance.now() + RETRY_MS > deadline) throw error;
          await new Promise((resolve) => setTimeout(resolve, RETRY_MS));
          continue;
        }
        if (result.rows[0].ok) {
          this.held.add(accountId);
          this.stats.acquired++;
          return true;
        }
        this.stats.busy++;
        if (askHolder && !asked) {
          asked = true;
          this.onBusy?.(accountId);
        }
        if (this.closed || performance.now() + RETRY_MS > deadline) return false;
        await new Promise((resolve) => setTimeout(resolve, RETRY_MS));
      }
    })();
    this.acquiring.set(accountId, attempt);
    const settle = () => {
      this.acquiring.delete(accountId);
      // Saves that waited for the lease go now; a release asked for meanwhile happens after them.
      this.schedule();
    };
    attempt.then(settle, settle);
    return attempt;
  }

  /** CharacterSink: the newest state of each character waits for the batch in flight to finish. */
  saveMany(rows: readonly { accountId: number; state: CharacterState }[], nowMs: number): void {
    for (const { accountId, state } of rows) this.pending.set(accountId, { state, nowMs });
    this.schedule();
  }

  /** CharacterSink: the lease goes back once the character's last state is written. */
  releaseCharacter(accountId: number): void {
    if (!this.held.has(accountId) && !this.acquiring.has(accountId)) return;
    this.releasing.add(accountId);
    this.schedule();
  }

  /** Resolves once every state given to saveMany is written (or refused), within `timeoutMs`; false if not. */
  async drain(timeoutMs = 10_000): Promise<boolean> {
    const deadline = performance.now() + timeoutMs;
    while (this.pending.size > 0 || this.questWrites.size > 0 || this.flushing !== null || this.acquiring.size > 0) {
      if (performance.now() > deadline) return false;
      await (this.flushing ?? new Promise((resolve) => setTimeout(resolve, RETRY_MS)));
    }
    return true;
  }

  /** Stops trying again; the connection's end gives every lease back. */
  close(): void {
    this.closed = true;
    if (this.retryTimer !== null) clearTimeout(this.retryTimer);
    // Quest saves still waiting are not written: their players are not told of them.
    for (const quests of this.questWrites.values()) {
      for (const write of quests.values()) {
        for (const waiter of write.waiters) waiter.reject(new Error("the store closed before the quest was written"));
      }
    }
    this.questWrites.clear();
  }

  private schedule(): void {
    if (this.flushing !== null || this.retryTimer !== null || this.closed) return;
    this.flushing = this.flush().finally(() => {
      this.flushing = null;
      // More arrived while the batch was in flight: the next batch goes at once.
      if (this.retryTimer === null && this.hasWork()) this.schedule();
    });
  }

  /** Whether a batch now would write or give back anything (not counting what waits for a lease). */
  private hasWork(): boolean {
    for (const accountId of this.pending.keys()) if (!this.acquiring.has(accountId)) return true;
    for (const accountId of this.questWrites.keys()) if (!this.acquiring.has(accountId)) return true;
    for (const accountId of this.releasing) {
      if (!this.acquiring.has(accountId) && !this.pending.has(accountId) && !this.questWrites.has(accountId)) {
        return true;
      }
    }
    return false;
  }

  private async flush(): Promise<void> {
    // Quests first: a failed store leaves everything waiting (the characters' rows too) for the retry.
    if (!(await this.flushQuests())) return;
    const batch = new Map<number, Pending>();
    for (const [accountId, row] of this.pending) {
      if (this.acquiring.has(accountId)) continue; // waits for its lease
      this.pending.delete(accountId);
      if (this.held.has(accountId)) batch.set(accountId, row);
      else {
        this.stats.refused++;
        this.log.warn("a character save without its lease is refused", { accountId });
      }
    }
    if (batch.size > 0) {
      this.inFlight = batch;
      try {
        await this.write(batch);
      } catch (error) {
        this.stats.failures++;
        // While the store is unreachable its connection's one line says so (pg-connection.ts).
        if (!(error instanceof StoreUnavailableError)) {
          this.log.error("saving characters failed; trying again", { rows: batch.size, error: String(error) });
        }
        // Put back what nothing newer replaced, and try again in a while.
        for (const [accountId, row] of batch) if (!this.pending.has(accountId)) this.pending.set(accountId, row);
        this.inFlight = new Map();
        if (!this.closed) {
          this.retryTimer = setTimeout(() => {
            this.retryTimer = null;
            this.schedule();
          }, FAILED_RETRY_MS);
        }
        return;
      }
      this.inFlight = new Map();
    }
    for (const accountId of [...this.releasing]) {
      if (this.pending.has(accountId) || this.acquiring.has(accountId) || this.questWrites.has(accountId)) continue;
      this.releasing.delete(accountId);
      this.questsRead.delete(accountId);
      if (!this.held.delete(accountId)) continue;
      try {
        await this.client.query("SELECT pg_advisory_unlock($1, $2)", [CHARACTER_LOCK_SPACE, accountId]);
      } catch (error) {
        this.log.warn("giving a character's lease back failed", { accountId, error: String(error) });
      }
    }
  }

  /**
   * Writes the waiting quest standings (of characters not waiting for their lease) in one statement,
   * each only where this connection holds its character's lease; settles their saves. False when the
   * store failed: they wait, and the flush is tried again a second later.
   */
  private async flushQuests(): Promise<boolean> {
    const batch: { accountId: number; write: QuestWrite }[] = [];
    for (const [accountId, quests] of this.questWrites) {
      if (this.acquiring.has(accountId)) continue; // waits for its lease
      for (const [quest, write] of quests) {
        if (batch.length >= QUEST_BATCH_MAX) break;
        quests.delete(quest);
        batch.push({ accountId, write });
      }
      if (quests.size === 0) this.questWrites.delete(accountId);
    }
    if (batch.length === 0) return true;
    let written: Set<string>;
    try {
      const result = await this.client.query<{ account_id: string; quest: string }>(
        `INSERT INTO character_quests (account_id, quest, state, progress)
         SELECT u.account_id, u.quest, u.state, u.progress
         FROM unnest($1::bigint[], $2::text[], $3::text[], $4::bigint[]) AS u(account_id, quest, state, progress)
         WHERE ${leaseHeld("u.account_id", "$5")}
         ON CONFLICT (account_id, quest) DO UPDATE SET state = excluded.state, progress = excluded.progress
         RETURNING account_id, quest`,
        [
          batch.map((row) => row.accountId),
          batch.map((row) => row.write.record.quest),
          batch.map((row) => row.write.record.state),
          batch.map((row) => row.write.record.progress),
          CHARACTER_LOCK_SPACE,
        ],
      );
      written = new Set(result.rows.map((row) => `${row.account_id} ${row.quest}`));
    } catch (error) {
      this.stats.failures++;
      // While the store is unreachable its connection's one line says so (pg-connection.ts).
      if (!(error instanceof StoreUnavailableError)) {
        this.log.error("saving quests failed; trying again", { rows: batch.length, error: String(error) });
      }
      // Back in line, unless a newer standing of the same quest came meanwhile (its waiters join it).
      for (const { accountId, write } of batch) {
        let quests = this.questWrites.get(accountId);
        if (quests === undefined) {
          quests = new Map();
          this.questWrites.set(accountId, quests);
        }
        const newer = quests.get(write.record.quest);
        if (newer === undefined) quests.set(write.record.quest, write);
        else newer.waiters.unshift(...write.waiters);
      }
      if (!this.closed) {
        this.retryTimer = setTimeout(() => {
          this.retryTimer = null;
          this.schedule();
        }, FAILED_RETRY_MS);
      }
      return false;
    }
    for (const { accountId, write } of batch) {
      if (written.has(`${accountId} ${write.record.quest}`)) {
        for (const waiter of write.waiters) waiter.resolve();
        continue;
      }
      this.stats.refused++;
      this.log.error("a quest save refused: this process does not hold the character's lease", {
        accountId,
        quest: write.record.quest,
      });
      for (const waiter of write.waiters) {
        waiter.reject(
          new Error(`quest ${write.record.quest} of character ${accountId} not written: its lease is elsewhere`),
        );
      }
    }
    return true;
  }

  /** One UPDATE for the whole batch, of the rows whose lease this connection holds in pg_locks. */
  private async write(batch: Map<number, Pending>): Promise<void> {
    const ids: number[] = [];
    const maps: (string | null)[] = [];
    const xs: (number | null)[] = [];
    const ys: (number | null)[] = [];
    const hps: number[] = [];
    const hpMaxes: number[] = [];
    const elos: number[] = [];
    const xps: number[] = [];
    const times: number[] = [];
    // Where in a dungeon level (null columns: on the map), as one process saves it (docs/dungeons.md).
    const dungeon: (number | null)[][] = [[], [], [], [], []];
    for (const [accountId, { state, nowMs }] of batch) {
      const place = state.dungeon ?? null;
      [place?.seed, place?.depth, place?.size, place?.x, place?.y].forEach((value, column) =>
        dungeon[column].push(value ?? null),
      );
      ids.push(accountId);
      maps.push(state.map);
      xs.push(state.x);
      ys.push(state.y);
      hps.push(state.hp);
      hpMaxes.push(state.hpMax);
      elos.push(state.elo);
      xps.push(state.xp);
      times.push(nowMs);
    }
    const result = await this.client.query<{ account_id: string }>(
      `UPDATE characters AS c
       SET map = u.map, x = u.x, y = u.y, hp = u.hp, hp_max = u.hp_max, elo = u.elo, xp = u.xp,
           saved_at_ms = u.saved_at_ms, dungeon_seed = u.dungeon_seed, dungeon_depth = u.dungeon_depth,
           dungeon_size = u.dungeon_size, dungeon_x = u.dungeon_x, dungeon_y = u.dungeon_y
       FROM unnest($1::bigint[], $2::text[], $3::bigint[], $4::bigint[], $5::bigint[], $6::bigint[], $7::bigint[],
                   $8::bigint[], $9::bigint[], $11::bigint[], $12::bigint[], $13::bigint[], $14::bigint[], $15::bigint[])
         AS u(account_id, map, x, y, hp, hp_max, elo, xp, saved_at_ms,
              dungeon_seed, dungeon_depth, dungeon_size, dungeon_x, dungeon_y)
       WHERE c.account_id = u.account_id AND ${leaseHeld("u.account_id", "$10")}
       RETURNING c.account_id`,
      [ids, maps, xs, ys, hps, hpMaxes, elos, xps, times, CHARACTER_LOCK_SPACE, ...dungeon],
    );
    const written = result.rows.length;
    this.stats.batches++;
    this.stats.rows += written;
    if (written < batch.size) {
      this.stats.refused += batch.size - written;
      const kept = new Set(result.rows.map((row) => Number(row.account_id)));
      const lost = ids.filter((id) => !kept.has(id));
      this.log.error("character saves refused: this process does not hold their lease in the database", { lost });
    }
  }
}
