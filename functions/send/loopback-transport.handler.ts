import { loadTransportDeps } from '../env.ts';
import { s3Blobs } from '../store/blobs.ts';
import { getAddresses } from '../store/directory.store.ts';
import { loopbackTransport } from '../transports/loopback.transport.ts';
import { transportTask } from '../transports/tasks.ts';
import { transportAttemptTask } from './task-entry.ts';

/** Lambda entry of the loopback transport task (test tenants). */
const deps = loadTransportDeps('transport-loopback', { blobs: s3Blobs });

export const handler = transportAttemptTask(
  loopbackTransport({ addresses: (a) => getAddresses(deps.db, a) }),
  transportTask('loopback'),
)(deps);
