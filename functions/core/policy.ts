import { PmailError } from './errors.ts';
import type { AddressRecord, Identity, Mailbox, Tenant } from './model.ts';
import {
  checkRecipientCount,
  normaliseAddress,
  normaliseRecipients,
  type Recipient,
  type RecipientInput,
} from './recipients.ts';
import { isSimulatorAddress } from './simulator.ts';

/**
 * The policy pipeline of DESIGN § 8 for a plain send, in its order; the first failure is returned and
 * nothing is stored. Steps that need features of later issues (threads, marketing, auto-reply,
 * custom headers, domains, filters, quotas, lock) are not here yet.
 */
export interface SendRequest {
  to?: RecipientInput[];
  cc?: RecipientInput[];
  bcc?: RecipientInput[];
  from_address?: string;
}

export interface SendContext {
  tenant: Tenant;
  identity: Identity;
  /** Address records for the recipients and the requested from_address (lower-case keys). */
  addresses: Map<string, AddressRecord>;
}

export interface SendPlan {
  recipients: Recipient[];
  from: Mailbox;
}

/** Steps 1–4, shared by every operation. */
export function checkSender(tenant: Tenant, identity: Identity): void {
  if (identity.status === 'deleting' || identity.status === 'deleted') {
    throw new PmailError('identity_not_found', 'No identity with this id is visible to this key.');
  }
  if (tenant.status === 'suspended') throw new PmailError('tenant_suspended', 'The tenant is suspended.');
  if (identity.status === 'paused') {
    throw new PmailError('identity_paused', 'The identity is paused and cannot send.', {
      details: { reason: identity.pause_reason ?? 'manual' },
    });
  }
  if (!identity.owner_name || !identity.owner_email) {
    throw new PmailError('identity_owner_required', 'The identity has no accountable owner.', {
      details: {
        missing: [!identity.owner_name && 'owner_name', !identity.owner_email && 'owner_email'].filter(
          Boolean,
        ),
      },
    });
  }
}

/** The addresses whose directory records the pipeline needs, so the caller can read them in one batch. */
export function addressesToLookUp(req: SendRequest): string[] {
  const out: string[] = [];
  for (const field of ['to', 'cc', 'bcc'] as const) {
    for (const r of req[field] ?? []) {
      try {
        out.push(normaliseAddress(typeof r === 'string' ? r : r.address, field));
      } catch {
        // invalid addresses are reported by the pipeline in order
      }
    }
  }
  if (req.from_address) {
    try {
      out.push(normaliseAddress(req.from_address, 'from_address'));
    } catch {
      // reported at step 13
    }
  }
  return out;
}

export function evaluateSend(ctx: SendContext, req: SendRequest): SendPlan {
  checkSender(ctx.tenant, ctx.identity); // 1–4
  const recipients = normaliseRecipients(req); // 6
  checkRecipientCount(recipients, ctx.tenant.policy.max_recipients); // 7
  if (ctx.tenant.mode === 'test') checkTestRecipients(recipients, ctx.addresses); // 8
  return { recipients, from: chooseFrom(ctx, req.from_address) }; // 13
}

/** Step 8: a test tenant sends only to the simulator and to active/retiring addresses of this deployment. */
function checkTestRecipients(recipients: Recipient[], addresses: Map<string, AddressRecord>): void {
  const outside = recipients.filter((r) => {
    if (isSimulatorAddress(r.address)) return false;
    const rec = addresses.get(r.address.toLowerCase());
    return !rec || rec.status === 'retired';
  });
  if (outside.length > 0) {
    throw new PmailError(
      'test_mode_recipient',
      'A test tenant can send only to @simulator.invalid and to addresses of identities on this deployment.',
      { details: { fields: outside.map((r) => r.field) } },
    );
  }
}

/** Step 13: from_address must be an active address of this identity; else the primary address. */
function chooseFrom(ctx: SendContext, fromAddress: string | undefined): Mailbox {
  const name = ctx.identity.display_name;
  if (!fromAddress) return { address: ctx.identity.primary_address, ...(name ? { name } : {}) };
  const invalid = (message: string) =>
    new PmailError('invalid_request', message, { details: { errors: [{ path: 'from_address', message }] } });
  let address: string;
  try {
    address = normaliseAddress(fromAddress, 'from_address');
  } catch {
    throw invalid('from_address is not an email address');
  }
  const rec = ctx.addresses.get(address.toLowerCase());
  if (!rec || rec.identity_id !== ctx.identity.id || rec.status !== 'active') {
    throw invalid('from_address is not an active address of this identity');
  }
  return { address: rec.address, ...(name ? { name } : {}) };
}
