import { describe, expect, it } from 'vitest';
import { COUNTER_KEEP_MS, counterDay, DEFAULT_TIMEZONE } from '../../functions/core/quota.ts';

/** The day a send is counted on (core/quota.ts › counterDay): the tenant's day, its reset, its counter's expiry. */
describe('counterDay', () => {
  const at = (iso: string) => Date.parse(iso);
  const iso = (ms: number) => new Date(ms).toISOString();

  it('counts in the tenant time zone, UTC when it has none, and keeps the counter 48 hours past the reset', () => {
    const cases: [string, string | undefined, string, string, string][] = [
      [
        '2026-12-03T23:30:00Z',
        undefined,
        '2026-12-03',
        '2026-12-04T00:00:00.000Z',
        '2026-12-06T00:00:00.000Z',
      ],
      ['2026-12-03T23:30:00Z', '', '2026-12-03', '2026-12-04T00:00:00.000Z', '2026-12-06T00:00:00.000Z'],
      ['2026-12-03T23:30:00Z', 'UTC', '2026-12-03', '2026-12-04T00:00:00.000Z', '2026-12-06T00:00:00.000Z'],
      [
        '2026-12-03T23:30:00Z',
        'Europe/Paris',
        '2026-12-04',
        '2026-12-04T23:00:00.000Z',
        '2026-12-06T23:00:00.000Z',
      ],
      [
        '2026-12-03T23:30:00Z',
        'America/Los_Angeles',
        '2026-12-03',
        '2026-12-04T08:00:00.000Z',
        '2026-12-06T08:00:00.000Z',
      ],
    ];
    for (const [now, tz, day, resetsAt, expiresAt] of cases) {
      const c = counterDay(at(now), tz);
      expect([now, tz, c.day, iso(c.resetsAt), iso(c.expiresAt)]).toEqual([
        now,
        tz,
        day,
        resetsAt,
        expiresAt,
      ]);
    }
  });

  it('names the default time zone and the counter keep once', () => {
    expect(DEFAULT_TIMEZONE).toBe('UTC');
    expect(COUNTER_KEEP_MS).toBe(48 * 3600_000);
  });
});
