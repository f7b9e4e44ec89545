import { lookup } from 'node:dns/promises';
import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import type { LookupFunction } from 'node:net';
import { isIP, isIPv4 } from 'node:net';
import { publicAddresses } from '../core/address-policy.ts';

/**
 * The one outbound HTTP call of a delivery: POST, no redirects followed (a 3xx is a failure), a
 * deadline over all of it (DNS included), the response body never read. Returns the status, or
 * an error name when there was no answer in time (timeout, DNS, TLS, connection errors).
 *
 * SSRF: the host is resolved here and every address it resolves to must pass
 * core/address-policy.ts (the relay's rule), or nothing is connected and the answer is
 * `{ error: 'address_refused' }` (the deliverer retries it on the schedule: DNS can change). The
 * connection then goes to the checked address (the socket's lookup answers with it, so a second
 * resolution cannot point it elsewhere); TLS still verifies the certificate against the URL's
 * host. `allowInternal` lifts the rule: the deployment's `webhookAllowLocalHttp`, which only the
 * local runtime sets.
 */
export type WebhookPoster = (req: {
  url: string;
  headers: Record<string, string>;
  body: string;
  timeoutMs: number;
  allowInternal?: boolean;
}) => Promise<{ status?: number; error?: string }>;

/** A host's addresses, every family (the system resolver by default; tests inject their own). */
export type Resolve = (host: string) => Promise<string[]>;

const systemResolve: Resolve = async (host) =>
  (await lookup(host, { all: true, verbatim: true })).map((a) => a.address);

export const ADDRESS_REFUSED = 'address_refused';

export function httpPoster(resolve: Resolve = systemResolve): WebhookPoster {
  return async ({ url, headers, body, timeoutMs, allowInternal }) => {
    const signal = AbortSignal.timeout(timeoutMs);
    try {
      const u = new URL(url);
      const host = u.hostname.replace(/^\[|\]$/g, '');
      const addresses = isIP(host) ? [host] : await untilAborted(resolve(host), signal);
      if (!allowInternal && !publicAddresses(addresses).ok) return { error: ADDRESS_REFUSED };
      // IPv4 first: a Lambda outside a VPC has no IPv6 egress.
      const ip = addresses.find((a) => isIPv4(a)) ?? addresses[0];
      if (!ip) return { error: 'ENOTFOUND' };
      const pinned: LookupFunction = (_name, options, done) => {
        const family = isIPv4(ip) ? 4 : 6;
        if (options.all)
          (done as (e: null, a: { address: string; family: number }[]) => void)(null, [
            { address: ip, family },
          ]);
        else done(null, ip, family);
      };
      const send = u.protocol === 'https:' ? httpsRequest : httpRequest;
      const status = await new Promise<number | undefined>((resolved, failed) => {
        const req = send(
          u,
          {
            method: 'POST',
            headers: { ...headers, 'content-length': String(Buffer.byteLength(body)) },
            lookup: pinned,
            signal,
          },
          (res) => {
            res.destroy();
            resolved(res.statusCode);
          },
        );
        req.on('error', failed);
        req.end(body);
      });
      return { status };
    } catch (err) {
      if (signal.aborted) return { error: 'TimeoutError' };
      const code = (err as NodeJS.ErrnoException)?.code;
      return { error: code ?? (err instanceof Error ? err.name : 'error') };
    }
  };
}

/** The poster of the deployed deliverer and the local runtime: the system resolver. */
export const systemPoster: WebhookPoster = httpPoster();

function untilAborted<T>(p: Promise<T>, signal: AbortSignal): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const abort = () => reject(signal.reason);
    signal.addEventListener('abort', abort, { once: true });
    p.then(resolve, reject).finally(() => signal.removeEventListener('abort', abort));
  });
}
