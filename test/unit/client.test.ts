import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { ERROR_CODES, Pmail, PmailError, PmailWaitTimeoutError } from '../../packages/client/src/index.ts';

/** @pmail/client without a server: its generated types, its error codes and its retry rule. */
const ROOT = resolve(import.meta.dirname, '../..');
const CLIENT = join(ROOT, 'packages/client');

describe('@pmail/client generated types', () => {
  it('src/schema.ts is what `npm run generate -w @pmail/client` makes of openapi.yaml now', async () => {
    const generator = join(CLIENT, 'scripts/generate.mjs');
    const { render } = (await import(generator)) as { render(): Promise<string> };
    const stored = readFileSync(join(CLIENT, 'src/schema.ts'), 'utf8');
    expect(stored === (await render()), 'stale: run `npm run generate -w @pmail/client`').toBe(true);
  });

  it('ERROR_CODES is the server ErrorCode union and openapi.yaml x-error-codes', () => {
    const source = readFileSync(join(ROOT, 'functions/core/errors.ts'), 'utf8');
    const union = source.match(/export type ErrorCode =([^;]+);/)?.[1] ?? '';
    const server = [...union.matchAll(/'([a-z_]+)'/g)].map((m) => m[1]);
    expect(server.length).toBeGreaterThan(10);
    expect([...ERROR_CODES].sort()).toEqual([...server].sort());
    const spec = parse(readFileSync(join(ROOT, 'openapi.yaml'), 'utf8')) as { 'x-error-codes': object };
    expect([...ERROR_CODES].sort()).toEqual(Object.keys(spec['x-error-codes']).sort());
  });
});

const json = (status: number, body: unknown, headers: Record<string, string> = {}) =>
  new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json', ...headers } });
const err = (code: string, retryable: boolean) => ({
  error: { code, message: code, retryable, fix: '', request_id: 'req_1', details: {} },
});

/** A client whose fetch answers from `answers` in turn (the last one repeats), recording requests. */
function scripted(answers: (() => Response)[], opts: { retries?: number } = {}) {
  const seen: Request[] = [];
  const sleeps: number[] = [];
  const pmail = new Pmail({
    apiKey: 'pm_test_x',
    baseUrl: 'http://pmail.invalid/',
    retries: opts.retries,
    retry: { sleep: async (ms) => void sleeps.push(ms), random: () => 1 },
    fetch: async (r) => {
      seen.push(r);
      return answers[Math.min(seen.length, answers.length) - 1]();
    },
  });
  return { pmail, seen, sleeps };
}

describe('@pmail/client retries', () => {
  it('backs off exponentially, bounded by `retries`, then answers with the typed error', async () => {
    const c = scripted([() => json(500, err('internal_error', true), { 'request-id': 'req_1' })]);
    const e = await c.pmail.messages.get('idn_x', 'msg_x').catch((x) => x);
    expect(e).toBeInstanceOf(PmailError);
    expect(e).toMatchObject({ code: 'internal_error', status: 500, requestId: 'req_1', retryable: true });
    expect(c.seen).toHaveLength(4);
    expect(c.sleeps).toEqual([200, 400, 800]);
    expect(c.seen[0].headers.get('authorization')).toBe('Bearer pm_test_x');
    expect(c.seen[0].url).toBe('http://pmail.invalid/v1/identities/idn_x/messages/msg_x');
  });

  it('returns at once a Retry-After longer than the longest wait, and a retryable: false answer', async () => {
    const cap = scripted([() => json(429, err('daily_cap_reached', true), { 'retry-after': '3600' })]);
    const e = await cap.pmail.messages
      .send('idn_x', { to: ['a@example.com'], text: 'x' }, { idempotencyKey: 'k1' })
      .catch((x) => x);
    expect(e).toMatchObject({ code: 'daily_cap_reached', status: 429, retryAfter: 3600 });
    expect(cap.seen).toHaveLength(1);
    const no = scripted([() => json(503, err('unavailable', false))]);
    await expect(no.pmail.keys.list()).rejects.toMatchObject({ code: 'unavailable' });
    expect(no.seen).toHaveLength(1);
  });

  it('retries a POST without a key only after a 429, and sends every keyed write with its key', async () => {
    const c = scripted([() => json(503, err('unavailable', true))]);
    await expect(c.pmail.webhooks.add({ url: 'https://hooks.example.com/x' })).rejects.toMatchObject({
      status: 503,
    });
    expect(c.seen).toHaveLength(1);
    const r = scripted([
      () => json(429, err('rate_limited', true), { 'retry-after': '1' }),
      () => json(201, {}),
    ]);
    await r.pmail.webhooks.add({ url: 'https://hooks.example.com/x' });
    expect(r.seen).toHaveLength(2);
    expect(r.sleeps).toEqual([1000]);
    const k = scripted([() => json(500, err('internal_error', true)), () => json(201, { id: 'ten_x' })]);
    const created = await k.pmail.tenants.create({ name: 'Acme' } as never);
    expect(created.data).toEqual({ id: 'ten_x' });
    expect(k.seen.map((q) => q.headers.get('idempotency-key'))).toEqual([
      created.idempotencyKey,
      created.idempotencyKey,
    ]);
    expect(await k.seen[1].json()).toEqual({ name: 'Acme' });
  });

  it('wait gives up at timeoutMs with the last status seen', async () => {
    let now = 0;
    const pmail = new Pmail({
      apiKey: 'k',
      baseUrl: 'http://pmail.invalid',
      now: () => now,
      retry: {
        sleep: async (ms) => {
          now += ms;
        },
      },
      fetch: async () => json(200, { id: 'msg_x', status: 'queued' }),
    });
    const e = await pmail.messages
      .wait('idn_x', 'msg_x', { until: 'delivered', timeoutMs: 1000, intervalMs: 300 })
      .catch((x) => x);
    expect(e).toBeInstanceOf(PmailWaitTimeoutError);
    expect(e.lastStatus).toBe('queued');
    expect(now).toBe(1000);
  });
});
