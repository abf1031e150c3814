// A region's side of the bans of a cluster (docs/scaling.md § Bans in a cluster). What a ban request means
// is the one process's rule (AdminService.decideBan / decideUnban: the target, the address's key, the
// end); where it is kept is the shared PostgreSQL (pg-bans.ts), so a login at any region reads an
// account's ban and every gateway reads the address bans. The region a request reaches keeps the ban,
// ends the sessions it covers here and answers with its reach (the account's id, the address's key); the
// gateway then asks every other region to end theirs (POST /api/admin/end-banned, admin-fanout.ts). A
// session being handed over at that moment is in neither region's list: each region remembers the
// reaches it was told of for RECENT_BAN_MS, and a session arriving that one of them names is ended if the
// store says its ban is still in force (an unban since, and a login after it, let it play).
import type { IncomingMessage } from "node:http";
import {
  AdminError,
  type AdminService,
  type BanReach,
  type BanTarget,
  type UnbanTarget,
} from "../server/admin/admin-service.js";
import type { AddressBan } from "../server/admin/admin-store.js";
import { activeBan } from "../server/accounts/account-service.js";
import { addressKey } from "../server/edge/address-key.js";
import { type AdminAuthorizer } from "../server/http/admin-routes.js";
import type { BanDesk } from "../server/http/admin-routes.js";
import { HttpError, type HttpApi } from "../server/http/http-api.js";
import { StoreUnavailableError } from "../server/persistence/store-unavailable.js";
import type { Session } from "../server/sessions/session.js";
import type { PgBans } from "./pg-bans.js";

/** How long a region remembers a ban's reach, to end a session that arrives from a handoff under way. */
export const RECENT_BAN_MS = 30_000;

/** A ban's answer from the region that kept it: what one process answers, and whose sessions it ends. */
export interface KeptBan extends Record<string, unknown> {
  reach: BanReach;
}

export class ClusterBans implements BanDesk {
  /** Reaches told of lately, with when (ms, Date.now), newest last. */
  private readonly recent: { reach: BanReach; atMs: number }[] = [];

  constructor(
    private readonly admin: Pick<AdminService, "decideBan" | "decideUnban" | "endBanned" | "banDone" | "unbanDone">,
    private readonly store: PgBans,
    private readonly now: () => number = Date.now,
  ) {}

  async ban(target: BanTarget, minutes: number | undefined, reason: string): Promise<KeptBan> {
    const order = this.admin.decideBan(target, minutes, reason);
    let accountId: number | null = null;
    if (order.account !== null) {
      accountId = await kept(() => this.store.setAccountBan(order.account!, reason, order.untilMs));
      if (accountId === null) throw new AdminError(404, `no account "${order.account}"`);
    }
    if (order.address !== null) {
      const ban = { address: order.address, reason, createdAtMs: order.createdAtMs, untilMs: order.untilMs };
      await kept(() => this.store.banAddress(ban));
    }
    const reach = { accountId, address: order.address };
    return { ...this.admin.banDone(order, this.endHere(reach)), reach };
  }

  async unban(target: UnbanTarget): Promise<Record<string, unknown>> {
    const order = this.admin.decideUnban(target);
    let lifted = false;
    if (order.account !== null) {
      if ((await kept(() => this.store.setAccountBan(order.account!, null, null))) === null) {
        throw new AdminError(404, `no account "${order.account}"`);
      }
      lifted = true;
    }
    if (order.address !== null) lifted = (await kept(() => this.store.unbanAddress(order.address!))) || lifted;
    return this.admin.unbanDone(target, lifted);
  }

  async bans(): Promise<{ addresses: AddressBan[] }> {
    return { addresses: await kept(() => this.store.addressBansInForce(this.now())) };
  }

  /** Ends the sessions here a ban kept elsewhere covers, and remembers it a while; the nicks ended. */
  endHere(reach: BanReach): string[] {
    const nowMs = this.now();
    while (this.recent.length > 0 && nowMs - this.recent[0].atMs > RECENT_BAN_MS) this.recent.shift();
    this.recent.push({ reach, atMs: nowMs });
    return this.admin.endBanned(reach);
  }

  /**
   * A session just arrived from another region: if a ban told of lately names its account or its address,
   * and the store says that ban is still in force (an unban since lets it play), it ends (`end`).
   */
  async checkArrival(session: Pick<Session, "accountId" | "peer">, end: () => void): Promise<void> {
    const nowMs = this.now();
    const address = session.peer === null ? null : addressKey(session.peer.address);
    const told = this.recent.filter(({ atMs }) => nowMs - atMs <= RECENT_BAN_MS).map(({ reach }) => reach);
    const byAccount = session.accountId !== null && told.some((reach) => reach.accountId === session.accountId);
    const byAddress = address !== null && told.some((reach) => reach.address === address);
    if (!byAccount && !byAddress) return;
    const account = byAccount ? await this.store.accountBanOf(session.accountId!) : null;
    const addressBan = byAddress ? await this.store.addressBan(address!, nowMs) : null;
    if ((account !== null && activeBan(account, nowMs) !== null) || addressBan !== null) end();
  }

  /**
   * POST /api/admin/end-banned, body {accountId, address}: a ban another region kept (the gateway passes its
   * reach on); answers the nicks ended here. Only for the gateways: the admin token, checked and logged.
   */
  installEndRoute(http: HttpApi, authorize: AdminAuthorizer): void {
    http.route("POST", "/api/admin/end-banned", ({ body, raw }: { body: unknown; raw: IncomingMessage }) => {
      authorize(raw, "end-banned");
      const { accountId, address } = (body ?? {}) as Record<string, unknown>;
      const idOk = accountId === null || (typeof accountId === "number" && Number.isSafeInteger(accountId));
      const addressOk = address === null || (typeof address === "string" && address.length <= 64);
      if (!idOk || !addressOk) throw new HttpError(400, '"accountId" (a number or null) and "address" (a key or null)');
      return {
        body: { kicked: this.endHere({ accountId: accountId as number | null, address: address as string | null }) },
      };
    });
  }
}

/** A store write or read, a store out of reach said as a refusal (503) that changed nothing. */
async function kept<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (error instanceof StoreUnavailableError) throw new AdminError(503, error.message);
    throw error;
  }
}
