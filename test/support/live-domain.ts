import type { DomainRecord, SmtpDomainSettings } from '../../functions/core/model.ts';
import { LOCAL_SECRET_PREFIX } from '../../functions/local/transports.ts';
import { writeSmtpSecret } from '../../functions/store/relay-secrets.store.ts';
import { keys } from '../../functions/store/table-keys.ts';
import type { SmtpSettings } from '../../functions/transports/smtp.transport.ts';
import type { stackPerTest, TestStack } from './local.ts';
import { RELAY_PASSWORD, RELAY_USER, type Relay, type RelayScript, startRelay } from './smtp-relay.ts';

/**
 * Make the test tenant live and its agent's sending domain use a live transport (what the domains
 * API will write): `fields` are set on the domain record, which becomes `healthy`.
 */
export async function makeLive(
  s: TestStack,
  fields: Pick<DomainRecord, 'transport'> & Partial<Pick<DomainRecord, 'smtp' | 'cloudflare'>>,
): Promise<string> {
  const domain = s.agent.address.split('@')[1]!;
  const names = Object.keys(fields) as (keyof typeof fields)[];
  await s.deps.db.update({
    TableName: s.deps.db.table,
    Key: keys.domain(domain),
    UpdateExpression: `SET #s = :s, ${names.map((_, i) => `#f${i} = :f${i}`).join(', ')}`,
    ExpressionAttributeNames: {
      '#s': 'state',
      ...Object.fromEntries(names.map((n, i) => [`#f${i}`, n])),
    },
    ExpressionAttributeValues: {
      ':s': 'healthy',
      ...Object.fromEntries(names.map((n, i) => [`:f${i}`, fields[n]])),
    },
  });
  await s.deps.db.update({
    TableName: s.deps.db.table,
    Key: keys.tenant(s.tenantId),
    UpdateExpression: 'SET #m = :m',
    ExpressionAttributeNames: { '#m': 'mode' },
    ExpressionAttributeValues: { ':m': 'live' },
  });
  return domain;
}

/**
 * A live tenant whose sending domain uses transport `smtp`, pointing at a local smtp-server (the
 * local runtime's SSRF opt-out), with the password in the relay secret store; the Standard
 * machine's back-off waits take no real time. The relay is pushed on `relays` for the caller to close.
 */
export async function liveRelayStack(
  stackFor: ReturnType<typeof stackPerTest>,
  relays: Relay[],
  opts: {
    script?: RelayScript;
    password?: string;
    settings?: SmtpSettings;
    /** The local MX (functions/local/mx.ts) on a free port: mail comes back through it. */
    mx?: boolean;
  } = {},
): Promise<{ s: TestStack; relay: Relay }> {
  const relay = await startRelay(opts.script ?? {});
  relays.push(relay);
  const s = await stackFor({
    smtp: { tlsCa: [relay.cert], ...opts.settings },
    waitTimeOverrides: { Backoff: 0, WaitUntilSendAt: 0 },
    ...(opts.mx ? { inbound: { port: 0 } } : {}),
  });
  const domain = s.agent.address.split('@')[1]!;
  const secretRef = await writeSmtpSecret(s.secrets, LOCAL_SECRET_PREFIX, domain, {
    password: opts.password ?? RELAY_PASSWORD,
  });
  const smtp: SmtpDomainSettings = {
    host: 'localhost',
    port: relay.port,
    username: RELAY_USER,
    secret_ref: secretRef,
  };
  await makeLive(s, { transport: 'smtp', smtp });
  return { s, relay };
}
