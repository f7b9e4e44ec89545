import { sqsEvents } from '../adapters/sqs-queues.ts';
import { loadTransportDeps, required } from '../env.ts';
import { s3Blobs } from '../store/blobs.ts';
import { getAddresses } from '../store/directory.store.ts';
import { simulatorTransport } from '../transports/simulator.transport.ts';
import { transportTask } from '../transports/tasks.ts';
import { transportAttemptTask } from './task-entry.ts';

/** Lambda entry of the simulator transport task (test tenants). */
const deps = loadTransportDeps('transport-simulator', { blobs: s3Blobs });

export const handler = transportAttemptTask(
  simulatorTransport({
    addresses: (a) => getAddresses(deps.db, a),
    events: sqsEvents(required),
    clock: deps.clock,
    eventDelaySeconds: deps.simEventDelaySeconds,
  }),
  transportTask('simulator'),
)(deps);
