import { describe, expect, it } from 'vitest';
import { bodyOf, type SentBody, storesSentBody } from '../../functions/core/message-body.ts';
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

/**
 * One shape for both directions (core/message-body.ts › bodyOf, core/message-view.ts): the body's
 * fields at the top level of every Message, sent or received; `inbound` keeps the receipt only.
 */
describe('core/message-body.ts › bodyOf and the Message view', () => {
  const sent: SentBody = {
    text: 'Your order shipped.\n\n-- \nAgent',
    html: '<p>Your order shipped.</p>',
    attachments: [{ filename: 'label.pdf', content_type: 'application/pdf', size: 12 }],
  };
  const received = outboundMessage({
    direction: 'inbound',
    status: 'received',
    inbound: {
      ses_message_id: 's',
      received_at: 0,
      envelope_from: 'c@x.example',
      envelope_recipient: 'a@example.com',
      routed_to: 'a@example.com',
      dedupe_key: 'd',
      canonical: { from: 'c@x.example', to: [], cc: [], reply_to: [] },
      parse: 'parsed',
      threaded_by: 'in_reply_to',
      text: 'Thanks!\n\nOn Mon, Agent wrote:\n> Your order shipped.',
      extracted_text: 'Thanks!',
      headers: [],
      attachments: [],
      verdicts: {},
    },
  });

  it('gives a sent message its text, html, extracted text (its text), snippet and attachments', () => {
    const view = toApiMessage(outboundMessage(), bodyOf(outboundMessage(), sent));
    expect(view).toMatchObject({
      text: sent.text,
      html: sent.html,
      extracted_text: sent.text,
      snippet: 'Your order shipped. -- Agent',
      attachments: [{ id: 'att_1', filename: 'label.pdf', size: 12, risky: false }],
      body_omitted: false,
      body_withheld: null,
      inbound: null,
    });
  });

  it('gives a received message the same fields at the top level, and keeps only the receipt in inbound', () => {
    const view = toApiMessage(received, bodyOf(received));
    expect(view).toMatchObject({
      text: received.inbound?.text,
      extracted_text: 'Thanks!',
      snippet: 'Thanks! On Mon, Agent wrote: > Your order shipped.',
    });
    expect(Object.keys(view.inbound ?? {})).not.toEqual(expect.arrayContaining(['text']));
    for (const field of ['text', 'html', 'extracted_text', 'snippet', 'attachments', 'body_truncated'])
      expect(view.inbound).not.toHaveProperty(field);
  });

  it('leaves text, html and extracted text out of a summary view, and says so', () => {
    const view = toApiMessage(outboundMessage(), bodyOf(outboundMessage(), sent), 'summary');
    expect(view).toMatchObject({ text: null, html: null, extracted_text: null, body_omitted: true });
    expect(view.snippet).toBe('Your order shipped. -- Agent');
    expect(toApiMessage(outboundMessage()).body_omitted).toBe(true);
  });

  it('withholds the body of a transactional template message once its payload is redacted', () => {
    const template = { name: 'sign-in', version: 1, category: 'transactional' as const };
    const pending = outboundMessage({ template, template_variables: { code: '123456' } });
    expect(bodyOf(pending, sent).text).toBe(sent.text);
    const final = outboundMessage({ template, template_variables: { code: '123456' }, status: 'delivered' });
    const view = toApiMessage(final, bodyOf(final, sent));
    expect(view).toMatchObject({
      text: null,
      html: null,
      extracted_text: null,
      snippet: null,
      attachments: [],
      body_withheld: 'payload_redacted',
      body_omitted: false,
    });
    expect(toApiMessage(final).body_withheld).toBe('payload_redacted');
    expect(storesSentBody(final)).toBe(false);
    expect(storesSentBody(outboundMessage({ template: { ...template, category: 'marketing' } }))).toBe(true);
  });
});
