import { mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { SQSBatchResponse, SQSEvent } from 'aws-lambda';
import type { DeliveryEvent } from '../core/deliveries.ts';
import type { BaseDeps } from '../deps.ts';
import { NOT_FOUND_RETRY_SECONDS } from '../events/consume.ts';
import { consumeBatch } from '../events/consumer.ts';
import type { EventSink } from '../events/event-sink.ts';
import { errorFields } from '../log.ts';
import { asLambdaOf, recordedPort } from './aws-calls.ts';

/** An SQS consumer as Lambda runs it: one batch in, partial failures out. */
export type QueueConsumer = (
  event: SQSEvent,
  setVisibility: (receiptHandle: string, seconds: number) => Promise<void>,
) => Promise<SQSBatchResponse>;

/**
 * The in-process stand-in for an SQS queue and its Lambda consumer: by default the delivery-events
 * queue with its consumer (consumeBatch); the webhook-deliveries queue passes its own `consume`.
 * The same retry-by-visibility semantics (a failed item comes back after its visibility timeout),
 * and a dead-letter list after `maxReceives`. With `dir`, every message not yet acked is kept as a
 * file and rescheduled on the next start, so stopping `npm start` loses no message (SQS is durable
 * too).
 */
export class LocalQueue implements EventSink {
  private readonly timers = new Set<NodeJS.Timeout>();
  private inFlight = 0;
  private seq = 0;
  readonly deadLetters: string[] = [];
  readonly consumed: { body: string; receives: number }[] = [];

  constructor(
    private readonly deps: BaseDeps,
    private readonly opts: {
      secondsToMs?: number;
      maxReceives?: number;
      dir?: string;
      /** The consumer; default: the delivery-events consumer. */
      consume?: QueueConsumer;
    } = {},
  ) {
    if (opts.dir) {
      mkdirSync(opts.dir, { recursive: true });
      for (const file of readdirSync(opts.dir).filter((f) => f.endsWith('.json'))) {
        const saved = JSON.parse(readFileSync(join(opts.dir, file), 'utf8')) as {
          body: string;
          receives: number;
        };
        this.schedule(saved.body, 0, saved.receives, file);
      }
    }
  }

  private persist(file: string, body: string, receives: number) {
    if (!this.opts.dir) return;
    const path = join(this.opts.dir, file);
    writeFileSync(`${path}.tmp`, JSON.stringify({ body, receives }));
    renameSync(`${path}.tmp`, path);
  }

  private forget(file: string) {
    if (this.opts.dir) rmSync(join(this.opts.dir, file), { force: true });
  }

  private ms(seconds: number) {
    return seconds * (this.opts.secondsToMs ?? 1000);
  }

  async publish(events: DeliveryEvent[], delaySeconds: number): Promise<void> {
    for (const e of events) this.schedule(JSON.stringify(e), this.ms(delaySeconds), 1);
  }

  /** Put a raw body on the queue (tests feed malformed or provider-shaped bodies this way). */
  sendRaw(body: string, delaySeconds = 0): void {
    this.schedule(body, this.ms(delaySeconds), 1);
  }

  private schedule(
    body: string,
    delayMs: number,
    receives: number,
    file = `${Date.now()}-${process.pid}-${++this.seq}.json`,
  ) {
    this.persist(file, body, receives);
    const t = setTimeout(() => {
      this.timers.delete(t);
      void this.deliver(body, receives, file);
    }, delayMs);
    this.timers.add(t);
  }

  private async deliver(body: string, receives: number, file: string) {
    this.inFlight++;
    let visibility = 30;
    try {
      const messageId = `local-${++this.seq}`;
      const consume: QueueConsumer = this.opts.consume ?? ((e, sv) => consumeBatch(this.deps, e, sv));
      // The consumer runs as its Lambda; its visibility change is SQS's ChangeMessageVisibility in AWS.
      const setVisibility = recordedPort('queueVisibility', async (_handle: string, seconds: number) => {
        visibility = seconds;
      });
      const out = await asLambdaOf(this.deps, () =>
        consume({ Records: [{ messageId, receiptHandle: messageId, body } as never] }, setVisibility),
      );
      this.consumed.push({ body, receives });
      if (out.batchItemFailures.length > 0 && receives < (this.opts.maxReceives ?? 20)) {
        this.schedule(body, this.ms(visibility || NOT_FOUND_RETRY_SECONDS), receives + 1, file);
      } else {
        if (out.batchItemFailures.length > 0) this.deadLetters.push(body);
        this.forget(file);
      }
    } catch (err) {
      this.deps.log.error('local queue delivery failed', errorFields(err));
      this.schedule(body, this.ms(NOT_FOUND_RETRY_SECONDS), receives + 1, file);
    } finally {
      this.inFlight--;
    }
  }

  /** Resolves once nothing is scheduled or being consumed. */
  async idle(timeoutMs = 30_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (this.timers.size > 0 || this.inFlight > 0) {
      if (Date.now() > deadline) throw new Error('local queue did not drain');
      await new Promise((r) => setTimeout(r, 5));
    }
  }

  idleNow(): boolean {
    return this.timers.size === 0 && this.inFlight === 0;
  }

  close(): void {
    for (const t of this.timers) clearTimeout(t);
    this.timers.clear();
  }
}
