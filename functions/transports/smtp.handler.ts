import { loadTransportDeps } from '../env.ts';
import { sendAttemptTasks } from '../send/tasks.ts';
import { secretsManagerStore, smtpCredentials } from '../store/relay-secrets.store.ts';
import { smtpTransport } from './smtp.transport.ts';
import { transportTask } from './tasks.ts';

/**
 * Lambda entry of the SMTP relay transport task (live tenants' `smtp` domains). It alone may read
 * the relays' secrets (`{PMAIL_SMTP_SECRET_PREFIX}/smtp/*`). The SSRF rules are always on here:
 * `allowLocalRelays` exists only for the local runtime.
 */
const deps = loadTransportDeps('transport-smtp');
const prefix = process.env.PMAIL_SMTP_SECRET_PREFIX ?? 'pmail';

export const handler = sendAttemptTasks.Transport(
  smtpTransport({ credentials: smtpCredentials(secretsManagerStore(), prefix), log: deps.log }),
  transportTask('smtp'),
)(deps);
