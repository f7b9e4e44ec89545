import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { LambdaClient } from '@aws-sdk/client-lambda';
import { S3Client } from '@aws-sdk/client-s3';
import { SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { SESv2Client } from '@aws-sdk/client-sesv2';
import { SFNClient } from '@aws-sdk/client-sfn';
import { SQSClient } from '@aws-sdk/client-sqs';
import { invokeSmtpProbe } from '../functions/adapters/lambda-smtp-probe.ts';
import { sesIdentities } from '../functions/adapters/ses-identities.ts';
import { sqsEvents, sqsVisibility, sqsWebhooks } from '../functions/adapters/sqs-queues.ts';
import { sfnDispatcher, sfnMachinesStatus } from '../functions/adapters/step-functions.ts';
import { loadCloudflareApiToken, loadKeys, required } from '../functions/env.ts';
import type { PortCall } from '../functions/local/aws-calls.ts';
import { LOCAL_SECRET_PREFIX } from '../functions/local/transports.ts';
import { silentLogger } from '../functions/log.ts';
import { s3Blobs } from '../functions/store/blobs.ts';
import {
  type SecretStore,
  secretsManagerStore,
  smtpCredentials,
} from '../functions/store/relay-secrets.store.ts';
import { sesTransport } from '../functions/transports/ses.transport.ts';

/**
 * A recorded port call replayed through the port's AWS adapter, built as the Lambda's entry builds it
 * from the Lambda's environment in the template, against clients that record each request and
 * answer it from a table (no network, no AWS): what the Lambda would ask AWS.
 */

export interface AwsRequest {
  /** The client: `s3`, `sqs`, `states`, `sesv2`, `lambda`, `secretsmanager`, `dynamodb`. */
  service: string;
  /** The Region the client was made for, when it is not the function's (an SES domain's own). */
  region?: string;
  operation: string;
  input: Record<string, unknown>;
}

export interface Clients {
  /** SESv2 in a domain's own Region (a domain may name one). */
  sesIn(region: string | undefined): SESv2Client;
  s3: S3Client;
  sqs: SQSClient;
  sfn: SFNClient;
  sesv2: SESv2Client;
  lambda: LambdaClient;
  secrets: SecretsManagerClient;
}

/** Canned answers: enough for each adapter to go on as after a success. */
const ANSWERS: Record<string, Record<string, unknown>> = {
  'S3.GetObject': { Body: { transformToByteArray: async () => new Uint8Array() }, Metadata: {} },
  'S3.ListObjectsV2': { Contents: [], IsTruncated: false },
  'SQS.SendMessageBatch': { Successful: [], Failed: [] },
  'SFN.DescribeExecution': { status: 'RUNNING' },
  'SFN.DescribeStateMachine': { status: 'ACTIVE' },
  'SESv2.CreateEmailIdentity': { DkimAttributes: { Tokens: [], SigningHostedZone: 'dkim.amazonses.com' } },
  'SESv2.GetEmailIdentity': { VerifiedForSendingStatus: true, DkimAttributes: { Status: 'SUCCESS' } },
  'SESv2.SendEmail': { MessageId: 'replayed' },
  'Lambda.Invoke': { Payload: new TextEncoder().encode('{"ok":true}') },
  'SecretsManager.GetSecretValue': { SecretString: '{"username":"u","password":"p","hash_key":"h"}' },
};

const CLIENT_SERVICE: Record<string, string> = {
  S3: 's3',
  SQS: 'sqs',
  SFN: 'states',
  SESv2: 'sesv2',
  Lambda: 'lambda',
  SecretsManager: 'secretsmanager',
};

/** A real SDK client whose first middleware writes the request down and answers it. */
function recording<C extends { middlewareStack: { add: (...a: never[]) => void } }>(
  make: new (config: object) => C,
  prefix: string,
  sink: AwsRequest[],
  region?: string,
): C {
  const client = new make({
    region: region ?? process.env.AWS_REGION ?? 'us-east-1',
    credentials: { accessKeyId: 'x', secretAccessKey: 'x' },
  });
  client.middlewareStack.add(
    ((_next: unknown, context: { commandName?: string }) =>
      async (args: { input: Record<string, unknown> }) => {
        const operation = String(context.commandName).replace(/Command$/, '');
        sink.push({
          service: CLIENT_SERVICE[prefix],
          operation,
          input: args.input,
          ...(region ? { region } : {}),
        });
        return { output: { $metadata: {}, ...(ANSWERS[`${prefix}.${operation}`] ?? {}) }, response: {} };
      }) as never,
    { step: 'initialize', priority: 'high', name: 'pmailRecordRequest' } as never,
  );
  return client;
}

export function recordingClients(sink: AwsRequest[]): Clients {
  return {
    sesIn: (region) => recording(SESv2Client, 'SESv2', sink, region),
    s3: recording(S3Client, 'S3', sink),
    sqs: recording(SQSClient, 'SQS', sink),
    sfn: recording(SFNClient, 'SFN', sink),
    sesv2: recording(SESv2Client, 'SESv2', sink),
    lambda: recording(LambdaClient, 'Lambda', sink),
    secrets: recording(SecretsManagerClient, 'SecretsManager', sink),
  };
}

/** Read a variable the entry requires of its environment; its absence is a finding of the check. */
export class MissingVariable extends Error {}
const env = (name: string): string => {
  try {
    return required(name);
  } catch {
    throw new MissingVariable(`${name} is not set in the function's environment`);
  }
};

let tokenClock = Date.now();

/**
 * Each port's AWS adapter, built as the Lambda entries build it (the entry named beside each):
 * `npm run check:deploy` fails naming a recorded port that has none here.
 */
export const AWS_ADAPTERS: Record<string, (c: Clients) => unknown> = {
  // functions/env.ts › loadLambdaDeps, with the factories the entries pass.
  blobs: (c) => s3Blobs(env, c.s3),
  dispatcher: (c) => sfnDispatcher(env, c.sfn),
  events: (c) => sqsEvents(env, c.sqs),
  // functions/webhooks/fan-out.handler.ts, deliver.handler.ts
  webhookQueue: (c) => sqsWebhooks(env, c.sqs),
  // functions/events/delivery-events.handler.ts
  queueVisibility: (c) => sqsVisibility(env, c.sqs),
  // functions/api/meta.handler.ts
  stateMachines: (c) => sfnMachinesStatus(c.sfn),
  // functions/api/domains.handler.ts, functions/domains/check.handler.ts
  sesIdentities: (c) => sesIdentities({ region: process.env.AWS_REGION ?? 'us-east-1' }, (r) => c.sesIn(r)),
  // The secret names the API computed with the local prefix (functions/local/transports.ts), as the
  // stack's prefix names them (PMAIL_SMTP_SECRET_PREFIX).
  relaySecrets: (c) => renamedSecrets(secretsManagerStore(c.secrets)),
  smtpProbe: (c) => invokeSmtpProbe(env('PMAIL_SMTP_PROBE_FUNCTION'), c.lambda),
  // functions/send/smtp-transport.handler.ts
  smtpCredentials: (c) =>
    smtpCredentials(secretsManagerStore(c.secrets), process.env.PMAIL_SMTP_SECRET_PREFIX ?? 'pmail'),
  // functions/send/ses-transport.handler.ts
  sesTransport: (c) =>
    sesTransport({
      client: (settings) => c.sesIn(settings?.region),
      defaultConfigurationSet: process.env.PMAIL_SES_CONFIGURATION_SET,
      log: silentLogger,
    }),
  // functions/send/cloudflare-transport.handler.ts (a Secrets Manager read through @aws-lite/client;
  // each replay is past the five minutes it keeps a token)
  // Without PMAIL_CF_API_TOKEN_SECRET_ARN (a stack without Cloudflare settings) the transport refuses
  // the send before any AWS call (lib/relay-secrets.ts › cloudflareSendingToken).
  cloudflareToken: () => async () => {
    if (!process.env.PMAIL_CF_API_TOKEN_SECRET_ARN) return;
    tokenClock += 600_000;
    return loadCloudflareApiToken(tokenClock);
  },
};

function renamedSecrets(store: SecretStore): SecretStore {
  const name = (n: string) =>
    n.startsWith(`${LOCAL_SECRET_PREFIX}/`)
      ? `${env('PMAIL_SMTP_SECRET_PREFIX')}${n.slice(LOCAL_SECRET_PREFIX.length)}`
      : n;
  return {
    read: (n) => store.read(name(n)),
    write: (n, v) => store.write(name(n), v),
    remove: (n) => store.remove(name(n)),
  };
}

/** Bytes come back empty, a stored copy reads as empty, everything else as recorded. */
function restore(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(restore);
  if (v === null || typeof v !== 'object') return v;
  const o = v as Record<string, unknown>;
  if (typeof o.$bytes === 'number') return new Uint8Array();
  const out = Object.fromEntries(Object.entries(o).map(([k, x]) => [k, restore(x)]));
  if ('key' in out && 'size' in out && !('load' in out)) out.load = async () => new Uint8Array();
  return out;
}

/** The AWS requests of one port call (for `table`, the request itself: its adapter sent it to DynamoDB Local). */
export async function replay(call: PortCall, sink: AwsRequest[], clients: Clients): Promise<void> {
  if (call.port === 'table') {
    const input = { TableName: env('PMAIL_TABLE'), ...(call.args[0] as object) };
    sink.push({ service: 'dynamodb', operation: call.method, input });
    return;
  }
  const build = AWS_ADAPTERS[call.port];
  if (!build) throw new Error(`port ${call.port} has no AWS adapter in deploy/replay.ts to replay it with`);
  const port = build(clients) as
    | Record<string, (...a: unknown[]) => unknown>
    | ((...a: unknown[]) => unknown);
  const args = call.args.map(restore);
  const fn = typeof port === 'function' ? port : port[call.method]?.bind(port);
  if (!fn) throw new Error(`port ${call.port} has no method ${call.method} in its AWS adapter`);
  const out = fn(...args);
  if (out && typeof (out as AsyncIterable<unknown>)[Symbol.asyncIterator] === 'function')
    for await (const _ of out as AsyncIterable<unknown>) void _;
  else await out;
}

/** What every function built by `loadLambdaDeps` reads at its cold start: the keys secret. */
export async function replayColdStart(): Promise<void> {
  await loadKeys();
}

/**
 * Requests sent through `@aws-lite/client` (the keys and token secrets): a local server that writes
 * each down by its `X-Amz-Target` and answers like Secrets Manager. `AWS_ENDPOINT_URL_SECRETS_MANAGER`
 * points functions/adapters/secrets.ts at it.
 */
export async function liteRecorder(
  push: (r: AwsRequest) => void,
): Promise<{ url: string; close(): Promise<void> }> {
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const [prefix, operation] = String(req.headers['x-amz-target'] ?? '').split('.');
      const input = JSON.parse(Buffer.concat(chunks).toString('utf8') || '{}');
      push({ service: prefix.toLowerCase(), operation, input });
      res.writeHead(200, { 'content-type': 'application/x-amz-json-1.1' });
      res.end(JSON.stringify(ANSWERS[`SecretsManager.${operation}`] ?? {}));
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
}
