import { describe, expect, it } from 'vitest';
import {
  invalidCursor,
  invalidJson,
  invalidQuery,
  keptChanging,
  messageNotFound,
  NotCancelableError,
  PmailError,
} from '../../functions/core/errors.ts';
import { cancelMessage } from '../../functions/core/message-actions.ts';
import { outboundMessage } from '../support/records.ts';

/** The named errors of functions/core/errors.ts (docs/architecture.md › Layers, error codes). */
describe('named errors', () => {
  it('build the code, the text and the details each refusal answers', () => {
    expect(messageNotFound()).toMatchObject({
      code: 'message_not_found',
      message: 'No message with this id in this identity.',
    });
    expect(invalidJson()).toMatchObject({
      code: 'invalid_request',
      message: 'The request body is not valid JSON.',
      details: { errors: [{ path: '', message: 'not valid JSON' }] },
    });
    expect(invalidQuery([{ path: 'limit', message: 'too big' }])).toMatchObject({
      code: 'invalid_request',
      message: 'The query is not valid.',
      details: { errors: [{ path: 'limit', message: 'too big' }] },
    });
    expect(invalidCursor().details).toEqual({
      errors: [{ path: 'cursor', message: 'use next_cursor from a previous page' }],
    });
    expect(keptChanging('tenant')).toMatchObject({
      code: 'unavailable',
      message: 'The tenant kept changing; retry.',
      retryAfter: 1,
    });
  });

  it('a refused cancel is a NotCancelableError, a PmailError with code not_cancelable', () => {
    let thrown: unknown;
    try {
      cancelMessage(outboundMessage({ status: 'submitted' }), 9);
    } catch (err) {
      thrown = err;
    }
    expect(thrown).toBeInstanceOf(NotCancelableError);
    expect(thrown).toBeInstanceOf(PmailError);
    expect(thrown).toMatchObject({ code: 'not_cancelable', details: { status: 'submitted' } });
  });
});
