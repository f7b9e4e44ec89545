import { type HeaderLines, simpleParser } from 'mailparser';
import { type CfAnswer, classifyCloudflare } from '../core/cf-outcome.ts';
import type { ProviderSuppression, TransportResult } from '../core/transport-result.ts';
import { errorFields, type Logger } from '../log.ts';
import type { Transport, TransportRecipient, TransportRequest } from './transport.ts';

/**
 * The Cloudflare Email Sending adapter,
 * shaped like functions/events/cloudflare-pull.ts: narrow injected ports, settings with documented
 * defaults, injectable fetch, and the external contract written down here.
 *
 * Contract, read 2026-12-03 from the Email Service docs ("Send emails › REST API",
 * developers.cloudflare.com/email-service/api/send-emails/rest-api/; "Email headers",
 * …/email-service/reference/headers/; "Manage suppressions", …/email-service/configuration/
 * suppressions/; "Suppression lists", …/email-service/concepts/suppressions/; cloudflare/
 * cloudflare-docs `src/content/docs/email-service/…`):
 * - `POST {apiBase}/accounts/{account_id}/email/sending/send`, `Authorization: Bearer <API token>`
 *   (Email Sending: Edit), JSON `{ from: { address, name }, to[], cc[], bcc[], subject, text, html,
 *   reply_to, headers: { name: value }, attachments: [{ content (base64), filename, type,
 *   disposition, content_id }] }`; at most 5 MiB in all. The API composes the MIME itself, so the
 *   stored .eml is parsed back (mailparser) into those fields. Bcc recipients travel only in `bcc`.
 * - Headers: only the allowlist of the headers page plus any `X-…` are sent (In-Reply-To,
 *   References, List-*, Precedence, Auto-Submitted, …); Message-ID, Date, MIME and Content-* are
 *   the platform's (setting them is E_HEADER_NOT_ALLOWED), and From/To/Cc/Subject/Reply-To are API
 *   fields. Cloudflare sets its own Message-ID.
 * - Success: `result.{delivered[], queued[], permanent_bounces[]}` — **no message id**. The provider
 *   id recorded is `cf-rest:{message id}` (core/cf-outcome.ts); the message's first Cloudflare
 *   event is matched by sender, recipient, exact subject and time and the message adopts the
 *   event's `messageId` (core/reconcile.ts › adoptCandidates), so later events route by it.
 * - Errors and their classification: core/cf-outcome.ts. No retries here (the send machine alone
 *   retries), no timeout of its own: the request's signal aborts at the task's deadline.
 * - Provider suppressions: a suppressed recipient
 *   refuses the whole request (REST: 400). With one recipient it is that one; else each recipient is
 *   looked up with `GET …/email/sending/suppressions?email={address}` (an active entry in the
 *   account-scoped list counts; the API has no zone or domain scope). The suppressed ones are left
 *   out and the rest are sent at once under the same claim (the refusal was definitive), at most
 *   three requests in all; they are reported in `provider_suppressed` and Record writes the
 *   suppressions. Recipients that cannot be identified end `recipient_suppressed_by_provider`.
 */
export interface CloudflarePorts {
  /** The account API token (Secrets Manager in AWS: functions/env.ts › loadCloudflareApiToken). */
  apiToken(): Promise<string>;
  fetch?: typeof fetch;
  log: Logger;
}

export interface CloudflareSendSettings {
  /** The account, unless the domain's `cloudflare.account_id` names one. @default none */
  accountId?: string;
  /** @default 'https://api.cloudflare.com/client/v4' */
  apiBase?: string;
  /** Requests per claim when recipients turn out suppressed. @default 3 */
  maxRounds?: number;
}

/** The headers page's allowlist (besides any `X-` header). */
const ALLOWED_HEADERS = new Set(
  [
    'in-reply-to',
    'references',
    'list-unsubscribe',
    'list-unsubscribe-post',
    'list-id',
    'list-archive',
    'list-help',
    'list-owner',
    'list-post',
    'list-subscribe',
    'precedence',
    'auto-submitted',
    'content-language',
    'keywords',
    'comments',
    'importance',
    'priority',
    'sensitivity',
    'organization',
    'require-recipient-valid-since',
    'expires',
    'reply-by',
    'archived-at',
  ].map((h) => h.toLowerCase()),
);

export function cloudflareTransport(
  ports: CloudflarePorts,
  settings: CloudflareSendSettings = {},
): Transport {
  return {
    provider: 'cloudflare',
    async send(req: TransportRequest): Promise<TransportResult> {
      const api = await sendingApi(ports, settings, req);
      if (!(api instanceof SendingApi)) return api;
      return sendInRounds(ports, api, req, await composeFields(req), settings.maxRounds ?? 3);
    },
  };
}

/** The account's sending API for this request, or the answer when it cannot be reached (nothing sent). */
async function sendingApi(
  ports: CloudflarePorts,
  settings: CloudflareSendSettings,
  req: TransportRequest,
): Promise<SendingApi | TransportResult> {
  const accountId = req.domain.cloudflare?.account_id ?? settings.accountId;
  if (!accountId) {
    return {
      type: 'rejected',
      provider: 'cloudflare',
      reason: 'sender_domain_unavailable',
      code: 'cf_not_configured',
      detail: 'no Cloudflare account is configured for this sending domain',
    };
  }
  let token: string;
  try {
    token = await ports.apiToken();
  } catch (err) {
    ports.log.error('Cloudflare API token unavailable; nothing sent', {
      ...errorFields(err),
    });
    return {
      type: 'retry_later',
      provider: 'cloudflare',
      class: 'Paused',
      code: 'cf_token_unavailable',
      refused: [],
    };
  }
  return new SendingApi(ports, settings, accountId, token, req.signal);
}

/**
 * Send, and while the answer is a suppressed recipient, leave the suppressed ones out and send to
 * the rest (at most `maxRounds` requests in all; the contract above).
 */
async function sendInRounds(
  ports: CloudflarePorts,
  api: SendingApi,
  req: TransportRequest,
  payload: SendFields,
  maxRounds: number,
): Promise<TransportResult> {
  let remaining = req.recipients;
  const suppressed: ProviderSuppression[] = [];
  const withSuppressed = (r: TransportResult): TransportResult =>
    suppressed.length ? { ...r, provider_suppressed: suppressed } : r;
  for (let round = 1; ; round++) {
    const outcome = classifyCloudflare(await api.send(payload, remaining), req.message_id);
    ports.log.info('cloudflare answered', {
      message_id: req.message_id,
      round,
      result: outcome.type,
      code: 'code' in outcome ? outcome.code : undefined,
      recipients: remaining.length,
    });
    if (outcome.type !== 'recipient_suppressed') return withSuppressed(outcome);
    const found =
      remaining.length === 1 ? [{ address: remaining[0]!.address }] : await api.suppressed(remaining);
    const notIdentified = (detail: string): TransportResult =>
      withSuppressed({
        type: 'rejected',
        provider: 'cloudflare',
        reason: 'recipient_suppressed_by_provider',
        code: outcome.code,
        detail,
      });
    if (!found) return notIdentified('a recipient is suppressed by the provider; the lookup failed');
    if (found.length === 0) return notIdentified('a recipient is suppressed by the provider; none was found');
    suppressed.push(...found);
    const gone = new Set(found.map((f) => f.address.toLowerCase()));
    remaining = remaining.filter((r) => !gone.has(r.address.toLowerCase()));
    if (remaining.length === 0) {
      return notIdentified('every recipient is on the provider’s suppression list');
    }
    if (round >= maxRounds) {
      return notIdentified(`recipients were still suppressed after ${maxRounds} requests`);
    }
  }
}

interface SendFields {
  from: { address: string; name?: string };
  subject: string;
  text?: string;
  html?: string;
  reply_to?: string;
  headers?: Record<string, string>;
  attachments?: {
    content: string;
    filename: string;
    type: string;
    disposition: string;
    content_id?: string;
  }[];
}

/** The stored .eml back into the API's fields (what the REST API composes from). */
async function composeFields(req: TransportRequest): Promise<SendFields> {
  const parsed = await simpleParser(Buffer.from(await req.mime.load()));
  const fromName = parsed.from?.value[0]?.name;
  const replyTo = parsed.replyTo?.value[0]?.address;
  const headers = customHeaders(parsed.headerLines);
  const attachments = parsed.attachments.map((a) => ({
    content: a.content.toString('base64'),
    filename: a.filename ?? 'attachment',
    type: a.contentType,
    disposition: a.contentDisposition === 'inline' ? 'inline' : 'attachment',
    ...(a.contentDisposition === 'inline' && a.cid ? { content_id: a.cid } : {}),
  }));
  return {
    from: { address: req.from, ...(fromName ? { name: fromName } : {}) },
    subject: req.subject,
    ...(parsed.text ? { text: parsed.text } : {}),
    ...(typeof parsed.html === 'string' ? { html: parsed.html } : {}),
    ...(replyTo ? { reply_to: replyTo } : {}),
    ...(Object.keys(headers).length ? { headers } : {}),
    ...(attachments.length ? { attachments } : {}),
  };
}

function customHeaders(lines: HeaderLines): Record<string, string> {
  const out: Record<string, string> = {};
  for (const { key, line } of lines) {
    if (!ALLOWED_HEADERS.has(key) && !/^x-[a-z0-9_-]+$/i.test(key)) continue;
    const value = line
      .slice(line.indexOf(':') + 1)
      .replace(/\r?\n[ \t]+/g, ' ')
      .trim();
    if (value) out[line.slice(0, line.indexOf(':')).trim()] = value;
  }
  return out;
}

/** The two documented endpoints, with the request's signal and no retries. */
class SendingApi {
  private readonly base: string;
  private readonly doFetch: typeof fetch;

  constructor(
    private readonly ports: CloudflarePorts,
    settings: CloudflareSendSettings,
    accountId: string,
    private readonly token: string,
    private readonly signal: AbortSignal,
  ) {
    const root = (settings.apiBase ?? 'https://api.cloudflare.com/client/v4').replace(/\/+$/, '');
    this.base = `${root}/accounts/${encodeURIComponent(accountId)}/email/sending`;
    this.doFetch = ports.fetch ?? fetch;
  }

  async send(fields: SendFields, recipients: readonly TransportRecipient[]): Promise<CfAnswer> {
    const of = (field: string) => recipients.filter((r) => r.field === field).map((r) => r.address);
    const [to, cc, bcc] = [of('to'), of('cc'), of('bcc')];
    const body = {
      ...fields,
      to,
      ...(cc.length ? { cc } : {}),
      ...(bcc.length ? { bcc } : {}),
    };
    try {
      const res = await this.doFetch(`${this.base}/send`, {
        method: 'POST',
        headers: { authorization: `Bearer ${this.token}`, 'content-type': 'application/json' },
        body: JSON.stringify(body),
        signal: this.signal,
      });
      return { type: 'http', status: res.status, body: await res.json().catch(() => undefined) };
    } catch (err) {
      return { type: 'no_answer', timed_out: this.signal.aborted, detail: causeOf(err) };
    }
  }

  /** The recipients on the account's suppression list, or undefined when a lookup failed. */
  async suppressed(recipients: readonly TransportRecipient[]): Promise<ProviderSuppression[] | undefined> {
    const found: ProviderSuppression[] = [];
    for (const r of recipients) {
      try {
        const res = await this.doFetch(`${this.base}/suppressions?email=${encodeURIComponent(r.address)}`, {
          headers: { authorization: `Bearer ${this.token}` },
          signal: this.signal,
        });
        const json = (await res.json().catch(() => undefined)) as
          | { success?: boolean; result?: { email?: string; reason?: string }[] }
          | undefined;
        if (!res.ok || !json || json.success === false || !Array.isArray(json.result)) {
          this.ports.log.warn('Cloudflare suppression lookup failed', {
            status: res.status,
          });
          return undefined;
        }
        const entry = json.result.find((e) => e.email?.toLowerCase() === r.address.toLowerCase());
        if (entry) found.push({ address: r.address, ...(entry.reason ? { reason: entry.reason } : {}) });
      } catch (err) {
        this.ports.log.warn('Cloudflare suppression lookup failed', {
          ...errorFields(err),
        });
        return undefined;
      }
    }
    return found;
  }
}

function causeOf(err: unknown): string {
  const e = err as { name?: string; cause?: { code?: string } };
  return String(e?.cause?.code ?? e?.name ?? 'error');
}
