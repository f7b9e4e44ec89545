import { DescribeTableCommand, DynamoDBClient } from '@aws-sdk/client-dynamodb';
import {
  DescribeStreamCommand,
  DynamoDBStreamsClient,
  GetRecordsCommand,
  GetShardIteratorCommand,
} from '@aws-sdk/client-dynamodb-streams';
import { mockClient } from 'aws-sdk-client-mock';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { LocalStreamPoller, retryDelayMs } from '../../functions/local/stream.ts';
import type { Db } from '../../functions/store/db.ts';

/**
 * `npm start`'s stream poller when DynamoDB Local stops answering: it waits longer after each
 * failed poll (capped) and logs the failure once and the recovery once, rather than a line per poll.
 */
const streams = mockClient(DynamoDBStreamsClient);
const tables = mockClient(DynamoDBClient);
const db = { table: 't' } as unknown as Db;

beforeEach(() => {
  vi.useFakeTimers();
  streams.reset();
  tables.reset();
  tables.on(DescribeTableCommand).resolves({ Table: { LatestStreamArn: 'arn:aws:dynamodb:local:stream/t' } });
});
afterEach(() => {
  vi.useRealTimers();
});

describe('the local stream poller', () => {
  it('backs off while DynamoDB Local refuses, logs once per state change, and polls at full speed again', async () => {
    let down = false;
    streams.on(DescribeStreamCommand).resolves({ StreamDescription: { Shards: [{ ShardId: 's1' }] } });
    streams.on(GetShardIteratorCommand).resolves({ ShardIterator: 'it' });
    streams.on(GetRecordsCommand).callsFake(async () => {
      if (down) throw Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:1'), { name: 'Error' });
      return { Records: [], NextShardIterator: 'it' };
    });
    const lines: string[] = [];
    const log = {
      info: (msg: string) => lines.push(`info ${msg}`),
      warn: (msg: string) => lines.push(`warn ${msg}`),
      error: (msg: string) => lines.push(`error ${msg}`),
    };
    const poller = new LocalStreamPoller(db, {
      endpoint: 'http://127.0.0.1:1',
      handler: async () => ({ batchItemFailures: [] }),
      log,
      pollMs: 50,
    });
    await poller.start();
    const reads = () => streams.commandCalls(GetRecordsCommand).length;

    await vi.advanceTimersByTimeAsync(1_000);
    const healthy = reads();
    expect(healthy).toBeGreaterThanOrEqual(15);

    down = true;
    await vi.advanceTimersByTimeAsync(30_000);
    const failing = reads() - healthy;
    // At 50 ms a poll, 30 s is 600 polls; doubling from 100 ms up to 5 s it is at most 12.
    expect(failing).toBeGreaterThan(1);
    expect(failing).toBeLessThanOrEqual(12);
    expect(lines).toEqual(['error local stream poll failed']);

    down = false;
    await vi.advanceTimersByTimeAsync(5_000);
    expect(lines).toEqual(['error local stream poll failed', 'info local stream poll recovered']);
    const before = reads();
    await vi.advanceTimersByTimeAsync(1_000);
    expect(reads() - before).toBeGreaterThanOrEqual(15);

    const stopped = poller.stop();
    await vi.runOnlyPendingTimersAsync();
    await stopped;
  });

  it('doubles the wait from the poll interval up to the cap', () => {
    expect([1, 2, 3, 4, 10, 100].map((n) => retryDelayMs(n, 50))).toEqual([100, 200, 400, 800, 5_000, 5_000]);
    expect(retryDelayMs(3, 50, 300)).toBe(300);
  });
});
