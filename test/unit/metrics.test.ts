import { afterEach, describe, expect, it, vi } from 'vitest';
import {
  attemptOutcomeClass,
  emfMetrics,
  METRICS_NAMESPACE,
  memoryMetrics,
} from '../../functions/metrics.ts';

/** The EMF lines @aws-lambda-powertools/metrics writes to stdout while `fn` runs. */
function emfLines(fn: () => void): Record<string, any>[] {
  const written: string[] = [];
  const spy = vi.spyOn(process.stdout, 'write').mockImplementation((chunk: string | Uint8Array) => {
    written.push(String(chunk));
    return true;
  });
  try {
    fn();
  } finally {
    spy.mockRestore();
  }
  return written
    .join('')
    .split('\n')
    .filter((l) => l.includes('"_aws"'))
    .map((l) => JSON.parse(l));
}

afterEach(() => vi.restoreAllMocks());

describe('the EMF metrics port (production)', () => {
  it('publishes each call at once as a total and a breakdown, in the one namespace', () => {
    const metrics = emfMetrics();
    const [line] = emfLines(() => metrics.add('sends_refused', { code: 'invalid_request' }));
    expect(line._aws.CloudWatchMetrics).toEqual([
      {
        Namespace: METRICS_NAMESPACE,
        Dimensions: [['service'], ['service', 'code']],
        Metrics: [{ Name: 'sends_refused', Unit: 'Count' }],
      },
    ]);
    expect(line).toMatchObject({ service: 'pmail', code: 'invalid_request', sends_refused: 1 });
  });

  it('drops any dimension a metric does not declare, so an id can never become one', () => {
    const metrics = emfMetrics();
    const [line] = emfLines(() =>
      metrics.add('attempts', {
        transport: 'ses',
        outcome: 'accepted',
        tenant_id: 'ten_01abc',
      } as unknown as { transport: string; outcome: string }),
    );
    expect(line._aws.CloudWatchMetrics[0].Dimensions).toEqual([
      ['service'],
      ['service', 'transport', 'outcome'],
    ]);
    expect(JSON.stringify(line)).not.toContain('ten_01abc');
  });

  it('writes latencies in milliseconds and undimensioned counts with the service dimension only', () => {
    const metrics = emfMetrics();
    const lines = emfLines(() => {
      metrics.add('send_latency', { transport: 'smtp' }, 1234);
      metrics.add('sweeper_runs');
    });
    expect(lines[0]._aws.CloudWatchMetrics[0].Metrics).toEqual([
      { Name: 'send_latency', Unit: 'Milliseconds' },
    ]);
    expect(lines[0].send_latency).toBe(1234);
    expect(lines[1]._aws.CloudWatchMetrics[0].Dimensions).toEqual([['service']]);
  });
});

describe('the in-memory metrics port (local)', () => {
  it('sums by name and by any subset of the declared dimensions', () => {
    const m = memoryMetrics();
    m.add('attempts', { transport: 'ses', outcome: 'accepted' });
    m.add('attempts', { transport: 'ses', outcome: 'accepted' });
    m.add('attempts', { transport: 'smtp', outcome: 'unknown' });
    expect(m.get('attempts')).toBe(3);
    expect(m.get('attempts', { transport: 'ses' })).toBe(2);
    expect(m.get('attempts', { outcome: 'unknown' })).toBe(1);
    expect(m.get('sends_accepted')).toBe(0);
    expect(m.lines()).toEqual([
      'attempts{transport=ses,outcome=accepted} 2',
      'attempts{transport=smtp,outcome=unknown} 1',
    ]);
  });

  it('classifies each transport result into one outcome class', () => {
    expect(
      attemptOutcomeClass({
        type: 'accepted',
        provider: 'ses',
        provider_message_id: 'x',
        refused: [],
        deferred: [],
      }),
    ).toBe('accepted');
    expect(
      attemptOutcomeClass({
        type: 'accepted',
        provider: 'smtp',
        provider_message_id: 'x',
        refused: [],
        deferred: ['a@b.c'],
      }),
    ).toBe('deferred');
    expect(
      attemptOutcomeClass({ type: 'rejected', reason: 'provider_validation', code: 'E', detail: 'd' }),
    ).toBe('refused');
    expect(attemptOutcomeClass({ type: 'retry_later', class: 'RateLimit', code: 'T', refused: [] })).toBe(
      'backoff_ratelimit',
    );
    expect(attemptOutcomeClass({ type: 'unknown', reason: 'transport_timeout', detail: 'd' })).toBe(
      'unknown',
    );
  });
});
