import { describe, expect, it } from 'vitest';
import { localDay, nextLocalMidnight } from '../../functions/core/quota.ts';

/** The tenant's local day and its end, remembered per time zone (core/quota.ts): the same answers as computed afresh. */
describe('localDay and nextLocalMidnight', () => {
  const at = (iso: string) => Date.parse(iso);

  it('answers each instant of a local day with that day and its next midnight, across a DST change', () => {
    // Europe/Paris leaves summer time on 2026-10-25 at 03:00 local (01:00 UTC): that day lasts 25 hours.
    const tz = 'Europe/Paris';
    const cases: [string, string, string][] = [
      ['2026-10-24T21:59:59Z', '2026-10-24', '2026-10-24T22:00:00.000Z'],
      ['2026-10-24T22:00:00Z', '2026-10-25', '2026-10-25T23:00:00.000Z'],
      ['2026-10-25T00:59:59Z', '2026-10-25', '2026-10-25T23:00:00.000Z'],
      ['2026-10-25T01:00:00Z', '2026-10-25', '2026-10-25T23:00:00.000Z'],
      ['2026-10-25T22:59:59Z', '2026-10-25', '2026-10-25T23:00:00.000Z'],
      ['2026-10-25T23:00:00Z', '2026-10-26', '2026-10-26T23:00:00.000Z'],
      // Back to an earlier day: nothing remembered for a later one leaks into it.
      ['2026-10-24T12:00:00Z', '2026-10-24', '2026-10-24T22:00:00.000Z'],
    ];
    for (const [now, day, midnight] of cases) {
      expect([localDay(at(now), tz), new Date(nextLocalMidnight(at(now), tz)).toISOString()]).toEqual([
        day,
        midnight,
      ]);
    }
  });

  it('keeps time zones apart', () => {
    const now = at('2026-12-03T23:30:00Z');
    expect(localDay(now, 'UTC')).toBe('2026-12-03');
    expect(localDay(now, 'Asia/Tokyo')).toBe('2026-12-04');
    expect(localDay(now, 'America/New_York')).toBe('2026-12-03');
    expect(new Date(nextLocalMidnight(now, 'Asia/Tokyo')).toISOString()).toBe('2026-12-04T15:00:00.000Z');
    expect(new Date(nextLocalMidnight(now, 'UTC')).toISOString()).toBe('2026-12-04T00:00:00.000Z');
    expect(new Date(nextLocalMidnight(now, 'America/New_York')).toISOString()).toBe(
      '2026-12-04T05:00:00.000Z',
    );
  });
});
