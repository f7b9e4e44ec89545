import { describe, expect, it } from 'vitest';
import { batchChains, parseBatch } from '../../functions/core/batch.ts';
import { batchKeyHeader, notAttempted, PmailError } from '../../functions/core/errors.ts';

/** core/batch.ts: what is decided on a batch of sends as a whole, before any message runs. */
const msg = (key: string, extra: Record<string, unknown> = {}) => ({
  idempotency_key: key,
  to: ['a@simulator.invalid'],
  text: 'hi',
  ...extra,
});
const errorsOf = (value: unknown) => {
  try {
    parseBatch(value);
  } catch (e) {
    expect(e).toBeInstanceOf(PmailError);
    expect((e as PmailError).code).toBe('invalid_request');
    return (e as PmailError).details?.errors;
  }
  throw new Error('accepted');
};

describe('parseBatch', () => {
  it('gives each message its key and the body a single send takes, the key left out', () => {
    expect(parseBatch({ messages: [msg('a'), msg('b', { subject: 'S' })] })).toEqual([
      { idempotencyKey: 'a', body: { to: ['a@simulator.invalid'], text: 'hi' } },
      { idempotencyKey: 'b', body: { to: ['a@simulator.invalid'], text: 'hi', subject: 'S' } },
    ]);
  });

  it('takes 100 messages and 1,000 recipients, no more', () => {
    const ten = Array.from({ length: 10 }, (_, i) => `r${i}@simulator.invalid`);
    const full = Array.from({ length: 100 }, (_, i) => msg(`k${i}`, { to: ten }));
    expect(parseBatch({ messages: full })).toHaveLength(100);
    expect(errorsOf({ messages: [...full, msg('k100')] })).toEqual([
      { path: 'messages', message: 'at most 100 messages' },
      { path: 'messages', message: 'at most 1000 recipients across the batch (this one names 1001)' },
    ]);
    const spread = Array.from({ length: 4 }, (_, i) =>
      msg(`s${i}`, { to: ten.slice(0, 5), cc: Array(100).fill('c@x.y'), bcc: Array(151).fill('b@x.y') }),
    );
    expect(errorsOf({ messages: spread })).toEqual([
      { path: 'messages', message: 'at most 1000 recipients across the batch (this one names 1024)' },
    ]);
  });

  it.each([
    ['not an object', [], [{ path: 'messages', message: 'required: an array of messages' }]],
    ['no messages', { messages: 'x' }, [{ path: 'messages', message: 'required: an array of messages' }]],
    ['an empty batch', { messages: [] }, [{ path: 'messages', message: 'at least one message' }]],
    [
      'an unknown field',
      { messages: [msg('a')], dry_run: true },
      [{ path: 'dry_run', message: 'unknown field' }],
    ],
    [
      'a message that is no object',
      { messages: [msg('a'), 'hello'] },
      [{ path: 'messages[1]', message: 'an object: a send body with its idempotency_key' }],
    ],
    [
      'a message without a key',
      { messages: [{ to: ['a@b.c'], text: 'x' }] },
      [{ path: 'messages[0].idempotency_key', message: 'required' }],
    ],
    [
      'a key that is not printable ASCII',
      { messages: [msg('clé')] },
      [{ path: 'messages[0].idempotency_key', message: '1–255 printable ASCII characters' }],
    ],
    [
      'a key given twice',
      { messages: [msg('a'), msg('b'), msg('a'), msg('b')] },
      [
        { path: 'messages[2].idempotency_key', message: 'the same key as messages[0]' },
        { path: 'messages[3].idempotency_key', message: 'the same key as messages[1]' },
      ],
    ],
  ])('refuses %s, naming each problem', (_, value, errors) => {
    expect(errorsOf(value)).toEqual(errors);
  });
});

describe('batchChains', () => {
  it('runs the messages of one thread one after another in batch order, every other message alone', () => {
    const items = parseBatch({
      messages: [
        msg('a'),
        msg('b', { thread_id: 'thr_1' }),
        msg('c'),
        msg('d', { thread_id: 'thr_2' }),
        msg('e', { thread_id: 'thr_1' }),
        msg('f', { thread_id: 'thr_1' }),
      ],
    });
    expect(batchChains(items)).toEqual([[0], [1, 4, 5], [2], [3]]);
  });
});

describe('the batch refusals', () => {
  it('name the header a batch refuses, and a message it did not reach', () => {
    expect(batchKeyHeader()).toMatchObject({
      code: 'invalid_request',
      details: { errors: [{ path: 'Idempotency-Key' }] },
    });
    expect(notAttempted()).toMatchObject({ code: 'not_attempted' });
    expect(notAttempted().message).toMatch(/same idempotency_key/);
  });
});
