import { lookup } from 'node:dns/promises';
import { isIPv4, connect as netConnect, type Socket } from 'node:net';
import { PassThrough } from 'node:stream';
import SMTPConnection from 'nodemailer/lib/smtp-connection';
import type { SmtpDomainSettings, SmtpSecret } from '../core/model.ts';
import { relayTargetAllowed } from '../core/relay-address.ts';
import {
  classifySmtp,
  SMTP_TIMEOUTS,
  type SmtpDomainIssue,
  type SmtpEnd,
  type SmtpRcptReply,
  type SmtpStage,
  smtpDomainIssue,
  smtpImplicitTls,
} from '../core/smtp-outcome.ts';
import type { TransportResult } from '../core/transport-result.ts';
import type { Logger } from '../log.ts';
import type { Transport, TransportDomain, TransportRequest } from './transport.ts';

/**
 * The customer SMTP relay adapter,
 * shaped like functions/events/cloudflare-pull.ts: narrow injected ports, settings with documented
 * defaults, and the external contract written down here.
 *
 * Contract with the relay (RFC 5321, RFC 3207 STARTTLS, RFC 4954 AUTH, RFC 1870 SIZE):
 * - One TCP connection per message, no pooling, no pipelining, no retries (the send machine alone
 *   retries). The adapter resolves the host itself, refuses any address or port the SSRF rules of
 *   core/relay-address.ts refuse, and connects to the checked IP; TLS verifies the certificate
 *   against the configured host name (`servername`), never the IP.
 * - Port 465: TLS from the first byte. Any other port: STARTTLS is required (`requireTLS`); a server
 *   whose EHLO does not advertise it is refused (`smtp_tls_required`), also when it would accept the
 *   command, and the credentials are never sent.
 * - AUTH PLAIN or LOGIN (whichever the server offers first) with the username and the secret's
 *   password, or XOAUTH2 with the secret's access token (`auth: 'xoauth2'`); no AUTH when the domain
 *   names no username.
 * - MAIL FROM with SIZE= when the server advertises SIZE (a message above its limit is refused
 *   before DATA), one RCPT TO per queued recipient (Bcc only here, never in the stored copy), DATA,
 *   the stored .eml unchanged (its Message-ID kept), the final dot, QUIT.
 * - Timeouts: 10 s to connect, 30 s for each reply, 60 s for the reply to the
 *   final dot, and the request's deadline (4 minutes for this task) over all of it.
 * - Where it was: nodemailer reports socket errors as command `CONN` whatever the phase, so the
 *   adapter tracks itself whether the final dot may have been written: the moment the whole
 *   message has been handed to nodemailer's dot-stuffing stream (which writes the dot right
 *   after it), a lost answer is `unknown`, never a retry. That errs on the safe side: a drop while
 *   the last buffered body bytes are still going out is `uncertain`, not resent.
 * - nodemailer's message composer is never used (the stored bytes go out as they are), so no
 *   attachment `path`/`href` is ever read: that is what `disableFileAccess`/`disableUrlAccess` guard
 *   against in the composer, and here there is nothing for them to guard.
 *
 * The classification is pure (core/smtp-outcome.ts); this file only reports what ended the session.
 */

/** What the relay's secret holds: core/model.ts (the store reads it too). */
export type { SmtpSecret } from '../core/model.ts';

export interface SmtpPorts {
  /** The relay's secret for a domain (undefined: the domain names none). Never logged. */
  credentials(domain: TransportDomain): Promise<SmtpSecret | undefined>;
  /** Resolves a host to every address (default: the system resolver, all families). */
  resolve?: (host: string) => Promise<string[]>;
  log: Logger;
}

export interface SmtpSettings {
  /** @default 10_000 */
  connectTimeoutMs?: number;
  /** Silence allowed while waiting for any reply before the final dot. @default 30_000 */
  commandTimeoutMs?: number;
  /** Silence allowed for the reply to the final dot. @default 60_000 */
  dotReplyTimeoutMs?: number;
  /** The EHLO name. @default 'pmail.invalid' */
  ehloName?: string;
  /**
   * Lifts the SSRF address and port rules. **Local runtime and tests only** (`npm start` lets a live
   * tenant point at a capture server on the machine); never set by a Lambda entry.
   * @default false
   */
  allowLocalRelays?: boolean;
  /** Extra CA certificates to trust (a local relay's self-signed certificate). @default none */
  tlsCa?: string[];
}

/** The relay a session talks to: the domain's `smtp` settings. */
export type SmtpTarget = Pick<SmtpDomainSettings, 'host' | 'port' | 'username' | 'auth' | 'tls'>;

interface SessionReport {
  end: SmtpEnd;
  rcpt: SmtpRcptReply[];
  accepted: string[];
}

interface SessionMessage {
  from: string;
  to: string[];
  raw: Uint8Array;
}

export function smtpTransport(ports: SmtpPorts, settings: SmtpSettings = {}): Transport {
  return {
    provider: 'smtp',
    async send(req: TransportRequest): Promise<TransportResult> {
      const target = req.domain.smtp;
      if (!target?.host || !target.port) {
        return {
          type: 'rejected',
          provider: 'smtp',
          reason: 'sender_domain_unavailable',
          code: 'smtp_not_configured',
          detail: 'the sending domain has no relay host and port',
        };
      }
      const raw = await req.mime.load();
      const report = await runSession(ports, settings, req.domain, target, req.signal, {
        from: req.envelope_from,
        to: req.recipients.map((r) => r.address),
        raw,
      });
      const result = classifySmtp({
        host: target.host,
        rfc_message_id: req.rfc_message_id,
        rcpt: report.rcpt,
        end: report.end,
      });
      ports.log.info('smtp relay answered', {
        message_id: req.message_id,
        result: result.type,
        code: 'code' in result ? result.code : undefined,
        end: report.end.type,
        recipients: req.recipients.length,
        refused: report.rcpt.length,
        issue: smtpDomainIssue(report.end),
      });
      return result;
    },
  };
}

export type SmtpProbeResult =
  | { ok: true }
  | { ok: false; issue: SmtpDomainIssue | 'smtp_relay_address_refused'; detail: string };

/**
 * The probe: connect, EHLO, STARTTLS, AUTH, QUIT — no message. The domains
 * API's verify calls it for a domain with transport `smtp`; it goes through the same session code
 * and SSRF rules as a send.
 */
export async function probeSmtpRelay(
  ports: SmtpPorts,
  settings: SmtpSettings,
  domain: TransportDomain,
  signal: AbortSignal = AbortSignal.timeout(SMTP_TIMEOUTS.total),
): Promise<SmtpProbeResult> {
  const target = domain.smtp;
  if (!target?.host || !target.port) {
    return { ok: false, issue: 'smtp_unreachable', detail: 'the domain has no relay host and port' };
  }
  const { end } = await runSession(ports, settings, domain, target, signal, undefined);
  if (end.type === 'dot_reply') return { ok: true };
  if (end.type === 'target_refused')
    return { ok: false, issue: 'smtp_relay_address_refused', detail: end.detail };
  const issue = smtpDomainIssue(end) ?? 'smtp_unreachable';
  const detail =
    end.type === 'reply'
      ? `${end.stage}: ${end.code} ${end.text}`.slice(0, 300)
      : end.type === 'no_answer'
        ? end.detail
        : end.type;
  return { ok: false, issue, detail };
}

const defaultResolve = async (host: string): Promise<string[]> =>
  (await lookup(host, { all: true, verbatim: true })).map((a) => a.address);

interface SmtpErrorLike {
  code?: string;
  command?: string;
  responseCode?: number;
  response?: string;
  message?: string;
  recipient?: string;
  rejectedErrors?: SmtpErrorLike[];
}

/**
 * One SMTP session. With `message` undefined it is the probe and ends after AUTH; the report's end
 * is then `dot_reply` 250 for "passed".
 */
async function runSession(
  ports: SmtpPorts,
  settings: SmtpSettings,
  domain: TransportDomain,
  target: SmtpTarget,
  signal: AbortSignal,
  message: SessionMessage | undefined,
): Promise<SessionReport> {
  const connectTimeout = settings.connectTimeoutMs ?? SMTP_TIMEOUTS.connect;
  const commandTimeout = settings.commandTimeoutMs ?? SMTP_TIMEOUTS.command;
  const dotTimeout = settings.dotReplyTimeoutMs ?? SMTP_TIMEOUTS.dotReply;
  const rcpt: SmtpRcptReply[] = [];
  const report = (end: SmtpEnd, accepted: string[] = []): SessionReport => ({ end, rcpt, accepted });

  // 1. SSRF: resolve, check every address and the port, connect to the checked address.
  let addresses: string[];
  try {
    addresses = await (ports.resolve ?? defaultResolve)(target.host);
  } catch (err) {
    return report({
      type: 'no_answer',
      dot_written: false,
      timed_out: false,
      detail: `resolve: ${codeOf(err)}`,
    });
  }
  if (!settings.allowLocalRelays) {
    const check = relayTargetAllowed(target.port, addresses);
    if (!check.ok) return report({ type: 'target_refused', detail: check.detail });
  }
  // IPv4 first: a Lambda outside a VPC has no IPv6 egress.
  const ip = addresses.find((a) => isIPv4(a)) ?? addresses[0];
  if (!ip)
    return report({ type: 'no_answer', dot_written: false, timed_out: false, detail: 'resolve: no address' });

  // The credentials are read before connecting, so a missing secret never opens a connection.
  let secret: SmtpSecret | undefined;
  if (target.username) {
    try {
      secret = await ports.credentials(domain);
    } catch (err) {
      // Nothing was sent: the secret store failing is a retry, not an unknown outcome.
      ports.log.warn('relay credentials unavailable; nothing sent', {
        error: codeOf(err),
      });
      return report({
        type: 'no_answer',
        dot_written: false,
        timed_out: false,
        detail: 'credentials unavailable',
      });
    }
    const usable = target.auth === 'xoauth2' ? secret?.access_token : secret?.password;
    if (!usable) {
      return report({
        type: 'reply',
        stage: 'auth',
        code: 535,
        text: 'no credentials stored for this relay',
      });
    }
  }

  const state = {
    dotWritten: false,
    timedOut: false,
    aborted: false,
    lastCommand: '',
    starttlsOffered: false,
  };
  let socket: Socket | undefined;
  let conn: SMTPConnection | undefined;
  let timer: NodeJS.Timeout | undefined;
  const kill = (why: 'timeout' | 'abort') => {
    if (why === 'timeout') state.timedOut = true;
    else state.aborted = true;
    // Destroying the socket (not close()) makes nodemailer fail whatever is pending with an error.
    socket?.destroy();
  };
  const arm = (ms: number) => {
    if (timer) clearTimeout(timer);
    timer = setTimeout(() => kill('timeout'), ms);
  };
  const disarm = () => {
    if (timer) clearTimeout(timer);
    timer = undefined;
  };
  const onAbort = () => kill('abort');
  if (signal.aborted) {
    return report({
      type: 'no_answer',
      dot_written: false,
      timed_out: true,
      detail: 'deadline reached before connecting',
    });
  }
  signal.addEventListener('abort', onAbort, { once: true });

  const noAnswer = (err: unknown): SmtpEnd => ({
    type: 'no_answer',
    dot_written: state.dotWritten,
    timed_out: state.timedOut || state.aborted,
    detail: state.aborted
      ? 'the 4-minute deadline was reached'
      : state.timedOut
        ? `no reply within ${state.dotWritten ? dotTimeout : commandTimeout} ms`
        : codeOf(err),
  });

  try {
    // 2. Connect (10 s).
    socket = await new Promise<Socket>((resolve, reject) => {
      const s = netConnect({ host: ip, port: target.port });
      socket = s;
      const t = setTimeout(() => {
        state.timedOut = true;
        s.destroy();
        reject(Object.assign(new Error('connect timeout'), { code: 'ETIMEDOUT' }));
      }, connectTimeout);
      s.once('connect', () => {
        clearTimeout(t);
        s.removeAllListeners('error');
        resolve(s);
      });
      s.once('error', (err) => {
        clearTimeout(t);
        reject(err);
      });
    });
    if (state.aborted) return report(noAnswer(undefined));
    socket.on('error', () => {}); // nodemailer reports socket errors itself

    const implicit = smtpImplicitTls(target.port, target.tls);
    // A protocol observer on nodemailer's transaction log (commands and replies only, never the
    // message): it arms the per-reply timer and sees whether EHLO offered STARTTLS.
    const observer = {
      level() {},
      trace() {},
      info() {},
      warn() {},
      error() {},
      fatal() {},
      debug(entry: { tnx?: string } | undefined, text: unknown) {
        const line = String(text ?? '');
        if (entry?.tnx === 'client') {
          state.lastCommand = line.split(' ')[0]?.toUpperCase() ?? '';
          arm(commandTimeout);
        } else if (entry?.tnx === 'server') {
          if (state.lastCommand === 'EHLO' && /[ -]STARTTLS\b/im.test(line)) state.starttlsOffered = true;
          disarm();
        }
      },
    };
    const c = new SMTPConnection({
      connection: socket,
      host: ip,
      port: target.port,
      secure: implicit,
      requireTLS: !implicit,
      name: settings.ehloName ?? 'pmail.invalid',
      greetingTimeout: commandTimeout,
      connectionTimeout: connectTimeout + 2 * commandTimeout,
      // nodemailer's own inactivity timer stays behind ours (which knows about the final dot).
      socketTimeout: dotTimeout + commandTimeout,
      transactionLog: true,
      logger: observer,
      tls: {
        servername: target.host,
        minVersion: 'TLSv1.2',
        ...(settings.tlsCa?.length ? { ca: settings.tlsCa } : {}),
      },
      ...{ servername: target.host },
    } as SMTPConnection.Options);
    conn = c;
    // nodemailer fails a pending step either through its callback or (a lost connection) only with
    // 'error'/'end': every step races against those, so no step waits forever.
    const lost = new Promise<never>((_, reject) => {
      c.once('error', reject);
      c.once('end', () => reject(Object.assign(new Error('connection closed'), { code: 'ECONNECTION' })));
    });
    lost.catch(() => {});
    const step = <T>(run: (done: (err?: Error | null, value?: T) => void) => void): Promise<T> =>
      Promise.race([
        new Promise<T>((resolve, reject) => run((err, value) => (err ? reject(err) : resolve(value as T)))),
        lost,
      ]);
    arm(commandTimeout); // the greeting

    // 3. Greeting, EHLO, STARTTLS.
    try {
      await step<void>((done) => c.connect((err?: Error) => done(err)));
    } catch (err) {
      return report(setupEnd(err, state, noAnswer));
    }
    // nodemailer's requireTLS sends STARTTLS even when EHLO did not advertise it, and a relay may
    // accept it. The contract is the advertisement (an attacker on the path can strip it, and a
    // relay that hides it is not configured for TLS): refused before AUTH, no credential sent.
    if (!implicit && !state.starttlsOffered) {
      c.quit();
      return report({ type: 'no_starttls' });
    }

    // 4. AUTH.
    if (target.username && secret) {
      const user = target.username;
      const auth =
        target.auth === 'xoauth2'
          ? {
              user,
              oauth2: {
                getToken: (isRetry: boolean, cb: (err: Error | null, token?: string) => void) =>
                  isRetry ? cb(new Error('the access token was refused')) : cb(null, secret?.access_token),
                buildXOAuth2Token: (token: string) =>
                  Buffer.from(`user=${user}\x01auth=Bearer ${token}\x01\x01`, 'utf8').toString('base64'),
              },
            }
          : { user, pass: secret.password ?? '' };
      try {
        await step<void>((done) =>
          c.login(auth as SMTPConnection.AuthenticationCredentials, (err?: Error | null) => done(err)),
        );
      } catch (err) {
        const e = err as SmtpErrorLike;
        if (e.responseCode)
          return report({ type: 'reply', stage: 'auth', code: e.responseCode, text: replyText(e) });
        if (e.code === 'EAUTH')
          return report({ type: 'reply', stage: 'auth', code: 535, text: e.message ?? 'AUTH failed' });
        return report(noAnswer(err));
      }
    }

    if (!message) {
      disarm();
      c.quit();
      return report({ type: 'dot_reply', code: 250, text: 'probe passed' });
    }

    // 5. MAIL FROM (SIZE=), RCPT TO each, DATA, the message, the final dot.
    const body = new PassThrough();
    body.once('end', () => {
      // The whole message is in nodemailer's dot-stuffing stream; the dot follows at once.
      state.dotWritten = true;
      arm(dotTimeout);
    });
    body.end(Buffer.from(message.raw.buffer, message.raw.byteOffset, message.raw.byteLength));
    try {
      const info = await step<SMTPConnection.SentMessageInfo>((done) =>
        c.send({ from: message.from, to: message.to, size: message.raw.byteLength }, body, (err, inf) =>
          done(err, inf),
        ),
      );
      disarm();
      for (const e of (info.rejectedErrors ?? []) as SmtpErrorLike[]) rcpt.push(rcptReply(e));
      c.quit();
      return report(
        { type: 'dot_reply', code: responseCodeOf(info.response), text: info.response ?? '' },
        info.accepted,
      );
    } catch (err) {
      disarm();
      const e = err as SmtpErrorLike;
      for (const r of e.rejectedErrors ?? []) rcpt.push(rcptReply(r));
      if (state.timedOut || state.aborted) return report(noAnswer(err));
      if (e.code === 'EENVELOPE' && e.command === 'RCPT TO' && e.rejectedErrors?.length) {
        c.quit();
        return report({ type: 'no_recipient' });
      }
      if (e.code === 'EENVELOPE' && e.command === 'MAIL FROM' && e.responseCode) {
        c.quit();
        return report({ type: 'reply', stage: 'mail', code: e.responseCode, text: replyText(e) });
      }
      if (e.code === 'EENVELOPE' && e.command === 'DATA' && e.responseCode) {
        c.quit();
        return report({ type: 'reply', stage: 'data', code: e.responseCode, text: replyText(e) });
      }
      // The server's SIZE limit, checked before MAIL FROM: nothing was sent.
      if (e.code === 'EMESSAGE' && e.command === 'MAIL FROM' && !e.responseCode) {
        c.quit();
        return report({
          type: 'reply',
          stage: 'mail',
          code: 552,
          text: e.message ?? 'message too large for the relay',
        });
      }
      if (e.code === 'EMESSAGE' && e.responseCode && state.dotWritten) {
        c.quit();
        return report({ type: 'dot_reply', code: e.responseCode, text: replyText(e) });
      }
      return report(noAnswer(err));
    }
  } catch (err) {
    return report(noAnswer(err));
  } finally {
    disarm();
    signal.removeEventListener('abort', onAbort);
    // QUIT was written where the session ended cleanly; the socket is closed in any case.
    setTimeout(() => {
      conn?.close();
      socket?.destroy();
    }, 1000).unref();
  }
}

/** What ended connect() (greeting, EHLO, STARTTLS): all before the dot. */
function setupEnd(
  err: unknown,
  state: { timedOut: boolean; aborted: boolean; lastCommand: string; starttlsOffered: boolean },
  noAnswer: (err: unknown) => SmtpEnd,
): SmtpEnd {
  const e = err as SmtpErrorLike;
  if (state.timedOut || state.aborted) return noAnswer(err);
  // requireTLS sends STARTTLS even when EHLO did not offer it; a server without it refuses (one that
  // accepts it is refused after connect(): runSession).
  if (
    e.command === 'STARTTLS' &&
    (!state.starttlsOffered || (e.responseCode !== undefined && e.responseCode >= 500))
  ) {
    return { type: 'no_starttls' };
  }
  if (e.responseCode) {
    const stage: SmtpStage =
      e.command === 'STARTTLS'
        ? 'starttls'
        : e.command === 'EHLO' || e.command === 'HELO'
          ? 'ehlo'
          : 'greeting';
    return { type: 'reply', stage, code: e.responseCode, text: replyText(e) };
  }
  return noAnswer(err);
}

function rcptReply(e: SmtpErrorLike): SmtpRcptReply {
  return { address: e.recipient ?? '', code: e.responseCode || 550, text: replyText(e) };
}

function replyText(e: SmtpErrorLike): string {
  return (e.response ?? e.message ?? '').replace(/^\d{3}[ -]?/, '').slice(0, 300);
}

function responseCodeOf(response: string | undefined): number {
  return Number(/^\d{3}/.exec(response ?? '')?.[0] ?? 0);
}

function codeOf(err: unknown): string {
  const e = err as SmtpErrorLike | undefined;
  return String(e?.code ?? (err instanceof Error ? err.name : 'error'));
}
