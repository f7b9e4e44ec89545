import type { RecipientRefusal, RecipientUncertain, TransportResult } from './transport-result.ts';

/**
 * The SMTP relay's outcome table (RFC 5321
 * § 4.5.3.2 timeouts and § 6.1 "the duplicate after the final dot"). The adapter
 * (functions/transports/smtp.transport.ts) drives one SMTP session and reports what ended it as an
 * `SmtpEnd`; this function alone decides what that means for the message. The rule that matters
 * most: once the final dot may have reached the relay, a missing answer is `unknown` (never
 * resent); before it, nothing was sent and the attempt is retried later as `Relay`.
 */

/** The SMTP commands a session goes through, in order (no pipelining). */
export type SmtpStage = 'greeting' | 'ehlo' | 'starttls' | 'auth' | 'mail' | 'rcpt' | 'data';

/** One recipient's reply to RCPT TO that was not 2xx. */
export interface SmtpRcptReply {
  address: string;
  code: number;
  text: string;
}

export type SmtpEnd =
  /** The relay answered the final dot (any code). */
  | { type: 'dot_reply'; code: number; text: string }
  /** A non-2xx/3xx reply before the final dot (RCPT TO replies travel in `rcpt` instead). */
  | { type: 'reply'; stage: SmtpStage; code: number; text: string }
  /** Every RCPT TO was refused: no DATA was sent (the replies are in `rcpt`). */
  | { type: 'no_recipient' }
  /**
   * STARTTLS required (any port but implicit TLS) and EHLO did not advertise it, whether or not the
   * relay would have accepted the command: credentials were never sent.
   */
  | { type: 'no_starttls' }
  /** The relay host or port broke the SSRF rules (core/relay-address.ts): nothing was connected. */
  | { type: 'target_refused'; detail: string }
  /**
   * No answer: a connection error, a reset, a timeout, the 4-minute deadline. `dot_written`: the
   * adapter had handed the final dot (the end of the message) to the socket.
   */
  | { type: 'no_answer'; dot_written: boolean; timed_out: boolean; detail: string };

export interface SmtpOutcomeInput {
  /** The relay host name as configured (in the provider id). */
  host: string;
  /** The composed Message-ID as stored (brackets, if any, are left out of the provider id). */
  rfc_message_id: string;
  /** Non-2xx replies to RCPT TO, one per refused recipient. */
  rcpt: SmtpRcptReply[];
  end: SmtpEnd;
}

/** The domain issues the relay's answers can raise (the domains API reports them). */
export type SmtpDomainIssue = 'smtp_tls_required' | 'smtp_auth_failed' | 'smtp_unreachable';

/** Status after 250: the provider id of a relay send. */
export const smtpProviderMessageId = (host: string, rfcMessageId: string): string =>
  `smtp:${host.toLowerCase()}:${rfcMessageId.replace(/^<|>$/g, '')}`;

/** The step timeouts of an SMTP relay send (milliseconds). */
export const SMTP_TIMEOUTS = {
  connect: 10_000,
  command: 30_000,
  dotReply: 60_000,
  total: 240_000,
} as const;

/** The relay ports a domain may name (25, 465 implicit TLS, 587 STARTTLS, 2525). */
export const SMTP_ALLOWED_PORTS: readonly number[] = [25, 465, 587, 2525];

/** Port 465 is TLS from the first byte; every other port upgrades with STARTTLS (required). */
export const smtpImplicitTls = (port: number, tls?: 'implicit' | 'starttls'): boolean =>
  tls ? tls === 'implicit' : port === 465;

const line = (code: number, text: string) => `${code} ${text}`.trim().slice(0, 512);
const refusal = (r: SmtpRcptReply): RecipientRefusal => ({
  address: r.address,
  code: String(r.code),
  detail: line(r.code, r.text),
});
const is4xx = (code: number) => code >= 400 && code < 500;
const is5xx = (code: number) => code >= 500 && code < 600;

/** The domain issue an outcome raises, if any (the domain's health check records it). */
export function smtpDomainIssue(end: SmtpEnd): SmtpDomainIssue | undefined {
  if (end.type === 'no_starttls') return 'smtp_tls_required';
  if (end.type === 'reply' && end.stage === 'auth' && is5xx(end.code)) return 'smtp_auth_failed';
  return undefined;
}

export function classifySmtp(input: SmtpOutcomeInput): TransportResult {
  const seen: RcptSeen = {
    refused: input.rcpt.filter((r) => is5xx(r.code)).map(refusal),
    // A RCPT answer that is neither 4xx nor 5xx is no refusal we can read: keep it queued (4xx rule).
    deferred: input.rcpt.filter((r) => !is5xx(r.code)).map((r) => r.address),
  };
  const end = input.end;
  switch (end.type) {
    case 'dot_reply':
      return afterTheDot(input, end, seen);
    case 'no_starttls':
      return {
        type: 'rejected',
        provider: SMTP,
        reason: 'sender_domain_unavailable',
        code: 'smtp_tls_required',
        detail: 'the relay offered no STARTTLS on a port that requires it; credentials were not sent',
      };
    case 'target_refused':
      return {
        type: 'rejected',
        provider: SMTP,
        reason: 'sender_domain_unavailable',
        code: 'smtp_relay_address_refused',
        detail: end.detail,
      };
    case 'no_recipient':
      return noRecipient(input, seen);
    case 'reply':
      return beforeTheDot(end, seen);
    case 'no_answer':
      return noAnswer(end, seen);
  }
}

const SMTP = 'smtp';

/** The RCPT answers: refused (5xx) and deferred (any other) recipients. */
interface RcptSeen {
  refused: RecipientRefusal[];
  deferred: string[];
}

type EndOf<T extends SmtpEnd['type']> = Extract<SmtpEnd, { type: T }>;

/** The relay's reply to the end of the message: taken, refused, deferred, or unreadable. */
function afterTheDot(input: SmtpOutcomeInput, end: EndOf<'dot_reply'>, seen: RcptSeen): TransportResult {
  const provider = SMTP;
  if (end.code >= 200 && end.code < 300) {
    return {
      type: 'accepted',
      provider,
      provider_message_id: smtpProviderMessageId(input.host, input.rfc_message_id),
      rfc_message_id: input.rfc_message_id,
      refused: seen.refused,
      deferred: seen.deferred,
    };
  }
  if (is5xx(end.code)) {
    return {
      type: 'rejected',
      provider,
      reason: 'provider_validation',
      code: `smtp_${end.code}`,
      detail: line(end.code, end.text),
    };
  }
  if (is4xx(end.code))
    return { type: 'retry_later', provider, class: 'Relay', code: `smtp_${end.code}`, refused: seen.refused };
  // Any other reply to the dot is no answer we can read: the message may have been taken.
  return { type: 'unknown', provider, reason: 'transport_connection_lost', detail: line(end.code, end.text) };
}

/** Every RCPT refused: all 5xx → rejected; any 4xx among them → retry those later. */
function noRecipient(input: SmtpOutcomeInput, seen: RcptSeen): TransportResult {
  if (seen.deferred.length > 0)
    return {
      type: 'retry_later',
      provider: SMTP,
      class: 'Relay',
      code: 'smtp_rcpt_4xx',
      refused: seen.refused,
    };
  return {
    type: 'rejected',
    provider: SMTP,
    reason: 'provider_validation',
    code: `smtp_${input.rcpt[0]?.code ?? 550}`,
    detail:
      seen.refused
        .map((r) => r.detail)
        .join('; ')
        .slice(0, 512) || 'every recipient was refused',
  };
}

/** A refusal before the message was sent: AUTH's and the envelope's 5xx are final, the rest retried. */
function beforeTheDot(end: EndOf<'reply'>, seen: RcptSeen): TransportResult {
  if (is5xx(end.code) && end.stage === 'auth') {
    return {
      type: 'rejected',
      provider: SMTP,
      reason: 'sender_domain_unavailable',
      code: 'smtp_auth_failed',
      detail: line(end.code, end.text),
    };
  }
  if (is5xx(end.code) && (end.stage === 'mail' || end.stage === 'data')) {
    return {
      type: 'rejected',
      provider: SMTP,
      reason: 'provider_validation',
      code: `smtp_${end.code}`,
      detail: line(end.code, end.text),
    };
  }
  // Greeting, EHLO, STARTTLS, a 4xx anywhere before the dot: nothing was sent.
  return {
    type: 'retry_later',
    provider: SMTP,
    class: 'Relay',
    code: `smtp_${end.stage}_${end.code}`,
    refused: seen.refused,
  };
}

/** The connection ended without a reply: before the dot nothing was sent; after it, unknown. */
function noAnswer(end: EndOf<'no_answer'>, seen: RcptSeen): TransportResult {
  if (!end.dot_written) {
    return {
      type: 'retry_later',
      provider: SMTP,
      class: 'Relay',
      code: end.timed_out ? 'smtp_timeout' : 'smtp_connection',
      refused: seen.refused,
    };
  }
  return {
    type: 'unknown',
    provider: SMTP,
    reason: end.timed_out ? 'transport_timeout' : 'transport_connection_lost',
    detail: `no reply to the end of the message: ${end.detail}`.slice(0, 512),
  };
}

/**
 * One recipient's envelope (the relay transport sends one per recipient, each with that
 * recipient's own signed return path: core/return-path.ts): its RCPT reply when it was not 2xx,
 * and what ended it.
 */
export interface SmtpEnvelopeEnd {
  address: string;
  rcpt?: SmtpRcptReply;
  end: SmtpEnd;
}

export interface SmtpEnvelopesInput {
  host: string;
  rfc_message_id: string;
  /** The envelopes tried, in order; the session stops after one that ends with no answer. */
  envelopes: SmtpEnvelopeEnd[];
  /** Recipients never tried: an earlier envelope lost the connection, or the deadline came. */
  untried: string[];
}

/**
 * A message sent as one envelope per recipient (docs/guides/domains.md › SMTP relay): each
 * envelope is classified on its own (`classifySmtp`), then folded into one result
 * that keeps each recipient's outcome. Taken → submitted; refused (5xx) → that recipient rejected;
 * 4xx, or never tried → that recipient stays queued for a retry; no answer after its final dot →
 * that recipient uncertain, never resent. Only when no envelope may have reached the relay is the
 * result a whole-message refusal or back-off; only when every recipient's answer was lost is it
 * `unknown` as a single send's would be.
 */
export function classifySmtpEnvelopes(input: SmtpEnvelopesInput): TransportResult {
  const taken: string[] = [];
  const refused: RecipientRefusal[] = [];
  const deferred: string[] = [...input.untried];
  const uncertain: RecipientUncertain[] = [];
  const results: TransportResult[] = [];
  for (const e of input.envelopes) {
    const r = classifySmtp({
      host: input.host,
      rfc_message_id: input.rfc_message_id,
      rcpt: e.rcpt ? [e.rcpt] : [],
      end: e.end,
    });
    results.push(r);
    // One recipient per envelope: its outcome is the envelope's.
    if (r.type === 'accepted') taken.push(e.address);
    else if (r.type === 'rejected')
      refused.push({ address: e.address, code: r.code.replace(/^smtp_/, ''), detail: r.detail });
    else if (r.type === 'retry_later') deferred.push(e.address);
    else uncertain.push({ address: e.address, reason: r.reason, detail: r.detail });
  }
  if (taken.length === 0 && uncertain.length === 0) return nothingTaken(results, refused, deferred);
  if (taken.length === 0 && refused.length === 0 && deferred.length === 0)
    return results.find((r) => r.type === 'unknown')!;
  return {
    type: 'accepted',
    provider: SMTP,
    provider_message_id: smtpProviderMessageId(input.host, input.rfc_message_id),
    rfc_message_id: input.rfc_message_id,
    refused,
    deferred,
    ...(uncertain.length > 0 ? { uncertain } : {}),
  };
}

/** No envelope reached the relay: a back-off when any recipient may be retried, else a refusal. */
function nothingTaken(
  results: TransportResult[],
  refused: RecipientRefusal[],
  deferred: string[],
): TransportResult {
  if (deferred.length > 0) {
    const first = results.find((r) => r.type === 'retry_later');
    return {
      type: 'retry_later',
      provider: SMTP,
      class: 'Relay',
      code: first?.type === 'retry_later' ? first.code : 'smtp_connection',
      refused,
    };
  }
  const first = results.find((r) => r.type === 'rejected');
  return {
    type: 'rejected',
    provider: SMTP,
    reason: 'provider_validation',
    code: first?.type === 'rejected' ? first.code : 'smtp_550',
    detail:
      refused
        .map((r) => `${r.address}: ${r.detail}`)
        .join('; ')
        .slice(0, 512) || 'every recipient was refused',
  };
}
