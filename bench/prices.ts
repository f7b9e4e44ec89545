/**
 * The list prices the bench turns counted units into dollars with: AWS on-demand, us-east-1, as
 * published on the services' pricing pages (checked 2026-12). The DynamoDB units are the bench's
 * counted figures; the other services are counted per send from the architecture (one HTTP API
 * request, the Lambda invocations and the Express execution of one send attempt, one SQS message for
 * the delivery event), written here so a reader can check them.
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

/** What one accepted one-recipient send costs besides DynamoDB, counted from the architecture. */
export const PER_SEND = {
  httpApiRequests: 1,
  /** The API handler, Claim, the transport task, Record, the delivery-event consumer. */
  lambdaInvocations: 5,
  /** ~60 ms each at 256 MB (a warm invocation's billed duration on the bench's figures). */
  lambdaGbSeconds: 5 * 0.06 * 0.25,
  expressRequests: 1,
  /** One Express execution, ~1 s end to end at 64 MB. */
  expressGbSeconds: 1 * 0.0625,
  /** The delivery event: sent, received, deleted. */
  sqsRequests: 3,
} as const;

export interface CostLine {
  what: string;
  perThousand: number;
}

/** $ per 1,000 accepted sends, from the counted DynamoDB units per send and the list above. */
export function costPerThousand(wcuPerSend: number, rcuPerSend: number): CostLine[] {
  const k = 1000;
  return [
    {
      what: `DynamoDB writes (${wcuPerSend.toFixed(2)} WRU/send)`,
      perThousand: k * wcuPerSend * PRICES.dynamoWriteUnit,
    },
    {
      what: `DynamoDB reads (${rcuPerSend.toFixed(2)} RRU/send)`,
      perThousand: k * rcuPerSend * PRICES.dynamoReadUnit,
    },
    {
      what: 'API Gateway HTTP API (1 request)',
      perThousand: k * PER_SEND.httpApiRequests * PRICES.httpApiRequest,
    },
    {
      what: `Lambda (${PER_SEND.lambdaInvocations} invocations, ${PER_SEND.lambdaGbSeconds} GB-s)`,
      perThousand:
        k *
        (PER_SEND.lambdaInvocations * PRICES.lambdaRequest +
          PER_SEND.lambdaGbSeconds * PRICES.lambdaGbSecond),
    },
    {
      what: 'Step Functions Express (1 execution)',
      perThousand:
        k *
        (PER_SEND.expressRequests * PRICES.expressRequest +
          PER_SEND.expressGbSeconds * PRICES.expressGbSecond),
    },
    { what: 'SQS (3 requests)', perThousand: k * PER_SEND.sqsRequests * PRICES.sqsRequest },
  ];
}
