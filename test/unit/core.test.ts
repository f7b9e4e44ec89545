import { describe, expect, it } from 'vitest';
import { composePlan, htmlToText, rfcMessageIdFor } from '../../functions/core/compose.ts';
import { derivedUlid } from '../../functions/core/ids.ts';
import { IDEMPOTENCY_KEY_PATTERN } from '../../functions/core/limits.ts';
import { cancelMessage, resolveMessage } from '../../functions/core/message-actions.ts';
import type { MessageRecord } from '../../functions/core/model.ts';
import {
  canonicalAddress,
  checkRecipientCount,
  maskAddress,
  normaliseRecipients,
} from '../../functions/core/recipients.ts';
import { backoffSeconds, decideClaim, recordOutcome } from '../../functions/core/send-attempt.ts';
import { simulate, simulatorScript } from '../../functions/core/simulator.ts';
import type { TransportResult } from '../../functions/core/transport-result.ts';
import { outboundMessage } from '../support/records.ts';

describe('the Idempotency-Key pattern', () => {
  it.each([
    ['', false],
    ['k'.repeat(256), false],
    ['k'.repeat(255), true],
    [' with spaces ~ ', true],
    ['tab\tinside', false],
    ['del\x7F', false],
    ['ümlaut', false],
  ])('%j → %s', (key, ok) => {
    expect(IDEMPOTENCY_KEY_PATTERN.test(key)).toBe(ok);
  });
});

describe('recipients', () => {
  it('lower-cases and A-labels the domain, keeps the local part, dedupes case-insensitively', () => {
    const r = normaliseRecipients({
      to: ['Jo@Bücher.Example'],
      cc: [{ address: 'jo@xn--bcher-kva.example', name: 'Jo' }],
    });
    expect(r).toEqual([{ address: 'Jo@xn--bcher-kva.example', field: 'to', typed: 'Jo@Bücher.Example' }]);
  });

  it('keeps what the caller typed only when it differs from the normalised address (two columns)', () => {
    const r = normaliseRecipients({ to: [' Ada@Example.COM', 'bo@example.com'] });
    expect(r).toEqual([
      { address: 'Ada@example.com', field: 'to', typed: ' Ada@Example.COM' },
      { address: 'bo@example.com', field: 'to' },
    ]);
    expect(canonicalAddress(r[0].address)).toBe('ada@example.com');
  });

  it('caps recipients at the policy, never above 49', () => {
    const many = normaliseRecipients({ to: Array.from({ length: 49 }, (_, i) => `a${i}@example.com`) });
    expect(() => checkRecipientCount(many, 100)).not.toThrow();
    expect(() => checkRecipientCount(many, undefined)).toThrow(
      expect.objectContaining({ code: 'too_many_recipients' }),
    );
    const fifty = normaliseRecipients({ to: Array.from({ length: 50 }, (_, i) => `a${i}@example.com`) });
    expect(() => checkRecipientCount(fifty, 100)).toThrow(
      expect.objectContaining({ code: 'too_many_recipients' }),
    );
  });

  it('masks addresses for logs', () => {
    expect(maskAddress('jo@example.com')).toBe('j***@example.com');
  });
});

describe('composition plan', () => {
  it('derives text from HTML when text is missing and never carries Bcc', () => {
    const plan = composePlan({
      rfcMessageId: rfcMessageIdFor('01abc', 'a@example.com'),
      now: 0,
      from: { address: 'a@example.com', name: 'Agent\r\nBcc: x' },
      recipients: [
        { address: 'b@example.com', field: 'to' },
        { address: 'hidden@example.com', field: 'bcc' },
      ],
      subject: 's',
      html: '<p>Hello &amp; welcome</p><p>Line<br>two</p>',
      hop: 1,
    });
    expect(plan.messageId).toBe('<01abc@example.com>');
    expect(plan.text).toBe('Hello & welcome\nLine\ntwo');
    expect(plan.from.name).toBe('Agent Bcc: x');
    expect(plan.to).toEqual([{ address: 'b@example.com', name: undefined }]);
    expect(JSON.stringify(plan)).not.toContain('hidden@example.com');
    expect(plan.headers['X-Pmail-Hop']).toBe('1');
  });

  it('turns entities and lists into text', () => {
    expect(htmlToText('<ul><li>a</li><li>b&#233;</li></ul>')).toBe('- a\n- bé');
  });
});

describe('simulator scripts (docs/guides/sending.md › Test mode)', () => {
  it('ignores a +label and delivers unknown local parts', () => {
    expect(simulatorScript('bounce+42@simulator.invalid')).toBe('bounce');
    expect(simulatorScript('Whatever@simulator.invalid')).toBe('delivered');
  });

  it('rejects the whole message when any recipient is reject, else is unknown on any timeout', () => {
    expect(simulate(['delivered@s', 'timeout@s', 'reject@s'], 'p', 1).result.type).toBe('rejected');
    expect(simulate(['delivered@s', 'timeout@s'], 'p', 1).result).toMatchObject({
      type: 'unknown',
      reason: 'transport_timeout',
    });
  });

  it('scripts per-recipient events for accepted messages', () => {
    const out = simulate(['complaint@s', 'softbounce@s'], 'test-1', 1);
    expect(out.result).toMatchObject({ type: 'accepted', provider_message_id: 'test-1' });
    expect(out.events.map((e) => `${e.recipient}:${e.kind}:${e.n}`)).toEqual([
      'complaint@s:delivered:1',
      'complaint@s:complained:2',
      'softbounce@s:deferred:1',
      'softbounce@s:bounced:2',
    ]);
  });

  it('rate-limits the first attempt of a ratelimit recipient only', () => {
    expect(simulate(['ratelimit@s'], 'p', 1).result.type).toBe('retry_later');
    expect(simulate(['ratelimit@s'], 'p', 2).result.type).toBe('accepted');
  });

  it('rate-limits every attempt of a ratelimit-always recipient', () => {
    expect(simulatorScript('ratelimit-always+3@simulator.invalid')).toBe('ratelimit-always');
    for (const n of [1, 2, 500])
      expect(simulate(['ratelimit-always@s'], 'p', n).result.type).toBe('retry_later');
  });
});

const queued = (): MessageRecord =>
  outboundMessage({
    claim: { token: 'mine', at: 100 },
    deliveries: [
      { address: 'x@example.net', field: 'to', status: 'queued', updated_at: 0 },
      { address: 'y@example.net', field: 'cc', status: 'delivered', updated_at: 0 },
    ],
  });

describe('claim and record (docs/architecture.md › The send machines)', () => {
  it('admits a queued message once: its own claim again, a foreign young claim never, an old one as dead', () => {
    expect(decideClaim({ ...queued(), claim: undefined }, 't', 0).type).toBe('claim');
    expect(decideClaim(queued(), 'mine', 200).type).toBe('claim');
    expect(decideClaim(queued(), 'other', 100 + 299_999).type).toBe('already_claimed');
    // dead: every claim carries the sending mark
    const marked = { ...queued(), claim: { token: 'mine', at: 100, sending: true } };
    expect(decideClaim(marked, 'other', 100 + 300_000)).toEqual({ type: 'stale', token: 'mine' });
    expect(decideClaim({ ...queued(), status: 'submitted' }, 'mine', 0).type).toBe('not_queued');
  });

  it('records unknown as uncertain for queued deliveries only and clears the claim', () => {
    const out = recordOutcome(queued(), { type: 'unknown', reason: 'transport_timeout', detail: 'd' }, 500);
    expect(out.message.status).toBe('uncertain');
    expect(out.message.claim).toBeUndefined();
    expect(out.message.deliveries!.map((d) => d.status)).toEqual(['uncertain', 'delivered']);
  });

  it('records accepted: queued → submitted, refused → rejected, deferred stay queued', () => {
    const m = queued();
    m.deliveries!.push({ address: 'z@example.net', field: 'to', status: 'queued', updated_at: 0 });
    m.deliveries!.push({ address: 'w@example.net', field: 'to', status: 'queued', updated_at: 0 });
    const out = recordOutcome(
      m,
      {
        type: 'accepted',
        provider: 'smtp',
        provider_message_id: 'p1',
        refused: [{ address: 'Z@example.net', code: '550', detail: 'no' }],
        deferred: ['w@example.net'],
      },
      1,
    );
    expect(out.message.deliveries!.map((d) => d.status)).toEqual([
      'submitted',
      'delivered',
      'rejected',
      'queued',
    ]);
    expect(out.message.status).toBe('queued');
    expect(out.message.provider_message_id).toBe('p1');
  });

  it('records a lost envelope per recipient: that one uncertain, never queued again; the message uncertain once nothing is queued', () => {
    const m = queued();
    m.deliveries!.push({ address: 'z@example.net', field: 'to', status: 'queued', updated_at: 0 });
    const partial: TransportResult = {
      type: 'accepted',
      provider: 'smtp',
      provider_message_id: 'p1',
      refused: [],
      deferred: ['z@example.net'],
      uncertain: [{ address: 'x@example.net', reason: 'transport_timeout', detail: 'no reply' }],
    };
    const first = recordOutcome(m, partial, 1);
    expect(first.message.deliveries!.map((d) => d.status)).toEqual(['uncertain', 'delivered', 'queued']);
    expect(first.message.status).toBe('queued');
    // The retry sends only the untried recipient; then the message is uncertain, with the first reason.
    const retry: TransportResult = {
      type: 'accepted',
      provider: 'smtp',
      provider_message_id: 'p1',
      refused: [],
      deferred: [],
    };
    const second = recordOutcome(
      { ...first.message, claim: { token: 't2', at: 2, sending: true } },
      retry,
      3,
    );
    expect(second.message.deliveries!.map((d) => d.status)).toEqual(['uncertain', 'delivered', 'submitted']);
    expect(second.message).toMatchObject({
      status: 'uncertain',
      status_reason: 'transport_timeout',
      status_detail: 'no reply',
    });
  });

  it('computes back-off per class', () => {
    expect([1, 2, 6, 7].map((n) => backoffSeconds('RateLimit', n))).toEqual([10, 20, 60, 60]);
    expect([1, 2, 3, 7, 8].map((n) => backoffSeconds('Quota', n))).toEqual([60, 120, 240, 3600, 3600]);
  });

  it('moves a back-off by the jitter it is given, never beyond ±10 %', () => {
    expect(backoffSeconds('RateLimit', 6, 0.1)).toBe(66);
    expect(backoffSeconds('RateLimit', 6, -0.1)).toBe(54);
    expect(backoffSeconds('Quota', 7, 0.5)).toBe(3960);
    expect(backoffSeconds('Quota', 7, -0.5)).toBe(3240);
  });

  const rateLimited: TransportResult = { type: 'retry_later', class: 'RateLimit', code: 'E', refused: [] };

  it('backs off with n, first_at and the retry time as the dispatch time, and frees the lock', () => {
    const m = { ...queued(), holds_lock: true, dispatch: { execution: 'msg_1-d1', at: 0, n: 1 } };
    const out = recordOutcome(m, rateLimited, 1000, 0);
    expect(out.next).toEqual({ type: 'wait', seconds: 10 });
    expect(out.message).toMatchObject({ status: 'queued', backoff: { n: 1, first_at: 1000 } });
    expect(out.message.dispatch).toEqual({ execution: 'msg_1-d1', at: 11_000, n: 1 });
    expect(out.message.claim).toBeUndefined();
    expect(out.releaseLock).toBe(true);
    const again = recordOutcome({ ...out.message, claim: { token: 'x', at: 1 } }, rateLimited, 12_000, 0);
    expect(again.message.backoff).toEqual({ n: 2, first_at: 1000 });
    expect(again.next).toEqual({ type: 'wait', seconds: 20 });
  });

  it("a back-off's retry_later reason goes when the message leaves queued: submitted, uncertain overtaken by events, canceled", () => {
    const relay: TransportResult = { type: 'retry_later', class: 'Relay', code: 'smtp_451', refused: [] };
    const waiting = recordOutcome({ ...queued(), dispatch: { execution: 'e', at: 0, n: 1 } }, relay, 1000, 0);
    expect(waiting.message).toMatchObject({ status: 'queued', status_reason: 'retry_later:Relay' });
    const retry = { ...waiting.message, claim: { token: 'mine', at: 61_000 } };
    const sent = recordOutcome(
      retry,
      { type: 'accepted', provider: 'smtp', provider_message_id: 'p', refused: [], deferred: [] },
      62_000,
    );
    expect(sent.message.status).toBe('submitted');
    expect(sent.message.status_reason).toBeUndefined();
    const settled = {
      ...retry,
      deliveries: retry.deliveries!.map((d) => ({ ...d, status: 'delivered' as const })),
    };
    const overtaken = recordOutcome(
      settled,
      { type: 'unknown', reason: 'transport_timeout', detail: 'd' },
      62_000,
    );
    expect(overtaken.message.status).toBe('delivered');
    expect(overtaken.message.status_reason).toBeUndefined();
    const unsent = {
      ...waiting.message,
      claim: undefined,
      deliveries: waiting.message.deliveries!.slice(0, 1),
    };
    const canceled = cancelMessage(unsent, 62_000);
    expect(canceled.status).toBe('canceled');
    expect(canceled.status_reason).toBeUndefined();
    // An outcome that names its own reason keeps it.
    const refused = recordOutcome(
      retry,
      { type: 'rejected', provider: 'smtp', reason: 'provider_validation', code: 'smtp_554', detail: 'no' },
      62_000,
    );
    expect(refused.message.status_reason).toBe('provider_validation');
  });

  it('ends a back-off whose retry would fall more than 24 hours after submit: queued deliveries failed', () => {
    const m = { ...queued(), backoff: { n: 9, first_at: 5 }, dispatch: { execution: 'e', at: 0, n: 1 } };
    const justInside = recordOutcome(m, rateLimited, 24 * 3600_000 - 60_000, 0);
    expect(justInside.message.status).toBe('queued');
    const out = recordOutcome(m, rateLimited, 24 * 3600_000 - 59_999, 0);
    expect(out.next).toEqual({ type: 'done' });
    expect(out.message).toMatchObject({ status: 'failed', status_reason: 'quota_exhausted' });
    expect(out.message.deliveries!.map((d) => d.status)).toEqual(['failed', 'delivered']);
    expect(out.message.backoff).toBeUndefined();
    expect(out.message.dispatch).toBeUndefined();
  });

  it('backs off (Relay) an accepted attempt whose SMTP-deferred recipients stay queued, keeping the Message-ID', () => {
    const m = queued();
    const out = recordOutcome(
      m,
      {
        type: 'accepted',
        provider: 'smtp',
        provider_message_id: 'p',
        refused: [],
        deferred: ['x@example.net'],
      },
      1000,
      0,
    );
    expect(out.next).toEqual({ type: 'wait', seconds: 60 });
    expect(out.message).toMatchObject({
      status: 'queued',
      rfc_message_id: m.rfc_message_id,
      backoff: { n: 1 },
    });
  });
});

describe('cancel and resolve (docs/guides/sending.md › Cancel, › Uncertain messages and resolve)', () => {
  it('cancels only a queued message with no claim and nothing submitted', () => {
    const free = { ...queued(), claim: undefined, deliveries: [queued().deliveries![0]] };
    const out = cancelMessage({ ...free, backoff: { n: 1, first_at: 0 }, holds_lock: true }, 9);
    expect(out).toMatchObject({ status: 'canceled', updated_at: 9, version: 4 });
    expect(out.backoff).toBeUndefined();
    expect(out.deliveries![0].status).toBe('queued');
    expect(() => cancelMessage(queued(), 9)).toThrow(/canceled/);
    expect(() => cancelMessage({ ...queued(), claim: undefined }, 9)).toThrow(/canceled/);
    expect(() => cancelMessage({ ...free, status: 'submitted' }, 9)).toThrow(/canceled/);
  });

  it('resolves only an uncertain message: sent → submitted, not_sent → failed (resolved_not_sent)', () => {
    const uncertain = recordOutcome(
      queued(),
      { type: 'unknown', reason: 'transport_timeout', detail: 'd' },
      5,
    ).message;
    const sent = resolveMessage(uncertain, 'sent', 6);
    expect(sent.status).toBe('submitted');
    expect(sent.deliveries!.map((d) => d.status)).toEqual(['submitted', 'delivered']);
    // a delivered recipient says the provider took it: not_sent would contradict it
    expect(() => resolveMessage(uncertain, 'not_sent', 6)).toThrow(
      expect.objectContaining({
        code: 'not_uncertain',
        details: { status: 'uncertain', provider_reported: true },
      }),
    );
    const alone = { ...uncertain, deliveries: [uncertain.deliveries![0]] };
    const notSent = resolveMessage(alone, 'not_sent', 6);
    expect(notSent).toMatchObject({ status: 'failed', status_reason: 'resolved_not_sent' });
    expect(() => resolveMessage(sent, 'sent', 7)).toThrow(/uncertain/);
  });
});

describe('derivedUlid', () => {
  it('is deterministic, keeps the time part and differs per seed', () => {
    const a = derivedUlid('01abcdefghjkmnpqrstvwxyz01', 'x');
    expect(a).toBe(derivedUlid('01abcdefghjkmnpqrstvwxyz01', 'x'));
    expect(a.slice(0, 10)).toBe('01abcdefgh');
    expect(a).toHaveLength(26);
    expect(derivedUlid('01abcdefghjkmnpqrstvwxyz01', 'y')).not.toBe(a);
  });
});
