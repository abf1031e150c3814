// Registration and login (POST /api/register, /api/login; docs/server.md §
// Accounts): input rules, password hashing off the tick thread, and every
// refusal as an AccountError with its HTTP status — 400 bad input, 401 bad
// credentials, 403 banned, 409 name taken (or the character in play on another
// process of a cluster), 503 server full.
import { checkNick, lookalikeMessage } from "../sessions/nick.js";
import type { Session } from "../sessions/session.js";
import { type CharacterState, NEW_CHARACTER } from "../persistence/character-store.js";
import { type AccountPort, CharacterBusyError } from "./account-port.js";
import { type AccountRecord, NameTakenError } from "./account-store.js";
import { checkAccountName, checkPassword, PASSWORD_MAX_BYTES } from "./account-rules.js";
import { hashPassword, verifyPassword } from "./password.js";

export class AccountError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

/** A place held for a session about to start: taken by joinAccount, or given back. */
export interface Seat {
  release(): void;
}

/** What the service needs from the game: room, and entering the world. */
export interface AccountHost {
  /** Whether the account (already in play or not) can get a session now. */
  hasRoomFor(accountId: number | null): boolean;
  /**
   * Holds a place (and the nick, from other newcomers' lookalikes) while the store is asked, so the
   * server cannot fill up under a login in flight; null when there is no room.
   */
  reserve(accountId: number | null, nick: string): Seat | null;
  /** Starts a session for the account's character in `seat`; replaces a session it already has. */
  joinAccount(account: AccountRecord, character: CharacterState, seat: Seat): Session;
  /** The nick of a player in play that `nick` would pass for, or null (SessionLifecycle.nickInUse). */
  nickInUse(nick: string): string | null;
}

const BAD_CREDENTIALS = "wrong name or password";
const FULL = "server full";

export class AccountService {
  private dummyHash: Promise<string> | null = null;

  constructor(
    private readonly store: AccountPort,
    private readonly host: AccountHost,
  ) {}

  /** Creates an account (and its character) and starts its session. */
  async register(
    rawName: string,
    rawPassword: string,
    rawNick: string,
    appearance: number | null = null,
  ): Promise<Session> {
    const name = checkAccountName(rawName);
    if (!name.ok) throw new AccountError(400, name.reason);
    const password = checkPassword(rawPassword);
    if (!password.ok) throw new AccountError(400, password.reason);
    const nick = checkNick(rawNick);
    if (!nick.ok) throw new AccountError(400, nick.reason);
    // Cheap refusals first: hashing costs tens of milliseconds of a pool thread.
    if (await this.store.findByName(name.value)) throw new AccountError(409, `name "${name.value}" is taken`);
    if (!this.host.hasRoomFor(null)) throw new AccountError(503, FULL);
    this.refuseLookalike(nick.nick);
    const passwordHash = await hashPassword(password.value);
    // The slots may have filled, or a lookalike arrived, while the hash was computed. Checked again,
    // and a seat held while the account is created, so a refusal never leaves an account behind and
    // an account created always gets its session.
    this.refuseLookalike(nick.nick);
    const seat = this.host.reserve(null, nick.nick);
    if (seat === null) throw new AccountError(503, FULL);
    return this.playOn(seat, async () => {
      try {
        return await this.store.create(name.value, nick.nick, passwordHash, NEW_CHARACTER, Date.now(), appearance);
      } catch (error) {
        if (error instanceof NameTakenError) throw new AccountError(409, `name "${name.value}" is taken`);
        throw error;
      }
    });
  }

  /**
   * Checks the password and starts a session for the account's character,
   * where it was last saved. A session the account already has is replaced.
   * An `appearance` given is the character's look from now on (kept).
   */
  async login(rawName: string, rawPassword: string, appearance: number | null = null): Promise<Session> {
    if (rawName.trim() === "" || rawPassword === "") throw new AccountError(400, "name and password are required");
    const password = rawPassword.normalize("NFC");
    if (Buffer.byteLength(password, "utf8") > PASSWORD_MAX_BYTES) {
      throw new AccountError(400, `password must be at most ${PASSWORD_MAX_BYTES} bytes of UTF-8`);
    }
    const found = await this.store.findByName(rawName);
    if (!found) {
      // Same work as for a real account, so response times do not reveal which names exist.
      await verifyPassword(password, await this.dummy());
      throw new AccountError(401, BAD_CREDENTIALS);
    }
    if (!(await verifyPassword(password, found.passwordHash))) throw new AccountError(401, BAD_CREDENTIALS);
    // Re-read: the account may have been banned while the hash was computed.
    const current = await this.store.findByName(rawName);
    if (!current) throw new AccountError(401, BAD_CREDENTIALS);
    const ban = activeBan(current, Date.now());
    if (ban !== null) throw new AccountError(403, ban);
    const seat = this.host.reserve(current.id, current.nick);
    if (seat === null) throw new AccountError(503, FULL);
    return this.playOn(seat, async () => {
      if (appearance === null || appearance === current.appearance) return current;
      await this.store.setAppearance(current.id, appearance);
      return { ...current, appearance };
    });
  }

  /**
   * The end of a registration or a login, on the seat it holds: the account (`account` creates or
   * updates it), its character loaded, the login recorded, the session started. The seat is given
   * back if any of it fails, so a refusal never holds a slot.
   */
  private async playOn(seat: Seat, account: () => Promise<AccountRecord>): Promise<Session> {
    try {
      const record = await account();
      const character = await this.loadCharacter(record.id);
      await this.store.recordLogin(record.id, Date.now());
      return this.host.joinAccount(record, character, seat);
    } catch (error) {
      seat.release();
      throw error;
    }
  }

  /** A new account may not take a nick that passes for a player's in play (checked before and after hashing). */
  private refuseLookalike(nick: string): void {
    const lookalike = this.host.nickInUse(nick);
    if (lookalike !== null) throw new AccountError(409, lookalikeMessage(nick, lookalike));
  }

  private async loadCharacter(accountId: number): Promise<CharacterState> {
    try {
      return await this.store.loadCharacter(accountId);
    } catch (error) {
      if (error instanceof CharacterBusyError) {
        throw new AccountError(409, "this character is in play on another server of the world; try again in a moment");
      }
      throw error;
    }
  }

  private dummy(): Promise<string> {
    this.dummyHash ??= hashPassword("not a password anyone can log in with");
    return this.dummyHash;
  }
}

/** Why `account` may not play now, or null: a ban without an end, or one that has not ended yet. */
export function activeBan(
  account: Pick<AccountRecord, "bannedReason" | "bannedUntilMs">,
  nowMs: number,
): string | null {
  if (account.bannedReason === null) return null;
  if (account.bannedUntilMs === null) return `account banned: ${account.bannedReason}`;
  if (account.bannedUntilMs <= nowMs) return null;
  return `account banned until ${new Date(account.bannedUntilMs).toISOString()}: ${account.bannedReason}`;
}
