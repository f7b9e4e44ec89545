import { randomBytes } from 'node:crypto';
import { TENANT_PERMISSIONS } from '../api/auth.ts';
import { sha256Hex } from '../core/fingerprint.ts';
import type { DomainRecord, Identity, Tenant } from '../core/model.ts';
import type { Deps } from '../deps.ts';
import { putAddress, putApiKey, putDomain, putIdentity, putTenant } from '../store/directory.store.ts';

export interface SeededTenant {
  tenantId: string;
  apiKey: string;
  identities: { name: string; id: string; address: string }[];
}

/**
 * A test-mode tenant with the named identities (each with one address on `domain` and an accountable
 * owner) and a tenant API key holding every permission a tenant key can hold. Tests call it once per
 * test for isolation; `npm start` calls it on first start.
 */
export async function seedTestTenant(
  deps: Deps,
  opts: {
    names?: string[];
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
  const tenantId = `ten_${deps.newId()}`;
  const domain = opts.domain ?? `t${tenantId.slice(-8)}.pmail.test`;
  await putTenant(deps.db, {
    id: tenantId,
    status: 'active',
    mode: opts.mode ?? 'test',
    name: 'Local test tenant',
    timezone: opts.timezone ?? 'UTC',
    policy: opts.policy ?? {},
  });
  await putDomain(deps.db, {
    domain,
    tenant_id: tenantId,
    state: 'healthy',
    transport: opts.transport ?? 'test',
    reply_token: opts.replyToken ?? 'none',
    ...(opts.ses ? { ses: opts.ses } : {}),
  });
  const identities: SeededTenant['identities'] = [];
  for (const name of opts.names ?? ['agent', 'peer']) {
    const id = `idn_${deps.newId()}`;
    const address = `${name}@${domain}`;
    await putIdentity(deps.db, {
      id,
      tenant_id: tenantId,
      name,
      status: 'active',
      display_name: name[0].toUpperCase() + name.slice(1),
      owner_name: 'Local Developer',
      owner_email: 'owner@example.com',
      primary_address: address,
      addresses: [address],
      ...opts.identity,
    });
    await putAddress(deps.db, { address, identity_id: id, tenant_id: tenantId, domain, status: 'active' });
    identities.push({ name, id, address });
  }
  const apiKey = `pm_test_${randomBytes(24).toString('base64url')}`;
  await putApiKey(deps.db, sha256Hex(apiKey), {
    key_id: `key_${deps.newId()}`,
    tenant_id: tenantId,
    scopes: [...TENANT_PERMISSIONS],
  });
  return { tenantId, apiKey, identities };
}
