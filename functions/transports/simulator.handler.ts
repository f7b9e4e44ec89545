import { loadTransportDeps } from '../env.ts';
import { sendAttemptTasks } from '../send/tasks.ts';
import { getAddresses } from '../store/directory.store.ts';
import { simulatorTransport } from './simulator.transport.ts';
import { transportTask } from './tasks.ts';

/** Lambda entry of the simulator transport task (test tenants). */
const deps = loadTransportDeps('transport-simulator');

export const handler = sendAttemptTasks.Transport(
  simulatorTransport({
    addresses: (a) => getAddresses(deps.db, a),
    events: deps.events,
    clock: deps.clock,
    eventDelaySeconds: deps.simEventDelaySeconds,
  }),
  transportTask('simulator'),
)(deps);
