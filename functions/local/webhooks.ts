import { join } from 'node:path';
import type { BaseDeps } from '../deps.ts';
import { deliverBatch } from '../webhooks/deliver.ts';
import { fanOut } from '../webhooks/fan-out.ts';
import { systemPoster } from '../webhooks/http-client.ts';
import type { WebhookQueue } from '../webhooks/webhook-queue.ts';
import { asLambdaOf, recordedPort } from './aws-calls.ts';
import { LocalQueue } from './queue.ts';
import { LocalStreamPoller } from './stream.ts';

/**
 * Webhooks in the local runtime, wired as lib/webhooks.ts wires them in AWS: the table's stream
 * (DynamoDB Local's own) → the fan-out → the webhook-deliveries queue (in-process) → the
 * deliverer, which POSTs with the real HTTP client.
 */
export async function localWebhooks(
  deps: BaseDeps,
  delivererDeps: BaseDeps,
  opts: { endpoint: string; stateDir: string; durable: boolean; stream: boolean; scheduleScale?: number },
): Promise<{ queue: LocalQueue; close(): Promise<void> }> {
  let sink: WebhookQueue | undefined;
  const queue = new LocalQueue(delivererDeps, {
    // Real seconds: the deliverer compares each job's due_at with the clock. Tests shrink the
    // schedule itself (scheduleScale) instead.
    secondsToMs: 1000,
    dir: opts.durable ? join(opts.stateDir, 'webhook-queue') : undefined,
    consume: (event) =>
      deliverBatch(
        delivererDeps,
        { queue: sink!, post: systemPoster, jitter: Math.random, scheduleScale: opts.scheduleScale },
        event,
      ),
  });
  // The webhook-deliveries queue as both Lambdas' port (SQS in AWS: functions/adapters/sqs-queues.ts).
  sink = recordedPort<WebhookQueue>('webhookQueue', {
    send: async (jobs) => {
      for (const j of jobs) queue.sendRaw(JSON.stringify(j.job), j.delaySeconds);
    },
  });
  const poller = opts.stream
    ? new LocalStreamPoller(deps.db, {
        endpoint: opts.endpoint,
        handler: (records) => asLambdaOf(deps, () => fanOut(deps, sink!, records)),
        log: deps.log,
        checkpointFile: opts.durable ? join(opts.stateDir, 'stream-checkpoint.json') : undefined,
      })
    : undefined;
  await poller?.start();
  return {
    queue,
    close: async () => {
      await poller?.stop();
      queue.close();
    },
  };
}
