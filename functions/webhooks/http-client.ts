/**
 * The one outbound HTTP call of a delivery: POST, no redirects followed (a 3xx is a failure), a
 * deadline, the response body never read. Returns the status, or undefined when there was no
 * answer in time (timeout, DNS, TLS, connection errors).
 */
export type WebhookPoster = (req: {
  url: string;
  headers: Record<string, string>;
  body: string;
  timeoutMs: number;
}) => Promise<{ status?: number; error?: string }>;

export const fetchPoster: WebhookPoster = async ({ url, headers, body, timeoutMs }) => {
  try {
    const res = await fetch(url, {
      method: 'POST',
      headers,
      body,
      redirect: 'manual',
      signal: AbortSignal.timeout(timeoutMs),
    });
    await res.body?.cancel().catch(() => undefined);
    return { status: res.status };
  } catch (err) {
    return { error: err instanceof Error ? err.name : 'error' };
  }
};
