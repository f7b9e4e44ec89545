import type { Identity } from './model.ts';

/** The identity as the API returns it (`GET`/`PATCH /v1/identities/{identity_id}`). */
export function toIdentityView(i: Identity) {
  return {
    id: i.id,
    tenant_id: i.tenant_id,
    username: i.name,
    display_name: i.display_name ?? '',
    status: i.status,
    pause_reason: i.pause_reason ?? null,
    primary_address: i.primary_address,
    addresses: i.addresses ?? [i.primary_address],
    owner: i.owner_email ? { name: i.owner_name ?? '', email: i.owner_email } : null,
    send_policy: i.send_policy ?? {},
    receive_policy: i.receive_policy ?? {},
    metadata: i.metadata ?? {},
    client_id: i.client_id ?? null,
    created_at: i.created_at === undefined ? null : new Date(i.created_at).toISOString(),
    updated_at: i.updated_at === undefined ? null : new Date(i.updated_at).toISOString(),
  };
}
