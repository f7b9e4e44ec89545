import type { TransportProvider } from './transport.ts';

/**
 * The transport tasks of statemachines/send-attempt.asl.json, written once: the ASL's `ByProvider`
 * Choice names one state per entry, lib/send-machine.ts deploys one Lambda per entry (with only that
 * transport's permissions) and substitutes `arn`, and the local runtime binds the same states to
 * the same adapters (functions/local/state-machine.ts). test/infra/asl.test.ts checks the three agree.
 */
export interface TransportTaskSpec {
  provider: TransportProvider;
  /** The ASL Task state. */
  state: string;
  /** The `${…}` placeholder of its Resource. */
  arn: string;
  /** The Lambda entry (repository-relative), exporting `handler`. */
  entry: string;
  /** The Task state's TimeoutSeconds; the adapter's deadline is 10 s inside it. */
  timeoutSeconds: number;
}

export const TRANSPORT_TASKS: readonly TransportTaskSpec[] = [
  {
    provider: 'loopback',
    state: 'TransportLoopback',
    arn: 'LoopbackTransportFunctionArn',
    entry: 'functions/send/loopback-transport.handler.ts',
    timeoutSeconds: 60,
  },
  {
    provider: 'simulator',
    state: 'TransportSimulator',
    arn: 'SimulatorTransportFunctionArn',
    entry: 'functions/send/simulator-transport.handler.ts',
    timeoutSeconds: 60,
  },
  {
    provider: 'ses',
    state: 'TransportSes',
    arn: 'SesTransportFunctionArn',
    entry: 'functions/send/ses-transport.handler.ts',
    // connect 5 s + answer 30 s (ses.transport.ts › SES_CLIENT_DEFAULTS), well inside 50 s.
    timeoutSeconds: 60,
  },
  {
    provider: 'smtp',
    state: 'TransportSmtp',
    arn: 'SmtpTransportFunctionArn',
    entry: 'functions/send/smtp-transport.handler.ts',
    // The adapter's deadline is 4 minutes (250 s less the 10 s margin): a slow relay's whole conversation.
    timeoutSeconds: 250,
  },
  {
    provider: 'cloudflare',
    state: 'TransportCloudflare',
    arn: 'CloudflareTransportFunctionArn',
    entry: 'functions/send/cloudflare-transport.handler.ts',
    // Up to three requests (provider-suppression rounds) and the lookups between them.
    timeoutSeconds: 60,
  },
];

/** The providers a transport task exists for (what Claim may choose). */
export const DEPLOYED_PROVIDERS: readonly TransportProvider[] = TRANSPORT_TASKS.map((t) => t.provider);

/** Milliseconds an adapter may take: its task's timeout less a margin for the task's own writes. */
export const adapterBudgetMs = (spec: TransportTaskSpec): number => (spec.timeoutSeconds - 10) * 1000;

export function transportTask(provider: TransportProvider): TransportTaskSpec {
  const spec = TRANSPORT_TASKS.find((t) => t.provider === provider);
  if (!spec) throw new Error(`no transport task for ${provider}`);
  return spec;
}
