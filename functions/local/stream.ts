import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { DescribeTableCommand } from '@aws-sdk/client-dynamodb';
import {
  DescribeStreamCommand,
  DynamoDBStreamsClient,
  GetRecordsCommand,
  GetShardIteratorCommand,
  type ShardIteratorType,
} from '@aws-sdk/client-dynamodb-streams';
import type { DynamoDBBatchResponse, DynamoDBRecord } from 'aws-lambda';
import type { Logger } from '../log.ts';
import { errorFields } from '../log.ts';
import type { Db } from '../store/db.ts';
import { adminClient } from './table.ts';

/**
 * The local stand-in for a DynamoDB Streams event source mapping: DynamoDB Local's own stream of
 * the table, read shard by shard, each batch handed to the same function the Lambda runs, with the
 * same partial-failure rule (a failed record and everything after it is read again). Shards that
 * open later are read from their start. With `checkpointFile`, the last sequence number handled
 * per shard is kept across restarts (`npm start`); otherwise reading starts at the stream's end.
 */
export class LocalStreamPoller {
  private readonly client: DynamoDBStreamsClient;
  private readonly iterators = new Map<string, string | undefined>();
  private readonly done = new Set<string>();
  private checkpoints: Record<string, string> = {};
  /** The last sequence number handled per shard in this process (checkpointed or not). */
  private readonly lastHandled = new Map<string, string>();
  private streamArn = '';
  private timer: NodeJS.Timeout | undefined;
  private stopped = false;
  private running: Promise<void> | undefined;
  private rounds = 0;
  /** Polls failed in a row: the next wait grows with them (retryDelayMs). */
  private failures = 0;

  constructor(
    private readonly db: Db,
    private readonly opts: {
      endpoint: string;
      handler: (records: DynamoDBRecord[]) => Promise<DynamoDBBatchResponse>;
      log: Logger;
      pollMs?: number;
      /** The longest wait between polls while they fail (default 5 s). */
      maxBackoffMs?: number;
      checkpointFile?: string;
    },
  ) {
    this.client = new DynamoDBStreamsClient({
      endpoint: opts.endpoint,
      region: 'us-east-1',
      credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
    });
  }

  async start(): Promise<void> {
    const admin = adminClient({ table: this.db.table, endpoint: this.opts.endpoint });
    const table = await admin
      .send(new DescribeTableCommand({ TableName: this.db.table }))
      .finally(() => admin.destroy());
    if (!table.Table?.LatestStreamArn) throw new Error(`table ${this.db.table} has no stream`);
    this.streamArn = table.Table.LatestStreamArn;
    if (this.opts.checkpointFile && existsSync(this.opts.checkpointFile))
      this.checkpoints = JSON.parse(readFileSync(this.opts.checkpointFile, 'utf8'));
    await this.discoverShards(true);
    this.schedule();
  }

  private schedule() {
    if (this.stopped) return;
    const pollMs = this.opts.pollMs ?? 50;
    const wait = this.failures === 0 ? pollMs : retryDelayMs(this.failures, pollMs, this.opts.maxBackoffMs);
    this.timer = setTimeout(() => {
      this.running = this.poll()
        .then(
          () => {
            if (this.failures > 0)
              this.opts.log.info('local stream poll recovered', { failed_polls: this.failures });
            this.failures = 0;
          },
          (err) => {
            // Logged once when polls start failing, not at every retry: the next line is the recovery.
            if (this.failures === 0) this.opts.log.error('local stream poll failed', errorFields(err));
            this.failures++;
          },
        )
        .finally(() => {
          this.running = undefined;
          this.schedule();
        });
    }, wait);
  }

  /** Shards present at the start are read from their end (or checkpoint), later ones from their start. */
  private async discoverShards(atStart: boolean): Promise<void> {
    const out = await this.client.send(new DescribeStreamCommand({ StreamArn: this.streamArn }));
    for (const shard of out.StreamDescription?.Shards ?? []) {
      const id = shard.ShardId!;
      if (this.iterators.has(id) || this.done.has(id)) continue;
      const after = this.checkpoints[id];
      const type: ShardIteratorType = atStart ? 'LATEST' : 'TRIM_HORIZON';
      // A checkpoint past the stream's 24-hour retention is refused: read what is left.
      const resumed = after
        ? await this.iterator(id, 'AFTER_SEQUENCE_NUMBER', after).catch(() =>
            this.iterator(id, 'TRIM_HORIZON'),
          )
        : undefined;
      this.iterators.set(id, resumed ?? (await this.iterator(id, type)));
    }
  }

  private async iterator(
    shardId: string,
    type: ShardIteratorType,
    sequence?: string,
  ): Promise<string | undefined> {
    const out = await this.client.send(
      new GetShardIteratorCommand({
        StreamArn: this.streamArn,
        ShardId: shardId,
        ShardIteratorType: type,
        ...(sequence ? { SequenceNumber: sequence } : {}),
      }),
    );
    return out.ShardIterator;
  }

  private async poll(): Promise<void> {
    if (++this.rounds % 20 === 0) await this.discoverShards(false);
    for (const [shardId, iterator] of this.iterators) {
      if (this.stopped) return;
      if (!iterator) {
        this.iterators.delete(shardId);
        this.done.add(shardId);
        continue;
      }
      let out: Awaited<ReturnType<typeof this.readRecords>>;
      try {
        out = await this.readRecords(iterator);
      } catch (err) {
        // DynamoDB Local answers TrimmedDataAccessException for an iterator taken on a shard whose
        // early records it dropped (seen on a table whose stream was just enabled), and iterators
        // expire: either way this one never reads again. Take a new one from after the last record
        // handled, or from what is left (at least once: the handler deduplicates nothing away).
        const name = (err as Error).name;
        if (name !== 'TrimmedDataAccessException' && name !== 'ExpiredIteratorException') throw err;
        const last = this.lastHandled.get(shardId) ?? this.checkpoints[shardId];
        this.iterators.set(
          shardId,
          last
            ? await this.iterator(shardId, 'AFTER_SEQUENCE_NUMBER', last)
            : await this.iterator(shardId, 'TRIM_HORIZON'),
        );
        continue;
      }
      const records = (out.Records ?? []) as DynamoDBRecord[];
      if (records.length === 0) {
        this.iterators.set(shardId, out.NextShardIterator);
        continue;
      }
      const result = await this.opts.handler(records);
      const failed = result.batchItemFailures[0]?.itemIdentifier;
      if (failed) {
        // As the event source mapping does: read again from the failed record.
        this.iterators.set(shardId, await this.iterator(shardId, 'AT_SEQUENCE_NUMBER', failed));
        continue;
      }
      this.iterators.set(shardId, out.NextShardIterator);
      const last = records[records.length - 1].dynamodb!.SequenceNumber!;
      this.lastHandled.set(shardId, last);
      this.checkpoint(shardId, last);
    }
  }

  private readRecords(iterator: string) {
    return this.client.send(new GetRecordsCommand({ ShardIterator: iterator, Limit: 100 }));
  }

  private checkpoint(shardId: string, sequence: string) {
    if (!this.opts.checkpointFile) return;
    this.checkpoints[shardId] = sequence;
    mkdirSync(dirname(this.opts.checkpointFile), { recursive: true });
    writeFileSync(`${this.opts.checkpointFile}.tmp`, JSON.stringify(this.checkpoints));
    renameSync(`${this.opts.checkpointFile}.tmp`, this.opts.checkpointFile);
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    await this.running;
    this.client.destroy();
  }
}

/**
 * The wait before the next poll after `failures` failed ones in a row: doubling from the poll
 * interval, capped at `maxMs` (default 5 s), so a DynamoDB Local that went away is not asked
 * ~20 times a second.
 */
export function retryDelayMs(failures: number, pollMs: number, maxMs = 5_000): number {
  return Math.min(maxMs, Math.max(pollMs, 1) * 2 ** Math.min(failures, 30));
}
