import {
  CreateEmailIdentityCommand,
  DeleteEmailIdentityCommand,
  GetEmailIdentityCommand,
  NotFoundException,
  PutEmailIdentityMailFromAttributesCommand,
  SESv2Client,
} from '@aws-sdk/client-sesv2';
import { mockClient } from 'aws-sdk-client-mock';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { sesIdentities } from '../../functions/adapters/ses-identities.ts';
import { sha256Hex } from '../../functions/core/fingerprint.ts';
import { checkAllDomains } from '../../functions/domains/lifecycle.ts';
import { portsFor } from '../../functions/lambda-ports.ts';
import { asLambda, recordedPort } from '../../functions/local/aws-calls.ts';
import { putAddress, putApiKey, putIdentity } from '../../functions/store/directory.store.ts';
import { type TestStack, testStack } from '../support/local.ts';
import { localSes } from '../support/local-ses.ts';
import { envelope, ses as sesEvents } from '../support/ses-fixtures.ts';

/**
 * Sending domains: the SES control plane (CreateEmailIdentity, GetEmailIdentity,
 * DeleteEmailIdentity, PutEmailIdentityMailFromAttributes) is mocked with aws-sdk-client-mock — no
 * local engine implements it — on its own client, while sends go through the real SDK to
 * aws-ses-v2-local. From POST …/domains to the DNS records, the check, a send and its first
 * delivered event; the claim-time table for a failing and a removed domain.
 */
const control = new SESv2Client({
  region: 'eu-west-1',
  credentials: { accessKeyId: 'a', secretAccessKey: 'b' },
});
const sesControl = mockClient(control);
const identities = sesIdentities({ region: 'eu-west-1' }, () => control);

/** The scheduled check, run as its Lambda (its calls are recorded for npm run check:deploy). */
const domainCheck = (ports: Parameters<typeof checkAllDomains>[1]) =>
  asLambda({ service: 'domain-check' }, () =>
    checkAllDomains(portsFor(s.deps, 'domain-check'), {
      ...ports,
      identities: recordedPort('sesIdentities', ports.identities),
    }),
  );

let localSesServer: Awaited<ReturnType<typeof localSes>>;
let s: TestStack;
beforeAll(async () => {
  localSesServer = await localSes();
  s = await testStack({
    config: { simEventDelaySeconds: 0 },
    sesIdentities: identities,
    sesEndpoint: localSesServer.url,
    seed: { mode: 'live' },
  });
});
afterAll(async () => {
  await s.settle();
  await s.close();
  await localSesServer.close();
});
beforeEach(() => {
  sesControl.reset();
  sesControl.on(CreateEmailIdentityCommand).resolves({
    IdentityType: 'DOMAIN',
    VerifiedForSendingStatus: false,
    DkimAttributes: {
      Status: 'PENDING',
      Tokens: ['tok1', 'tok2', 'tok3'],
      SigningHostedZone: 'dkim.amazonses.com',
    },
  });
  sesControl.on(PutEmailIdentityMailFromAttributesCommand).resolves({});
  sesControl
    .on(GetEmailIdentityCommand)
    .resolves({ VerifiedForSendingStatus: false, DkimAttributes: { Status: 'PENDING' } });
  sesControl.on(DeleteEmailIdentityCommand).resolves({});
});

let n = 0;
const freshName = () => `d${Date.now().toString(36)}${++n}.example.com`;
const verified = (mailFrom = 'SUCCESS') =>
  sesControl.on(GetEmailIdentityCommand).resolves({
    VerifiedForSendingStatus: true,
    DkimAttributes: { Status: 'SUCCESS' },
    MailFromAttributes: {
      MailFromDomain: 'x',
      MailFromDomainStatus: mailFrom as never,
      BehaviorOnMxFailure: 'USE_DEFAULT_VALUE',
    },
  });

/** An identity of the tenant with an address on `domain` (written to the store directly: these tests are about domains). */
async function identityOn(domain: string) {
  const id = `idn_${s.deps.newId()}`;
  const address = `agent@${domain}`;
  await putIdentity(s.deps.db, {
    id,
    tenant_id: s.tenantId,
    name: `agent-${n}`,
    status: 'active',
    owner_name: 'Owner',
    owner_email: 'owner@example.com',
    primary_address: address,
    addresses: [address],
  });
  await putAddress(s.deps.db, { address, identity_id: id, tenant_id: s.tenantId, domain, status: 'active' });
  return { id, address };
}

const base = () => `/v1/tenants/${s.tenantId}/domains`;

describe('sending domains', () => {
  it('onboards a domain through SES and answers the DNS records to publish', async () => {
    const name = freshName();
    const res = await s.call('POST', base(), {
      body: { name: name.toUpperCase(), transport: 'ses', mail_from: `pm-bounce.${name}` },
    });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({
      name,
      transport: 'ses',
      reply_token: 'subaddress',
      state: 'verifying',
      state_reason: 'dkim_pending',
      mail_from: `pm-bounce.${name}`,
      ses: { region: 'eu-west-1' },
    });
    expect(res.body.id).toMatch(/^dom_[0-9a-z]{26}$/);
    expect(res.body.checked_at).not.toBeNull();
    expect(res.body.dns_records).toEqual([
      {
        type: 'CNAME',
        name: `tok1._domainkey.${name}`,
        value: 'tok1.dkim.amazonses.com',
        purpose: 'dkim',
        required: true,
      },
      {
        type: 'CNAME',
        name: `tok2._domainkey.${name}`,
        value: 'tok2.dkim.amazonses.com',
        purpose: 'dkim',
        required: true,
      },
      {
        type: 'CNAME',
        name: `tok3._domainkey.${name}`,
        value: 'tok3.dkim.amazonses.com',
        purpose: 'dkim',
        required: true,
      },
      {
        type: 'MX',
        name: `pm-bounce.${name}`,
        value: '10 feedback-smtp.eu-west-1.amazonses.com',
        purpose: 'mail_from_mx',
        required: true,
      },
      {
        type: 'TXT',
        name: `pm-bounce.${name}`,
        value: 'v=spf1 include:amazonses.com ~all',
        purpose: 'mail_from_spf',
        required: true,
      },
      expect.objectContaining({ type: 'TXT', name: `_dmarc.${name}`, purpose: 'dmarc', required: false }),
    ]);
    const created = sesControl.commandCalls(CreateEmailIdentityCommand);
    expect(created).toHaveLength(1);
    expect(created[0].args[0].input).toEqual({ EmailIdentity: name });
    expect(sesControl.commandCalls(PutEmailIdentityMailFromAttributesCommand)[0].args[0].input).toEqual({
      EmailIdentity: name,
      MailFromDomain: `pm-bounce.${name}`,
      BehaviorOnMxFailure: 'USE_DEFAULT_VALUE',
    });

    // read back, listed, and taken for every tenant
    expect((await s.call('GET', `${base()}/${res.body.id}`)).body).toEqual(res.body);
    expect((await s.call('GET', base())).body.data.map((d: { id: string }) => d.id)).toContain(res.body.id);
    const again = await s.call('POST', base(), { body: { name, transport: 'ses' } });
    expect(again.status).toBe(409);
    expect(again.body.error.code).toBe('domain_exists');
  });

  it('moves the state by what GetEmailIdentity says, on verify and on the scheduled check', async () => {
    const created = (await s.call('POST', base(), { body: { name: freshName(), transport: 'ses' } })).body;
    verified();
    const v = await s.call('POST', `${base()}/${created.id}/verify`);
    expect(v.status).toBe(200);
    expect(v.body).toMatchObject({ state: 'healthy', state_reason: null });

    verified('FAILED');
    await domainCheck({ identities });
    expect((await s.call('GET', `${base()}/${created.id}`)).body).toMatchObject({
      state: 'degraded',
      state_reason: 'mail_from_failed',
    });

    sesControl
      .on(GetEmailIdentityCommand)
      .rejects(new NotFoundException({ message: 'gone', $metadata: { httpStatusCode: 404 } }));
    await domainCheck({ identities });
    expect((await s.call('GET', `${base()}/${created.id}`)).body).toMatchObject({
      state: 'failing',
      state_reason: 'ses_identity_missing',
    });
  });

  it('reports on the domain whether its MX names SES receiving, without moving its state', async () => {
    const created = (await s.call('POST', base(), { body: { name: freshName(), transport: 'ses' } })).body;
    verified();
    const answers = new Map<string, string[]>();
    const resolveMx = async (domain: string) => answers.get(domain) ?? [];
    const ports = { identities, inboundRegion: 'eu-west-1', resolveMx };
    await domainCheck(ports);
    expect((await s.call('GET', `${base()}/${created.id}`)).body).toMatchObject({
      state: 'healthy',
      inbound_mx_published: false,
    });
    answers.set(created.name, ['inbound-smtp.eu-west-1.amazonaws.com.']);
    await domainCheck(ports);
    expect((await s.call('GET', `${base()}/${created.id}`)).body).toMatchObject({
      state: 'healthy',
      inbound_mx_published: true,
    });
    // A DNS failure reports nothing new: the last answer stays.
    await domainCheck({
      ...ports,
      resolveMx: async () => {
        throw Object.assign(new Error('timeout'), { code: 'ETIMEOUT' });
      },
    });
    expect((await s.call('GET', `${base()}/${created.id}`)).body.inbound_mx_published).toBe(true);
  });

  it('takes the SES path from POST …/domains to the first delivered event', async () => {
    const before = localSesServer.requests.length;
    const created = (await s.call('POST', base(), { body: { name: freshName(), transport: 'ses' } })).body;
    verified();
    expect((await s.call('POST', `${base()}/${created.id}/verify`)).body.state).toBe('healthy');
    const agent = await identityOn(created.name);
    const sent = await s.call('POST', `/v1/identities/${agent.id}/messages`, {
      body: { to: ['jo@example.net'], subject: 'First real mail', text: 'hello' },
      headers: { 'idempotency-key': 'first-real' },
    });
    expect(sent.status).toBe(202);
    await s.settle();
    const m = await s.message(agent.id, sent.body.id);
    expect(m).toMatchObject({ status: 'submitted', provider: 'ses' });
    expect(localSesServer.requests.slice(before)).toHaveLength(1);

    // SES publishes Delivery through the configuration set → SNS → the delivery-events queue
    s.queue.sendRaw(
      envelope(
        sesEvents.delivery({
          messageId: m!.provider_message_id!,
          from: agent.address,
          to: ['jo@example.net'],
          subject: 'First real mail',
          at: s.deps.clock(),
        }),
      ),
    );
    const delivered = await s.eventually(async () => {
      const now = await s.message(agent.id, sent.body.id);
      return now?.status === 'delivered' ? now : undefined;
    });
    expect(delivered.deliveries?.[0].status).toBe('delivered');
  });

  it('fails the sends of a failing domain without calling SES (no fallback transport deployed)', async () => {
    const created = (await s.call('POST', base(), { body: { name: freshName(), transport: 'ses' } })).body;
    verified();
    await s.call('POST', `${base()}/${created.id}/verify`);
    const agent = await identityOn(created.name);
    sesControl
      .on(GetEmailIdentityCommand)
      .resolves({ VerifiedForSendingStatus: true, DkimAttributes: { Status: 'FAILED' } });
    await domainCheck({ identities });
    const before = localSesServer.requests.length;
    const sent = await s.call('POST', `/v1/identities/${agent.id}/messages`, {
      body: { to: ['jo@example.net'], subject: 'From a failing domain', text: 'x' },
      headers: { 'idempotency-key': 'failing-1' },
    });
    expect(sent.status).toBe(202);
    await s.settle();
    const m = await s.message(agent.id, sent.body.id);
    expect(m).toMatchObject({ status: 'failed', status_reason: 'domain_failing_no_fallback' });
    expect(localSesServer.requests.slice(before)).toHaveLength(0);
  });

  it('removes the SES identity on DELETE: a message queued from it is rejected when claimed, and no new send is accepted', async () => {
    // a stack whose attempts do not start by themselves: the message stays queued until run
    const q = await testStack({
      seed: { mode: 'live' },
      dispatcher: { start: async () => undefined },
      sesIdentities: identities,
      sesEndpoint: localSesServer.url,
    });
    try {
      const qBase = `/v1/tenants/${q.tenantId}/domains`;
      const created = (await q.call('POST', qBase, { body: { name: freshName(), transport: 'ses' } })).body;
      verified();
      expect((await q.call('POST', `${qBase}/${created.id}/verify`)).body.state).toBe('healthy');
      const id = `idn_${q.deps.newId()}`;
      const address = `agent@${created.name}`;
      await putIdentity(q.deps.db, {
        id,
        tenant_id: q.tenantId,
        name: 'queued-agent',
        status: 'active',
        owner_name: 'Owner',
        owner_email: 'owner@example.com',
        primary_address: address,
        addresses: [address],
      });
      await putAddress(q.deps.db, {
        address,
        identity_id: id,
        tenant_id: q.tenantId,
        domain: created.name,
        status: 'active',
      });
      const sent = await q.call('POST', `/v1/identities/${id}/messages`, {
        body: { to: ['jo@example.net'], subject: 'Queued', text: 'x' },
        headers: { 'idempotency-key': 'removed-1' },
      });
      expect(sent.status).toBe(202);

      const del = await q.call('DELETE', `${qBase}/${created.id}`);
      expect(del.status).toBe(200);
      expect(del.body).toMatchObject({ state: 'removed', state_reason: 'removed_by_api' });
      expect(sesControl.commandCalls(DeleteEmailIdentityCommand)[0].args[0].input).toEqual({
        EmailIdentity: created.name,
      });

      const before = localSesServer.requests.length;
      await q.machine.run(`${sent.body.id}-d1`, {
        tenant_id: q.tenantId,
        identity_id: id,
        message_id: sent.body.id,
      });
      const m = await q.message(id, sent.body.id);
      expect(m).toMatchObject({ status: 'rejected', status_reason: 'sender_domain_unavailable' });
      expect(localSesServer.requests.slice(before)).toHaveLength(0);

      const afterwards = await q.call('POST', `/v1/identities/${id}/messages`, {
        body: { to: ['jo@example.net'], subject: 'After removal', text: 'x' },
        headers: { 'idempotency-key': 'removed-2' },
      });
      expect(afterwards.status).toBe(422);
      expect(afterwards.body.error.code).toBe('transport_unavailable');
    } finally {
      await q.settle();
      await q.close();
    }
  });

  it('lets an identity key read domains but not change them, and hides other tenants', async () => {
    const created = (await s.call('POST', base(), { body: { name: freshName(), transport: 'ses' } })).body;
    const key = `pm_test_identity_${Date.now()}`;
    await putApiKey(s.deps.db, sha256Hex(key), {
      key_id: `key_${s.deps.newId()}`,
      tenant_id: s.tenantId,
      scopes: ['domains:read', 'domains:write'],
      identity_ids: [s.agent.id],
    });
    expect((await s.call('GET', `${base()}/${created.id}`, { key })).status).toBe(200);
    const refused = await s.call('PATCH', `${base()}/${created.id}`, { key, body: { reply_token: 'none' } });
    expect(refused.status).toBe(403);
    expect(refused.body.error.details.reason).toBe('tenant_key_required');
    const other = await s.call('GET', `/v1/tenants/ten_01jz8m4n7q2r5t8v1w3x6y9z0d/domains`);
    expect(other.status).toBe(404);
    expect(other.body.error.code).toBe('tenant_not_found');
    const patched = await s.call('PATCH', `${base()}/${created.id}`, { body: { reply_token: 'none' } });
    expect(patched.body.reply_token).toBe('none');
  });
});
