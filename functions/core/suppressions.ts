import { createHmac } from 'node:crypto';
import { domainToASCII } from 'node:url';
import { type FieldError, invalidListEntry, PmailError } from './errors.ts';
import type { ConsentKind } from './job-kind.ts';
import { canonicalAddress, normaliseAddress } from './recipients.ts';

/**
 * Suppressions, send lists and the per-recipient filter of check 16
 * Pure: the stores load the facts, this file decides.
 */

export const SUPPRESSION_REASONS = ['manual', 'unsubscribe', 'hard_bounce', 'complaint', 'provider'] as const;
export type SuppressionReason = (typeof SUPPRESSION_REASONS)[number];
/** The reasons a caller may create through the API: manual, unsubscribe. */
export const API_SUPPRESSION_REASONS = ['manual', 'unsubscribe'] as const;

/** A stored suppression (times in epoch ms). The plain address is never part of it. */
export interface Suppression {
  address_hash: string;
  address_hint: string;
  reason: SuppressionReason;
  created_at: number;
  expires_at?: number;
  source_message_id?: string;
  /** Only for `manual`: it blocks elective mail only, as an unsubscribe does. */
  elective?: boolean;
}

/** Send lists (who may be mailed: check 16) and receive lists (whose mail is shown: core/hold.ts). */
export const LIST_DIRECTIONS = ['send', 'receive'] as const;
export type ListDirection = (typeof LIST_DIRECTIONS)[number];
export const LIST_KINDS = ['block', 'allow'] as const;
export type ListKind = (typeof LIST_KINDS)[number];

export interface ListEntry {
  direction: ListDirection;
  kind: ListKind;
  /** A lower-case address, or `@domain` with the domain in A-label form. */
  entry: string;
  created_at: number;
  /** A receive allow entry that admits unauthenticated mail too (spoofable: docs/security.md). */
  unauthenticated?: boolean;
}

/**
 * An identity's counts for one address: messages received from it (any that were not spam or
 * quarantined), those of them that proved their sender (core/inbound.ts › senderAuth), and sends
 * that queued a delivery to it.
 */
export interface ContactCounts {
  inbound_count: number;
  authenticated_inbound_count: number;
  outbound_count: number;
}

/**
 * A known recipient (`send_policy.require_known_recipient`): the identity sent to it, or received
 * mail from it that proved its sender. Mail that did not (a From anyone can write) makes no one known.
 */
export function isKnownRecipient(c: ContactCounts | undefined): boolean {
  return !!c && (c.outbound_count > 0 || c.authenticated_inbound_count > 0);
}

export { canonicalAddress };

/** A suppression's key: hex HMAC-SHA256(PM_HASH_KEY, address), case-insensitive. */
export function addressHash(hashKey: string, address: string): string {
  return createHmac('sha256', hashKey).update(canonicalAddress(address)).digest('hex');
}

/** The masked form kept instead of the address: `j***@example.com`. */
export function addressHint(address: string): string {
  const value = canonicalAddress(address);
  const at = value.lastIndexOf('@');
  return `${value.slice(0, 1)}***@${value.slice(at + 1)}`;
}

const LABEL = /^(?!-)[a-z0-9-]{1,63}(?<!-)$/;

/**
 * A send-list entry as stored: an address (lower case, A-label domain) or `@domain`. Anything else
 * is 400 invalid_request with `details.errors[0].path = "entry"`.
 */
export function normaliseListEntry(raw: string): string {
  const fail = invalidListEntry;
  const value = raw.trim();
  if (value.startsWith('@')) {
    const domain = domainToASCII(value.slice(1).toLowerCase());
    if (
      !domain ||
      domain.length > 253 ||
      !domain.includes('.') ||
      !domain.split('.').every((l) => LABEL.test(l))
    ) {
      throw fail('entry is not a valid @domain');
    }
    return `@${domain}`;
  }
  try {
    return canonicalAddress(normaliseAddress(value, 'entry'));
  } catch (err) {
    if (err instanceof PmailError) {
      const errors = (err.details?.errors ?? []) as FieldError[];
      throw fail(errors[0]?.message ?? err.message);
    }
    throw err;
  }
}

/** An unsubscribe (and a manual suppression marked elective) blocks elective mail only. */
export function blocksOnlyElective(s: Pick<Suppression, 'reason' | 'elective'>): boolean {
  return s.reason === 'unsubscribe' || (s.reason === 'manual' && s.elective === true);
}

export function isActiveSuppression(s: Pick<Suppression, 'expires_at'>, now: number): boolean {
  return s.expires_at === undefined || s.expires_at > now;
}

/**
 * Category and kind: the one rule of which suppression blocks which mail, used at enqueue
 * (check 16) and at send (the claim's re-check): an active suppression blocks elective mail;
 * it blocks transactional mail too unless it blocks only elective mail (an unsubscribe). A hard
 * bounce, a complaint or a provider suppression blocks everything.
 */
export function suppressionBlocks(
  s: Pick<Suppression, 'reason' | 'expires_at' | 'elective'>,
  kind: ConsentKind,
  now: number,
): boolean {
  return isActiveSuppression(s, now) && (kind === 'elective' || !blocksOnlyElective(s));
}

/** The smtp_response of a delivery a suppression blocked, at enqueue or at send. */
export const suppressedResponse = (reason: SuppressionReason) => `policy: suppression (${reason})`;

/** Facts loaded for the recipients of one submit; every map/set is keyed by canonicalAddress. */
export interface RecipientFilterContext {
  now: number;
  /** Whether the recipient may refuse this mail (core/job-kind.ts). */
  elective: boolean;
  /** Tenant policy `send_allowlist_only`. */
  allowlistOnly: boolean;
  /** Identity `send_policy.require_known_recipient`. */
  requireKnownRecipient: boolean;
  /** The suppression found for each recipient address. */
  suppressions: ReadonlyMap<string, Pick<Suppression, 'reason' | 'expires_at' | 'elective'>>;
  /** Send-block entries found: recipient addresses and `@domain`s. */
  sendBlock: ReadonlySet<string>;
  /** Send-allow entries found: recipient addresses and `@domain`s. */
  sendAllow: ReadonlySet<string>;
  /** The identity's contact counts for each recipient address. */
  contacts: ReadonlyMap<string, ContactCounts>;
}

export type FilterRule = SuppressionReason | 'send_block' | 'not_on_allowlist' | 'unknown_recipient';

export type FilterDecision =
  | { status: 'queued' }
  | {
      status: 'suppressed';
      /** The suppression reason or the list rule (the dry run's `reason`). */
      reason: FilterRule;
      smtp_response: string;
    };

const suppressed = (reason: FilterRule, smtp_response: string): FilterDecision => ({
  status: 'suppressed',
  reason,
  smtp_response,
});

/**
 * Check 16 for one recipient, in this order: suppression, send-block, allowlist-only,
 * require-known-recipient. The first rule that matches names the delivery's smtp_response.
 */
export function filterRecipient(address: string, ctx: RecipientFilterContext): FilterDecision {
  const key = canonicalAddress(address);
  const domain = `@${key.slice(key.lastIndexOf('@') + 1)}`;
  const s = ctx.suppressions.get(key);
  if (s && suppressionBlocks(s, ctx.elective ? 'elective' : 'transactional', ctx.now))
    return suppressed(s.reason, suppressedResponse(s.reason));
  if (ctx.sendBlock.has(key) || ctx.sendBlock.has(domain))
    return suppressed('send_block', 'policy: send_block');
  if (ctx.allowlistOnly && !ctx.sendAllow.has(key) && !ctx.sendAllow.has(domain))
    return suppressed('not_on_allowlist', 'policy: not_on_allowlist');
  if (ctx.requireKnownRecipient) {
    if (!isKnownRecipient(ctx.contacts.get(key)))
      return suppressed('unknown_recipient', 'policy: unknown_recipient');
  }
  return { status: 'queued' };
}

/** Check 16 for every recipient; the result is aligned with `recipients`. */
export function filterRecipients<R extends { address: string }>(
  recipients: readonly R[],
  ctx: RecipientFilterContext,
): (FilterDecision & { address: string })[] {
  return recipients.map((r) => ({ address: r.address, ...filterRecipient(r.address, ctx) }));
}

/** The API view of a suppression (as openapi.yaml states it: RFC 3339 times, null for absent values). */
export function toSuppressionView(s: Suppression) {
  return {
    address_hint: s.address_hint,
    reason: s.reason,
    created_at: new Date(s.created_at).toISOString(),
    expires_at: s.expires_at === undefined ? null : new Date(s.expires_at).toISOString(),
    source_message_id: s.source_message_id ?? null,
    elective: blocksOnlyElective(s),
  };
}

export function toListEntryView(e: ListEntry) {
  return {
    direction: e.direction,
    kind: e.kind,
    entry: e.entry,
    ...(e.direction === 'receive' && e.kind === 'allow'
      ? { unauthenticated: e.unauthenticated === true }
      : {}),
    created_at: new Date(e.created_at).toISOString(),
  };
}
