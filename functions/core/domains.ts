import type { DnsRecord, DomainRecord, DomainState } from './model.ts';
import type { SmtpDomainIssue } from './smtp-outcome.ts';
import type { TransportResult } from './transport-result.ts';

/**
 * Sending domains (docs/guides/domains.md): the
 * DNS records onboarding answers, the state a provider check moves a domain to, and the API view.
 */

/** A lower-case DNS name of at least two labels (no trailing dot, no IP literal). */
export const DOMAIN_NAME_PATTERN = /^(?=.{4,253}$)([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z]{2,63}$/;
export const DOMAIN_ID_PATTERN = /^dom_[0-9a-z]{26}$/;
/** An SES configuration set's name, as a domain's `ses.configuration_set` names it. */
export const CONFIGURATION_SET_PATTERN = /^[A-Za-z0-9_-]{1,64}$/;
/** A Cloudflare account id, as a domain's `cloudflare.account_id` names it. */
export const CLOUDFLARE_ACCOUNT_PATTERN = /^[0-9a-f]{32}$/;

/** States a provider check may move; `suspended` is the operator's, `removing`/`removed` DELETE's. */
export const CHECKED_STATES: ReadonlySet<DomainState> = new Set([
  'pending',
  'verifying',
  'healthy',
  'degraded',
  'failing',
]);

/**
 * The records to publish for an SES domain identity (Easy DKIM): three CNAMEs
 * `{token}._domainkey.{domain}` → `{token}.{SigningHostedZone}`, the custom MAIL FROM MX and SPF
 * records when `mail_from` is set, and a DMARC suggestion. Sources: SES "Easy DKIM" —
 * https://docs.aws.amazon.com/ses/latest/dg/send-email-authentication-dkim-easy.html; custom MAIL
 * FROM — https://docs.aws.amazon.com/ses/latest/dg/mail-from.html.
 */
export function sesDnsRecords(input: {
  domain: string;
  tokens: string[];
  signingHostedZone: string;
  region: string;
  mailFrom?: string;
  /** The Region where the deployment receives mail (SES receiving); none: no MX suggested. */
  inboundRegion?: string;
}): DnsRecord[] {
  const records: DnsRecord[] = input.tokens.map((t) => ({
    type: 'CNAME',
    name: `${t}._domainkey.${input.domain}`,
    value: `${t}.${input.signingHostedZone}`,
    purpose: 'dkim',
    required: true,
  }));
  if (input.mailFrom) {
    records.push(
      {
        type: 'MX',
        name: input.mailFrom,
        value: `10 feedback-smtp.${input.region}.amazonses.com`,
        purpose: 'mail_from_mx',
        required: true,
      },
      {
        type: 'TXT',
        name: input.mailFrom,
        value: 'v=spf1 include:amazonses.com ~all',
        purpose: 'mail_from_spf',
        required: true,
      },
    );
  }
  if (input.inboundRegion) records.push(inboundMxRecord(input.domain, input.inboundRegion));
  records.push({
    type: 'TXT',
    name: `_dmarc.${input.domain}`,
    value: `v=DMARC1; p=none; rua=mailto:postmaster@${input.domain}`,
    purpose: 'dmarc',
    required: false,
  });
  return records;
}

/**
 * The MX record that brings a domain's mail to SES receiving in `region` (priority 10):
 * https://docs.aws.amazon.com/ses/latest/dg/receiving-email-mx-record.html. Not required for
 * `verified`: sending works without it; the domain check reports whether it is published.
 */
export function inboundMxHost(region: string): string {
  return `inbound-smtp.${region}.amazonaws.com`;
}

export function inboundMxRecord(domain: string, region: string): DnsRecord {
  return {
    type: 'MX',
    name: domain,
    value: `10 ${inboundMxHost(region)}`,
    purpose: 'inbound_mx',
    required: false,
  };
}

/** Whether the MX hosts DNS answered for a domain include SES receiving's in `region`. */
export function inboundMxPublished(exchanges: readonly string[], region: string): boolean {
  const want = inboundMxHost(region);
  return exchanges.some((e) => e.trim().toLowerCase().replace(/\.$/, '') === want);
}

/** What GetEmailIdentity said about the identity (functions/domains/ses-identities.ts). */
export type IdentityStatus =
  | { found: false }
  | {
      found: true;
      verified: boolean;
      /** DkimAttributes.Status: PENDING | SUCCESS | FAILED | TEMPORARY_FAILURE | NOT_STARTED. */
      dkim: string;
      /** MailFromAttributes.MailFromDomainStatus, when a MAIL FROM domain is set. */
      mail_from?: string;
    };

/**
 * The state a check moves a domain to: verified with DKIM → healthy,
 * or degraded when the custom MAIL FROM fails (SES falls back to its own MAIL FROM: DKIM still
 * aligns); DKIM not yet found → verifying for a domain never healthy, failing for one that was;
 * DKIM failed, or the identity gone at SES → failing. A temporary DKIM failure degrades a healthy
 * domain and keeps a verifying one verifying. Suspended, removing and removed are left alone.
 */
export function nextDomainState(
  current: Pick<DomainRecord, 'state'>,
  identity: IdentityStatus,
): { state: DomainState; state_reason?: string } {
  if (!CHECKED_STATES.has(current.state)) return { state: current.state };
  const wasVerified =
    current.state === 'healthy' || current.state === 'degraded' || current.state === 'failing';
  if (!identity.found) return { state: 'failing', state_reason: 'ses_identity_missing' };
  switch (identity.dkim) {
    case 'SUCCESS':
      if (!identity.verified)
        return { state: wasVerified ? 'failing' : 'verifying', state_reason: 'not_verified' };
      if (identity.mail_from === 'FAILED' || identity.mail_from === 'TEMPORARY_FAILURE')
        return { state: 'degraded', state_reason: 'mail_from_failed' };
      return { state: 'healthy' };
    case 'TEMPORARY_FAILURE':
      return wasVerified
        ? { state: 'degraded', state_reason: 'dkim_temporary_failure' }
        : { state: 'verifying', state_reason: 'dkim_temporary_failure' };
    case 'FAILED':
      return { state: 'failing', state_reason: 'dkim_failed' };
    default:
      return wasVerified
        ? { state: 'failing', state_reason: 'dkim_pending' }
        : { state: 'verifying', state_reason: 'dkim_pending' };
  }
}

/** What an SMTP relay probe answered (functions/domains/smtp-probe.ts › probeSmtpRelay). */
export type RelayProbe = { ok: true } | { ok: false; issue: string; detail: string };

/** The reason of an `smtp` domain no probe has passed yet (created, or its relay changed). */
export const SMTP_PROBE_PENDING = 'smtp_probe_pending';

/**
 * The reason a `cloudflare` domain carries: Cloudflare's sending-domain status is per zone
 * (`GET /zones/{zone_id}/email/sending/subdomains`, which needs a zone id and a zone-scoped token
 * pmail does not hold), so pmail does not check it; the domain is `healthy` on creation and a send
 * from a domain Cloudflare has not onboarded is refused by Cloudflare (`sender_domain_unavailable`).
 */
export const CLOUDFLARE_UNCHECKED = 'cloudflare_unchecked';

/**
 * The state an SMTP relay probe moves a domain to (the probe gate): a passing
 * probe → healthy; a failing one keeps a never-verified domain `verifying` and makes a verified one
 * `failing`, with the probe's issue (`smtp_tls_required`, `smtp_auth_failed`, `smtp_unreachable`,
 * `smtp_relay_address_refused`) as the reason. Suspended, removing and removed are left alone.
 */
export function nextRelayDomainState(
  current: Pick<DomainRecord, 'state'>,
  probe: RelayProbe,
): { state: DomainState; state_reason?: string } {
  if (!CHECKED_STATES.has(current.state)) return { state: current.state };
  if (probe.ok) return { state: 'healthy' };
  const wasVerified =
    current.state === 'healthy' || current.state === 'degraded' || current.state === 'failing';
  return { state: wasVerified ? 'failing' : 'verifying', state_reason: probe.issue };
}

/**
 * The relay refusals of a send that the probe would report too: the login refused (535 to AUTH, or
 * no secret stored) and STARTTLS not advertised. Every later send would meet the same refusal.
 */
const SEND_TIME_ISSUES: ReadonlySet<string> = new Set<SmtpDomainIssue>([
  'smtp_auth_failed',
  'smtp_tls_required',
]);

/**
 * The state a send's relay refusal moves its `smtp` domain to, at once rather than at the next
 * probe: a healthy or degraded domain whose relay refused the login (`smtp_auth_failed`) or hid
 * STARTTLS (`smtp_tls_required`) becomes `failing` with that reason, as a failed probe makes a
 * verified domain. Undefined when nothing moves: another result, another transport, a domain not
 * sending (verifying, failing already, suspended, being removed).
 */
export function relayRefusalAtSend(
  current: Pick<DomainRecord, 'state' | 'transport'>,
  result: TransportResult,
): { state: 'failing'; state_reason: SmtpDomainIssue } | undefined {
  if (current.transport !== 'smtp' || result.type !== 'rejected' || result.provider !== 'smtp')
    return undefined;
  if (!SEND_TIME_ISSUES.has(result.code)) return undefined;
  if (current.state !== 'healthy' && current.state !== 'degraded') return undefined;
  return { state: 'failing', state_reason: result.code as SmtpDomainIssue };
}

/** The API view of a domain (openapi.yaml Domain). Relay credentials never appear in it. */
export function toDomainView(d: DomainRecord) {
  const iso = (t: number | undefined) => (t === undefined ? null : new Date(t).toISOString());
  return {
    id: d.id ?? null,
    name: d.domain,
    transport: d.transport ?? 'test',
    reply_token: d.reply_token,
    state: d.state,
    state_reason: d.state_reason ?? null,
    checked_at: iso(d.checked_at),
    mail_from: d.mail_from ?? null,
    ses: d.ses ? { region: d.ses.region ?? null, configuration_set: d.ses.configuration_set ?? null } : null,
    smtp: d.smtp
      ? {
          host: d.smtp.host,
          port: d.smtp.port,
          tls: d.smtp.tls ?? null,
          username: d.smtp.username ?? null,
          auth: d.smtp.auth ?? 'password',
          /** Whether a secret is stored (its value is write-only). */
          credentials_stored: Boolean(d.smtp.secret_ref),
        }
      : null,
    cloudflare:
      d.transport === 'cloudflare' || d.cloudflare ? { account_id: d.cloudflare?.account_id ?? null } : null,
    dns_records: d.dns_records ?? [],
    inbound_mx_published: d.inbound_mx_published ?? null,
    created_at: iso(d.created_at),
    updated_at: iso(d.updated_at),
  };
}

/** Why a live send's sending domain cannot take it now (checks 14–15). */
export type TransportGap = 'domain_not_configured' | 'transport_not_configured' | 'marketing_needs_ses';

/**
 * Checks 14–15 for a live tenant, and the sweeper's test for an `undispatched` message (one rule):
 * the gap that keeps the domain from sending, or undefined when it can send. `holdable` gaps are a
 * configuration not completed yet (no domain record, or no transport on it): a held
 * `undispatched` waits for them under the tenant policy `unconfigured_transport: "hold"`. A domain
 * being removed, and marketing through Cloudflare, are decisions, not gaps: always refused.
 */
export function transportGap(
  domain: Pick<DomainRecord, 'state' | 'transport'> | undefined,
  marketing: boolean,
): { reason: TransportGap; holdable: boolean } | undefined {
  if (!domain) return { reason: 'domain_not_configured', holdable: true };
  if (domain.state === 'removing' || domain.state === 'removed')
    return { reason: 'domain_not_configured', holdable: false };
  if (!domain.transport || domain.transport === 'test')
    return { reason: 'transport_not_configured', holdable: true };
  if (marketing && domain.transport === 'cloudflare')
    return { reason: 'marketing_needs_ses', holdable: false };
  return undefined;
}

/**
 * The sweeper dispatches a held message once its sending domain can take
 * it: no gap left and the domain verified (a domain still verifying would fail it at claim time).
 */
export function canDispatchHeld(
  domain: Pick<DomainRecord, 'state' | 'transport'> | undefined,
  marketing: boolean,
): boolean {
  return (
    !!domain && domain.state !== 'pending' && domain.state !== 'verifying' && !transportGap(domain, marketing)
  );
}
