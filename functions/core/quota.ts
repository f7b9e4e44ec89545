/**
 * Daily caps (docs/architecture.md › The submit path, step 4 Count): counted per day in the
 * tenant's time zone; `resets_at` is the next local midnight, in UTC. Pure: `now` comes in.
 */
export const DEFAULT_TENANT_DAILY_CAP = 10_000;
export const DEFAULT_IDENTITY_DAILY_CAP = 1_000;
export const WARNING_THRESHOLDS = [80, 100] as const;

/** The time zone of a tenant created without one: its days are counted in UTC. */
export const DEFAULT_TIMEZONE = 'UTC';

/**
 * How long a day's counter item outlives the day's end before its TTL deletes it: long enough for
 * a cancel or a late quota warning to find the day it counts on.
 */
export const COUNTER_KEEP_MS = 48 * 3600_000;

/**
 * The tenant's day allowance is leased to identities in blocks (store/quota.store.ts): a send counts
 * on its identity's counter item, and only every block's first send writes the tenant's item. A
 * block is at most LEASE_BLOCK sends, at most 1/LEASE_FRACTION of what is left of the tenant's cap
 * (so blocks shrink to 1 as the cap nears, and a small cap is leased one send at a time), at most
 * the identity's own headroom, and at least 1.
 */
export const LEASE_BLOCK = 16;
export const LEASE_FRACTION = 64;

/** The block an identity leases when `remaining` of the tenant's cap is unleased (0: refused). */
export function leaseBlock(remaining: number, identityHeadroom: number): number {
  if (remaining <= 0 || identityHeadroom <= 0) return 0;
  return Math.max(1, Math.min(LEASE_BLOCK, Math.floor(remaining / LEASE_FRACTION), identityHeadroom));
}

/** The highest `leased` a tenant's item may hold for a block of `block` still to be granted. */
export function maxLeasedBefore(cap: number, block: number): number {
  return block <= 1 ? cap - 1 : cap - LEASE_FRACTION * block;
}

/** One formatter per time zone: building an Intl.DateTimeFormat costs far more than using one. */
const formatters = new Map<string, Intl.DateTimeFormat>();
type Parts = { y: number; m: number; d: number; h: number; min: number; s: number };
/**
 * The last second's parts per time zone: formatToParts costs ~8 µs and a send asks for the same
 * second's local day several times (the count, its expiry, the warnings). A pure memo.
 */
const lastParts = new Map<string, { second: number; parts: Parts }>();

function parts(now: number, timeZone: string): Parts {
  const second = Math.floor(now / 1000);
  const last = lastParts.get(timeZone);
  if (last?.second === second) return last.parts;
  const computed = formatParts(now, timeZone);
  lastParts.set(timeZone, { second, parts: computed });
  return computed;
}

function formatParts(now: number, timeZone: string): Parts {
  let f = formatters.get(timeZone);
  if (!f) {
    f = new Intl.DateTimeFormat('en-CA', {
      timeZone,
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
      second: '2-digit',
      hourCycle: 'h23',
    });
    formatters.set(timeZone, f);
  }
  const p = Object.fromEntries(f.formatToParts(new Date(now)).map((x) => [x.type, x.value]));
  return { y: +p.year, m: +p.month, d: +p.day, h: +p.hour, min: +p.minute, s: +p.second };
}

/** YYYY-MM-DD of `now` in `timeZone`. */
export function localDay(now: number, timeZone: string): string {
  const p = parts(now, timeZone);
  return `${p.y}-${String(p.m).padStart(2, '0')}-${String(p.d).padStart(2, '0')}`;
}

/** The last answer of `nextLocalMidnight` per time zone: the same for every instant of a local day. */
const lastMidnight = new Map<string, { day: string; midnight: number }>();

/** The UTC instant of the next local midnight after `now` in `timeZone` (DST-safe by search). */
export function nextLocalMidnight(now: number, timeZone: string): number {
  const day = localDay(now, timeZone);
  const last = lastMidnight.get(timeZone);
  if (last?.day === day && now < last.midnight) return last.midnight;
  const midnight = searchNextMidnight(now, timeZone);
  lastMidnight.set(timeZone, { day, midnight });
  return midnight;
}

function searchNextMidnight(now: number, timeZone: string): number {
  const p = parts(now, timeZone);
  const offset = Date.UTC(p.y, p.m - 1, p.d, p.h, p.min, p.s) - Math.floor(now / 1000) * 1000;
  let guess = Date.UTC(p.y, p.m - 1, p.d + 1) - offset;
  // Offsets can differ across the boundary (DST); walk to the first instant whose local day changed.
  const today = localDay(now, timeZone);
  for (let step = 0; step < 4 && localDay(guess, timeZone) === today; step++) guess += 3600_000;
  while (localDay(guess - 60_000, timeZone) !== today && guess - 60_000 > now) guess -= 60_000;
  return guess;
}

/** Thresholds crossed by going from `before` to `after` sends against `cap` (80 % and 100 %). */
export function crossedThresholds(before: number, after: number, cap: number): number[] {
  return WARNING_THRESHOLDS.filter((t) => before * 100 < t * cap && after * 100 >= t * cap);
}

/**
 * Every local day `now` can fall on, whatever the tenant's time zone (UTC−12 to UTC+14): the
 * counter items a request may read before it knows the tenant. Local midnights fall on whole
 * minutes, so of these days' items at most one holds the current minute's rate window.
 */
export function possibleLocalDays(now: number): string[] {
  const utcDay = (t: number) => new Date(t).toISOString().slice(0, 10);
  return [...new Set([now - 12 * 3600_000, now, now + 14 * 3600_000].map(utcDay))];
}

/** The day a send is counted on: the tenant's local day, when its caps reset, when its counter item expires. */
export interface CounterDay {
  day: string;
  resetsAt: number;
  expiresAt: number;
}

/** The counter day of `now` in the tenant's time zone (DEFAULT_TIMEZONE when it has none). */
export function counterDay(now: number, timeZone: string | undefined): CounterDay {
  const tz = timeZone || DEFAULT_TIMEZONE;
  const resetsAt = nextLocalMidnight(now, tz);
  return { day: localDay(now, tz), resetsAt, expiresAt: resetsAt + COUNTER_KEEP_MS };
}
