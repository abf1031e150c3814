// Impairment profiles: what a link does to datagrams, per direction, and the one parser for the two ways of
// writing it — a spec string ("delay=80,jitter=30,loss=5,dup=2", for `--netsim` on the server) and CLI flags
// (`--delay 80 --up-loss 10`, for the UDP proxy). Both go through profileFromSettings, so they cannot drift apart.

/** What one direction of a link does to each datagram (see docs/netsim.md for the exact model). */
export interface LinkProfile {
  /** Base one-way delay. */
  readonly delayMs: number;
  /** Each datagram's delay is uniform in [delayMs - jitterMs, delayMs + jitterMs], floored at 0. */
  readonly jitterMs: number;
  /** Chance, 0..100, that a datagram is dropped. */
  readonly lossPercent: number;
  /** Chance, 0..100, that a datagram that was not dropped is delivered twice (the copy gets its own delay). */
  readonly duplicatePercent: number;
}

/** A link's two directions: up = client -> server, down = server -> client. */
export interface DuplexProfile {
  readonly up: LinkProfile;
  readonly down: LinkProfile;
}

/** A profile plus the optional seed a spec string may carry. */
export interface ProfileSpec {
  readonly profile: DuplexProfile;
  readonly seed: number | undefined;
}

export const PERFECT_LINK: LinkProfile = Object.freeze({
  delayMs: 0,
  jitterMs: 0,
  lossPercent: 0,
  duplicatePercent: 0,
});
export const PERFECT_DUPLEX: DuplexProfile = Object.freeze({ up: PERFECT_LINK, down: PERFECT_LINK });

/** A malformed or out-of-range profile setting; the message names the setting and the offending text. */
export class ProfileError extends Error {
  override name = "ProfileError";
}

/** Longest delay or jitter accepted: beyond this a "link" is a typo, not a simulation. */
export const MAX_DELAY_MS = 60_000;

type LinkField = keyof LinkProfile;

interface SettingRule {
  field: LinkField;
  max: number;
  unit: string;
}

/** The base setting names; each also exists with an "up-" or "down-" prefix for one direction only. */
const SETTING_RULES: ReadonlyMap<string, SettingRule> = new Map([
  ["delay", { field: "delayMs", max: MAX_DELAY_MS, unit: "ms" }],
  ["jitter", { field: "jitterMs", max: MAX_DELAY_MS, unit: "ms" }],
  ["loss", { field: "lossPercent", max: 100, unit: "%" }],
  ["dup", { field: "duplicatePercent", max: 100, unit: "%" }],
]);

/** Every accepted setting name: delay, jitter, loss, dup, and each with an up-/down- prefix. */
export const PROFILE_SETTING_NAMES: readonly string[] = [...SETTING_RULES.keys()].flatMap((name) => [
  name,
  `up-${name}`,
  `down-${name}`,
]);

/** True when name is a profile setting (with or without a direction prefix). */
export function isProfileSetting(name: string): boolean {
  return PROFILE_SETTING_NAMES.includes(name);
}

const DECIMAL = /^\d+(\.\d+)?$/;

function parseSettingValue(name: string, rule: SettingRule, text: string): number {
  const trimmed = text.trim();
  const value = DECIMAL.test(trimmed) ? Number(trimmed) : Number.NaN;
  if (!(value >= 0 && value <= rule.max)) {
    throw new ProfileError(`${name} must be a number from 0 to ${rule.max} (${rule.unit}), got "${text}"`);
  }
  return value;
}

/**
 * Builds a duplex profile from (name, value) settings, e.g. [["delay", "80"], ["up-loss", "10"]].
 * A later setting of the same name replaces an earlier one; a direction-prefixed setting beats the base
 * setting whatever their order. Unset fields are 0. Throws ProfileError on an unknown name or a bad value.
 */
export function profileFromSettings(settings: Iterable<readonly [name: string, value: string]>): DuplexProfile {
  const base = new Map<LinkField, number>();
  const up = new Map<LinkField, number>();
  const down = new Map<LinkField, number>();
  for (const [rawName, text] of settings) {
    const name = rawName.trim().toLowerCase();
    const [target, baseName] = name.startsWith("up-")
      ? [up, name.slice(3)]
      : name.startsWith("down-")
        ? [down, name.slice(5)]
        : [base, name];
    const rule = SETTING_RULES.get(baseName);
    if (rule === undefined) {
      throw new ProfileError(`unknown setting "${rawName}" (known: ${PROFILE_SETTING_NAMES.join(", ")})`);
    }
    target.set(rule.field, parseSettingValue(name, rule, text));
  }
  const resolve = (overrides: Map<LinkField, number>): LinkProfile => {
    const field = (key: LinkField) => overrides.get(key) ?? base.get(key) ?? 0;
    return Object.freeze({
      delayMs: field("delayMs"),
      jitterMs: field("jitterMs"),
      lossPercent: field("lossPercent"),
      duplicatePercent: field("duplicatePercent"),
    });
  };
  return Object.freeze({ up: resolve(up), down: resolve(down) });
}

/** Parses a seed: an integer 0 .. 2^32 - 1. Throws ProfileError otherwise. */
export function parseSeed(text: string): number {
  const trimmed = text.trim();
  const value = /^\d+$/.test(trimmed) ? Number(trimmed) : Number.NaN;
  if (!(value >= 0 && value <= 0xffffffff)) {
    throw new ProfileError(`seed must be an integer from 0 to 4294967295, got "${text}"`);
  }
  return value;
}

/**
 * Splits a spec string into its settings and optional seed, checking only its shape (name=value items);
 * values are checked by profileFromSettings. Whitespace around items is ignored.
 */
export function splitProfileSpec(text: string): {
  settings: [name: string, value: string][];
  seed: number | undefined;
} {
  const settings: [string, string][] = [];
  let seed: number | undefined;
  for (const item of text.split(",")) {
    if (item.trim() === "") continue;
    const equals = item.indexOf("=");
    if (equals < 0) throw new ProfileError(`"${item.trim()}" is not name=value (in netsim spec "${text}")`);
    const name = item.slice(0, equals).trim();
    const value = item.slice(equals + 1);
    if (name.toLowerCase() === "seed") seed = parseSeed(value);
    else settings.push([name, value]);
  }
  return { settings, seed };
}

/**
 * Parses a spec string: comma-separated name=value settings (see profileFromSettings), plus an optional
 * seed=N. An empty string is a perfect link. Throws ProfileError.
 * Example: "delay=80,jitter=30,loss=5,dup=2,up-loss=10,seed=7".
 */
export function parseProfileSpec(text: string): ProfileSpec {
  const { settings, seed } = splitProfileSpec(text);
  return { profile: profileFromSettings(settings), seed };
}

/** True when the link passes every datagram through at once, unchanged. */
export function isPerfectLink(link: LinkProfile): boolean {
  return link.delayMs === 0 && link.jitterMs === 0 && link.lossPercent === 0 && link.duplicatePercent === 0;
}

function formatLink(link: LinkProfile, prefix: string): string {
  return [
    `${prefix}delay=${link.delayMs}`,
    `${prefix}jitter=${link.jitterMs}`,
    `${prefix}loss=${link.lossPercent}`,
    `${prefix}dup=${link.duplicatePercent}`,
  ].join(",");
}

/** The profile as a spec string that parseProfileSpec reads back to an equal profile. */
export function formatProfile(profile: DuplexProfile): string {
  const { up, down } = profile;
  const same =
    up.delayMs === down.delayMs &&
    up.jitterMs === down.jitterMs &&
    up.lossPercent === down.lossPercent &&
    up.duplicatePercent === down.duplicatePercent;
  return same ? formatLink(up, "") : `${formatLink(up, "up-")},${formatLink(down, "down-")}`;
}

/** Throws ProfileError unless every field of link is a finite number in its range (for programmatic callers). */
export function checkLinkProfile(link: LinkProfile): void {
  for (const [name, rule] of SETTING_RULES) {
    const value = link[rule.field];
    if (typeof value !== "number" || !(value >= 0 && value <= rule.max)) {
      throw new ProfileError(`${rule.field} (${name}) must be a number from 0 to ${rule.max}, got ${String(value)}`);
    }
  }
}
