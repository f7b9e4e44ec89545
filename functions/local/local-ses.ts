import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { ServiceExit } from './supervise.ts';

/**
 * `npm start`'s local SES: aws-ses-v2-local (a local SES v1/v2 endpoint with a mail viewer at its
 * root and `GET /store`). It takes SendEmail and shows the message; it implements no identities,
 * configuration sets or events, so no delivery event ever comes back from it.
 */
export async function startLocalSes(
  port: number,
): Promise<{ url: string; stop(): Promise<void>; died: Promise<ServiceExit> }> {
  const pkg = (await import('aws-ses-v2-local')) as unknown as {
    default: ((c: { host: string; port: number }) => Promise<Server>) & {
      default?: (c: { host: string; port: number }) => Promise<Server>;
    };
  };
  // From ESM the CommonJS module's function is `default.default`.
  const start = pkg.default.default ?? pkg.default;
  const server = await start({ host: '127.0.0.1', port });
  if (!server.listening) await new Promise((r) => server.once('listening', r));
  // It runs in this process, so it has no exit code: it ends when its server closes or fails.
  let stopping = false;
  const died = new Promise<ServiceExit>((resolve) => {
    const end = (reason: string) => {
      if (!stopping) resolve({ name: 'the local SES', code: null, signal: null, reason, lines: [] });
    };
    server.once('error', (err) => end(`its server failed: ${err.message}`));
    server.once('close', () => end('its server closed'));
  });
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    died,
    stop: () =>
      new Promise<void>((resolve) => {
        stopping = true;
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
