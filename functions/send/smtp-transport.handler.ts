import { isSmtpProbeEvent, probeDomainRelay, type SmtpProbeEvent } from '../domains/smtp-probe.ts';
import { loadTransportDeps } from '../env.ts';
import { s3Blobs } from '../store/blobs.ts';
import { secretsManagerStore, smtpCredentials } from '../store/relay-secrets.store.ts';
import { type SmtpPorts, smtpTransport } from '../transports/smtp.transport.ts';
import { transportTask } from '../transports/tasks.ts';
import { transportAttemptTask } from './task-entry.ts';
import type { TransportTaskInput } from './transport-task.ts';

/**
 * Lambda entry of the SMTP relay transport task (live tenants' `smtp` domains). It alone may read
 * the relays' secrets (`{PMAIL_SMTP_SECRET_PREFIX}/smtp/*`), so it also answers the probe gate: an
 * event `{ probe: { domain } }` (invoked by the domains API and the domain check) runs the probe —
 * connect, EHLO, STARTTLS, AUTH, QUIT, no message — on the domain's stored settings and answers
 * `{ ok }` or `{ ok: false, issue, detail }`. The SSRF rules are always on here:
 * `allowLocalRelays` exists only for the local runtime.
 */
const deps = loadTransportDeps('transport-smtp', { blobs: s3Blobs });
const prefix = process.env.PMAIL_SMTP_SECRET_PREFIX ?? 'pmail';
const ports: SmtpPorts = { credentials: smtpCredentials(secretsManagerStore(), prefix), log: deps.log };
const send = transportAttemptTask(smtpTransport(ports), transportTask('smtp'))(deps);

export async function handler(event: TransportTaskInput | SmtpProbeEvent) {
  if (isSmtpProbeEvent(event))
    return probeDomainRelay(deps.db, ports, {}, event.probe.domain, event.probe.timeout_ms);
  return send(event);
}
