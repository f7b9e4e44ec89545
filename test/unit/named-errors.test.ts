import { describe, expect, it } from 'vitest';
import {
  invalidCursor,
  invalidJson,
  invalidQuery,
  keptChanging,
  messageNotFound,
  NotCancelableError,
  notUncertain,
  PmailError,
  tenantKeyRequired,
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

  it('one text for a change only a tenant-level key may make, whichever route refuses it', () => {
    expect(tenantKeyRequired('domains:write')).toMatchObject({
      code: 'permission_denied',
      message: 'The domains:write permission needs a tenant-level key.',
      details: { required: 'domains:write', reason: 'tenant_key_required' },
    });
    expect(tenantKeyRequired('webhooks:read').message).toBe(
      'The webhooks:read permission needs a tenant-level key.',
    );
  });

  it('a refused resolve says whether a provider already reported the message sent', () => {
    expect(notUncertain('uncertain', true)).toMatchObject({
      message: expect.stringMatching(/^A provider event already reported/),
      details: { status: 'uncertain', provider_reported: true },
    });
    expect(notUncertain('uncertain', false).message).toBe('Only an uncertain message can be resolved.');
    expect(notUncertain('submitted', false).details).toEqual({ status: 'submitted' });
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
