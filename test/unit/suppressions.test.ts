import { createHmac } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import * as z from 'zod';
import { routes } from '../../functions/api/routes.ts';
import { createSuppressionSchema } from '../../functions/api/tenants/create-suppression.ts';
import { listEntriesQuerySchema } from '../../functions/api/tenants/list-list-entries.ts';
import { listSuppressionsQuerySchema } from '../../functions/api/tenants/list-suppressions.ts';
import {
  addressHash,
  addressHint,
  type ContactCounts,
  type FilterDecision,
  filterRecipient,
  filterRecipients,
  normaliseListEntry,
  type RecipientFilterContext,
  type Suppression,
  type SuppressionReason,
  toListEntryView,
  toSuppressionView,
} from '../../functions/core/suppressions.ts';

const KEY = 'test-hash-key';
const hmac = (key: string, s: string) => createHmac('sha256', key).update(s).digest('hex');

describe('addressHash', () => {
  it('is the hex HMAC-SHA256 of the lower-case address under PM_HASH_KEY', () => {
    expect(addressHash(KEY, 'jo@example.com')).toBe(hmac(KEY, 'jo@example.com'));
    expect(addressHash(KEY, 'jo@example.com')).toMatch(/^[0-9a-f]{64}$/);
  });

  it('gives one hash for every spelling of one mailbox: case, surrounding space, U-label domain', () => {
    const h = addressHash(KEY, 'jo@xn--bcher-kva.example');
    expect(addressHash(KEY, 'Jo@Xn--Bcher-Kva.Example')).toBe(h);
    expect(addressHash(KEY, '  JO@xn--bcher-kva.example ')).toBe(h);
    expect(addressHash(KEY, 'jo@Bücher.example')).toBe(h);
  });

  it('differs between addresses and between keys', () => {
    expect(addressHash(KEY, 'jo@example.com')).not.toBe(addressHash(KEY, 'jon@example.com'));
    expect(addressHash(KEY, 'jo@example.com')).not.toBe(addressHash('other-key', 'jo@example.com'));
  });
});

describe('addressHint', () => {
  it.each([
    ['jo@example.com', 'j***@example.com'],
    ['Jo.Smith@Example.COM', 'j***@example.com'],
    ['x@example.com', 'x***@example.com'],
    ['ada@Bücher.example', 'a***@xn--bcher-kva.example'],
  ])('masks %s as %s', (address, hint) => {
    expect(addressHint(address)).toBe(hint);
  });

  it('keeps nothing of the local part but its first character', () => {
    expect(addressHint('secretname@example.com')).not.toContain('ecret');
  });
});

describe('normaliseListEntry', () => {
  it.each([
    ['Jo@Example.COM', 'jo@example.com'],
    [' jo@example.com ', 'jo@example.com'],
    ['@Example.COM', '@example.com'],
    ['@Bücher.example', '@xn--bcher-kva.example'],
    ['Jo@Bücher.Example', 'jo@xn--bcher-kva.example'],
    ['@sub.example.com', '@sub.example.com'],
  ])('stores %j as %j', (raw, stored) => {
    expect(normaliseListEntry(raw)).toBe(stored);
  });

  it.each([
    ['a bare domain', 'example.com'],
    ['a lone @', '@'],
    ['a domain without a dot', '@localhost'],
    ['a label with a leading hyphen', '@-bad.example'],
    ['an address without a domain', 'jo@'],
    ['an address with a non-ASCII local part', 'jö@example.com'],
    ['two @ in a domain entry', '@jo@example.com'],
    ['an empty entry', ''],
  ])('refuses %s with invalid_request on path "entry"', (_name, raw) => {
    expect(() => normaliseListEntry(raw)).toThrow(
      expect.objectContaining({
        code: 'invalid_request',
        details: { errors: [expect.objectContaining({ path: 'entry' })] },
      }),
    );
  });
});

const NOW = Date.UTC(2025, 6, 1, 12);
const R = 'jo@example.com';

function ctx(over: Partial<RecipientFilterContext> = {}): RecipientFilterContext {
  return {
    now: NOW,
    elective: false,
    allowlistOnly: false,
    requireKnownRecipient: false,
    suppressions: new Map(),
    sendBlock: new Set(),
    sendAllow: new Set(),
    contacts: new Map(),
    ...over,
  };
}
/** R's contact with these counts (the others zero). */
const counts = (c: Partial<ContactCounts>) =>
  new Map([[R, { inbound_count: 0, authenticated_inbound_count: 0, outbound_count: 0, ...c }]]);
const suppressedBy = (
  reason: Extract<FilterDecision, { status: 'suppressed' }>['reason'],
  smtp: string,
): FilterDecision => ({ status: 'suppressed', reason, smtp_response: smtp });
const supp = (reason: SuppressionReason, more: { expires_at?: number; elective?: boolean } = {}) =>
  new Map([[R, { reason, ...more }]]);

describe('filterRecipient (check 16)', () => {
  it.each<[string, Partial<RecipientFilterContext>, FilterDecision]>([
    ['no rule matches', {}, { status: 'queued' }],
    [
      'a hard-bounce suppression',
      { suppressions: supp('hard_bounce') },
      suppressedBy('hard_bounce', 'policy: suppression (hard_bounce)'),
    ],
    [
      'a complaint suppression',
      { suppressions: supp('complaint') },
      suppressedBy('complaint', 'policy: suppression (complaint)'),
    ],
    [
      'a provider suppression',
      { suppressions: supp('provider') },
      suppressedBy('provider', 'policy: suppression (provider)'),
    ],
    [
      'a manual suppression',
      { suppressions: supp('manual') },
      suppressedBy('manual', 'policy: suppression (manual)'),
    ],
    [
      'a send-block entry for the address',
      { sendBlock: new Set([R]) },
      suppressedBy('send_block', 'policy: send_block'),
    ],
    [
      'a send-block entry for its @domain',
      { sendBlock: new Set(['@example.com']) },
      suppressedBy('send_block', 'policy: send_block'),
    ],
    [
      'a send-block entry for another domain',
      { sendBlock: new Set(['@example.net', 'jo@example.net']) },
      { status: 'queued' },
    ],
    [
      'allowlist-only without an allow entry',
      { allowlistOnly: true, sendAllow: new Set(['@example.net']) },
      suppressedBy('not_on_allowlist', 'policy: not_on_allowlist'),
    ],
    [
      'allowlist-only with the address allowed',
      { allowlistOnly: true, sendAllow: new Set([R]) },
      { status: 'queued' },
    ],
    [
      'allowlist-only with its @domain allowed',
      { allowlistOnly: true, sendAllow: new Set(['@example.com']) },
      { status: 'queued' },
    ],
    ['an allow entry while allowlist-only is off', { sendAllow: new Set() }, { status: 'queued' }],
    [
      'require-known-recipient and no contact',
      { requireKnownRecipient: true },
      suppressedBy('unknown_recipient', 'policy: unknown_recipient'),
    ],
    [
      'require-known-recipient and a contact with zero counts',
      { requireKnownRecipient: true, contacts: counts({}) },
      suppressedBy('unknown_recipient', 'policy: unknown_recipient'),
    ],
    [
      'require-known-recipient and a contact whose mail did not prove its sender',
      { requireKnownRecipient: true, contacts: counts({ inbound_count: 4 }) },
      suppressedBy('unknown_recipient', 'policy: unknown_recipient'),
    ],
    [
      'require-known-recipient and a contact whose mail proved its sender',
      { requireKnownRecipient: true, contacts: counts({ inbound_count: 1, authenticated_inbound_count: 1 }) },
      { status: 'queued' },
    ],
    [
      'require-known-recipient and a contact we wrote to',
      { requireKnownRecipient: true, contacts: counts({ outbound_count: 3 }) },
      { status: 'queued' },
    ],
  ])('%s', (_name, over, expected) => {
    expect(filterRecipient(R, ctx(over))).toEqual(expected);
  });

  it('checks in order: suppression, send-block, allowlist, known recipient', () => {
    const all = ctx({
      suppressions: supp('hard_bounce'),
      sendBlock: new Set([R]),
      allowlistOnly: true,
      requireKnownRecipient: true,
    });
    expect(filterRecipient(R, all)).toMatchObject({ reason: 'hard_bounce' });
    expect(filterRecipient(R, { ...all, suppressions: new Map() })).toMatchObject({ reason: 'send_block' });
    expect(filterRecipient(R, { ...all, suppressions: new Map(), sendBlock: new Set() })).toMatchObject({
      reason: 'not_on_allowlist',
    });
    expect(
      filterRecipient(R, { ...all, suppressions: new Map(), sendBlock: new Set(), allowlistOnly: false }),
    ).toMatchObject({ reason: 'unknown_recipient' });
  });

  it('matches the recipient case-insensitively and by its A-label domain', () => {
    const c = ctx({ suppressions: new Map([['jo@xn--bcher-kva.example', { reason: 'manual' as const }]]) });
    expect(filterRecipient('JO@Bücher.Example', c)).toMatchObject({ status: 'suppressed' });
    expect(filterRecipient('Ann@EXAMPLE.com', ctx({ sendBlock: new Set(['@example.com']) }))).toMatchObject({
      reason: 'send_block',
    });
  });
});

describe('filterRecipient: an unsubscribe is not a hard bounce', () => {
  // [suppression, elective mail blocked?, transactional mail blocked?]
  it.each<[string, SuppressionReason, { elective?: boolean }, boolean, boolean]>([
    ['an unsubscribe', 'unsubscribe', {}, true, false],
    ['a manual suppression marked elective', 'manual', { elective: true }, true, false],
    ['a manual suppression', 'manual', {}, true, true],
    ['a manual suppression marked not elective', 'manual', { elective: false }, true, true],
    ['a hard bounce', 'hard_bounce', {}, true, true],
    ['a complaint', 'complaint', {}, true, true],
    ['a provider suppression', 'provider', {}, true, true],
  ])('%s: blocks elective mail %s, transactional mail %s', (_name, reason, more, elective, transactional) => {
    const c = ctx({ suppressions: supp(reason, more) });
    expect(filterRecipient(R, { ...c, elective: true }).status).toBe(elective ? 'suppressed' : 'queued');
    expect(filterRecipient(R, { ...c, elective: false }).status).toBe(
      transactional ? 'suppressed' : 'queued',
    );
  });

  it('lets the later rules still apply when an unsubscribe does not block', () => {
    const c = ctx({ suppressions: supp('unsubscribe'), sendBlock: new Set([R]) });
    expect(filterRecipient(R, c)).toEqual(suppressedBy('send_block', 'policy: send_block'));
  });
});

describe('filterRecipient: expiry', () => {
  it.each([
    ['expires in the future', NOW + 1, 'suppressed'],
    ['expires exactly now', NOW, 'queued'],
    ['expired', NOW - 1, 'queued'],
  ])('a suppression that %s → %s', (_name, expires_at, status) => {
    expect(filterRecipient(R, ctx({ suppressions: supp('manual', { expires_at }) })).status).toBe(status);
  });
});

describe('filterRecipients', () => {
  it('decides each recipient on its own, in input order', () => {
    const out = filterRecipients(
      [
        { address: 'ok@example.net', field: 'to' },
        { address: R, field: 'cc' },
        { address: 'blocked@example.org', field: 'bcc' },
      ],
      ctx({ suppressions: supp('complaint'), sendBlock: new Set(['@example.org']) }),
    );
    expect(out).toEqual([
      { address: 'ok@example.net', status: 'queued' },
      { address: R, ...suppressedBy('complaint', 'policy: suppression (complaint)') },
      { address: 'blocked@example.org', ...suppressedBy('send_block', 'policy: send_block') },
    ]);
  });
});

describe('views', () => {
  const s: Suppression = {
    address_hash: 'a'.repeat(64),
    address_hint: 'j***@example.com',
    reason: 'unsubscribe',
    created_at: NOW,
  };

  it('shows a suppression with RFC 3339 times, nulls and no hash', () => {
    expect(toSuppressionView(s)).toEqual({
      address_hint: 'j***@example.com',
      reason: 'unsubscribe',
      created_at: '2025-07-01T12:00:00.000Z',
      expires_at: null,
      source_message_id: null,
      elective: true,
    });
    expect(
      toSuppressionView({ ...s, reason: 'hard_bounce', expires_at: NOW + 1000, source_message_id: 'msg_x' }),
    ).toMatchObject({ expires_at: '2025-07-01T12:00:01.000Z', source_message_id: 'msg_x', elective: false });
  });

  it('calls only unsubscribe and elective manual suppressions elective', () => {
    expect(toSuppressionView({ ...s, reason: 'manual' }).elective).toBe(false);
    expect(toSuppressionView({ ...s, reason: 'manual', elective: true }).elective).toBe(true);
    expect(toSuppressionView({ ...s, reason: 'complaint', elective: true }).elective).toBe(false);
  });
});

// The openapi.yaml side of the tenants routes: what test/unit/openapi.test.ts checks for every
// route, and the schema agreement for these handlers' zod schemas.
describe('openapi.yaml tenants routes', () => {
  // biome-ignore lint/suspicious/noExplicitAny: walking a parsed YAML document
  type Json = Record<string, any>;
  const doc = parse(readFileSync(new URL('../../openapi.yaml', import.meta.url), 'utf8')) as Json;
  const deref = (node: Json): Json => {
    let n = node;
    while (n.$ref)
      n = n.$ref
        .slice(2)
        .split('/')
        .reduce((t: Json, p: string) => t[p], doc);
    return n;
  };
  const tenantRoutes = routes.filter((r) => r.group === 'tenants');
  const opOf = (r: (typeof tenantRoutes)[number]) => doc.paths[r.path]?.[r.method.toLowerCase()];

  it.each(tenantRoutes.map((r) => [r.operation, r] as const))(
    'documents %s with its path parameters',
    (_n, r) => {
      const op = opOf(r);
      expect(op?.operationId).toBe(r.operation);
      const params = [...(doc.paths[r.path].parameters ?? []), ...(op.parameters ?? [])].map(deref);
      const inPath = params.filter((p) => p.in === 'path');
      expect(inPath.map((p) => p.name).sort()).toEqual(
        [...r.path.matchAll(/\{(\w+)\}/g)].map((m) => m[1]).sort(),
      );
      for (const p of inPath) expect(p.required).toBe(true);
      expect(op['x-error-codes']).toEqual(
        expect.arrayContaining([
          'unauthenticated',
          'permission_denied',
          'tenant_not_found',
          'internal_error',
        ]),
      );
    },
  );

  const comparable = (s: Json): Json => ({
    type: s.type,
    enum: s.enum,
    default: s.default,
    minLength: s.minLength,
    maxLength: s.maxLength,
    minimum: s.minimum,
    maximum: s.maximum,
    format: s.format,
  });

  it('describes createSuppression with the fields, required set and values of createSuppressionSchema', () => {
    const zod = z.toJSONSchema(createSuppressionSchema, { io: 'input' }) as Json;
    const documented = deref(doc.components.schemas.SuppressionCreateRequest);
    expect(documented.additionalProperties).toBe(false);
    expect([...documented.required].sort()).toEqual([...zod.required].sort());
    expect(Object.keys(documented.properties).sort()).toEqual(Object.keys(zod.properties).sort());
    for (const [name, schema] of Object.entries(zod.properties as Json))
      expect(comparable(documented.properties[name]), name).toEqual(comparable(schema));
  });

  it.each([
    ['listSuppressions', listSuppressionsQuerySchema],
    ['listListEntries', listEntriesQuerySchema],
  ] as const)('describes the query parameters of %s as its zod schema', (operation, schema) => {
    const r = tenantRoutes.find((t) => t.operation === operation)!;
    const query = (opOf(r).parameters as Json[]).map(deref).filter((p) => p.in === 'query');
    const zod = z.toJSONSchema(schema, { io: 'input' }) as Json;
    expect(query.map((p) => p.name).sort()).toEqual(Object.keys(zod.properties).sort());
    for (const p of query) {
      expect(p.required ?? false, p.name).toBe(false);
      expect(comparable(p.schema), p.name).toEqual(comparable(zod.properties[p.name]));
    }
  });

  it('declares exactly the fields of the Suppression and ListEntry views', () => {
    const view = toSuppressionView({
      address_hash: 'a'.repeat(64),
      address_hint: 'j***@example.com',
      reason: 'manual',
      created_at: NOW,
    });
    const suppression = doc.components.schemas.Suppression;
    expect(Object.keys(suppression.properties).sort()).toEqual(Object.keys(view).sort());
    expect([...suppression.required].sort()).toEqual(Object.keys(view).sort());
    expect(suppression.properties.reason.enum.sort()).toEqual(
      ['manual', 'unsubscribe', 'hard_bounce', 'complaint', 'provider'].sort(),
    );
    const entry = toListEntryView({
      direction: 'send',
      kind: 'block',
      entry: '@example.com',
      created_at: NOW,
    });
    const listEntry = doc.components.schemas.ListEntry;
    expect([...listEntry.required].sort()).toEqual(Object.keys(entry).sort());
    // A receive allow entry says whether it admits unauthenticated mail too; other entries do not.
    const allow = toListEntryView({
      direction: 'receive',
      kind: 'allow',
      entry: '@example.com',
      created_at: NOW,
      unauthenticated: true,
    });
    expect(allow.unauthenticated).toBe(true);
    expect(Object.keys(listEntry.properties).sort()).toEqual(Object.keys(allow).sort());
  });
});
