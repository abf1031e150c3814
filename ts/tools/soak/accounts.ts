// The accounts a soak must not lose: registered over HTTP before the attack
// (spread over loopback sources, since registrations are rationed per source),
// logged into after it, and looked up in the database file once the server has
// stopped. The brute force aims at its own target accounts, which are held back
// for every address they were never played from (docs/server.md § HTTP limits):
// their owners log in after the attack from the addresses they registered from,
// which the guesses must not have locked out.
import Database from "better-sqlite3";
import { accountNameKey } from "../../server/accounts/account-rules.js";
import { postJsonFrom } from "./http-from.js";

/** Registrations the server allows one source per hour (docs/server.md § HTTP limits). */
const REGISTRATIONS_PER_SOURCE = 10;
const REQUEST_TIMEOUT_MS = 30_000;

export interface Account {
  name: string;
  password: string;
}

/** Loopback source i of the registration block (127.0.5.1, 127.0.5.2, …). */
export function registrationSource(index: number): string {
  return `127.0.5.${1 + Math.floor(index / REGISTRATIONS_PER_SOURCE)}`;
}

/** Registers `accounts` (names and nicks must be free); throws with the server's reason on the first refusal. */
export async function registerAccounts(httpPort: number, accounts: readonly Account[], offset = 0): Promise<void> {
  for (let index = 0; index < accounts.length; index++) {
    const { name, password } = accounts[index];
    const reply = await postJsonFrom(
      httpPort,
      "/api/register",
      { name, password, nick: name },
      registrationSource(offset + index),
      {},
      REQUEST_TIMEOUT_MS,
    );
    if (reply.status !== 200) {
      throw new Error(`registering ${name} was answered ${reply.status}: ${JSON.stringify(reply.body.error ?? "")}`);
    }
  }
}

/**
 * Logs every account in, one at a time, from `from(index)` (127.0.0.1 unless said); the names that did not
 * get a 200, with why.
 */
export async function failedLogins(
  httpPort: number,
  accounts: readonly Account[],
  from: (index: number) => string = () => "127.0.0.1",
): Promise<string[]> {
  const failed: string[] = [];
  for (const [index, { name, password }] of accounts.entries()) {
    try {
      const reply = await postJsonFrom(httpPort, "/api/login", { name, password }, from(index), {}, REQUEST_TIMEOUT_MS);
      if (reply.status !== 200) failed.push(`${name} (${reply.status}: ${JSON.stringify(reply.body.error ?? "")})`);
    } catch (error) {
      failed.push(`${name} (${(error as Error).message})`);
    }
  }
  return failed;
}

/** The names of `accounts` that are not in the stopped server's database file. */
export function missingFromDatabase(dbPath: string, accounts: readonly Account[]): string[] {
  const db = new Database(dbPath, { readonly: true, fileMustExist: true });
  try {
    const find = db.prepare("SELECT 1 FROM accounts WHERE name_key = ?");
    return accounts.filter((account) => find.get(accountNameKey(account.name)) === undefined).map((a) => a.name);
  } finally {
    db.close();
  }
}
