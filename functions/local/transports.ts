import type { Deps } from '../deps.ts';
import { loadCloudflareApiToken } from '../env.ts';
import { getAddresses } from '../store/directory.store.ts';
import { type SecretStore, smtpCredentials } from '../store/relay-secrets.store.ts';
import { type CloudflareSendSettings, cloudflareTransport } from '../transports/cloudflare.transport.ts';
import { loopbackTransport } from '../transports/loopback.transport.ts';
import { sesClients, sesTransport } from '../transports/ses.transport.ts';
import { simulatorTransport } from '../transports/simulator.transport.ts';
import { type SmtpPorts, type SmtpSettings, smtpTransport } from '../transports/smtp.transport.ts';
import type { Transport, TransportProvider } from '../transports/transport.ts';
import { recordedPort } from './aws-calls.ts';

/** The secret prefix of the local runtime (the stack name in AWS). */
export const LOCAL_SECRET_PREFIX = 'pmail';

export interface LocalTransportOptions {
  /** Where the relays' secrets live locally (functions/store/relay-secrets.store.ts). */
  secrets?: SecretStore;
  /**
   * The SMTP adapter's settings. Locally the SSRF opt-out is on by default (`allowLocalRelays`), so
   * a live tenant's domain can point at a capture server on the machine; never in a Lambda.
   */
  smtp?: SmtpSettings;
  /**
   * The Cloudflare adapter's settings and token (tests point `apiBase` at a local server). Default:
   * PM_CF_API_TOKEN and PM_CF_ACCOUNT_ID from the environment.
   */
  cloudflare?: CloudflareSendSettings & { apiToken?: string; fetch?: typeof fetch };
  /** `npm start`'s local SES (aws-ses-v2-local): every SES domain sends there when set. */
  sesEndpoint?: string;
}

/** The SMTP adapter's ports locally (the relay probe of the domains API uses the same). */
export function localSmtpPorts(deps: Pick<Deps, 'log'>, opts: LocalTransportOptions): SmtpPorts {
  const secrets = opts.secrets;
  return {
    // Secrets Manager's GetSecretValue in AWS (functions/store/relay-secrets.store.ts).
    credentials: recordedPort(
      'smtpCredentials',
      secrets ? smtpCredentials(secrets, LOCAL_SECRET_PREFIX) : async () => undefined,
    ),
    log: deps.log,
  };
}

/** The SMTP adapter's settings locally: the SSRF opt-out on, unless the options say otherwise. */
export const localSmtpSettings = (opts: LocalTransportOptions): SmtpSettings => ({
  allowLocalRelays: true,
  ...opts.smtp,
});

export const LOCAL_SES_CREDENTIALS = { accessKeyId: 'local', secretAccessKey: 'local' };

/**
 * The adapters `npm start` and the tests bind to the transport tasks: the same adapters the Lambda
 * entries build (functions/transports/*.handler.ts), on the local ports.
 */
export function localTransports(
  deps: Deps,
  opts: LocalTransportOptions = {},
): Partial<Record<TransportProvider, Transport>> {
  const addresses = (a: string[]) => getAddresses(deps.db, a);
  const clients = sesClients({ region: 'us-east-1', credentials: LOCAL_SES_CREDENTIALS });
  return {
    // Locally every SES domain sends to the local SES: `npm start`'s (`sesEndpoint`, which wins, so a
    // restart on another port still finds it) or the one the domain names (tests).
    // Recorded as the port: in AWS the same adapter sends through the stack's configuration set.
    ses: recordedPort(
      'sesTransport',
      sesTransport({
        client: (settings) => clients({ ...settings, endpoint: opts.sesEndpoint ?? settings?.endpoint }),
        defaultConfigurationSet: undefined,
        log: deps.log,
      }),
    ),
    loopback: loopbackTransport({ addresses }),
    simulator: simulatorTransport({
      addresses,
      // Read at publish time: the runtime puts its events queue into `deps` after building these.
      events: { publish: (events, delaySeconds) => deps.events.publish(events, delaySeconds) },
      clock: deps.clock,
      eventDelaySeconds: deps.config.simEventDelaySeconds,
    }),
    smtp: smtpTransport(localSmtpPorts(deps, opts), localSmtpSettings(opts)),
    cloudflare: cloudflareTransport(
      {
        // Secrets Manager's GetSecretValue in AWS (functions/env.ts › loadCloudflareApiToken).
        apiToken: recordedPort(
          'cloudflareToken',
          async () => opts.cloudflare?.apiToken ?? loadCloudflareApiToken(),
        ),
        fetch: opts.cloudflare?.fetch,
        log: deps.log,
      },
      { accountId: process.env.PM_CF_ACCOUNT_ID || undefined, ...opts.cloudflare },
    ),
  };
}
