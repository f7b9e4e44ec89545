import type { AddressInfo } from 'node:net';
import { SMTPServer, type SMTPServerAddress, type SMTPServerSession } from 'smtp-server';
import type { BaseDeps, Deps } from '../deps.ts';
import { INBOUND_RAW_PREFIX } from '../inbound/notification.ts';
import { receivedNotification } from '../inbound/received.ts';
import { errorFields } from '../log.ts';
import { getAddress, getDomain } from '../store/directory.store.ts';
import { authenticateAtMx, type MxResolver } from './mx-auth.ts';

/** SES receiving's message size limit (40 MB, the SIZE the MX advertises). */
export const MX_MAX_BYTES = 40 * 1024 * 1024;

/** The host name the MX greets with and names in its `Received` trace header. */
const MX_HOST = 'inbound-smtp.pmail.local';

/** Where the MX puts each notification: the ingest queue (a `LocalQueue` whose consumer is the ingest). */
export interface NotificationSink {
  sendRaw(body: string): void;
}

export interface LocalMxOptions {
  /** 0 picks a free port (tests); `npm start` uses `PMAIL_MX_PORT`, default 2525. */
  port: number;
  queue: NotificationSink;
  /** The DNS SPF, DKIM and DMARC are checked against (functions/local/dns-zone.ts: a zone file). */
  resolver: MxResolver;
}

export interface LocalMx {
  host: '127.0.0.1';
  port: number;
  close(): Promise<void>;
}

/** What RCPT TO answers for one address (docs/guides/receiving.md › Receiving on your laptop). */
export type RecipientVerdict = 'accept' | 'unknown_address' | 'foreign_domain';

/**
 * An address as the MX routes it: lower case, the `+detail` sub-address (a thread token among
 * others) stripped. The ingest routes the envelope recipient the same way.
 */
export function routedAddress(address: string): string {
  const lower = address.trim().toLowerCase();
  const at = lower.lastIndexOf('@');
  if (at < 0) return lower;
  const plus = lower.indexOf('+');
  const local = plus >= 0 && plus < at ? lower.slice(0, plus) : lower.slice(0, at);
  return `${local}${lower.slice(at)}`;
}

/**
 * SES receiving accepts only recipients of verified domains; the local MX answers at RCPT TO the way
 * a receipt rule that lists this deployment's domains would, and refuses unknown addresses of them
 * too, so no message is accepted that the ingest would only count and drop.
 */
export async function recipientVerdict(deps: Pick<Deps, 'db'>, address: string): Promise<RecipientVerdict> {
  const routed = routedAddress(address);
  const domain = routed.slice(routed.lastIndexOf('@') + 1);
  if (!domain || !(await getDomain(deps.db, domain))) return 'foreign_domain';
  const rec = await getAddress(deps.db, routed);
  return rec && rec.status !== 'retired' ? 'accept' : 'unknown_address';
}

function smtpError(code: number, text: string): Error {
  return Object.assign(new Error(text), { responseCode: code });
}

/**
 * The SES-like trace headers the S3 action's copy starts with: `Return-Path` (the envelope sender)
 * and `Received` (who handed the message over, to whom, when). RFC 5321 § 4.4.
 */
export function traceHeaders(opts: {
  source: string;
  recipients: string[];
  session: Pick<SMTPServerSession, 'clientHostname' | 'hostNameAppearsAs' | 'remoteAddress'>;
  id: string;
  at: number;
}): string {
  const { session } = opts;
  const helo = session.hostNameAppearsAs || 'unknown';
  const from = `${helo} (${session.clientHostname || 'unknown'} [${session.remoteAddress}])`;
  const forLine = opts.recipients.length === 1 ? `\r\n for <${opts.recipients[0]}>` : '';
  const date = new Date(opts.at).toUTCString().replace('GMT', '+0000');
  return `Return-Path: <${opts.source}>\r\nReceived: from ${from}\r\n by ${MX_HOST} with ESMTP id ${opts.id}${forLine};\r\n ${date}\r\n`;
}

/** A message id shaped like SES's (lower-case letters and digits), unique per SMTP transaction. */
function sesLikeId(deps: Pick<Deps, 'newId'>): string {
  return deps.newId().toLowerCase();
}

/** The ports of the local MX: the blob store its accepted messages go to, as the S3 action's. */
type MxDeps = BaseDeps & Pick<Deps, 'blobs'>;

/**
 * One accepted transaction: authenticated, stored with its trace and authentication headers, its
 * notification on the ingest queue; answers the SES-like id it was stored under.
 */
async function acceptMessage(
  deps: MxDeps,
  opts: LocalMxOptions,
  session: SMTPServerSession,
  body: Buffer,
): Promise<string> {
  const id = sesLikeId(deps);
  const at = deps.clock();
  const source = session.envelope.mailFrom ? session.envelope.mailFrom.address : '';
  const recipients = session.envelope.rcptTo.map((r) => r.address);
  const auth = await authenticateAtMx(body, {
    ip: session.remoteAddress,
    helo: session.hostNameAppearsAs || '',
    sender: source,
    mta: MX_HOST,
    resolver: opts.resolver,
  }).catch((err) => {
    // Verdicts that cannot be computed prove nothing: the message is stored unverified.
    deps.log.warn('local MX could not authenticate a message', errorFields(err));
    return undefined;
  });
  const trace = Buffer.from(
    traceHeaders({ source, recipients, session, id, at }) + (auth?.headers ?? ''),
    'utf8',
  );
  await deps.blobs.put(`${INBOUND_RAW_PREFIX}${id}`, Buffer.concat([trace, body]), {});
  const n = receivedNotification({
    id,
    at,
    source,
    destination: recipients,
    recipients,
    ...(auth ? { authentication: auth.results } : {}),
  });
  opts.queue.sendRaw(JSON.stringify(n));
  deps.log.info('local MX accepted a message', { ses_message_id: id, recipients: recipients.length });
  return id;
}

/**
 * The local MX: an SMTP server on 127.0.0.1 (no AUTH, no STARTTLS, SIZE 40 MB) that stands in for
 * SES receiving. Each accepted transaction is authenticated (SPF for the connecting address, DKIM,
 * DMARC, ARC: functions/local/mx-auth.ts), stored as the S3 action stores it (the raw bytes with
 * the trace and authentication headers prepended, under `inbound/raw/{id}`), then its notification
 * goes on the ingest queue with the verdicts; the 250 comes after both, so an accepted message is
 * never lost to a stop.
 */
export async function startLocalMx(deps: MxDeps, opts: LocalMxOptions): Promise<LocalMx> {
  const rcptVerdict = async (address: SMTPServerAddress) => recipientVerdict(deps, address.address);
  const server = new SMTPServer({
    name: MX_HOST,
    banner: 'pmail local MX',
    size: MX_MAX_BYTES,
    authOptional: true,
    disabledCommands: ['AUTH', 'STARTTLS'],
    logger: false,
    onRcptTo(address, _session, callback) {
      rcptVerdict(address).then(
        (verdict) => {
          if (verdict === 'accept') return callback();
          if (verdict === 'unknown_address') return callback(smtpError(550, '5.1.1 no such mailbox here'));
          callback(smtpError(550, '5.7.1 relaying denied: this MX accepts mail for its own domains only'));
        },
        (err) => {
          deps.log.error('local MX recipient lookup failed', errorFields(err));
          callback(smtpError(451, '4.3.0 try again later'));
        },
      );
    },
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (c: Buffer) => chunks.push(c));
      stream.on('error', (err) => callback(err));
      stream.on('end', () => {
        if (stream.sizeExceeded)
          return callback(smtpError(552, `5.3.4 message exceeds the ${MX_MAX_BYTES}-byte limit`));
        accept(session, Buffer.concat(chunks)).then(
          (id) => callback(null, `2.0.0 Ok: queued as ${id}`),
          (err) => {
            deps.log.error('local MX could not store a message', errorFields(err));
            callback(smtpError(451, '4.3.0 try again later'));
          },
        );
      });
    },
  });
  const accept = (session: SMTPServerSession, body: Buffer) => acceptMessage(deps, opts, session, body);
  server.on('error', (err) => deps.log.error('local MX error', errorFields(err)));
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port, '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
  const port = (server.server.address() as AddressInfo).port;
  return {
    host: '127.0.0.1',
    port,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
