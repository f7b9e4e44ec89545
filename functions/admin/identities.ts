import {
  addressTaken,
  clientIdConflict,
  identityNotFound,
  noSuchSendingDomain,
  sendingDomainRemoved,
  sendingDomainRequired,
  usernameNotAscii,
  usernameRefused,
} from '../core/errors.ts';
import { sha256Hex } from '../core/fingerprint.ts';
import type { ApiKeyDefinition, Identity, Tenant } from '../core/model.ts';
import type { Deps } from '../deps.ts';
import { listApiKeyDefinitions, revokeApiKey } from '../store/api-keys.store.ts';
import { auditPut } from '../store/audit-log.store.ts';
import { getDomain, getIdentity } from '../store/directory.store.ts';
import {
  getClientIdClaim,
  deleteIdentity as storeDelete,
  createIdentity as storeIdentity,
  updateIdentityFields,
} from '../store/identities.store.ts';
import type { Actor } from './keys.ts';

/**
 * Identities. An identity's address is `{username}@{domain}`: for a test tenant the
 * domain is its test domain `{slug}.{testDomain}` (mail from test tenants goes to the simulator and
 * loopback, which need no domain item), or one of its domain items; for a live tenant a domain item
 * (`D#…`, made by domain onboarding) of the tenant that is not being removed — otherwise 422
 * domain_unavailable.
 */
type Extra = Parameters<typeof storeIdentity>[4];
const actorId = (a: Actor) => ('key' in a ? a.key.key_id : a.system);

/** Local parts no identity may take (RFC 2142 and the mail system's own). */
export const RESERVED_USERNAMES = new Set([
  'postmaster',
  'abuse',
  'noreply',
  'no-reply',
  'mailer-daemon',
  'hostmaster',
  'webmaster',
  'security',
  'root',
  'admin',
  'journal',
]);
export const USERNAME_PATTERN = /^[a-z0-9][a-z0-9._-]{0,23}$/;
export const DEFAULT_TEST_DOMAIN = 'pmail.test';

export interface IdentityInput {
  username: string;
  display_name?: string;
  owner?: { name: string; email: string };
  domain?: string;
  send_policy?: Identity['send_policy'];
  receive_policy?: Identity['receive_policy'];
  metadata?: Record<string, string>;
  client_id?: string;
}

export const testDomainOf = (tenant: Tenant, testDomain: string) =>
  `${tenant.slug ?? tenant.id}.${testDomain}`;

/** The username in lower case, or the refusal: printable ASCII, the pattern, not reserved, no `+`. */
function checkedUsername(raw: string): string {
  const username = raw.toLowerCase();
  if (!/^[\x21-\x7e]+$/.test(username)) throw usernameNotAscii();
  if (!USERNAME_PATTERN.test(username) || RESERVED_USERNAMES.has(username) || username.includes('+'))
    throw usernameRefused(RESERVED_USERNAMES.has(username));
  return username;
}

export async function createIdentity(
  deps: Pick<Deps, 'db' | 'clock' | 'newId' | 'config'>,
  actor: Actor,
  tenant: Tenant,
  input: IdentityInput,
  opts: { requestId?: string; finish?: (i: Identity) => Extra } = {},
): Promise<{ identity: Identity; created: boolean }> {
  const username = checkedUsername(input.username);
  const fingerprint = sha256Hex(JSON.stringify({ ...input, username }));
  if (input.client_id) {
    const claim = await getClientIdClaim(deps.db, tenant.id, input.client_id);
    if (claim) return existingForClient(deps, tenant, claim, fingerprint);
  }
  const domain = await sendingDomain(deps, tenant, input.domain);
  const address = `${username}@${domain}`;
  const now = deps.clock();
  const identity: Identity = {
    id: `idn_${deps.newId()}`,
    tenant_id: tenant.id,
    name: username,
    status: 'active',
    ...(input.display_name !== undefined ? { display_name: input.display_name } : {}),
    ...(input.owner ? { owner_name: input.owner.name, owner_email: input.owner.email } : {}),
    primary_address: address,
    addresses: [address],
    ...(input.send_policy ? { send_policy: input.send_policy } : {}),
    ...(input.receive_policy ? { receive_policy: input.receive_policy } : {}),
    ...(input.metadata ? { metadata: input.metadata } : {}),
    ...(input.client_id ? { client_id: input.client_id } : {}),
    created_at: now,
    updated_at: now,
  };
  const out = await storeIdentity(
    deps.db,
    identity,
    { address, identity_id: identity.id, tenant_id: tenant.id, domain, status: 'active' },
    input.client_id ? { fingerprint } : undefined,
    [
      auditPut(deps.db, {
        id: deps.newId(),
        tenant_id: tenant.id,
        action: 'identity.create',
        actor: actorId(actor),
        target_type: 'identity',
        target_id: identity.id,
        details: { username, domain, send_policy: identity.send_policy ?? null },
        request_id: opts.requestId,
        created_at: now,
      }),
      ...(opts.finish?.(identity) ?? []),
    ],
  );
  if (out === 'address_taken') throw addressTaken(username, domain);
  if (out === 'client_id_taken') {
    const claim = await getClientIdClaim(deps.db, tenant.id, input.client_id!);
    if (claim) return existingForClient(deps, tenant, claim, fingerprint);
  }
  return { identity, created: true };
}

async function existingForClient(
  deps: Pick<Deps, 'db'>,
  tenant: Tenant,
  claim: { identity_id: string; fingerprint: string },
  fingerprint: string,
): Promise<{ identity: Identity; created: boolean }> {
  if (claim.fingerprint !== fingerprint) throw clientIdConflict(claim.identity_id);
  const identity = await getIdentity(deps.db, claim.identity_id);
  if (!identity || identity.tenant_id !== tenant.id) throw identityNotFound();
  return { identity, created: false };
}

async function sendingDomain(
  deps: Pick<Deps, 'db' | 'config'>,
  tenant: Tenant,
  requested: string | undefined,
): Promise<string> {
  const testDomain = testDomainOf(tenant, deps.config.testDomain ?? DEFAULT_TEST_DOMAIN);
  const wanted = requested?.toLowerCase();
  if (tenant.mode === 'test' && (wanted === undefined || wanted === testDomain)) return testDomain;
  if (wanted === undefined) throw sendingDomainRequired();
  const domain = await getDomain(deps.db, wanted);
  // Another tenant's domain answers as a missing one.
  if (!domain || domain.tenant_id !== tenant.id) throw noSuchSendingDomain(wanted);
  if (domain.state === 'removing' || domain.state === 'removed') throw sendingDomainRemoved(wanted);
  return domain.domain;
}

export interface IdentityChange {
  display_name?: string;
  owner?: { name: string; email: string } | null;
  send_policy?: Identity['send_policy'] | null;
  receive_policy?: Identity['receive_policy'] | null;
  metadata?: Record<string, string> | null;
}

/** PATCH /v1/identities/{identity_id} beyond status: display name, owner, send policy, metadata. */
export async function changeIdentity(
  deps: Pick<Deps, 'db' | 'clock' | 'newId'>,
  actor: Actor,
  identity: Identity,
  change: IdentityChange,
  requestId?: string,
): Promise<Identity | undefined> {
  const set: Record<string, unknown> = {};
  const remove: string[] = [];
  if (change.display_name !== undefined) set.display_name = change.display_name;
  if (change.owner === null) remove.push('owner_name', 'owner_email');
  else if (change.owner)
    Object.assign(set, { owner_name: change.owner.name, owner_email: change.owner.email });
  for (const field of ['send_policy', 'receive_policy', 'metadata'] as const) {
    if (change[field] === null) remove.push(field);
    else if (change[field] !== undefined) set[field] = change[field];
  }
  if (Object.keys(set).length === 0 && remove.length === 0) return identity;
  const now = deps.clock();
  const done = await updateIdentityFields(deps.db, identity, set, remove, now, [
    auditPut(deps.db, {
      id: deps.newId(),
      tenant_id: identity.tenant_id,
      action: 'identity.update',
      actor: actorId(actor),
      target_type: 'identity',
      target_id: identity.id,
      details: {
        fields: [...Object.keys(set), ...remove].sort(),
        // A guardrail's change is audited with what it was and what it became.
        ...(change.send_policy !== undefined
          ? { send_policy: { from: identity.send_policy ?? null, to: change.send_policy } }
          : {}),
        ...(change.receive_policy !== undefined
          ? { receive_policy: { from: identity.receive_policy ?? null, to: change.receive_policy } }
          : {}),
      },
      request_id: requestId,
      created_at: now,
    }),
  ]);
  return done ? getIdentity(deps.db, identity.id) : undefined;
}

/**
 * DELETE /v1/identities/{identity_id}: the identity becomes `deleted`, its addresses `retired` for
 * good, and every identity key of it is revoked (each with its audit item).
 */
export async function deleteIdentity(
  deps: Pick<Deps, 'db' | 'clock' | 'newId'>,
  actor: Actor,
  identity: Identity,
  requestId?: string,
): Promise<Identity> {
  const now = deps.clock();
  const done = await storeDelete(deps.db, identity, now, [
    auditPut(deps.db, {
      id: deps.newId(),
      tenant_id: identity.tenant_id,
      action: 'identity.delete',
      actor: actorId(actor),
      target_type: 'identity',
      target_id: identity.id,
      details: {},
      request_id: requestId,
      created_at: now,
    }),
  ]);
  if (!done) throw identityNotFound();
  let after: string | undefined;
  do {
    const page = await listApiKeyDefinitions(deps.db, identity.tenant_id, { limit: 100, after });
    const own = page.data.filter(
      (k: ApiKeyDefinition) =>
        k.level === 'identity' && k.identity_id === identity.id && k.revoked_at === undefined,
    );
    for (const k of own) {
      await revokeApiKey(deps.db, k, now, [
        auditPut(deps.db, {
          id: deps.newId(),
          tenant_id: identity.tenant_id,
          action: 'key.revoke',
          actor: actorId(actor),
          target_type: 'api_key',
          target_id: k.key_id,
          details: { reason: 'identity_deleted' },
          request_id: requestId,
          created_at: now,
        }),
      ]);
    }
    after = page.next;
  } while (after);
  return { ...identity, status: 'deleted', updated_at: now };
}
