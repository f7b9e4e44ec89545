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
  /** Lambda: $0.20 per million requests, plus $0.0000166667 per GB-second (arm64 is 20 % less). */
  lambdaRequest: 0.2 / 1e6,
  lambdaGbSecond: 0.0000166667,
  /** Step Functions Express: $1.00 per million requests, $0.00001667 per GB-second (64 MB steps). */
  expressRequest: 1.0 / 1e6,
  expressGbSecond: 0.00001667,
  /** SQS standard: $0.40 per million requests (send, receive, delete: 3 per message). */
  sqsRequest: 0.4 / 1e6,
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
  /** The time from the 202 until the execution and its delivery event settled, ms (measured). */
  settleMs: number;
}

/**
 * The fixed shape of a send that the bench cannot count on a laptop, from the architecture:
 * one HTTP API request; the Lambda invocations besides the API's (Claim, the transport task,
 * Record, the delivery-event consumer); the delivery event's SQS requests (send, receive, delete).
 */
export const PER_SEND = {
  httpApiRequests: 1,
  attemptInvocations: 4,
  sqsRequests: 3,
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
 * bound: the tasks run one after another inside it, with the queue's hop and waits between).
 */
export function costPerThousand(u: SendUsage): CostLine[] {
  const k = 1000;
  const lambdaGbS = ((u.apiHandlerMs + u.settleMs) / 1000) * LAMBDA_MEMORY_GB;
  const invocations = 1 + PER_SEND.attemptInvocations * u.executions;
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
      what: `SQS (${PER_SEND.sqsRequests} requests)`,
      perThousand: k * PER_SEND.sqsRequests * PRICES.sqsRequest,
    },
  ];
}
