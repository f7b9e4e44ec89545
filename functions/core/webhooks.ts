import { createCipheriv, createDecipheriv, createHmac, hkdfSync, timingSafeEqual } from 'node:crypto';
import { publicHost } from './address-policy.ts';
import { HELD_EVENT } from './hold.ts';
import { ID_PATTERNS } from './ids.ts';

/**
 * Webhooks: the Standard Webhooks signature, the retry schedule, the envelope, the URL
 * rule and the sealing of endpoint secrets. Pure: the time, the jitter and the IV come in as
 * arguments; node:crypto here is computation, not I/O.
 */

/** The payload schema date of every envelope (there is one version). */
export const WEBHOOK_API_VERSION = '2026-10-01';
/** A 2xx within this many milliseconds is a delivery; anything else, a timeout included, fails. */
export const WEBHOOK_TIMEOUT_MS = 15_000;
/** Endpoints per tenant; the next one is refused with `webhook_limit_reached`. */
export const WEBHOOK_LIMIT = 20;
export const WEBHOOK_ID_PATTERN = ID_PATTERNS.webhook;
const SECRET_PREFIX = 'whsec_';

/**
 * Waits after each failed attempt, in seconds: ~30 s, 2 min, 10 min, 30 min, 1 h, 2 h, 4 h, 8 h,
 * 12 h, 12 h, 12 h, 19 h (about 72 h in all). Attempt 13 failing makes the delivery dead.
 */
export const RETRY_SCHEDULE_S = [
  30, 120, 600, 1800, 3600, 7200, 14_400, 28_800, 43_200, 43_200, 43_200, 68_400,
] as const;
export const MAX_ATTEMPTS = RETRY_SCHEDULE_S.length + 1;
/** SQS delays top out at 15 minutes: a longer wait is covered by re-queueing until `due_at`. */
export const MAX_QUEUE_DELAY_S = 900;

export interface WebhookEndpoint {
  id: string;
  tenant_id: string;
  url: string;
  /** Only these event types are delivered; absent means every type. */
  event_types?: string[];
  description?: string;
  status: 'active' | 'disabled';
  disabled_reason?: 'gone';
  created_at: number;
  updated_at: number;
}

/** One delivery of one event to one endpoint, as it travels on the webhook-deliveries queue. */
export interface DeliveryJob {
  tenant_id: string;
  webhook_id: string;
  event_id: string;
  /** 1 for the first attempt. */
  attempt: number;
  /** Epoch ms before which the attempt must not run (retries longer than one queue delay). */
  due_at?: number;
  /** A test event (`POST /v1/webhooks/{webhook_id}/test`), read from its own item, not the outbox. */
  test?: true;
}

/** The outbox event as the envelope needs it (functions/store/events.store.ts OutboxEvent). */
export interface EnvelopeSource {
  id: string;
  type: string;
  tenant_id: string;
  created_at: number;
  data: Record<string, unknown>;
}

/**
 * The body POSTed to an endpoint. `id` is the outbox event id, the same on every retry and for
 * every endpoint, so receivers deduplicate on it. pmail keeps no per-owner sequence: `null`.
 */
export function webhookEnvelope(e: EnvelopeSource) {
  const identityId = typeof e.data.identity_id === 'string' ? e.data.identity_id : null;
  return {
    id: e.id,
    type: e.type,
    api_version: WEBHOOK_API_VERSION,
    occurred_at: new Date(e.created_at).toISOString(),
    tenant_id: e.tenant_id,
    identity_id: identityId,
    sequence: null,
    data: e.data,
  };
}

/**
 * Whether the endpoint wants this event type. No list: every type but `message.held`, which goes
 * only to an endpoint that names it (docs/security.md › What an agent sees of held mail): an
 * endpoint that takes everything may feed an agent, and held mail's sender and subject are what a
 * person decided the agent must not read.
 */
export function wantsEvent(endpoint: Pick<WebhookEndpoint, 'status' | 'event_types'>, type: string): boolean {
  if (endpoint.status !== 'active') return false;
  return endpoint.event_types ? endpoint.event_types.includes(type) : type !== HELD_EVENT;
}

/** `whsec_` + base64 of the secret's bytes (the bytes come from the caller's random source). */
export function formatSecret(bytes: Uint8Array): string {
  return `${SECRET_PREFIX}${Buffer.from(bytes).toString('base64')}`;
}

function secretBytes(secret: string): Buffer {
  if (!secret.startsWith(SECRET_PREFIX)) throw new Error('not a webhook secret');
  return Buffer.from(secret.slice(SECRET_PREFIX.length), 'base64');
}

/** Standard Webhooks: `v1,` + base64(HMAC-SHA256(secret bytes, "{id}.{timestamp}.{body}")). */
export function signWebhook(secret: string, id: string, timestamp: number, body: string): string {
  const mac = createHmac('sha256', secretBytes(secret)).update(`${id}.${timestamp}.${body}`).digest('base64');
  return `v1,${mac}`;
}

/** The headers of a delivery; `timestamp` in epoch seconds. */
export function webhookHeaders(secret: string, id: string, timestamp: number, body: string) {
  return {
    'content-type': 'application/json',
    'user-agent': 'pmail-webhooks/1.0',
    'webhook-id': id,
    'webhook-timestamp': String(timestamp),
    'webhook-signature': signWebhook(secret, id, timestamp, body),
  };
}

/**
 * A receiver's check (what `pmail` documents for endpoints): any `v1,` signature in the header
 * matches, in constant time, and the timestamp is within `toleranceS` of `nowS`.
 */
export function verifyWebhook(
  secret: string,
  headers: { id: string; timestamp: string; signature: string },
  body: string,
  nowS: number,
  toleranceS = 300,
): boolean {
  const ts = Number(headers.timestamp);
  if (!Number.isInteger(ts) || Math.abs(nowS - ts) > toleranceS) return false;
  const expected = Buffer.from(signWebhook(secret, headers.id, ts, body));
  return headers.signature
    .split(' ')
    .map((s) => Buffer.from(s))
    .some((s) => s.length === expected.length && timingSafeEqual(s, expected));
}

/**
 * The wait before the next attempt after attempt `attempt` failed, with ±10 % jitter
 * (`jitter` uniform in [0, 1)), or undefined when that was the last attempt (dead).
 */
export function retryDelaySeconds(attempt: number, jitter: number): number | undefined {
  const base = RETRY_SCHEDULE_S[attempt - 1];
  if (base === undefined) return undefined;
  return base * (0.9 + 0.2 * Math.min(Math.max(jitter, 0), 1));
}

export type DeliveryVerdict = 'delivered' | 'gone' | 'failed';

/** 2xx delivered; 410 disables the endpoint; anything else (3xx, 4xx, 5xx, no answer) retries. */
export function classifyResponse(status: number | undefined): DeliveryVerdict {
  if (status === undefined) return 'failed';
  if (status >= 200 && status < 300) return 'delivered';
  if (status === 410) return 'gone';
  return 'failed';
}

/** The next job after a failed attempt, or `dead`. `scale` shrinks the schedule (tests only). */
export function nextAttempt(
  job: DeliveryJob,
  now: number,
  jitter: number,
  scale = 1,
): { job: DeliveryJob; delaySeconds: number } | { dead: true } {
  const wait = retryDelaySeconds(job.attempt, jitter);
  if (wait === undefined) return { dead: true };
  const seconds = wait * scale;
  return {
    job: { ...job, attempt: job.attempt + 1, due_at: now + Math.round(seconds * 1000) },
    delaySeconds: Math.min(MAX_QUEUE_DELAY_S, seconds),
  };
}

/** Seconds still to wait before a job may run (0: now), capped at one queue delay. */
export function remainingDelaySeconds(job: DeliveryJob, now: number): number {
  if (job.due_at === undefined || job.due_at <= now) return 0;
  return Math.min(MAX_QUEUE_DELAY_S, (job.due_at - now) / 1000);
}

/**
 * Why `raw` cannot be an endpoint URL, or undefined when it can: HTTPS only, without credentials,
 * and to a host core/address-policy.ts allows (an IP literal of a public unicast address, or a name
 * that is not `localhost`, `.internal`, `.local`, `.home.arpa` or one label). Where a name resolves
 * is checked again at every delivery (functions/webhooks/http-client.ts). Plain http only to this
 * machine (127.0.0.1, localhost, [::1]) and only when `allowLocalHttp` (the local runtime and
 * tests; never production), which also lifts the address rule.
 */
export function webhookUrlProblem(raw: string, allowLocalHttp: boolean): string | undefined {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return 'must be an absolute URL';
  }
  if (url.username || url.password) return 'must not carry credentials';
  if (url.hash) return 'must not have a fragment';
  const local = ['127.0.0.1', 'localhost', '[::1]'].includes(url.hostname);
  if (url.protocol === 'http:' && local && allowLocalHttp) return undefined;
  if (url.protocol !== 'https:') return 'must be an https URL';
  if (allowLocalHttp) return undefined;
  const host = publicHost(url.hostname);
  return host.ok ? undefined : `must not name an internal address (${host.range})`;
}

/** What may be logged of an endpoint URL: scheme, host and path, never the query. */
export function loggableUrl(raw: string): string {
  try {
    const url = new URL(raw);
    return `${url.protocol}//${url.host}${url.pathname}`;
  } catch {
    return '(invalid url)';
  }
}

// ---- sealing: the secret is stored encrypted, the key derived from PM_HASH_KEY ----

function sealKey(hashKey: string): Buffer {
  return Buffer.from(hkdfSync('sha256', hashKey, Buffer.alloc(0), 'webhook-secret', 32));
}

/**
 * AES-256-GCM under HKDF(PM_HASH_KEY, "webhook-secret"), bound to its tenant and endpoint (AAD) so
 * a sealed secret copied to another item does not open. `iv` is 12 random bytes from the caller.
 */
export function sealSecret(hashKey: string, aad: string, secret: string, iv: Uint8Array): string {
  const cipher = createCipheriv('aes-256-gcm', sealKey(hashKey), iv);
  cipher.setAAD(Buffer.from(aad));
  const ct = Buffer.concat([cipher.update(secret, 'utf8'), cipher.final()]);
  const b64 = (b: Uint8Array) => Buffer.from(b).toString('base64url');
  return `v1.${b64(iv)}.${b64(ct)}.${b64(cipher.getAuthTag())}`;
}

export function openSecret(hashKey: string, aad: string, sealed: string): string {
  const [v, iv, ct, tag] = sealed.split('.');
  if (v !== 'v1' || !iv || !ct || !tag) throw new Error('unknown sealed secret format');
  const decipher = createDecipheriv('aes-256-gcm', sealKey(hashKey), Buffer.from(iv, 'base64url'));
  decipher.setAAD(Buffer.from(aad));
  decipher.setAuthTag(Buffer.from(tag, 'base64url'));
  return Buffer.concat([decipher.update(Buffer.from(ct, 'base64url')), decipher.final()]).toString('utf8');
}

export const secretAad = (tenantId: string, webhookId: string) => `${tenantId}/${webhookId}`;

/** The endpoint as the API shows it: never the secret. */
export function toWebhookView(w: WebhookEndpoint) {
  return {
    id: w.id,
    url: w.url,
    event_types: w.event_types ?? null,
    description: w.description ?? null,
    status: w.status,
    disabled_reason: w.disabled_reason ?? null,
    created_at: new Date(w.created_at).toISOString(),
    updated_at: new Date(w.updated_at).toISOString(),
  };
}

// ---- test deliveries and the recent attempts of an endpoint ----

/** The event type of `POST /v1/webhooks/{webhook_id}/test`, delivered to that endpoint only. */
export const WEBHOOK_TEST_EVENT = 'webhook.test';
/** A test event is kept this long: long enough for its retries' first hours, then it expires. */
export const WEBHOOK_TEST_KEEP_MS = 24 * 3600 * 1000;
/** Each delivery attempt is kept this long for `GET /v1/webhooks/{webhook_id}/deliveries`. */
export const DELIVERY_ATTEMPT_KEEP_MS = 3 * 24 * 3600 * 1000;
/** At most this many of an endpoint's attempts are listed, newest first. */
export const RECENT_DELIVERIES_LIMIT = 50;

/** The data of a test event: who asked for it, so a receiver can tell it from real traffic. */
export function testEventData(webhookId: string, requestedBy: string): Record<string, unknown> {
  return { webhook_id: webhookId, requested_by: requestedBy, test: true };
}

/** What one attempt to deliver one event to one endpoint came to. */
export type AttemptResult = 'delivered' | 'retrying' | 'dead' | 'disabled';

export interface DeliveryAttempt {
  webhook_id: string;
  event_id: string;
  event_type: string;
  attempt: number;
  /** The endpoint's HTTP status, or none when no answer came (timeout, DNS, refused address). */
  status_code?: number;
  /** The reason there was no answer (`TimeoutError`, `ECONNREFUSED`, `address_refused`, …). */
  error?: string;
  result: AttemptResult;
  attempted_at: number;
  duration_ms: number;
}

/** The attempt's result from the verdict on the answer and whether another attempt follows. */
export function attemptResult(verdict: DeliveryVerdict, dead: boolean): AttemptResult {
  if (verdict === 'delivered') return 'delivered';
  if (verdict === 'gone') return 'disabled';
  return dead ? 'dead' : 'retrying';
}

/** An attempt as the API shows it. */
export function toDeliveryAttemptView(a: DeliveryAttempt) {
  return {
    event_id: a.event_id,
    event_type: a.event_type,
    attempt: a.attempt,
    status_code: a.status_code ?? null,
    error: a.error ?? null,
    result: a.result,
    attempted_at: new Date(a.attempted_at).toISOString(),
    duration_ms: a.duration_ms,
  };
}
