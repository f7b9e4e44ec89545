import { createIdentity } from '../admin/identities.ts';
import { mintKey } from '../admin/keys.ts';
import { createTenant } from '../admin/tenants.ts';
import { permissionsOf } from '../core/keys.ts';
import type { DomainRecord, Identity, Tenant } from '../core/model.ts';
import { DEFAULT_TIMEZONE } from '../core/quota.ts';
import type { Deps } from '../deps.ts';
import { putDomain } from '../store/directory.store.ts';
import { updateIdentityFields } from '../store/identities.store.ts';

export interface SeededTenant {
  tenantId: string;
  apiKey: string;
  identities: { name: string; id: string; address: string }[];
}

const SEED = { system: 'local-seed' } as const;

/**
 * A test-mode tenant with the named identities (each with one address on `domain` and an accountable
 * owner) and a tenant API key holding every permission a tenant key can hold. It goes through the
 * same use cases as the API (functions/admin), so `npm start` and the tests run what a deployment
 * runs; only the domain item is written directly, as domain onboarding would. Tests call it once per
 * test for isolation; `npm start` calls it on first start.
 */
export async function seedTestTenant(
  deps: Deps,
  opts: {
    names?: string[];
    /** The tenant's slug (a random suffix is added: slugs are unique) and name. */
    tenant?: { slug: string; name: string };
    domain?: string;
    mode?: 'test' | 'live';
    policy?: Tenant['policy'];
    timezone?: string;
    identity?: Partial<Identity>;
    replyToken?: 'subaddress' | 'none';
    /** The sending domain's transport (default `test`) and its SES settings. */
    transport?: DomainRecord['transport'];
    ses?: DomainRecord['ses'];
  } = {},
): Promise<SeededTenant> {
  const tenant = await createTenant(deps, SEED, {
    slug: `${opts.tenant?.slug ?? 'local'}-${deps.newId().slice(-12)}`,
    name: opts.tenant?.name ?? 'Local test tenant',
    mode: opts.mode ?? 'test',
    timezone: opts.timezone ?? DEFAULT_TIMEZONE,
    policy: opts.policy ?? {},
  });
  const domain = opts.domain ?? `t${tenant.id.slice(-8)}.pmail.test`;
  await putDomain(deps.db, {
    domain,
    tenant_id: tenant.id,
    state: 'healthy',
    transport: opts.transport ?? 'test',
    reply_token: opts.replyToken ?? 'none',
    ...(opts.ses ? { ses: opts.ses } : {}),
  });
  const identities: SeededTenant['identities'] = [];
  const { send_policy, display_name, ...rest } = opts.identity ?? {};
  for (const name of opts.names ?? ['agent', 'peer']) {
    const { identity } = await createIdentity(deps, SEED, tenant, {
      username: name,
      display_name: display_name ?? name[0].toUpperCase() + name.slice(1),
      owner: { name: 'Local Developer', email: 'owner@example.com' },
      domain,
      ...(send_policy ? { send_policy } : {}),
    });
    // Fields no API request sets (a test's fixture) are written as they are.
    if (Object.keys(rest).length > 0) await updateIdentityFields(deps.db, identity, rest, [], deps.clock());
    identities.push({ name, id: identity.id, address: identity.primary_address });
  }
  const { secret } = await mintKey(deps, SEED, {
    name: 'local-tenant',
    level: 'tenant',
    tenant_id: tenant.id,
    permissions: permissionsOf('tenant'),
  });
  return { tenantId: tenant.id, apiKey: secret, identities };
}

/** The local stack's platform key (`npm start` writes it into .pmail/local.json): every platform permission. */
export async function seedPlatformKey(deps: Deps): Promise<{ keyId: string; apiKey: string }> {
  const { definition, secret } = await mintKey(deps, SEED, {
    name: 'local-platform',
    level: 'platform',
    permissions: permissionsOf('platform'),
  });
  return { keyId: definition.key_id, apiKey: secret };
}
