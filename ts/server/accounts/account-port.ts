// Where registration and login read and write accounts and characters: one asynchronous port, so
// the same AccountService runs over the embedded SQLite store of one process (SqliteAccounts, here)
// and over the PostgreSQL store a cluster's processes share (ts/cluster/pg-accounts.ts).
import type { AccountRecord, AccountStore } from "./account-store.js";
import { type CharacterState, type CharacterStore, NEW_CHARACTER } from "../persistence/character-store.js";

export interface AccountPort {
  findByName(name: string): Promise<AccountRecord | undefined>;
  /** Creates the account and its character together; rejects with NameTakenError when the name is taken. */
  create(
    name: string,
    nick: string,
    passwordHash: string,
    character: CharacterState,
    nowMs: number,
    appearance: number | null,
  ): Promise<AccountRecord>;
  setAppearance(accountId: number, appearance: number): Promise<void>;
  recordLogin(accountId: number, nowMs: number): Promise<void>;
  /**
   * The character to play, as last saved, and the right to write it from this process from now on;
   * rejects with CharacterBusyError when another process of the world plays it.
   */
  loadCharacter(accountId: number): Promise<CharacterState>;
  /** Gives back the right to write the character (after its last save); a no-op for one process. */
  releaseCharacter?(accountId: number): void;
}

/** The character is played (and written) by another process of the world. */
export class CharacterBusyError extends Error {}

/**
 * The embedded store of one process. Its work is synchronous; the promises it returns are already
 * settled, so a login over SQLite still does its database work within the turn it was asked in.
 */
export class SqliteAccounts implements AccountPort {
  constructor(
    private readonly accounts: AccountStore,
    private readonly characters: CharacterStore,
  ) {}

  async findByName(name: string): Promise<AccountRecord | undefined> {
    return this.accounts.findByName(name);
  }

  async create(
    name: string,
    nick: string,
    passwordHash: string,
    character: CharacterState,
    nowMs: number,
    appearance: number | null,
  ): Promise<AccountRecord> {
    return this.accounts.create(name, nick, passwordHash, character, nowMs, appearance);
  }

  async setAppearance(accountId: number, appearance: number): Promise<void> {
    this.accounts.setAppearance(accountId, appearance);
  }

  async recordLogin(accountId: number, nowMs: number): Promise<void> {
    this.accounts.recordLogin(accountId, nowMs);
  }

  async loadCharacter(accountId: number): Promise<CharacterState> {
    return this.characters.load(accountId) ?? NEW_CHARACTER;
  }
}
