import type { MessageBody } from './message-body.ts';
import { toApiMessage } from './message-view.ts';
import type { MessageRecord } from './model.ts';
import { budgetThread } from './thread-budget.ts';
import { MAX_THREAD_VIEW_MESSAGES, type ThreadSummary, toApiThreadSummary } from './threads.ts';

/**
 * A thread as `GET …/threads/{id}` and MCP `get_thread` return it (openapi.yaml › Thread): the
 * summary, then its messages oldest first, sent and received, each with its text in the form the
 * budget left it (core/thread-budget.ts: `text`, `text_form`; no HTML or extracted text beside it,
 * `body_omitted`), and the budget's account (`text_budget`): the characters used, the oldest messages
 * left out, the ones trimmed, whether the newest was cut.
 */
export function toApiThread(
  thread: ThreadSummary,
  records: readonly MessageRecord[],
  bodies: ReadonlyMap<string, MessageBody>,
  budget: { max_chars: number; prefer: 'whole' | 'extracted' },
  labels: readonly string[] = [],
) {
  const inOrder = [...records].sort((a, b) => (a.id < b.id ? -1 : 1));
  const texts = inOrder.map((m) => {
    const b = bodies.get(m.id);
    return { text: b?.text ?? null, extracted_text: b?.extracted_text ?? null };
  });
  const chosen = budgetThread(texts, budget.max_chars, budget.prefer);
  const messages = inOrder.flatMap((m, i) => {
    const view = chosen.views[i];
    if (!view) return [];
    return [{ ...toApiMessage(m, bodies.get(m.id), 'summary'), text: view.text, text_form: view.form }];
  });
  return {
    ...toApiThreadSummary(thread, labels),
    messages_truncated: thread.message_ids.length > MAX_THREAD_VIEW_MESSAGES,
    text_budget: {
      max_chars: budget.max_chars,
      used_chars: chosen.used_chars,
      messages_omitted: chosen.omitted,
      messages_trimmed: chosen.trimmed,
      newest_cut: chosen.cut,
    },
    messages,
  };
}
