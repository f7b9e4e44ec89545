import type { Deps } from '../deps.ts';
import { getAddresses } from '../store/directory.store.ts';
import { loopbackTransport } from '../transports/loopback.transport.ts';
import { simulatorTransport } from '../transports/simulator.transport.ts';
import type { Transport, TransportProvider } from '../transports/transport.ts';

/**
 * The adapters `npm start` and the tests bind to the transport tasks: the same adapters the Lambda
 * entries build (functions/transports/*.handler.ts), on the local ports.
 */
export function localTransports(deps: Deps): Partial<Record<TransportProvider, Transport>> {
  const addresses = (a: string[]) => getAddresses(deps.db, a);
  return {
    loopback: loopbackTransport({ addresses }),
    simulator: simulatorTransport({
      addresses,
      events: deps.events,
      clock: deps.clock,
      eventDelaySeconds: deps.config.simEventDelaySeconds,
    }),
  };
}
