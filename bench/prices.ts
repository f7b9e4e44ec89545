import { LAMBDA_MEMORY_MB } from '../lib/defaults.ts';

/**
 * The list prices the bench turns counted usage into dollars with: AWS on-demand, us-east-1, as
 * published on the services' pricing pages (checked 2026-12). What a send uses is counted and timed
 * by the bench (`SendUsage`); what a laptop cannot count is the architecture's fixed shape
 * (`PER_SEND`), written here so a reader can check it.
 */
export const PRICES = {
  /** DynamoDB on-demand: $0.625 per million write request units. */
  dynamoWriteUnit: 0.625 / 1e6,
  /** DynamoDB on-demand: $0.125 per million read request units. */
  dynamoReadUnit: 0.125 / 1e6,
  /** API Gateway HTTP API: $1.00 per million requests. */
  httpApiRequest: 1.0 / 1e6,
  /** API Gateway WebSocket API: $1.00 per million messages (each 32 KB), $0.25 per million connection minutes. */
  wsMessage: 1.0 / 1e6,
  wsConnectionMinute: 0.25 / 1e6,
  /** Lambda: $0.20 per million requests, plus $0.0000166667 per GB-second (arm64 is 20 % less). */
  lambdaRequest: 0.2 / 1e6,
  lambdaGbSecond: 0.0000166667,
  /** Step Functions Express: $1.00 per million requests, $0.00001667 per GB-second (64 MB steps). */
  expressRequest: 1.0 / 1e6,
  expressGbSecond: 0.00001667,
  /** SQS standard: $0.40 per million requests (send, receive, delete: 3 per message). */
  sqsRequest: 0.4 / 1e6,
  /** SNS standard topics: $0.50 per million publishes (deliveries to SQS are free). */
  snsPublish: 0.5 / 1e6,
  /** SES outbound: $0.10 per 1,000 emails, the yardstick. */
  sesPerThousand: 0.1,
} as const;

/**
 * What one accepted one-recipient send uses, as the bench counted it in its capacity run (sequential
 * sends, each settled before the next): the DynamoDB units DynamoDB bills, the units its failed
 * conditional writes bill (DynamoDB Local reports none for them), the API
 * handler's measured duration and the measured time from the 202 to the send settled.
 */
export interface SendUsage {
  wcu: number;
  rcu: number;
  /** The write units the send's failed conditional writes bill (bench/capacity.ts › failedBilled). */
  failedWriteUnits: number;
  /** The API handler's p50 duration (handler alone), ms. */
  apiHandlerMs: number;
  /** Express executions per send (counted). */
  executions: number;
  /** The time from the 202 until the attempt settled, ms (measured). */
  settleMs: number;
  /** The consumer's time applying the provider's events, ms (measured). */
  eventsMs: number;
}

/**
 * The fixed shape of a send that the bench cannot count on a laptop, from the architecture, for a
 * send through SES (the default transport): one HTTP API request; the attempt's three task
 * invocations (Claim, the transport, Record); and the two events SES publishes for a delivered
 * one-recipient send (Send, then Delivery: lib/events.ts subscribes the configuration set to both),
 * each one SNS publish to the events topic, three SQS requests (send, receive, delete) and one
 * consumer invocation. Under load the queue's poller takes up to ten messages per receive, delete
 * and invocation; one per event is the figure at low volume.
 */
export const PER_SEND = {
  httpApiRequests: 1,
  attemptInvocations: 3,
  providerEvents: 2,
  perEvent: { snsPublishes: 1, sqsRequests: 3, invocations: 1 },
} as const;

/** Every pmail function's memory (lib/defaults.ts) and Lambda's arm64 GB-second price. */
export const LAMBDA_MEMORY_GB = LAMBDA_MEMORY_MB / 1024;
const LAMBDA_ARM_GB_SECOND = PRICES.lambdaGbSecond * 0.8;
/** Express bills 64 MB steps; the send-attempt machine's payloads fit the first. */
const EXPRESS_GB = 0.0625;

export interface CostLine {
  what: string;
  perThousand: number;
}

/**
 * $ per 1,000 accepted sends, each service's line from the counted usage and the list above. The
 * attempt's Lambda invocations are billed the whole measured settle time between them (an upper
 * bound: the tasks run one after another inside it, with waits between), the consumer the time it
 * took to apply the events.
 */
export function costPerThousand(u: SendUsage): CostLine[] {
  const k = 1000;
  const lambdaGbS = ((u.apiHandlerMs + u.settleMs + u.eventsMs) / 1000) * LAMBDA_MEMORY_GB;
  const events = PER_SEND.providerEvents;
  const invocations = 1 + PER_SEND.attemptInvocations * u.executions + events * PER_SEND.perEvent.invocations;
  const sqsRequests = events * PER_SEND.perEvent.sqsRequests;
  const snsPublishes = events * PER_SEND.perEvent.snsPublishes;
  return [
    {
      what: `DynamoDB writes (${u.wcu.toFixed(2)} WRU/send, +${u.failedWriteUnits.toFixed(2)} for failed conditional writes)`,
      perThousand: k * (u.wcu + u.failedWriteUnits) * PRICES.dynamoWriteUnit,
    },
    {
      what: `DynamoDB reads (${u.rcu.toFixed(2)} RRU/send)`,
      perThousand: k * u.rcu * PRICES.dynamoReadUnit,
    },
    {
      what: 'API Gateway HTTP API (1 request)',
      perThousand: k * PER_SEND.httpApiRequests * PRICES.httpApiRequest,
    },
    {
      what: `Lambda (${invocations.toFixed(2)} invocations, ${lambdaGbS.toFixed(4)} GB-s at ${LAMBDA_MEMORY_MB} MB arm64)`,
      perThousand: k * (invocations * PRICES.lambdaRequest + lambdaGbS * LAMBDA_ARM_GB_SECOND),
    },
    {
      what: `Step Functions Express (${u.executions.toFixed(2)} executions, ${(u.settleMs / 1000).toFixed(2)} s)`,
      perThousand:
        k *
        u.executions *
        (PRICES.expressRequest + (u.settleMs / 1000) * EXPRESS_GB * PRICES.expressGbSecond),
    },
    {
      what: `SNS (${snsPublishes} publishes: SES's Send and Delivery events)`,
      perThousand: k * snsPublishes * PRICES.snsPublish,
    },
    {
      what: `SQS (${sqsRequests} requests, ${PER_SEND.perEvent.sqsRequests} per event)`,
      perThousand: k * sqsRequests * PRICES.sqsRequest,
    },
  ];
}
