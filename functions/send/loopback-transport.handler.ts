import { loadTransportDeps } from '../env.ts';
import { s3Blobs } from '../store/blobs.ts';
import { getAddresses } from '../store/directory.store.ts';
import { loopbackTransport } from '../transports/loopback.transport.ts';
import { transportTask } from '../transports/tasks.ts';
import { sendAttemptTasks } from './tasks.ts';

/** Lambda entry of the loopback transport task (test tenants). */
const deps = loadTransportDeps('transport-loopback', { blobs: s3Blobs });

export const handler = sendAttemptTasks.Transport(
  loopbackTransport({ addresses: (a) => getAddresses(deps.db, a) }),
  transportTask('loopback'),
)(deps);
