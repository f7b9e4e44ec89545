import { isTerminalMessageStatus } from './deliveries.ts';
import type { MessageRecord } from './model.ts';

/**
 * The payload is spent when the message goes out: a transactional template's variables
 * are emptied once the message is final, and payload_redacted_at records when. Applied by the
 * message codec (functions/store/messages.store.ts) to every write, so the emptied value is written
 * and read back like any other; the time is the write's own `updated_at`.
 */
export function redactPayload(m: MessageRecord): MessageRecord {
  if (
    m.template_variables === undefined ||
    m.payload_redacted_at !== undefined ||
    m.template?.category !== 'transactional' ||
    !isTerminalMessageStatus(m.status)
  )
    return m;
  return { ...m, template_variables: {}, payload_redacted_at: m.updated_at };
}
