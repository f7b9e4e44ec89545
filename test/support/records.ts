import type { MessageRecord } from '../../functions/core/model.ts';

/** An outbound message record as the pure rules see it: queued, no recipients; `over` sets the rest. */
export const outboundMessage = (over: Partial<MessageRecord> = {}): MessageRecord => ({
  id: 'msg_1',
  tenant_id: 't',
  identity_id: 'i',
  thread_id: 'th',
  direction: 'outbound',
  status: 'queued',
  from: { address: 'a@example.com' },
  to: [],
  cc: [],
  bcc: [],
  reply_to: [],
  subject: '',
  kind: 'transactional',
  labels: [],
  flags: [],
  rfc_message_id: '<1@example.com>',
  raw_key: 'k',
  raw_size: 1,
  created_at: 0,
  updated_at: 0,
  version: 3,
  ...over,
});
