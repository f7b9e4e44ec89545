import type { RelayProbe } from '../core/domains.ts';
import type { DomainRecord } from '../core/model.ts';
import { SMTP_TIMEOUTS } from '../core/smtp-outcome.ts';
import type { Db } from '../store/db.ts';
import { readDomainNow } from '../store/domains.store.ts';
import { probeSmtpRelay, type SmtpPorts, type SmtpSettings } from '../transports/smtp.transport.ts';

/**
 * The SMTP relay probe gate: connect, EHLO, STARTTLS, AUTH, QUIT — no
 * message. Only the SMTP transport Lambda may read the relays' credentials, so in AWS the probe runs
 * there: the domains API and the scheduled domain check invoke that function with a
 * `{ probe: { domain } }` event (`lambda:InvokeFunction` on that one function) and it answers
 * without sending anything. Locally the domains API calls `probeDomainRelay` directly through the
 * same port. The event names only the domain: the SMTP Lambda reads its settings itself, so an
 * invoker cannot point it at a host of its choosing.
 */

/** The port the domains API and the domain check probe through. */
export type SmtpProbe = (domain: Pick<DomainRecord, 'domain'>, timeoutMs: number) => Promise<RelayProbe>;

/** The event the SMTP transport Lambda answers as a probe. */
export interface SmtpProbeEvent {
  probe: { domain: string; timeout_ms?: number };
}

export const isSmtpProbeEvent = (e: unknown): e is SmtpProbeEvent =>
  typeof e === 'object' &&
  e !== null &&
  typeof (e as SmtpProbeEvent).probe === 'object' &&
  typeof (e as SmtpProbeEvent).probe?.domain === 'string';

/**
 * How long a probe may take: inside an API request (API Gateway gives up after 30 s) 20 s; the
 * scheduled check allows a relay's step timeouts in full (one minute).
 */
export const PROBE_TIMEOUT_MS = { api: 20_000, check: 60_000 } as const;

/** Read the domain and probe its relay (the SMTP Lambda's probe, and the local port). */
export async function probeDomainRelay(
  db: Db,
  ports: SmtpPorts,
  settings: SmtpSettings,
  name: string,
  timeoutMs: number = PROBE_TIMEOUT_MS.api,
): Promise<RelayProbe> {
  const d = await readDomainNow(db, name);
  if (d?.transport !== 'smtp')
    return { ok: false, issue: 'smtp_unreachable', detail: 'not a domain with transport smtp' };
  const result = await probeSmtpRelay(
    ports,
    settings,
    d,
    AbortSignal.timeout(Math.min(timeoutMs, SMTP_TIMEOUTS.total)),
  );
  ports.log.info('smtp relay probed', {
    domain_id: d.id,
    ok: result.ok,
    issue: result.ok ? undefined : result.issue,
  });
  return result;
}

/** The local port: the same probe, in process. */
export function localSmtpProbe(db: Db, ports: SmtpPorts, settings: SmtpSettings): SmtpProbe {
  return (d, timeoutMs) => probeDomainRelay(db, ports, settings, d.domain, timeoutMs);
}
