import { SendMessageBatchCommand, SQSClient } from '@aws-sdk/client-sqs';
import { mockClient } from 'aws-sdk-client-mock';
import { beforeEach, describe, expect, it } from 'vitest';
import { sqsWebhookQueue } from '../../functions/adapters/sqs-queues.ts';

const sqs = mockClient(SQSClient);
const job = (n: number) => ({ tenant_id: 'ten_x', webhook_id: 'whk_x', event_id: `evt_${n}`, attempt: 1 });

describe('the SQS webhook-deliveries queue', () => {
  beforeEach(() => {
    sqs.reset();
    sqs.on(SendMessageBatchCommand).resolves({ Successful: [], Failed: [] });
  });

  it('sends jobs in batches of ten, the delay in whole seconds between 0 and 900', async () => {
    const queue = sqsWebhookQueue('https://sqs.example/q', new SQSClient({ region: 'us-east-1' }));
    const delays = [0, 0.03, 29.7, 900, 3600, -5, 1, 2, 3, 4, 5, 6];
    await queue.send(delays.map((d, i) => ({ job: job(i), delaySeconds: d })));
    const calls = sqs.commandCalls(SendMessageBatchCommand).map((c) => c.args[0].input);
    expect(calls.map((c) => c.Entries!.length)).toEqual([10, 2]);
    expect(calls.flatMap((c) => c.Entries!.map((e) => e.DelaySeconds))).toEqual([
      0, 1, 30, 900, 900, 0, 1, 2, 3, 4, 5, 6,
    ]);
    expect(JSON.parse(calls[0].Entries![1].MessageBody!)).toEqual(job(1));
    expect(calls.every((c) => c.QueueUrl === 'https://sqs.example/q')).toBe(true);
  });

  it('fails when SQS refuses part of a batch, so the caller retries it', async () => {
    sqs
      .on(SendMessageBatchCommand)
      .resolves({ Failed: [{ Id: '0', SenderFault: false, Code: 'InternalError' }] });
    const queue = sqsWebhookQueue('https://sqs.example/q', new SQSClient({ region: 'us-east-1' }));
    await expect(queue.send([{ job: job(1), delaySeconds: 0 }])).rejects.toThrow(/could not queue 1/);
  });
});
