import type { DynamoDBBatchResponse, DynamoDBStreamEvent, ScheduledEvent } from 'aws-lambda';
import { apiGatewayConnections } from '../adapters/api-gateway-connections.ts';
import { loadLambdaDeps, required } from '../env.ts';
import { streamFanOut } from './fan-out.ts';
import { streamTick } from './tick.ts';

/**
 * Lambda entry of the stream's fan-out, the one function that may post to the WebSocket API's
 * connections (lib/stream.ts): the table's stream (outbox events, new connections, revoked keys)
 * and the every-minute schedule (heartbeats, ended keys, catch-up).
 */
const deps = await loadLambdaDeps('stream-fan-out', {});
const connections = apiGatewayConnections(
  required('PMAIL_STREAM_ENDPOINT'),
  required('PMAIL_STREAM_GATEWAY'),
);

/** The schedule's pass stops starting tenants after this, inside the function's 60-second timeout. */
const TICK_BUDGET_MS = 40_000;

export async function handler(
  event: DynamoDBStreamEvent | ScheduledEvent,
): Promise<DynamoDBBatchResponse | undefined> {
  if ('Records' in event) return streamFanOut(deps, connections, event.Records);
  await streamTick(deps, connections, TICK_BUDGET_MS);
  return undefined;
}
