import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { simpleParser } from 'mailparser';
import { describe, expect, it } from 'vitest';
import type { Identity, Tenant } from '../../functions/core/model.ts';
import { keys } from '../../functions/store/table-keys.ts';
import { faults, writes } from '../support/faults.ts';
import { stackPerTest, type TestStack } from '../support/local.ts';

/**
 * The submit pipeline (docs/architecture.md › The submit path) against DynamoDB Local: each step's
 * error, in order, and nothing stored, reserved or locked after any of them.
 */
const stack = stackPerTest();

async function partition(s: TestStack, pk: string) {
  const out = await s.deps.db.query({
    TableName: s.deps.db.table,
    KeyConditionExpression: 'pk = :pk',
    ExpressionAttributeValues: { ':pk': pk },
  });
  return out.Items ?? [];
}

function files(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (d: string) => {
    let entries: string[] = [];
    try {
      entries = readdirSync(d);
    } catch {
      return;
    }
    for (const e of entries) {
      const p = join(d, e);
      if (statSync(p).isDirectory()) walk(p);
      else out[p] = readFileSync(p).toString('base64');
    }
  };
  walk(dir);
  return out;
}

/** Every item of the tenant's and its identities' partitions, and every blob byte. */
async function snapshot(s: TestStack) {
  const parts = await Promise.all([
    partition(s, `T#${s.tenantId}`),
    ...s.identities.map((i) => partition(s, `I#${i.id}`)),
  ]);
  return { items: JSON.stringify(parts), blobs: files(join(s.stateDir, 'blobs')) };
}

async function setIdentity(s: TestStack, id: string, fields: Partial<Identity>) {
  const names = Object.keys(fields);
  await s.deps.db.update({
    TableName: s.deps.db.table,
    Key: keys.identity(id),
    UpdateExpression: `SET ${names.map((_n, i) => `#n${i} = :v${i}`).join(', ')}`,
    ExpressionAttributeNames: Object.fromEntries(names.map((n, i) => [`#n${i}`, n])),
    ExpressionAttributeValues: Object.fromEntries(
      names.map((n, i) => [`:v${i}`, fields[n as keyof Identity]]),
    ),
  });
}

async function setTenant(s: TestStack, fields: Partial<Tenant>) {
  const names = Object.keys(fields);
  await s.deps.db.update({
    TableName: s.deps.db.table,
    Key: keys.tenant(s.tenantId),
    UpdateExpression: `SET ${names.map((_n, i) => `#n${i} = :v${i}`).join(', ')}`,
    ExpressionAttributeNames: Object.fromEntries(names.map((n, i) => [`#n${i}`, n])),
    ExpressionAttributeValues: Object.fromEntries(names.map((n, i) => [`:v${i}`, fields[n as keyof Tenant]])),
  });
}

const to = (address: string) => ({ to: [address], subject: 'Pipeline', text: 'body' });

describe('the policy pipeline refuses in order and stores nothing', () => {
  it.each<
    [
      string,
      (s: TestStack) => Promise<void>,
      Record<string, unknown> | ((s: TestStack) => Record<string, unknown>),
      number,
      string,
    ]
  >([
    [
      'a deleting identity',
      (s) => setIdentity(s, s.agent.id, { status: 'deleting' }),
      (s) => to(s.peer.address),
      404,
      'identity_not_found',
    ],
    [
      'a suspended tenant, even with the identity paused too',
      async (s) => {
        await setTenant(s, { status: 'suspended' });
        await setIdentity(s, s.agent.id, { status: 'paused', pause_reason: 'manual' });
      },
      (s) => to(s.peer.address),
      403,
      'tenant_suspended',
    ],
    [
      'a paused identity',
      (s) => setIdentity(s, s.agent.id, { status: 'paused', pause_reason: 'abuse_threshold' }),
      (s) => to(s.peer.address),
      409,
      'identity_paused',
    ],
    [
      'an identity without an owner',
      (s) => setIdentity(s, s.agent.id, { owner_email: '' }),
      (s) => to(s.peer.address),
      409,
      'identity_owner_required',
    ],
    [
      'an unknown thread_id',
      async () => {},
      (s) => ({ ...to(s.peer.address), thread_id: `thr_${'1'.repeat(26)}` }),
      404,
      'thread_not_found',
    ],
    ['an invalid address', async () => {}, to('no-at-sign'), 400, 'address_invalid'],
    [
      'more recipients than policy allows',
      (s) => setTenant(s, { policy: { max_recipients: 2 } }),
      { to: ['a@simulator.invalid', 'b@simulator.invalid', 'c@simulator.invalid'], text: 'x' },
      400,
      'too_many_recipients',
    ],
    ['a test tenant writing outside', async () => {}, to('someone@example.org'), 403, 'test_mode_recipient'],
    [
      'marketing without unsubscribe and consent',
      async () => {},
      { ...to('delivered@simulator.invalid'), kind: 'marketing' },
      400,
      'marketing_requirements_missing',
    ],
    [
      'marketing with an http unsubscribe URL',
      async () => {},
      {
        ...to('delivered@simulator.invalid'),
        kind: 'marketing',
        unsubscribe: { url: 'http://example.com/u' },
        consent: { basis: 'opt_in' },
      },
      400,
      'marketing_requirements_missing',
    ],
    [
      'an auto-reply that is not a reply',
      async () => {},
      { ...to('delivered@simulator.invalid'), kind: 'auto_reply' },
      409,
      'auto_reply_not_allowed',
    ],
    [
      'a header outside the allowlist',
      async () => {},
      { ...to('delivered@simulator.invalid'), headers: { 'Reply-To': 'x@example.com' } },
      400,
      'header_not_allowed',
    ],
    [
      'a reserved X-Pmail header',
      async () => {},
      { ...to('delivered@simulator.invalid'), headers: { 'x-pmail-hop': '9' } },
      400,
      'header_not_allowed',
    ],
    [
      'a bad Importance value',
      async () => {},
      { ...to('delivered@simulator.invalid'), headers: { importance: 'very' } },
      400,
      'invalid_request',
    ],
    [
      'a from_address of another identity',
      async () => {},
      (s) => ({ ...to('delivered@simulator.invalid'), from_address: s.peer.address }),
      400,
      'invalid_request',
    ],
    [
      'a sending domain still verifying',
      async (s) => {
        await s.deps.db.update({
          TableName: s.deps.db.table,
          Key: keys.domain(s.agent.address.split('@')[1]),
          UpdateExpression: 'SET #s = :s',
          ExpressionAttributeNames: { '#s': 'state' },
          ExpressionAttributeValues: { ':s': 'verifying' },
        });
      },
      to('delivered@simulator.invalid'),
      409,
      'domain_not_ready',
    ],
    [
      'a live tenant with no transport',
      (s) => setTenant(s, { mode: 'live' }),
      to('someone@example.org'),
      422,
      'transport_unavailable',
    ],
    [
      'a message over 5 MiB',
      async () => {},
      {
        ...to('delivered@simulator.invalid'),
        attachments: [
          {
            filename: 'big.bin',
            content_type: 'application/octet-stream',
            content_base64: Buffer.alloc(3_900_000, 1).toString('base64'),
          },
        ],
      },
      413,
      'message_too_large',
    ],
  ])('%s', async (_name, arrange, body, status, code) => {
    const s = await stack();
    await arrange(s);
    const before = await snapshot(s);
    const res = await s.send(typeof body === 'function' ? body(s) : body, 'pipeline-key');
    expect(res.status).toBe(status);
    expect(res.body.error.code).toBe(code);
    expect(await snapshot(s)).toEqual(before);
  });

  it('refuses the third consecutive automatic reply in a thread and stores nothing', async () => {
    const s = await stack();
    await s.send(to(s.peer.address), 'first');
    await s.settle();
    const [m] = await s.mailbox(s.peer.id, 'inbound');
    const reply = (k: string) =>
      s.call('POST', `/v1/identities/${s.peer.id}/messages/${m.id}/reply`, {
        body: { text: 'automatic', kind: 'auto_reply' },
        headers: { 'idempotency-key': k },
      });
    expect((await reply('auto-1')).status).toBe(202);
    await s.settle();
    expect((await reply('auto-2')).status).toBe(202);
    await s.settle();
    const before = await snapshot(s);
    const third = await reply('auto-3');
    expect(third.status).toBe(409);
    expect(third.body.error).toMatchObject({
      code: 'auto_reply_not_allowed',
      details: { reason: 'exchange_cap_reached' },
    });
    expect(await snapshot(s)).toEqual(before);
  });

  it('refuses an automatic reply to an automatic reply', async () => {
    const s = await stack();
    await s.send(to(s.peer.address), 'first');
    await s.settle();
    const [m] = await s.mailbox(s.peer.id, 'inbound');
    const auto = await s.call('POST', `/v1/identities/${s.peer.id}/messages/${m.id}/reply`, {
      body: { text: 'out of office', kind: 'auto_reply' },
      headers: { 'idempotency-key': 'ooo' },
    });
    expect(auto.status).toBe(202);
    await s.settle();
    const [copy] = await s.mailbox(s.agent.id, 'inbound');
    const back = await s.call('POST', `/v1/identities/${s.agent.id}/messages/${copy.id}/reply`, {
      body: { text: 'me too', kind: 'auto_reply' },
      headers: { 'idempotency-key': 'ooo-back' },
    });
    expect(back.status).toBe(409);
    expect(back.body.error.details.reason).toBe('replying_to_automated_mail');
  });

  it('answers 429 daily_cap_reached with resets_at at the next local midnight, and stores nothing', async () => {
    const s = await stack({ seed: { policy: { identity_daily_send_cap: 2 }, timezone: 'America/New_York' } });
    expect((await s.send(to('delivered@simulator.invalid'), 'cap-1')).status).toBe(202);
    expect((await s.send(to('delivered+2@simulator.invalid'), 'cap-2')).status).toBe(202);
    await s.settle();
    const before = await snapshot(s);
    const third = await s.send(to('delivered+3@simulator.invalid'), 'cap-3');
    expect(third.status).toBe(429);
    expect(third.body.error).toMatchObject({
      code: 'daily_cap_reached',
      details: { cap: 'identity', limit: 2 },
    });
    const resets = new Date(third.body.error.details.resets_at);
    const local = new Intl.DateTimeFormat('en-US', {
      timeZone: 'America/New_York',
      hour: 'numeric',
      minute: 'numeric',
      hourCycle: 'h23',
    }).format(resets);
    expect(local).toBe('00:00');
    expect(resets.getTime()).toBeGreaterThan(Date.now());
    expect(await snapshot(s)).toEqual(before);
    // quota.warning at 80 % and 100 % of the identity cap, once each
    const events = (await partition(s, `T#${s.tenantId}`))
      .filter((i) => i.type === 'event')
      .map((i) => i.event);
    const warnings = events.filter((e) => e.type === 'quota.warning' && e.data.scope === 'identity');
    expect(warnings.map((w) => w.data.threshold).sort()).toEqual([100, 80]);
  });
});

describe('daily caps under concurrency', () => {
  it('accepts exactly the cap when twelve different sends race for the last places', async () => {
    const s = await stack({ seed: { policy: { identity_daily_send_cap: 5 } } });
    const answers = await Promise.all(
      Array.from({ length: 12 }, (_, i) => s.send(to(`delivered+${i}@simulator.invalid`), `race-${i}`)),
    );
    const statuses = answers.map((a) => a.status).sort();
    expect(statuses.filter((x) => x === 202)).toHaveLength(5);
    expect(answers.filter((a) => a.status !== 202).map((a) => a.body.error.code)).toEqual(
      Array(7).fill('daily_cap_reached'),
    );
    await s.settle();
    expect(await s.mailbox(s.agent.id, 'outbound')).toHaveLength(5);
    const { readDailyCounts } = await import('../../functions/store/quota.store.ts');
    const { localDay } = await import('../../functions/core/quota.ts');
    // The identity leased exactly its cap from the tenant (its blocks never pass its own cap).
    expect(await readDailyCounts(s.deps.db, s.tenantId, s.agent.id, localDay(Date.now(), 'UTC'))).toEqual({
      tenant: 5,
      identity: 5,
      lease: 5,
    });
  });

  it('keeps the count when the commit answer is lost, since the send may be stored', async () => {
    const s = await stack({ seed: { policy: { identity_daily_send_cap: 5 } } });
    // The commit point, the message's conditional put: applied, its answer lost.
    const lost = faults(s.deps.db).loseAnswer(writes.message);
    const res = await s.send(to('delivered@simulator.invalid'), 'lost-answer');
    expect(lost.fired).toBe(true);
    expect(res.status).toBeGreaterThanOrEqual(500);
    const { readDailyCounts } = await import('../../functions/store/quota.store.ts');
    const { localDay } = await import('../../functions/core/quota.ts');
    // The message was written: it exists, and so does its count.
    expect(await s.mailbox(s.agent.id, 'outbound')).toHaveLength(1);
    expect(
      (await readDailyCounts(s.deps.db, s.tenantId, s.agent.id, localDay(Date.now(), 'UTC'))).identity,
    ).toBe(1);
  });

  it('gives the identity its count back when the tenant cap refuses, and leaves no counter behind', async () => {
    const s = await stack({ seed: { policy: { daily_send_cap: 1 } } });
    expect((await s.send(to('delivered@simulator.invalid'), 'tcap-1')).status).toBe(202);
    await s.settle();
    const peerBefore = await snapshot(s);
    // peer has sent nothing today: its refused send must not leave a counter item in its partition
    const refused = await s.call('POST', `/v1/identities/${s.peer.id}/messages`, {
      body: to('delivered+2@simulator.invalid'),
      headers: { 'idempotency-key': 'tcap-2' },
    });
    expect(refused.status).toBe(429);
    expect(refused.body.error.details).toMatchObject({ cap: 'tenant', limit: 1 });
    expect(await snapshot(s)).toEqual(peerBefore);
  });
});

describe('recipient filters', () => {
  it('turns suppressed and blocked recipients into suppressed deliveries with the rule in smtp_response', async () => {
    const s = await stack({ seed: { policy: {} } });
    const admin = (method: string, path: string, body?: unknown) =>
      s.call(method, `/v1/tenants/${s.tenantId}${path}`, { body });
    expect(
      (await admin('POST', '/suppressions', { address: 'bounce@simulator.invalid', reason: 'manual' }))
        .status,
    ).toBe(201);
    expect(
      (await admin('PUT', `/lists/send/block/${encodeURIComponent('blocked@simulator.invalid')}`)).status,
    ).toBeLessThan(300);
    const res = await s.send(
      {
        to: ['bounce@simulator.invalid', 'blocked@simulator.invalid', 'delivered@simulator.invalid'],
        text: 'x',
      },
      'filters-1',
    );
    expect(res.status).toBe(202);
    expect(
      res.body.deliveries.map((d: { status: string; smtp_response: string | null }) => [
        d.status,
        d.smtp_response,
      ]),
    ).toEqual([
      ['suppressed', 'policy: suppression (manual)'],
      ['suppressed', 'policy: send_block'],
      ['queued', null],
    ]);
    await s.settle();
    const m = await s.message(s.agent.id, res.body.id);
    expect(m?.status).toBe('delivered');
  });

  it('accepts an all-suppressed send as suppressed, emits message.suppressed and never dispatches it', async () => {
    const s = await stack();
    await s.call('POST', `/v1/tenants/${s.tenantId}/suppressions`, {
      body: { address: 'delivered@simulator.invalid', reason: 'manual' },
    });
    const res = await s.send(to('delivered@simulator.invalid'), 'all-suppressed');
    expect(res.status).toBe(202);
    expect(res.body.status).toBe('suppressed');
    await s.settle();
    expect(s.machine.started).toHaveLength(0);
    const events = (await partition(s, `T#${s.tenantId}`))
      .filter((i) => i.type === 'event')
      .map((i) => i.event);
    expect(events.filter((e) => e.type === 'message.suppressed').map((e) => e.data.message_id)).toEqual([
      res.body.id,
    ]);
  });

  it('lets an unsubscribe block marketing but not transactional mail', async () => {
    const s = await stack();
    await s.call('POST', `/v1/tenants/${s.tenantId}/suppressions`, {
      body: { address: 'delivered@simulator.invalid', reason: 'unsubscribe' },
    });
    const tx = await s.send(to('delivered@simulator.invalid'), 'tx');
    expect(tx.body.deliveries[0].status).toBe('queued');
    const mk = await s.send(
      {
        ...to('delivered@simulator.invalid'),
        kind: 'marketing',
        unsubscribe: { url: 'https://example.com/u' },
        consent: { basis: 'opt_in' },
      },
      'mk',
    );
    expect(mk.body.status).toBe('suppressed');
  });

  it('suppresses recipients the identity never wrote to or heard from when it requires known recipients', async () => {
    const s = await stack({ seed: { identity: { send_policy: { require_known_recipient: true } } } });
    const res = await s.send(to('delivered@simulator.invalid'), 'known-1');
    expect(res.body.deliveries[0]).toMatchObject({
      status: 'suppressed',
      smtp_response: 'policy: unknown_recipient',
    });
  });
});

describe('dry run', () => {
  it('reports each recipient and leaves the table and the blob store byte-for-byte unchanged', async () => {
    const s = await stack();
    await s.call('POST', `/v1/tenants/${s.tenantId}/suppressions`, {
      body: { address: 'bounce@simulator.invalid', reason: 'manual' },
    });
    const before = await snapshot(s);
    const res = await s.call('POST', `/v1/identities/${s.agent.id}/messages`, {
      query: { dry_run: 'true' },
      body: { to: ['delivered@simulator.invalid'], cc: ['bounce@simulator.invalid'], text: 'x' },
    });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      would_send: true,
      recipients: [
        { address: 'delivered@simulator.invalid', field: 'to', status: 'queued' },
        { address: 'bounce@simulator.invalid', field: 'cc', status: 'suppressed', reason: 'manual' },
      ],
    });
    expect(await snapshot(s)).toEqual(before);
    expect(s.machine.started).toHaveLength(0);
  });

  it('returns the policy error, 422 all_recipients_suppressed, or 422 recipient_blocked', async () => {
    const s = await stack();
    await s.call('POST', `/v1/tenants/${s.tenantId}/suppressions`, {
      body: { address: 'bounce@simulator.invalid', reason: 'manual' },
    });
    await s.call(
      'PUT',
      `/v1/tenants/${s.tenantId}/lists/send/block/${encodeURIComponent('@blocked.simulator.invalid')}`,
    );
    const dry = (body: unknown) =>
      s.call('POST', `/v1/identities/${s.agent.id}/messages`, {
        query: { dry_run: 'true' },
        body,
        headers: { 'idempotency-key': 'ignored' },
      });
    expect((await dry(to('someone@example.org'))).body.error.code).toBe('test_mode_recipient');
    const all = await dry(to('bounce@simulator.invalid'));
    expect([all.status, all.body.error.code]).toEqual([422, 'all_recipients_suppressed']);
    // nothing was recorded under the key: a real send with it is evaluated afresh
    expect((await s.send(to('delivered@simulator.invalid'), 'ignored')).body.deduplicated).toBe(false);
  });
});

describe('reply, reply-all and forward', () => {
  it('replies to the sender with Re:, In-Reply-To and References, from the address written to', async () => {
    const s = await stack();
    const first = await s.send(
      { to: [s.peer.address], subject: 'Booking 42', text: 'Hello peer' },
      'thread-start',
    );
    await s.settle();
    const [m] = await s.mailbox(s.peer.id, 'inbound');
    const reply = await s.call('POST', `/v1/identities/${s.peer.id}/messages/${m.id}/reply`, {
      body: { text: 'Thanks!' },
      headers: { 'idempotency-key': 'reply-1' },
    });
    expect(reply.status).toBe(202);
    // To the Reply-To: a test-mode send carries the thread token there, as a live domain's would.
    expect(first.body.reply_to[0].address).toMatch(/^agent\+t[0-9a-z]{26}\.[0-9a-f]{6}@/);
    expect(reply.body).toMatchObject({
      subject: 'Re: Booking 42',
      to: [{ address: first.body.reply_to[0].address }],
      from: { address: s.peer.address },
      in_reply_to: first.body.rfc_message_id,
      thread_id: m.thread_id,
    });
    await s.settle();
    const stored = await s.deps.blobs.get((await s.message(s.peer.id, reply.body.id))!.raw_key);
    const mail = await simpleParser(Buffer.from(stored!.body));
    expect(mail.inReplyTo).toBe(first.body.rfc_message_id);
    expect(mail.references).toEqual(first.body.rfc_message_id);
    expect(mail.subject).toBe('Re: Booking 42');
    // the agent receives it
    const inbox = await s.mailbox(s.agent.id, 'inbound');
    expect(inbox.map((x) => x.subject)).toEqual(['Re: Booking 42']);
  });

  it('reply-all drops every own address and the original Bcc, and forward carries the note and attachments', async () => {
    const s = await stack({ seed: { names: ['agent', 'peer', 'third'] } });
    const third = s.identities[2];
    const team = await s.send(
      {
        to: [s.peer.address],
        cc: [third.address],
        bcc: ['delivered+hidden@simulator.invalid'],
        subject: 'Team',
        text: 'Original text',
        attachments: [
          {
            filename: 'a.txt',
            content_type: 'text/plain',
            content_base64: Buffer.from('attached').toString('base64'),
          },
        ],
      },
      'team',
    );
    await s.settle();
    const [m] = await s.mailbox(s.peer.id, 'inbound');
    const all = await s.call('POST', `/v1/identities/${s.peer.id}/messages/${m.id}/reply-all`, {
      body: { text: 'To everyone' },
      headers: { 'idempotency-key': 'reply-all-1' },
    });
    expect(all.status).toBe(202);
    const recipients = [...all.body.to, ...all.body.cc, ...all.body.bcc].map(
      (r: { address: string }) => r.address,
    );
    expect(recipients.sort()).toEqual([team.body.reply_to[0].address, third.address].sort());

    const fwd = await s.call('POST', `/v1/identities/${s.peer.id}/messages/${m.id}/forward`, {
      body: { to: ['delivered@simulator.invalid'], text: 'See below' },
      headers: { 'idempotency-key': 'fwd-1' },
    });
    expect(fwd.status).toBe(202);
    expect(fwd.body.subject).toBe('Fwd: Team');
    await s.settle();
    const stored = await s.deps.blobs.get((await s.message(s.peer.id, fwd.body.id))!.raw_key);
    const mail = await simpleParser(Buffer.from(stored!.body));
    expect(mail.text).toContain('---------- Forwarded message ---------');
    expect(mail.text).toContain('Original text');
    expect(mail.attachments.map((a) => a.content.toString())).toEqual(['attached']);
    const bare = await s.call('POST', `/v1/identities/${s.peer.id}/messages/${m.id}/forward`, {
      body: { to: ['delivered@simulator.invalid'], text: 'No files', include_attachments: false },
      headers: { 'idempotency-key': 'fwd-2' },
    });
    await s.settle();
    const bareMail = await simpleParser(
      Buffer.from((await s.deps.blobs.get((await s.message(s.peer.id, bare.body.id))!.raw_key))!.body),
    );
    expect(bareMail.attachments).toHaveLength(0);
  });

  it('makes two concurrent replies on one thread follow each other: the second carries the first in References', async () => {
    const s = await stack();
    await s.send({ to: [s.peer.address], subject: 'Race', text: 'start' }, 'race-start');
    await s.settle();
    const [m] = await s.mailbox(s.peer.id, 'inbound');
    const reply = (k: string) =>
      s.call('POST', `/v1/identities/${s.peer.id}/messages/${m.id}/reply`, {
        body: { text: k },
        headers: { 'idempotency-key': k },
      });
    const [a, b] = await Promise.all([reply('race-a'), reply('race-b')]);
    const answers = [a, b];
    const accepted = answers.filter((r) => r.status === 202);
    const busy = answers.filter((r) => r.status === 409);
    for (const r of busy) expect(r.body.error).toMatchObject({ code: 'thread_busy', retryable: true });
    if (accepted.length === 2) {
      // The one that committed second waited for the lock and follows the first in References.
      const [x, y] = await Promise.all(accepted.map((r) => s.message(s.peer.id, r.body.id)));
      const xFollowsY = !!x?.references?.includes(y!.rfc_message_id);
      const yFollowsX = !!y?.references?.includes(x!.rfc_message_id);
      expect(xFollowsY !== yFollowsX).toBe(true);
    } else {
      expect(busy).toHaveLength(1);
    }
    await s.settle();
  });

  it('answers 409 thread_busy with retry_after after waiting 10 s for a held lock, and keeps nothing', async () => {
    let offset = 0;
    // Each reading of the clock moves it 1 s on, so the 10-second wait passes in a few real ticks.
    const s = await stack({
      clock: () => {
        offset += 1000;
        return Date.now() + offset;
      },
    });
    await s.send({ to: [s.peer.address], subject: 'Busy', text: 'start' }, 'busy-start');
    await s.settle();
    const [m] = await s.mailbox(s.peer.id, 'inbound');
    await s.deps.db.update({
      TableName: s.deps.db.table,
      Key: { pk: `I#${s.peer.id}`, sk: `TH#${m.thread_id}` },
      UpdateExpression: 'SET lock_owner = :o, lock_until = :u, seq = :z, refs = :r, auto_streak = :z',
      ExpressionAttributeValues: {
        ':o': 'msg_someoneelse',
        ':u': Date.now() + 3_600_000,
        ':z': 0,
        ':r': [],
      },
    });
    const before = await snapshot(s);
    const res = await s.call('POST', `/v1/identities/${s.peer.id}/messages/${m.id}/reply`, {
      body: { text: 'blocked' },
      headers: { 'idempotency-key': 'busy-reply' },
    });
    expect(res.status).toBe(409);
    expect(res.body.error).toMatchObject({
      code: 'thread_busy',
      retryable: true,
      details: { retry_after: 60 },
    });
    expect(res.headers['retry-after']).toBe('60');
    // no daily count, no message, no key, no blob
    expect(await snapshot(s)).toEqual(before);
  });

  it('counts contacts on accepted sends, which then satisfy require_known_recipient', async () => {
    const s = await stack({ seed: { identity: { send_policy: { require_known_recipient: true } } } });
    const unknown = await s.send(to('delivered@simulator.invalid'), 'known-a');
    expect(unknown.body.deliveries[0].status).toBe('suppressed');
    await setIdentity(s, s.agent.id, { send_policy: {} });
    expect((await s.send(to('delivered@simulator.invalid'), 'known-b')).body.deliveries[0].status).toBe(
      'queued',
    );
    await s.settle();
    const contact = (await partition(s, `I#${s.agent.id}`)).find(
      (i) => i.sk === 'C#delivered@simulator.invalid',
    );
    expect(contact?.outbound_count).toBe(1);
    await setIdentity(s, s.agent.id, { send_policy: { require_known_recipient: true } });
    expect((await s.send(to('delivered@simulator.invalid'), 'known-c')).body.deliveries[0].status).toBe(
      'queued',
    );
    // A known contact is not written again: the send after it leaves the item as it was.
    await s.settle();
    const after = (await partition(s, `I#${s.agent.id}`)).find(
      (i) => i.sk === 'C#delivered@simulator.invalid',
    );
    expect(after).toEqual(contact);
  });

  it('sets a thread-token Reply-To on subaddress domains, and a reply to it reaches the sender', async () => {
    const s = await stack({ seed: { replyToken: 'subaddress' } });
    const sent = await s.send({ to: [s.peer.address], subject: 'Token', text: 'hi' }, 'token-1');
    const [local, domain] = s.agent.address.split('@');
    expect(sent.body.reply_to[0].address).toMatch(
      new RegExp(`^${local}\\+t[0-9a-z]{26}\\.[0-9a-f]{6}@${domain.replaceAll('.', '\\.')}$`),
    );
    await s.settle();
    const [m] = await s.mailbox(s.peer.id, 'inbound');
    const reply = await s.call('POST', `/v1/identities/${s.peer.id}/messages/${m.id}/reply`, {
      body: { text: 'back to you' },
      headers: { 'idempotency-key': 'token-reply' },
    });
    expect(reply.status).toBe(202);
    expect(reply.body.to[0].address).toBe(sent.body.reply_to[0].address);
    await s.settle();
    expect((await s.message(s.peer.id, reply.body.id))?.status).toBe('delivered');
    expect((await s.mailbox(s.agent.id, 'inbound')).map((x) => x.subject)).toEqual(['Re: Token']);
  });

  it('answers 404 message_not_found for a reply to an unknown message', async () => {
    const s = await stack();
    const res = await s.call('POST', `/v1/identities/${s.agent.id}/messages/msg_${'2'.repeat(26)}/reply`, {
      body: { text: 'x' },
      headers: { 'idempotency-key': 'nope' },
    });
    expect([res.status, res.body.error.code]).toEqual([404, 'message_not_found']);
  });
});

describe('large attachments as signed links', () => {
  it('replaces attachments by links until the message fits, and serves them by token', async () => {
    const s = await stack({ seed: { policy: { large_attachments: 'link' } } });
    const big = Buffer.alloc(3_900_000, 7);
    const res = await s.send(
      {
        ...to('delivered@simulator.invalid'),
        attachments: [
          {
            filename: 'big.bin',
            content_type: 'application/octet-stream',
            content_base64: big.toString('base64'),
          },
          {
            filename: 'small.txt',
            content_type: 'text/plain',
            content_base64: Buffer.from('small').toString('base64'),
          },
        ],
      },
      'links-1',
    );
    expect(res.status).toBe(202);
    const stored = await s.deps.blobs.get((await s.message(s.agent.id, res.body.id))!.raw_key);
    const mail = await simpleParser(Buffer.from(stored!.body));
    expect(mail.attachments.map((a) => a.filename)).toEqual(['small.txt']);
    const url = /http\S+\/v1\/links\/([A-Za-z0-9_-]+)/.exec(mail.text ?? '');
    expect(url).not.toBeNull();
    expect(mail.text).toMatch(/big\.bin \(3\.9 MB\): http/);
    const got = await s.groups.links({
      version: '2.0',
      rawPath: `/v1/links/${url![1]}`,
      requestContext: { http: { method: 'GET', path: `/v1/links/${url![1]}` } },
      headers: {},
    } as never);
    expect(got.statusCode).toBe(200);
    expect(Buffer.from(got.body!, 'base64').equals(big)).toBe(true);
  });
});
