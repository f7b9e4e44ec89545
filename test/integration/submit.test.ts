import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sha256Hex } from '../../functions/core/fingerprint.ts';
import { localDay } from '../../functions/core/quota.ts';
import { hooksOf } from '../../functions/store/dynamodb.ts';
import { keys } from '../../functions/store/table-keys.ts';
import { type TestStack, testStack } from '../support/local.ts';

let s: TestStack;
beforeAll(async () => {
  s = await testStack({ config: { simEventDelaySeconds: 0 } });
});
afterAll(async () => {
  await s.settle();
  await s.close();
});

const hello = () => ({ to: [s.peer.address], subject: 'Hello', text: 'Hi peer.' });

async function idempotencyItem(identityId: string, key: string) {
  const out = await s.deps.db.get({
    TableName: s.deps.db.table,
    Key: keys.idempotency(identityId, sha256Hex(key)),
    ConsistentRead: true,
  });
  return out.Item;
}

/** Leave an in-progress reservation of `key`, as a running (or crashed) request would. */
async function holdKey(key: string, owner: string, leaseUntil: number) {
  await s.deps.db.update({
    TableName: s.deps.db.table,
    Key: keys.idempotency(s.agent.id, sha256Hex(key)),
    UpdateExpression: 'SET #s = :s, #o = :o, lease_until = :l, fingerprint = :f, expires_at = :e',
    ExpressionAttributeNames: { '#s': 'state', '#o': 'owner' },
    ExpressionAttributeValues: {
      ':s': 'in_progress',
      ':o': owner,
      ':l': leaseUntil,
      ':f': 'x',
      ':e': Date.now() + 1e9,
    },
  });
}

describe('POST /v1/identities/{id}/messages', () => {
  it('accepts a send with 202, the Message object and deduplicated false', async () => {
    const res = await s.send(hello(), 'accept-1');
    expect(res.status).toBe(202);
    expect(res.headers['request-id']).toMatch(/^req_/);
    expect(res.headers['idempotent-replayed']).toBeUndefined();
    expect(res.body).toMatchObject({
      direction: 'outbound',
      status: 'queued',
      deduplicated: false,
      from: { address: s.agent.address },
      to: [{ address: s.peer.address, name: null }],
      deliveries: [{ address: s.peer.address, field: 'to', status: 'queued' }],
    });
    expect(res.body.id).toMatch(/^msg_[0-9a-z]{26}$/);
    expect(res.body.rfc_message_id).toMatch(/^<[0-9a-z]{26}@/);
  });

  it('replays the stored response for the same key and body, with Idempotent-Replayed', async () => {
    const first = await s.send(hello(), 'replay-1');
    await s.settle();
    const again = await s.send({ text: 'Hi peer.', subject: 'Hello', to: [s.peer.address] }, 'replay-1');
    expect(again.status).toBe(202);
    expect(again.headers['idempotent-replayed']).toBe('true');
    const { deduplicated: d1, ...firstMessage } = first.body;
    const { deduplicated: d2, ...replayed } = again.body;
    expect([d1, d2]).toEqual([false, true]);
    // the stored 202, even though the message has moved on since
    expect(replayed).toEqual(firstMessage);
    expect((await s.message(s.agent.id, first.body.id))?.status).toBe('delivered');
  });

  it('answers a duplicate from one BatchGetItem of the key, the identity, the Idempotency-Key and the rate counters, writing nothing', async () => {
    const first = await s.send(hello(), 'replay-one-read');
    await s.settle();
    const calls: { command: string; keys: string[] }[] = [];
    let recording = true;
    const remove = hooksOf(s.deps.db).aroundCall(async (operation, given, next) => {
      if (recording) {
        const input = given as { RequestItems?: Record<string, { Keys: { sk: string }[] }> };
        calls.push({
          command: operation,
          keys: Object.values(input.RequestItems ?? {}).flatMap((r) => r.Keys.map((k) => k.sk.split('#')[0])),
        });
      }
      return next();
    });
    try {
      const again = await s.send(hello(), 'replay-one-read');
      recording = false;
      expect([again.status, again.headers['idempotent-replayed'], again.body.id]).toEqual([
        202,
        'true',
        first.body.id,
      ]);
      expect(calls.map((c) => c.command)).toEqual(['BatchGetItem']);
      expect(new Set(calls[0].keys)).toEqual(new Set(['K', 'I', 'IK', 'Q']));
    } finally {
      remove();
    }
  });

  it('reads the tenant with the pipeline in one BatchGetItem beside the reservation: a new send is seven round trips of nine calls, the search document beside the objects', async () => {
    // Executions are not started here, so no attempt's calls mix with the request's. A known
    // recipient (no contact write after the commit) and a lease with room on today's counter (no
    // block leased ahead): the common case.
    const r = await testStack({ dispatcher: { start: async () => undefined } });
    const to = { to: ['delivered@simulator.invalid'], subject: 'Round trips', text: 'Hi.' };
    const send = (key: string) =>
      r.call('POST', `/v1/identities/${r.agent.id}/messages`, {
        body: to,
        headers: { 'idempotency-key': key },
      });
    const calls: { label: string; start: number; end: number }[] = [];
    let recording = false;
    hooksOf(r.deps.db).aroundCall(async (operation, given, next) => {
      if (!recording) return next();
      const input = given as {
        RequestItems?: Record<string, { Keys: { sk: string }[] }>;
        TransactItems?: Record<string, { Key?: { sk: string }; Item?: { sk: string } }>[];
        Key?: { sk: string };
        Item?: { sk: string };
      };
      const sks = [
        ...Object.values(input.RequestItems ?? {}).flatMap((x) => x.Keys.map((k) => k.sk)),
        ...(input.TransactItems ?? []).flatMap((t) => Object.values(t).map((w) => w.Key?.sk ?? w.Item?.sk)),
        ...[input.Key?.sk ?? input.Item?.sk],
      ].filter((k) => k !== undefined);
      // A search document's sort key is its message id (store/search.store.ts).
      const prefixes = [
        ...new Set(sks.map((k) => (k.startsWith('msg_') ? 'search' : k.split('#')[0]))),
      ].sort();
      const call = {
        label: `${operation} ${prefixes.join('+')}`,
        start: performance.now(),
        end: Number.POSITIVE_INFINITY,
      };
      calls.push(call);
      try {
        return await next();
      } finally {
        call.end = performance.now();
      }
    });
    try {
      for (let i = 0; ; i++) {
        expect((await send(`trips-warm-${i}`)).status).toBe(202);
        const q = await r.deps.db.get({
          TableName: r.deps.db.table,
          Key: { pk: `I#${r.agent.id}`, sk: `Q#${localDay(Date.now(), 'UTC')}` },
          ConsistentRead: true,
        });
        if (Number(q.Item?.lease ?? 0) > Number(q.Item?.sends ?? 0) + 1) break;
      }
      recording = true;
      const sent = await send('trips-measured');
      recording = false;
      expect(sent.status).toBe(202);
      // Calls that overlap are one round trip.
      const waves: string[][] = [];
      let end = -1;
      for (const c of [...calls].sort((a, b) => a.start - b.start)) {
        if (c.start < end) waves[waves.length - 1].push(c.label);
        else waves.push([c.label]);
        end = Math.max(end, c.end);
      }
      expect(waves.map((w) => w.sort())).toEqual([
        ['BatchGetItem I+IK+K+Q'],
        ['BatchGetItem A+C+D+L+S+T', 'PutItem IK'],
        ['UpdateItem Q'],
        // The search document, put beside the MIME and link objects before the commit, so a writer
        // that stops after the commit still leaves its message findable (docs/design/search.md ›
        // Full text); it overlaps the object store's puts, which this count does not see.
        ['PutItem search'],
        // The message's number in the identity's feed, taken just before its commit
        // (docs/design/ordering.md), then the message with its slot in one transaction.
        ['UpdateItem F'],
        ['TransactWriteItems F+M'],
        // The thread list's summary and the sent body go beside the key's completion: no round
        // trip of their own (docs/design/cost.md › Sent bodies).
        ['PutItem MB', 'UpdateItem IK', 'UpdateItem TH'],
      ]);
    } finally {
      await r.close();
    }
  });

  it('refuses the same key with another body: 409 idempotency_conflict naming the original message', async () => {
    const first = await s.send(hello(), 'conflict-1');
    const other = await s.send({ ...hello(), text: 'Something else.' }, 'conflict-1');
    expect(other.status).toBe(409);
    expect(other.body.error).toMatchObject({
      code: 'idempotency_conflict',
      retryable: false,
      details: { original_message_id: first.body.id },
    });
    expect(other.body.error.request_id).toBe(other.headers['request-id']);
  });

  it('answers 409 request_in_progress while another request holds the key', async () => {
    const key = 'in-progress-1';
    await holdKey(key, 'other', Date.now() + 60_000);
    const res = await s.send(hello(), key);
    expect(res.status).toBe(409);
    expect(res.body.error).toMatchObject({ code: 'request_in_progress', retryable: true });
  });

  it('takes over a key whose in-progress lease has run out (the first request crashed)', async () => {
    const key = 'expired-lease-1';
    await holdKey(key, 'crashed', Date.now() - 1);
    const res = await s.send(hello(), key);
    expect(res.status).toBe(202);
    expect((await idempotencyItem(s.agent.id, key))?.state).toBe('completed');
  });

  it.each([
    ['missing', undefined, 'idempotency_key_required'],
    ['empty', '', 'invalid_idempotency_key'],
    ['256 bytes long', 'k'.repeat(256), 'invalid_idempotency_key'],
    ['holding a DEL byte', 'bad\x7Fkey', 'invalid_idempotency_key'],
    ['holding a non-ASCII character', 'clé', 'invalid_idempotency_key'],
  ])('refuses an Idempotency-Key that is %s with 400', async (_what, key, code) => {
    const res = await s.call('POST', `/v1/identities/${s.agent.id}/messages`, {
      body: hello(),
      headers: key === undefined ? {} : { 'idempotency-key': key },
    });
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe(code);
  });

  it('accepts a 255-byte key made of printable ASCII with spaces', async () => {
    const key = ' a~'.repeat(85);
    expect(Buffer.byteLength(key)).toBe(255);
    expect((await s.send(hello(), key)).status).toBe(202);
  });

  it('refuses a body over 7 MiB with 413 payload_too_large', async () => {
    const res = await s.call('POST', `/v1/identities/${s.agent.id}/messages`, {
      rawBody: JSON.stringify({ ...hello(), text: 'x'.repeat(7 * 1024 * 1024) }),
      headers: { 'idempotency-key': 'too-big' },
    });
    expect(res.status).toBe(413);
    expect(res.body.error.code).toBe('payload_too_large');
  });

  it('refuses a composed message over 5 MiB − 8 KiB with 413 message_too_large and stores nothing', async () => {
    const key = 'mime-too-big';
    const res = await s.send(
      {
        ...hello(),
        attachments: [
          {
            filename: 'big.bin',
            content_type: 'application/octet-stream',
            content_base64: Buffer.alloc(3_900_000, 7).toString('base64'),
          },
        ],
      },
      key,
    );
    expect(res.status).toBe(413);
    expect(res.body.error).toMatchObject({
      code: 'message_too_large',
      details: { max_bytes: 5_242_880 - 8_192 },
    });
    expect(await idempotencyItem(s.agent.id, key)).toBeUndefined();
  });

  it('lists every schema error in details.errors with its path', async () => {
    const res = await s.send({ to: [s.peer.address], subject: 7, unknown_field: true }, 'schema-1');
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('invalid_request');
    const paths = res.body.error.details.errors.map((e: { path: string }) => e.path);
    expect(paths).toEqual(expect.arrayContaining(['subject']));
    expect(res.body.error.details.errors.length).toBeGreaterThanOrEqual(2);
  });

  it('refuses malformed JSON with 400 invalid_request', async () => {
    const res = await s.call('POST', `/v1/identities/${s.agent.id}/messages`, {
      rawBody: '{"to": [',
      headers: { 'idempotency-key': 'json-1' },
    });
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('invalid_request');
  });

  it('refuses a test-mode send to an outside address with 403 and records nothing, so the key stays free', async () => {
    const key = 'outside-1';
    const res = await s.send({ ...hello(), to: ['someone@example.com'] }, key);
    expect(res.status).toBe(403);
    expect(res.body.error.code).toBe('test_mode_recipient');
    expect(await idempotencyItem(s.agent.id, key)).toBeUndefined();
    // the same key with a corrected body is evaluated afresh
    expect((await s.send(hello(), key)).status).toBe(202);
  });

  it('normalises and deduplicates recipients across to, cc and bcc (first field wins)', async () => {
    const res = await s.send(
      {
        to: [{ address: s.peer.address.toUpperCase().replace('@', '@'), name: 'Peer' }],
        cc: [s.peer.address, 'delivered@SIMULATOR.invalid'],
        bcc: ['delivered@simulator.invalid'],
        text: 'x',
      },
      'dedupe-1',
    );
    expect(res.status).toBe(202);
    expect(res.body.deliveries.map((d: { field: string }) => d.field)).toEqual(['to', 'cc']);
    expect(res.body.cc).toEqual([{ address: 'delivered@simulator.invalid', name: null }]);
  });

  it.each([
    [{ to: ['not-an-address'], text: 'x' }, 'address_invalid'],
    [{ to: ['jöhn@simulator.invalid'], text: 'x' }, 'address_unsupported'],
    [{ to: [], text: 'x' }, 'invalid_request'],
    [
      { to: Array.from({ length: 11 }, (_, i) => `d+${i}@simulator.invalid`), text: 'x' },
      'too_many_recipients',
    ],
    [{ to: ['a@simulator.invalid'] }, 'invalid_request'],
  ])('refuses %j with %s', async (body, code) => {
    const res = await s.send(body);
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe(code);
  });

  it('answers 404 identity_not_found for an identity outside the key, exactly as for a missing one', async () => {
    const other = await testStack();
    try {
      const foreign = await s.call('POST', `/v1/identities/${other.agent.id}/messages`, {
        body: hello(),
        headers: { 'idempotency-key': 'foreign' },
      });
      const missing = await s.call('POST', `/v1/identities/idn_${'0'.repeat(26)}/messages`, {
        body: hello(),
        headers: { 'idempotency-key': 'missing' },
      });
      expect(foreign.status).toBe(404);
      expect(missing.status).toBe(404);
      expect(foreign.body.error.code).toBe('identity_not_found');
      expect({ ...foreign.body.error, request_id: 0 }).toEqual({ ...missing.body.error, request_id: 0 });
    } finally {
      await other.close();
    }
  });

  it('refuses a missing or unknown key with 401 unauthenticated', async () => {
    const res = await s.call('GET', `/v1/identities/${s.agent.id}/messages`, { key: 'pm_test_unknown' });
    expect(res.status).toBe(401);
    expect(res.body.error.code).toBe('unauthenticated');
  });

  it('rate-limits at 120 sends a minute per identity with 429 and Retry-After, replays included (the limit is checked before a replay is answered)', async () => {
    const r = await testStack({ config: { simEventDelaySeconds: 0 } });
    try {
      const ok = await r.send({ to: ['delivered@simulator.invalid'], text: 'x' }, 'rl-first');
      expect(ok.status).toBe(202);
      // fill the current window the way 119 more sends would
      const now = Date.now();
      await r.deps.db.update({
        TableName: r.deps.db.table,
        Key: { pk: `I#${r.agent.id}`, sk: `Q#${localDay(now, 'UTC')}` },
        UpdateExpression: 'SET rm = :w, rn = :n',
        ExpressionAttributeValues: { ':w': now - (now % 60_000), ':n': 120 },
      });
      const limited = await r.send({ to: ['delivered@simulator.invalid'], text: 'y' }, 'rl-second');
      if (Date.now() - (Date.now() % 60_000) !== now - (now % 60_000)) return; // the minute turned over mid-test
      expect(limited.status).toBe(429);
      expect(limited.body.error).toMatchObject({ code: 'rate_limited', retryable: true });
      expect(Number(limited.headers['retry-after'])).toBeGreaterThanOrEqual(1);
      expect(Number(limited.headers['retry-after'])).toBeLessThanOrEqual(60);
      const replay = await r.send({ to: ['delivered@simulator.invalid'], text: 'x' }, 'rl-first');
      expect(replay.status).toBe(429);
    } finally {
      await r.settle();
      await r.close();
    }
  });
});

describe('GET messages', () => {
  it('returns a message with its deliveries, and 404 message_not_found for an unknown id', async () => {
    const sent = await s.send(hello(), 'get-1');
    const got = await s.call('GET', `/v1/identities/${s.agent.id}/messages/${sent.body.id}`);
    expect(got.status).toBe(200);
    expect(got.body.id).toBe(sent.body.id);
    expect(got.body.deliveries).toHaveLength(1);
    const missing = await s.call('GET', `/v1/identities/${s.agent.id}/messages/msg_${'0'.repeat(26)}`);
    expect(missing.status).toBe(404);
    expect(missing.body.error.code).toBe('message_not_found');
    const malformed = await s.call('GET', `/v1/identities/${s.agent.id}/messages/${'x'.repeat(2000)}`);
    expect(malformed.status).toBe(404);
    expect(malformed.body.error.code).toBe('message_not_found');
  });

  it('lists newest first by direction, page by page with an opaque cursor', async () => {
    const r = await testStack({ config: { simEventDelaySeconds: 0 } });
    try {
      const ids: string[] = [];
      for (let i = 0; i < 5; i++)
        ids.push((await r.send({ to: [r.peer.address], text: `n${i}` }, `list-${i}`)).body.id);
      await r.settle();
      const seen: string[] = [];
      let cursor: string | undefined;
      do {
        const page = await r.call('GET', `/v1/identities/${r.agent.id}/messages`, {
          query: { direction: 'outbound', limit: '2', ...(cursor ? { cursor } : {}) },
        });
        expect(page.status).toBe(200);
        expect(page.body.data.length).toBeLessThanOrEqual(2);
        seen.push(...page.body.data.map((m: { id: string }) => m.id));
        cursor = page.body.next_cursor ?? undefined;
      } while (cursor);
      expect(seen).toEqual([...ids].reverse());
      const inbound = await r.call('GET', `/v1/identities/${r.peer.id}/messages`, {
        query: { direction: 'inbound' },
      });
      expect(inbound.body.data).toHaveLength(5);
      expect(inbound.body.data.every((m: { direction: string }) => m.direction === 'inbound')).toBe(true);
      const none = await r.call('GET', `/v1/identities/${r.peer.id}/messages`, {
        query: { direction: 'outbound' },
      });
      expect(none.body).toEqual({ data: [], next_cursor: null });
    } finally {
      await r.close();
    }
  });

  it('answers unknown routes with 404 route_not_found and a wrong method with 405 and Allow', async () => {
    const { matchRoute } = await import('../../functions/api/http.ts');
    expect(() => matchRoute('GET', '/v1/nothing')).toThrow(
      expect.objectContaining({ code: 'route_not_found' }),
    );
    expect(() => matchRoute('DELETE', `/v1/identities/${s.agent.id}/messages`)).toThrow(
      expect.objectContaining({ code: 'method_not_allowed', details: { allow: ['POST', 'GET'] } }),
    );
  });
});
