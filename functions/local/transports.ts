import type { Deps } from '../deps.ts';
import { getAddresses } from '../store/directory.store.ts';
import { loopbackTransport } from '../transports/loopback.transport.ts';
import { sesClients, sesTransport } from '../transports/ses.transport.ts';
import { simulatorTransport } from '../transports/simulator.transport.ts';
import type { Transport, TransportProvider } from '../transports/transport.ts';

export const LOCAL_SES_CREDENTIALS = { accessKeyId: 'local', secretAccessKey: 'local' };

/**
 * The adapters `npm start` and the tests bind to the transport tasks: the same adapters the Lambda
 * entries build (functions/transports/*.handler.ts), on the local ports.
 */
export function localTransports(
  deps: Deps,
  opts: { sesEndpoint?: string } = {},
): Partial<Record<TransportProvider, Transport>> {
  const addresses = (a: string[]) => getAddresses(deps.db, a);
  const clients = sesClients({ region: 'us-east-1', credentials: LOCAL_SES_CREDENTIALS });
  return {
    // Locally every SES domain sends to the local SES: `npm start`'s (`sesEndpoint`, which wins, so a
    // restart on another port still finds it) or the one the domain names (tests).
    ses: sesTransport({
      client: (settings) => clients({ ...settings, endpoint: opts.sesEndpoint ?? settings?.endpoint }),
      defaultConfigurationSet: undefined,
      log: deps.log,
    }),
    loopback: loopbackTransport({ addresses }),
    simulator: simulatorTransport({
      addresses,
      // Read at publish time: the runtime puts its events queue into `deps` after building these.
      events: { publish: (events, delaySeconds) => deps.events.publish(events, delaySeconds) },
      clock: deps.clock,
      eventDelaySeconds: deps.config.simEventDelaySeconds,
    }),
  };
}
