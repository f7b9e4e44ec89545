import { lookup } from 'node:dns/promises';
import { isIPv4 } from 'node:net';
import type SMTPConnection from 'nodemailer/lib/smtp-connection';
import type { SmtpDomainSettings, SmtpSecret } from '../core/model.ts';
import { relayTargetAllowed } from '../core/relay-address.ts';
import {
  classifySmtp,
  classifySmtpEnvelopes,
  SMTP_TIMEOUTS,
  type SmtpDomainIssue,
  type SmtpEnd,
  type SmtpEnvelopeEnd,
  type SmtpRcptReply,
  type SmtpStage,
  smtpDomainIssue,
  smtpImplicitTls,
} from '../core/smtp-outcome.ts';
import type { TransportResult } from '../core/transport-result.ts';
import type { Logger } from '../log.ts';
import {
  type RelayConnection,
  type SessionMessage,
  type SessionState,
  type SessionTimeouts,
  type SmtpErrorLike,
  SmtpSession,
} from './smtp-session.ts';
import type { Transport, TransportDomain, TransportRequest } from './transport.ts';

/**
 * The customer SMTP relay adapter,
 * shaped like functions/events/cloudflare-pull.ts: narrow injected ports, settings with documented
 * defaults, and the external contract written down here.
 *
 * Contract with the relay (RFC 5321, RFC 3207 STARTTLS, RFC 4954 AUTH, RFC 1870 SIZE):
 * - One TCP connection per attempt, no pooling, no pipelining, no retries (the send machine alone
 *   retries). The adapter resolves the host itself, refuses any address or port the SSRF rules of
 *   core/relay-address.ts refuse, and connects to the checked IP; TLS verifies the certificate
 *   against the configured host name (`servername`), never the IP.
 * - Port 465: TLS from the first byte. Any other port: STARTTLS is required (`requireTLS`); a server
 *   whose EHLO does not advertise it is refused (`smtp_tls_required`), also when it would accept the
 *   command, and the credentials are never sent.
 * - AUTH PLAIN or LOGIN (whichever the server offers first) with the username and the secret's
 *   password, or XOAUTH2 with the secret's access token (`auth: 'xoauth2'`); no AUTH when the domain
 *   names no username.
 * - One envelope per queued recipient, in order over the one connection: MAIL FROM that
 *   recipient's signed return path (core/return-path.ts; the From address when none could be
 *   minted) with SIZE= when the server advertises SIZE (a message above its limit is refused before
 *   DATA), RCPT TO the recipient (Bcc only here, never in the stored copy), DATA, the stored .eml
 *   unchanged (its Message-ID kept), the final dot; RSET after an envelope the relay refused; QUIT.
 *   Each envelope has its own outcome (core/smtp-outcome.ts › classifySmtpEnvelopes): one whose
 *   answer is lost after its dot leaves that recipient uncertain and the recipients after it untried.
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
 * The protocol (the connection, each command, the reply timers) is functions/transports/smtp-session.ts;
 * this file is the policy around it: which relay it may reach, which credentials it sends, and what
 * each phase's failure means (an `SmtpEnd`). The classification of that end is pure
 * (core/smtp-outcome.ts).
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

/**
 * What one session did: ended before the first envelope (`setup`: the relay's address, TLS, AUTH,
 * or the probe's answer), or the envelopes it sent, one per recipient, and those it never tried.
 */
type SessionReport =
  | { type: 'setup'; end: SmtpEnd }
  | { type: 'sent'; envelopes: SmtpEnvelopeEnd[]; untried: string[] };

/** The message and its envelopes: one per recipient, each with that recipient's return path. */
interface SessionMessages {
  raw: Uint8Array;
  envelopes: { from: string; to: string }[];
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
      const envelopes = req.recipients.map((r) => ({
        from: r.return_path ?? req.envelope_from,
        to: r.address,
      }));
      const report = await runSession(ports, settings, req.domain, target, req.signal, { raw, envelopes });
      const which = { host: target.host, rfc_message_id: req.rfc_message_id };
      const result =
        report.type === 'setup'
          ? classifySmtp({ ...which, rcpt: [], end: report.end })
          : classifySmtpEnvelopes({ ...which, envelopes: report.envelopes, untried: report.untried });
      ports.log.info('smtp relay answered', {
        message_id: req.message_id,
        result: result.type,
        code: 'code' in result ? result.code : undefined,
        end: report.type === 'setup' ? report.end.type : 'envelopes',
        recipients: req.recipients.length,
        refused: 'refused' in result ? result.refused.length : 0,
        uncertain: result.type === 'accepted' ? (result.uncertain?.length ?? 0) : 0,
        issue: report.type === 'setup' ? smtpDomainIssue(report.end) : undefined,
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
  const report = await runSession(ports, settings, domain, target, signal, undefined);
  if (report.type !== 'setup') return { ok: true };
  const end = report.end;
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

/**
 * One SMTP session, phase by phase: the relay's address and credentials (nothing connected yet),
 * then the protocol (functions/transports/smtp-session.ts), each phase's failure read into the
 * `SmtpEnd` that core/smtp-outcome.ts classifies. With `message` undefined it is the probe and ends
 * after AUTH; the report's end is then `dot_reply` 250 for "passed".
 */
async function runSession(
  ports: SmtpPorts,
  settings: SmtpSettings,
  domain: TransportDomain,
  target: SmtpTarget,
  signal: AbortSignal,
  message: SessionMessages | undefined,
): Promise<SessionReport> {
  const report = (end: SmtpEnd): SessionReport => ({ type: 'setup', end });
  const relay = await prepareRelay(ports, settings, domain, target);
  if (ended(relay)) return report(relay.end);
  const timeouts = sessionTimeouts(settings);
  const session = new SmtpSession(timeouts, signal);
  if (!session.begin()) return report(DEADLINE_BEFORE_CONNECT);
  const noAnswer = (err: unknown) => noAnswerEnd(session.state, timeouts, err);
  try {
    await session.open(relay.connection);
    try {
      await session.greet();
    } catch (err) {
      return report(setupEnd(err, session.state, noAnswer));
    }
    // nodemailer's requireTLS sends STARTTLS even when EHLO did not advertise it, and a relay may
    // accept it. The contract is the advertisement (an attacker on the path can strip it, and a
    // relay that hides it is not configured for TLS): refused before AUTH, no credential sent.
    if (!relay.connection.implicitTls && !session.state.starttlsOffered) {
      session.quit();
      return report({ type: 'no_starttls' });
    }
    if (relay.auth) {
      try {
        await session.login(relay.auth);
      } catch (err) {
        return report(authEnd(err, noAnswer));
      }
    }
    if (!message) {
      session.quit();
      return report({ type: 'dot_reply', code: 250, text: 'probe passed' });
    }
    return { type: 'sent', ...(await sendEnvelopes(session, message, noAnswer)) };
  } catch (err) {
    return report(noAnswer(err));
  } finally {
    session.close();
  }
}

const DEADLINE_BEFORE_CONNECT: SmtpEnd = {
  type: 'no_answer',
  dot_written: false,
  timed_out: true,
  detail: 'deadline reached before connecting',
};

const nothingSent = (detail: string): SmtpEnd => ({
  type: 'no_answer',
  dot_written: false,
  timed_out: false,
  detail,
});

const ended = (step: object): step is { end: SmtpEnd } => 'end' in step;

function sessionTimeouts(settings: SmtpSettings): SessionTimeouts {
  return {
    connect: settings.connectTimeoutMs ?? SMTP_TIMEOUTS.connect,
    command: settings.commandTimeoutMs ?? SMTP_TIMEOUTS.command,
    dotReply: settings.dotReplyTimeoutMs ?? SMTP_TIMEOUTS.dotReply,
  };
}

interface PreparedRelay {
  connection: RelayConnection;
  /** Undefined: the domain names no username, no AUTH. */
  auth?: SMTPConnection.AuthenticationCredentials;
}

/** The relay's checked address and its credentials, before any connection is opened. */
async function prepareRelay(
  ports: SmtpPorts,
  settings: SmtpSettings,
  domain: TransportDomain,
  target: SmtpTarget,
): Promise<PreparedRelay | { end: SmtpEnd }> {
  const address = await checkedAddress(ports, settings, target);
  if (typeof address !== 'string') return address;
  // The credentials are read before connecting, so a missing secret never opens a connection.
  const auth = target.username ? await relayAuth(ports, domain, target, target.username) : undefined;
  if (auth && ended(auth)) return auth;
  const connection: RelayConnection = {
    ip: address,
    port: target.port,
    servername: target.host,
    implicitTls: smtpImplicitTls(target.port, target.tls),
    ehloName: settings.ehloName ?? 'pmail.invalid',
    tlsCa: settings.tlsCa,
  };
  return { connection, auth };
}

/** SSRF: resolve, check every address and the port; the address to connect to. */
async function checkedAddress(
  ports: SmtpPorts,
  settings: SmtpSettings,
  target: SmtpTarget,
): Promise<string | { end: SmtpEnd }> {
  let addresses: string[];
  try {
    addresses = await (ports.resolve ?? defaultResolve)(target.host);
  } catch (err) {
    return { end: nothingSent(`resolve: ${codeOf(err)}`) };
  }
  if (!settings.allowLocalRelays) {
    const check = relayTargetAllowed(target.port, addresses);
    if (!check.ok) return { end: { type: 'target_refused', detail: check.detail } };
  }
  // IPv4 first: a Lambda outside a VPC has no IPv6 egress.
  const ip = addresses.find((a) => isIPv4(a)) ?? addresses[0];
  return ip ?? { end: nothingSent('resolve: no address') };
}

/** The AUTH credentials from the relay's secret: PLAIN/LOGIN with the password, or XOAUTH2. */
async function relayAuth(
  ports: SmtpPorts,
  domain: TransportDomain,
  target: SmtpTarget,
  user: string,
): Promise<SMTPConnection.AuthenticationCredentials | { end: SmtpEnd }> {
  let secret: SmtpSecret | undefined;
  try {
    secret = await ports.credentials(domain);
  } catch (err) {
    // Nothing was sent: the secret store failing is a retry, not an unknown outcome.
    ports.log.warn('relay credentials unavailable; nothing sent', { error: codeOf(err) });
    return { end: nothingSent('credentials unavailable') };
  }
  const token = secret?.access_token;
  const usable = target.auth === 'xoauth2' ? token : secret?.password;
  if (!usable)
    return { end: { type: 'reply', stage: 'auth', code: 535, text: 'no credentials stored for this relay' } };
  if (target.auth !== 'xoauth2') return { user, pass: secret?.password ?? '' };
  const oauth2 = {
    getToken: (isRetry: boolean, cb: (err: Error | null, token?: string) => void) =>
      isRetry ? cb(new Error('the access token was refused')) : cb(null, token),
    buildXOAuth2Token: (t: string) =>
      Buffer.from(`user=${user}\x01auth=Bearer ${t}\x01\x01`, 'utf8').toString('base64'),
  };
  return { user, oauth2 } as SMTPConnection.AuthenticationCredentials;
}

/** No answer: a connection error, a reset, a timer, the deadline; with whether the dot may be out. */
function noAnswerEnd(state: SessionState, timeouts: SessionTimeouts, err: unknown): SmtpEnd {
  return {
    type: 'no_answer',
    dot_written: state.dotWritten,
    timed_out: state.timedOut || state.aborted,
    detail: state.aborted
      ? 'the 4-minute deadline was reached'
      : state.timedOut
        ? `no reply within ${state.dotWritten ? timeouts.dotReply : timeouts.command} ms`
        : codeOf(err),
  };
}

/**
 * One envelope per recipient over the one connection, in order (docs/guides/sending.md › One
 * envelope per recipient). After an envelope the relay refused, RSET before the next; after one
 * with no answer the connection is gone, and the recipients after it are never tried (they stay
 * queued). QUIT after the last answer (a session without one is closed).
 */
async function sendEnvelopes(
  session: SmtpSession,
  message: SessionMessages,
  noAnswer: (err: unknown) => SmtpEnd,
): Promise<{ envelopes: SmtpEnvelopeEnd[]; untried: string[] }> {
  const envelopes: SmtpEnvelopeEnd[] = [];
  for (const [i, e] of message.envelopes.entries()) {
    const sent = await sendPhase(session, { from: e.from, to: [e.to], raw: message.raw }, noAnswer);
    envelopes.push({ address: e.to, end: sent.end, ...(sent.rcpt[0] ? { rcpt: sent.rcpt[0] } : {}) });
    const untried = message.envelopes.slice(i + 1).map((x) => x.to);
    if (sent.end.type === 'no_answer') return { envelopes, untried };
    const taken = sent.end.type === 'dot_reply' && sent.end.code >= 200 && sent.end.code < 300;
    if (
      !taken &&
      untried.length > 0 &&
      !(await session.reset().then(
        () => true,
        () => false,
      ))
    )
      return { envelopes, untried };
  }
  session.quit();
  return { envelopes, untried: [] };
}

/** One envelope, DATA and the final dot. */
async function sendPhase(
  session: SmtpSession,
  message: SessionMessage,
  noAnswer: (err: unknown) => SmtpEnd,
): Promise<{ end: SmtpEnd; rcpt: SmtpRcptReply[] }> {
  try {
    const info = await session.send(message);
    return {
      end: { type: 'dot_reply', code: responseCodeOf(info.response), text: info.response ?? '' },
      rcpt: rcptReplies(info.rejectedErrors as SmtpErrorLike[] | undefined),
    };
  } catch (err) {
    return {
      end: sendEnd(err, session.state, noAnswer),
      rcpt: rcptReplies((err as SmtpErrorLike).rejectedErrors),
    };
  }
}

/** What ended AUTH. */
function authEnd(err: unknown, noAnswer: (err: unknown) => SmtpEnd): SmtpEnd {
  const e = err as SmtpErrorLike;
  if (e.responseCode) return { type: 'reply', stage: 'auth', code: e.responseCode, text: replyText(e) };
  if (e.code === 'EAUTH')
    return { type: 'reply', stage: 'auth', code: 535, text: e.message ?? 'AUTH failed' };
  return noAnswer(err);
}

/** What ended the envelope, DATA or the final dot when nodemailer failed it. */
function sendEnd(err: unknown, state: SessionState, noAnswer: (err: unknown) => SmtpEnd): SmtpEnd {
  const e = err as SmtpErrorLike;
  if (state.timedOut || state.aborted) return noAnswer(err);
  if (e.code === 'EENVELOPE' && e.command === 'RCPT TO' && e.rejectedErrors?.length)
    return { type: 'no_recipient' };
  if (e.code === 'EENVELOPE' && e.command === 'MAIL FROM' && e.responseCode)
    return { type: 'reply', stage: 'mail', code: e.responseCode, text: replyText(e) };
  if (e.code === 'EENVELOPE' && e.command === 'DATA' && e.responseCode)
    return { type: 'reply', stage: 'data', code: e.responseCode, text: replyText(e) };
  // The server's SIZE limit, checked before MAIL FROM: nothing was sent.
  if (e.code === 'EMESSAGE' && e.command === 'MAIL FROM' && !e.responseCode)
    return { type: 'reply', stage: 'mail', code: 552, text: e.message ?? 'message too large for the relay' };
  if (e.code === 'EMESSAGE' && e.responseCode && state.dotWritten)
    return { type: 'dot_reply', code: e.responseCode, text: replyText(e) };
  return noAnswer(err);
}

/** What ended connect() (greeting, EHLO, STARTTLS): all before the dot. */
function setupEnd(err: unknown, state: SessionState, noAnswer: (err: unknown) => SmtpEnd): SmtpEnd {
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

function rcptReplies(errors: SmtpErrorLike[] | undefined): SmtpRcptReply[] {
  return (errors ?? []).map(rcptReply);
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
