import { createHmac, timingSafeEqual } from 'node:crypto';
import { WebhookVerificationError } from './errors.ts';

/** The body pmail POSTs to a webhook endpoint. `id` is the same on every retry: deduplicate on it. */
export interface WebhookEnvelope {
  id: string;
  type: string;
  api_version: string;
  occurred_at: string;
  tenant_id: string;
  identity_id: string | null;
  sequence: null;
  data: Record<string, unknown>;
}

/** Request headers as Node (IncomingHttpHeaders), fetch (Headers) or a plain object give them. */
export type WebhookHeaders = Headers | Record<string, string | string[] | undefined>;

const SECRET_PREFIX = 'whsec_';
/** Seconds a delivery's timestamp may be away from the receiver's clock (Standard Webhooks). */
export const WEBHOOK_TOLERANCE_S = 300;

function headerOf(headers: WebhookHeaders, name: string): string | undefined {
  if (typeof (headers as Headers).get === 'function') return (headers as Headers).get(name) ?? undefined;
  const rec = headers as Record<string, string | string[] | undefined>;
  const key = Object.keys(rec).find((k) => k.toLowerCase() === name);
  const v = key === undefined ? undefined : rec[key];
  return Array.isArray(v) ? v.join(' ') : v;
}

/**
 * Standard Webhooks verification of one delivery: `webhook-signature` holds one or more
 * space-separated `v1,<base64 HMAC-SHA256 of "id.timestamp.payload">` keyed with the bytes of the
 * `whsec_<base64>` secret; any one matching (compared in constant time) is enough, and
 * `webhook-timestamp` (epoch seconds) must be within 5 minutes of `now`. `payload` is the raw body,
 * byte for byte as received. Returns the parsed envelope; throws WebhookVerificationError.
 */
export function verifyWebhook(
  payload: string | Uint8Array,
  headers: WebhookHeaders,
  secret: string,
  opts: { now?: () => number; toleranceS?: number } = {},
): WebhookEnvelope {
  const id = headerOf(headers, 'webhook-id');
  const timestamp = headerOf(headers, 'webhook-timestamp');
  const signature = headerOf(headers, 'webhook-signature');
  if (!id || !timestamp || !signature) throw new WebhookVerificationError('missing webhook headers');
  if (!secret.startsWith(SECRET_PREFIX))
    throw new WebhookVerificationError('the secret is not a whsec_ secret');
  const ts = Number(timestamp);
  const nowS = Math.floor((opts.now ?? Date.now)() / 1000);
  if (!/^\d+$/.test(timestamp) || Math.abs(nowS - ts) > (opts.toleranceS ?? WEBHOOK_TOLERANCE_S))
    throw new WebhookVerificationError('the webhook timestamp is out of range');
  const body = typeof payload === 'string' ? payload : Buffer.from(payload).toString('utf8');
  const key = Buffer.from(secret.slice(SECRET_PREFIX.length), 'base64');
  const expected = Buffer.from(
    createHmac('sha256', key).update(`${id}.${timestamp}.${body}`).digest('base64'),
  );
  const ok = signature
    .split(' ')
    .filter((s) => s.startsWith('v1,'))
    .map((s) => Buffer.from(s.slice(3)))
    .some((s) => s.length === expected.length && timingSafeEqual(s, expected));
  if (!ok) throw new WebhookVerificationError('no webhook signature matches');
  return JSON.parse(body) as WebhookEnvelope;
}
