import { errorFields, type Logger } from '../log.ts';
import { type Metrics, noMetrics } from '../metrics.ts';

/**
 * The Cloudflare pull consumer: Email Sending event subscriptions publish to a
 * Cloudflare Queue; this pulls batches over HTTPS and forwards each body, unchanged, to the
 * delivery-events SQS queue, where the one consumer normalises (functions/core/cf-events.ts) and
 * applies it. Only forwarded messages are acked: the rest come back after their visibility timeout.
 *
 * Verified against Cloudflare Queues "Pull consumers" (developers.cloudflare.com/queues/
 * configuration/pull-consumers/, cloudflare/cloudflare-docs `queues/configuration/
 * pull-consumers.mdx`) and the API client generated from Cloudflare's OpenAPI document
 * (cloudflare/cloudflare-typescript `src/resources/queues/messages.ts`), read 2026-12-02:
 * - `POST /client/v4/accounts/{account_id}/queues/{queue_id}/messages/pull`, JSON body with
 *   `batch_size` (default 5, max 100) and the visibility timeout; the guide's prose and curl say
 *   `visibility_timeout`, the API schema says `visibility_timeout_ms` (ms, default 30 s, max 12 h):
 *   the schema's name is sent. Short polling: an empty batch when nothing is waiting.
 * - Response `{ success, errors, result: { messages: [{ id, body, timestamp_ms, attempts,
 *   metadata, lease_id }] } }`; `metadata["CF-Content-Type"]` names the content type.
 * - Bodies: `json` and `bytes` are base64 (RFC 4648), `text` is plain UTF-8, `v8` cannot be read.
 *   (The guide's own example shows `"body": "hello"` with `CF-Content-Type: json`, so a `json` body
 *   that does not decode to JSON is taken as it came.) The docs do not say which content type event
 *   subscriptions publish with; without the metadata a body that is JSON already is kept, anything
 *   else is base64-decoded.
 * - `POST …/messages/ack` with `{ acks: [{ lease_id }], retries: [{ lease_id, delay_seconds }] }`;
 *   unacked leases are redelivered after the visibility timeout; a late ack is still accepted.
 * - Auth `Authorization: Bearer <API token>` with Queues read and write (acking writes).
 * The docs say nothing of 429/5xx behaviour on pull or ack: both end this run (the schedule comes
 * back in a minute) and nothing is acked, so nothing is lost; a forwarded but unacked message is
 * forwarded again later, which the consumer deduplicates by `eventId`.
 *
 * Malformed bodies (not JSON, unknown types) are forwarded anyway: the delivery consumer acks and
 * counts them (`delivery_unknown_type`), so one place counts what pmail cannot read.
 */
/**
 * One SendMessageBatch to the delivery-events queue (PMAIL_EVENTS_QUEUE_URL), at most ten bodies:
 * the ids the queue took and the error codes of the ones it refused (functions/adapters/sqs-queues.ts).
 */
export type ForwardBatch = (
  entries: { id: string; body: string }[],
) => Promise<{ sent: string[]; failedCodes: (string | undefined)[] }>;

export interface CloudflarePullPorts {
  forward: ForwardBatch;
  fetch?: typeof fetch;
  clock: () => number;
  log: Logger;
  /** @default no metrics */
  metrics?: Metrics;
}

export interface CloudflarePullSettings {
  accountId: string;
  queueId: string;
  apiToken: string;
  /** @default 'https://api.cloudflare.com/client/v4' */
  apiBase?: string;
  /** @default 100 (the documented maximum) */
  batchSize?: number;
  /** Lease of a pulled batch: long enough to forward and ack it. @default 60_000 */
  visibilityTimeoutMs?: number;
  /** No new pull starts after this long (the Lambda runs every minute). @default 50_000 */
  budgetMs?: number;
  /** Timeout of one HTTP request. @default 10_000 */
  requestTimeoutMs?: number;
}

export interface PullReport {
  pulls: number;
  pulled: number;
  forwarded: number;
  acked: number;
  /** Why the run ended. */
  stopped: 'empty' | 'budget' | 'pull_failed' | 'forward_failed' | 'ack_failed';
}

interface PulledMessage {
  id?: string;
  body?: string;
  lease_id?: string;
  attempts?: number;
  timestamp_ms?: number;
  metadata?: Record<string, unknown>;
}

/** SendMessageBatch takes at most 10 entries. */
const SQS_BATCH = 10;

export async function pullAndForward(
  ports: CloudflarePullPorts,
  settings: CloudflarePullSettings,
): Promise<PullReport> {
  const started = ports.clock();
  const budget = settings.budgetMs ?? 50_000;
  const report: PullReport = { pulls: 0, pulled: 0, forwarded: 0, acked: 0, stopped: 'empty' };
  const api = new QueueApi(ports, settings);

  while (true) {
    if (ports.clock() - started >= budget) {
      report.stopped = 'budget';
      break;
    }
    const messages = await api.pull();
    if (!messages) {
      report.stopped = 'pull_failed';
      break;
    }
    report.pulls++;
    if (messages.length === 0) {
      report.stopped = 'empty';
      break;
    }
    report.pulled += messages.length;
    const forwarded = await forward(ports, messages);
    report.forwarded += forwarded.length;
    // SQS took none of the batch: pulling on would only lease more messages it would refuse.
    if (forwarded.length === 0) {
      report.stopped = 'forward_failed';
      break;
    }
    if (!(await api.ack(forwarded))) {
      report.stopped = 'ack_failed';
      break;
    }
    report.acked += forwarded.length;
  }
  if (report.forwarded)
    (ports.metrics ?? noMetrics).add('cloudflare_events_forwarded', undefined, report.forwarded);
  ports.log.info('cloudflare events pulled', {
    ...report,
    not_forwarded: report.pulled - report.forwarded,
  });
  return report;
}

/** Sends the bodies in groups of ten; returns the lease ids of the messages SQS took. */
async function forward(ports: CloudflarePullPorts, messages: PulledMessage[]): Promise<string[]> {
  const leases: string[] = [];
  const usable = messages.filter((m) => typeof m.lease_id === 'string' && typeof m.body === 'string');
  for (let i = 0; i < usable.length; i += SQS_BATCH) {
    const chunk = usable.slice(i, i + SQS_BATCH);
    try {
      const out = await ports.forward(chunk.map((m, j) => ({ id: `m${i + j}`, body: decodeBody(m) })));
      const ok = new Set(out.sent);
      chunk.forEach((m, j) => {
        if (ok.has(`m${i + j}`)) leases.push(m.lease_id as string);
      });
      if (out.failedCodes.length) {
        (ports.metrics ?? noMetrics).add('cloudflare_forward_failed', undefined, out.failedCodes.length);
        ports.log.warn('SQS refused some Cloudflare events; they come back after their lease', {
          count: out.failedCodes.length,
          codes: [...new Set(out.failedCodes)],
        });
      }
    } catch (err) {
      (ports.metrics ?? noMetrics).add('cloudflare_forward_failed', undefined, chunk.length);
      ports.log.warn('SQS refused a batch of Cloudflare events; they come back after their lease', {
        count: chunk.length,
        ...errorFields(err),
      });
    }
  }
  return leases;
}

/** The message body as text: see the content-type notes above. */
export function decodeBody(m: PulledMessage): string {
  const body = m.body ?? '';
  const type = m.metadata?.['CF-Content-Type'];
  if (type === 'text') return body;
  const decoded = Buffer.from(body, 'base64').toString('utf8');
  if (type === 'bytes') return decoded;
  if (type === 'json') return isJson(decoded) ? decoded : body;
  return isJson(body) ? body : decoded;
}

function isJson(text: string): boolean {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}

/** The two documented endpoints; false/undefined on any HTTP or transport failure (logged). */
class QueueApi {
  private readonly base: string;
  private readonly doFetch: typeof fetch;

  constructor(
    private readonly ports: CloudflarePullPorts,
    private readonly settings: CloudflarePullSettings,
  ) {
    const root = (settings.apiBase ?? 'https://api.cloudflare.com/client/v4').replace(/\/+$/, '');
    this.base = `${root}/accounts/${encodeURIComponent(settings.accountId)}/queues/${encodeURIComponent(settings.queueId)}/messages`;
    this.doFetch = ports.fetch ?? fetch;
  }

  async pull(): Promise<PulledMessage[] | undefined> {
    const res = await this.post('pull', {
      batch_size: this.settings.batchSize ?? 100,
      visibility_timeout_ms: this.settings.visibilityTimeoutMs ?? 60_000,
    });
    if (!res) return undefined;
    const result = (res as { result?: { messages?: PulledMessage[] } }).result;
    return Array.isArray(result?.messages) ? result.messages : [];
  }

  async ack(leaseIds: string[]): Promise<boolean> {
    return !!(await this.post('ack', { acks: leaseIds.map((lease_id) => ({ lease_id })), retries: [] }));
  }

  private async post(action: 'pull' | 'ack', body: unknown): Promise<unknown> {
    try {
      const res = await this.doFetch(`${this.base}/${action}`, {
        method: 'POST',
        headers: {
          authorization: `Bearer ${this.settings.apiToken}`,
          'content-type': 'application/json',
        },
        body: JSON.stringify(body),
        signal: AbortSignal.timeout(this.settings.requestTimeoutMs ?? 10_000),
      });
      const json = (await res.json().catch(() => undefined)) as { success?: boolean } | undefined;
      if (!res.ok || !json || json.success === false) {
        (this.ports.metrics ?? noMetrics).add('cloudflare_api_failed', { action });
        this.ports.log.warn(`Cloudflare queue ${action} failed`, {
          status: res.status,
          retry_after: res.headers.get('retry-after') ?? undefined,
        });
        return undefined;
      }
      return json;
    } catch (err) {
      (this.ports.metrics ?? noMetrics).add('cloudflare_api_failed', { action });
      this.ports.log.warn(`Cloudflare queue ${action} failed`, {
        ...errorFields(err),
      });
      return undefined;
    }
  }
}
