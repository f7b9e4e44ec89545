import { decodeTime } from 'ulid';
import { describe, expect, it } from 'vitest';
import {
  type FilteredMessage,
  messageIdBounds,
  messageMatches,
  threadMatches,
  ulidTime,
} from '../../functions/core/list-filter.ts';

/** core/list-filter.ts: what a filter matches, and the id range of a time range. */
const m: FilteredMessage = {
  from: { address: 'Billing@Brightwell.example' },
  to: [{ address: 'agent@example.test' }],
  cc: [{ address: 'boss@example.test' }],
  subject: 'Résumé: your INVOICE',
  labels: ['needs-reply'],
  attachments: [{}],
  received_at: '2026-03-01T12:00:00.000Z',
};

describe('messageMatches', () => {
  it.each([
    [{}, true],
    [{ label: 'needs-reply' }, true],
    [{ label: 'Needs-Reply' }, false],
    [{ from: 'billing@brightwell.example' }, true],
    [{ from: 'brightwell.example' }, true],
    [{ from: 'well.example' }, false],
    [{ from: 'other@brightwell.example' }, false],
    [{ to: 'boss@example.test' }, true],
    [{ to: 'example.test' }, true],
    [{ to: 'brightwell.example' }, false],
    [{ subject: 'resume' }, true],
    [{ subject: 'invoice' }, true],
    [{ subject: 'receipt' }, false],
    [{ has_attachment: true }, true],
    [{ has_attachment: false }, false],
    [{ since: Date.parse('2026-03-01T12:00:00Z') }, true],
    [{ since: Date.parse('2026-03-01T12:00:01Z') }, false],
    [{ until: Date.parse('2026-03-01T11:59:59Z') }, false],
    [{ from: 'brightwell.example', label: 'needs-reply', subject: 'résumé', has_attachment: true }, true],
  ])('%j → %s', (f, expected) => {
    expect(messageMatches(m, f)).toBe(expected);
  });
});

describe('threadMatches', () => {
  const t = {
    participants: ['agent@example.test', 'ana@cafe.example'],
    subject: 'Le café',
    labels: ['escalated'],
    last_message_at: '2026-03-02T00:00:00.000Z',
  };
  it.each([
    [{ from: 'cafe.example' }, true],
    [{ to: 'agent@example.test' }, true],
    [{ from: 'x.example' }, false],
    [{ label: 'escalated', subject: 'CAFE' }, true],
    [{ until: Date.parse('2026-03-01T00:00:00Z') }, false],
  ])('%j → %s', (f, expected) => {
    expect(threadMatches(t, f)).toBe(expected);
  });
});

describe('messageIdBounds', () => {
  it('bounds the ids of messages minted in the range, inclusive', () => {
    const t = Date.parse('2026-03-01T12:00:00Z');
    expect(decodeTime(ulidTime(t).toUpperCase() + '0'.repeat(16))).toBe(t);
    const { low, high } = messageIdBounds({ since: t, until: t + 1000 });
    const id = (at: number) => `msg_${ulidTime(at)}${'z'.repeat(16)}`;
    expect(low! <= id(t) && id(t) <= high!).toBe(true);
    expect(id(t + 1000) <= high!).toBe(true);
    expect(id(t - 1) < low!).toBe(true);
    expect(id(t + 1001) > high!).toBe(true);
  });
});
