import { describe, expect, it } from 'vitest';
import { msgIdView, toApiMessage } from '../../functions/core/message-view.ts';
import { outboundMessage } from '../support/records.ts';

/**
 * The Message-ID in the Message view: the header's form, angle brackets included, whatever form
 * the stored item has (pmail composes and stores `<…>`; a bare value stored from a provider is
 * shown the same way), for `rfc_message_id` and `in_reply_to` alike.
 */
describe('rfc_message_id and in_reply_to in the Message view', () => {
  it.each([
    ['<01jz@acme.example>', '<01jz@acme.example>'],
    ['01jz@acme.example', '<01jz@acme.example>'],
    [' <01jz@acme.example> ', '<01jz@acme.example>'],
    ['<<01jz@acme.example>>', '<01jz@acme.example>'],
  ])('shows the stored %j as %j', (stored, shown) => {
    expect(msgIdView(stored)).toBe(shown);
    const view = toApiMessage(outboundMessage({ rfc_message_id: stored, in_reply_to: stored }));
    expect(view.rfc_message_id).toBe(shown);
    expect(view.in_reply_to).toBe(shown);
  });

  it('shows null for a message that answers none', () => {
    expect(toApiMessage(outboundMessage()).in_reply_to).toBeNull();
  });
});
