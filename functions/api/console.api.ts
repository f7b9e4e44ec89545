import { noConsoleFile } from '../core/errors.ts';
import type { Logger } from '../log.ts';
import { routeGroup } from './http.ts';

/**
 * The `console` route group, without authentication: `GET /console` (the page) and
 * `GET /console/{asset}` (its script and stylesheet, content-hashed). The console signs in with an
 * API key the person types, kept in the tab's sessionStorage, and calls this same API with it, so it
 * shows and allows exactly what the key may (docs/guides/console.md). The port says where the
 * files come from: the Lambda bundle carries them built; the local server builds them on first use.
 */
export interface ConsolePorts {
  assets: () => Promise<Record<string, { type: string; body: string }>>;
  /**
   * The event stream's address when it is not this origin (AWS: the WebSocket API's URL,
   * PM_STREAM_URL): the page may connect to it to update live.
   */
  streamUrl?: string;
}

/**
 * Only the console's own files, from this origin: no inline script, no third-party origin. The
 * message preview is a `sandbox` iframe (no scripts) whose document inherits this policy, so
 * remote images and styles of an email do not load either. `connect-src 'self'` is the API (and
 * on `npm start` the stream, on the same host); a stream elsewhere is named by its origin.
 */
export function consoleCsp(streamUrl?: string): string {
  const stream = streamUrl ? ` ${new URL(streamUrl).origin}` : '';
  return [
    "default-src 'none'",
    "script-src 'self'",
    "style-src 'self'",
    "img-src 'self' data:",
    `connect-src 'self'${stream}`,
    "frame-src 'self'",
    "base-uri 'none'",
    "form-action 'none'",
    "frame-ancestors 'none'",
  ].join('; ');
}

const securityHeaders = (streamUrl?: string) => ({
  'content-security-policy': consoleCsp(streamUrl),
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
  'cross-origin-opener-policy': 'same-origin',
});

export function consoleApi(deps: { newId: () => string; log: Logger }, ports: ConsolePorts) {
  let assets: Promise<Record<string, { type: string; body: string }>> | undefined;
  const headers = securityHeaders(ports.streamUrl);
  return routeGroup(deps, async ({ route, params, requestId }) => {
    assets ??= ports.assets();
    const files = await assets.catch((err) => {
      assets = undefined;
      throw err;
    });
    const name = route.operation === 'getConsole' ? 'index.html' : params.asset;
    if (
      (route.operation !== 'getConsole' && route.operation !== 'getConsoleAsset') ||
      name === undefined ||
      (route.operation === 'getConsoleAsset' && name === 'index.html') ||
      !Object.hasOwn(files, name)
    ) {
      throw noConsoleFile();
    }
    const file = files[name];
    return {
      statusCode: 200,
      headers: {
        'content-type': file.type,
        'request-id': requestId,
        // Hashed names never change content; the page is revalidated so a deployment shows at once.
        'cache-control':
          route.operation === 'getConsole' ? 'no-cache, max-age=0' : 'public, max-age=31536000, immutable',
        ...headers,
      },
      body: file.body,
    };
  });
}
