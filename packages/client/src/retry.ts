/**
 * The retry rule of the client. A request is resent when resending cannot do its work twice: it
 * carries an Idempotency-Key (the server answers a resend with the first answer), it is a batch of
 * sends (each message carries its own key), or its method is GET, HEAD, PUT or DELETE. Such a request is resent after a network error, a 5xx, a 429 and a 409
 * `request_in_progress`, with the same key and body. Any other request (a POST or PATCH without a
 * key) is resent only after a 429, which the server answers before doing anything.
 *
 * The wait before resend n (0-based) is the answer's Retry-After when it has one, otherwise
 * exponential with jitter: base · 2ⁿ, half of it fixed and half random, capped at `maxDelayMs`.
 * An answer whose Retry-After exceeds `maxDelayMs` (a daily cap resets at midnight) is returned at
 * once, as is an envelope that says `retryable: false`.
 */
export interface RetryOptions {
  /** Resends after the first attempt (default 3). */
  retries: number;
  /** First back-off in ms (default 200). */
  baseDelayMs: number;
  /** Longest wait in ms, Retry-After included (default 30 000). */
  maxDelayMs: number;
  sleep: (ms: number) => Promise<void>;
  /** Uniform in [0, 1); Math.random by default. */
  random: () => number;
}

interface Envelope {
  error?: { code?: string; retryable?: boolean; details?: { retry_after?: unknown } };
}

const SAFE_METHODS = new Set(['GET', 'HEAD', 'PUT', 'DELETE']);

export function retryingFetch(
  inner: (request: Request) => Promise<Response>,
  opts: RetryOptions,
): (request: Request) => Promise<Response> {
  return async (request) => {
    const safe =
      SAFE_METHODS.has(request.method) || request.headers.has('idempotency-key') || keyedInBody(request);
    for (let attempt = 0; ; attempt++) {
      const last = attempt >= opts.retries;
      let response: Response;
      try {
        response = await inner(request.clone());
      } catch (err) {
        if (!safe || last || !isNetworkError(err)) throw err;
        await opts.sleep(backoff(attempt, opts));
        continue;
      }
      if (last) return response;
      const wait = await retryWait(response, safe, attempt, opts);
      if (wait === undefined) return response;
      // The body of an answer not handed on is read to the end so its connection is reused.
      await response.body?.cancel().catch(() => {});
      await opts.sleep(wait);
    }
  };
}

/** A batch of sends: each message carries its own idempotency_key, so a resend repeats none. */
const keyedInBody = (request: Request) =>
  request.method === 'POST' && new URL(request.url).pathname.endsWith('/messages/batch');

async function retryWait(
  response: Response,
  safe: boolean,
  attempt: number,
  opts: RetryOptions,
): Promise<number | undefined> {
  const s = response.status;
  const candidate = s === 429 || (safe && (s >= 500 || s === 409));
  if (!candidate) return undefined;
  const body = (await response
    .clone()
    .json()
    .catch(() => undefined)) as Envelope | undefined;
  const env = body?.error;
  if (s === 409 && env?.code !== 'request_in_progress') return undefined;
  if (env?.retryable === false) return undefined;
  const header = response.headers.get('retry-after');
  const seconds =
    header !== null && /^\d+$/.test(header.trim())
      ? Number(header.trim())
      : typeof env?.details?.retry_after === 'number'
        ? env.details.retry_after
        : undefined;
  if (seconds !== undefined) {
    const ms = seconds * 1000;
    return ms > opts.maxDelayMs ? undefined : ms;
  }
  return backoff(attempt, opts);
}

function backoff(attempt: number, opts: RetryOptions): number {
  const full = Math.min(opts.maxDelayMs, opts.baseDelayMs * 2 ** attempt);
  return Math.round(full / 2 + (full / 2) * opts.random());
}

/** fetch rejects with a TypeError for a connection that failed or dropped; an abort is not one. */
function isNetworkError(err: unknown): boolean {
  return err instanceof TypeError || (err as { code?: unknown })?.code === 'ECONNRESET';
}
