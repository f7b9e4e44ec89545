import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * `npm start`'s local SES: aws-ses-v2-local (a local SES v1/v2 endpoint with a mail viewer at its
 * root and `GET /store`). It takes SendEmail and shows the message; it implements no identities,
 * configuration sets or events (TOOLCHAIN.md), so no delivery event ever comes back from it.
 */
export async function startLocalSes(port: number): Promise<{ url: string; stop(): Promise<void> }> {
  const pkg = (await import('aws-ses-v2-local')) as unknown as {
    default: ((c: { host: string; port: number }) => Promise<Server>) & {
      default?: (c: { host: string; port: number }) => Promise<Server>;
    };
  };
  // From ESM the CommonJS module's function is `default.default` (TOOLCHAIN.md).
  const start = pkg.default.default ?? pkg.default;
  const server = await start({ host: '127.0.0.1', port });
  if (!server.listening) await new Promise((r) => server.once('listening', r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    stop: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
