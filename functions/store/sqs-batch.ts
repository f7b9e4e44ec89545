import { SendMessageBatchCommand, type SQSClient } from '@aws-sdk/client-sqs';

/**
 * Send messages to a queue ten at a time (SendMessageBatch's limit), each with its own delay in
 * whole seconds capped at SQS's 15 minutes. Any entry SQS refuses fails the whole call, so the
 * caller's retry (a task retry, a redelivered record) sends it again; consumers are idempotent.
 */
export async function sendInBatches(
  client: SQSClient,
  queueUrl: string,
  messages: { body: string; delaySeconds: number }[],
  what: string,
): Promise<void> {
  for (let i = 0; i < messages.length; i += 10) {
    const batch = messages.slice(i, i + 10);
    const out = await client.send(
      new SendMessageBatchCommand({
        QueueUrl: queueUrl,
        Entries: batch.map((m, n) => ({
          Id: String(n),
          MessageBody: m.body,
          DelaySeconds: Math.min(900, Math.max(0, Math.ceil(m.delaySeconds))),
        })),
      }),
    );
    if (out.Failed?.length) throw new Error(`could not queue ${out.Failed.length} ${what}`);
  }
}
