import type { AddressInfo } from 'node:net';
import { generate } from 'selfsigned';
import { SMTPServer, type SMTPServerOptions } from 'smtp-server';

/**
 * A scriptable relay for the SMTP transport's tests: `smtp-server` on loopback with a generated
 * certificate for `localhost`. Every message that reaches the end of DATA is recorded, whatever the
 * server answers afterwards, so a test can count the copies a relay took.
 */
export interface RelayScript {
  /**
   * 'starttls' (default), 'implicit' (TLS from the first byte), 'plain' (no STARTTLS offered) or
   * 'hidden' (STARTTLS not advertised in EHLO, but accepted when sent).
   */
  mode?: 'starttls' | 'implicit' | 'plain' | 'hidden';
  /** Reply code per recipient address to RCPT TO (default 250). */
  rcpt?: Record<string, number>;
  /**
   * What happens after the final dot: 'ok' (250), a reply code, 'stall' (no reply) or 'drop'
   * (connection closed, no reply); a list answers the n-th message with its n-th entry (the last
   * one for every message after). @default 'ok'
   */
  afterDot?: AfterDot | AfterDot[];
  /** Close the connection at RCPT TO on the first n sessions (a drop before the dot). */
  dropAtRcpt?: number;
  /** Advertised SIZE limit. */
  size?: number;
}

type AfterDot = 'ok' | number | 'stall' | 'drop';

export interface ReceivedMail {
  from: string;
  to: string[];
  raw: string;
}

export interface Relay {
  port: number;
  cert: string;
  messages: ReceivedMail[];
  /** Sessions opened (connections that got a greeting). */
  connections: number;
  auths: { method: string; user: string }[];
  close(): Promise<void>;
}

export const RELAY_USER = 'relay-user';
export const RELAY_PASSWORD = 'relay-secret-pw';
export const RELAY_TOKEN = 'ya29.relay-token';

let pems: Promise<{ cert: string; private: string }> | undefined;
const certificate = () => {
  pems ??= generate([{ name: 'commonName', value: 'localhost' }], {
    keySize: 2048,
    algorithm: 'sha256',
    extensions: [{ name: 'subjectAltName', altNames: [{ type: 2, value: 'localhost' }] }],
  } as never) as Promise<{ cert: string; private: string }>;
  return pems;
};

export async function startRelay(script: RelayScript = {}): Promise<Relay> {
  const { cert, private: key } = await certificate();
  const relay: Relay = { port: 0, cert, messages: [], connections: 0, auths: [], close: async () => {} };
  let drops = script.dropAtRcpt ?? 0;
  const options: SMTPServerOptions = {
    secure: script.mode === 'implicit',
    key,
    cert,
    logger: false,
    disabledCommands: script.mode === 'plain' ? ['STARTTLS'] : [],
    hideSTARTTLS: script.mode === 'hidden',
    authMethods: ['PLAIN', 'LOGIN', 'XOAUTH2'],
    authOptional: true,
    size: script.size,
    onConnect(_session, cb) {
      relay.connections++;
      cb();
    },
    onAuth(auth, _session, cb) {
      relay.auths.push({ method: auth.method, user: auth.username ?? '' });
      if (auth.method === 'XOAUTH2') {
        if (auth.username === RELAY_USER && auth.accessToken === RELAY_TOKEN)
          return cb(null, { user: RELAY_USER });
        return cb(null, { data: { status: '401', schemes: 'bearer' } } as never);
      }
      if (auth.username === RELAY_USER && auth.password === RELAY_PASSWORD)
        return cb(null, { user: RELAY_USER });
      return cb(new Error('Invalid username or password'));
    },
    onRcptTo(address, session, cb) {
      if (drops > 0) {
        drops--;
        socketOf(server, session.id)?.destroy();
        return;
      }
      const code = script.rcpt?.[address.address];
      if (code && code >= 400) {
        return cb(
          Object.assign(new Error(code >= 500 ? 'No such user here' : 'Mailbox busy, try later'), {
            responseCode: code,
          }),
        );
      }
      cb();
    },
    onData(stream, session, cb) {
      const chunks: Buffer[] = [];
      stream.on('data', (c: Buffer) => chunks.push(c));
      stream.on('end', () => {
        relay.messages.push({
          from: session.envelope.mailFrom ? session.envelope.mailFrom.address : '',
          to: session.envelope.rcptTo.map((r) => r.address),
          raw: Buffer.concat(chunks).toString('utf8'),
        });
        const list = [script.afterDot ?? 'ok'].flat();
        const after = list[Math.min(relay.messages.length, list.length) - 1] ?? 'ok';
        if (after === 'stall') return;
        if (after === 'drop') {
          socketOf(server, session.id)?.destroy();
          return;
        }
        if (typeof after === 'number') {
          return cb(
            Object.assign(new Error(after >= 500 ? 'Message refused' : 'Local error, try later'), {
              responseCode: after,
            }),
          );
        }
        cb();
      });
    },
  };
  const server = new SMTPServer(options);
  // Clients that hang up mid-handshake are part of the tests.
  server.on('error', () => {});
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  relay.port = (server.server.address() as AddressInfo).port;
  relay.close = () =>
    new Promise<void>((resolve) => {
      for (const c of connectionsOf(server)) c._socket?.destroy();
      server.close(() => resolve());
    });
  return relay;
}

interface ServerConnection {
  id: string;
  _socket?: { destroy(): void };
}

function connectionsOf(server: SMTPServer): ServerConnection[] {
  return [...((server as unknown as { connections: Set<ServerConnection> }).connections ?? [])];
}

/** smtp-server keeps its sessions in `connections` (not a public API: test support only). */
function socketOf(server: SMTPServer, sessionId: string) {
  return connectionsOf(server).find((c) => c.id === sessionId)?._socket;
}
