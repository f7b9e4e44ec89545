import { useState } from 'preact/hooks';
import type { components } from '../../../packages/client/src/index.ts';
import { PmailError, pmail } from '../api.ts';
import { LabelChips, LabelEditor } from '../labels.tsx';
import { useLive } from '../live.ts';
import { LoadState, Table } from '../parts.tsx';
import type { Highlight } from '../search.tsx';
import { can, ErrorNote, type PageProps, Paging, Status, time, useLoad } from '../ui.tsx';
import { MailFilters, SubjectCell, useMailList } from './mail-list.tsx';

/** A thread of the list; where a search (`q`) found it, its highlight. */
type ThreadSummary = components['schemas']['ThreadSummary'] & { highlight?: Highlight };
type ThreadMessage = components['schemas']['ThreadMessage'];

/** The thread page asks for every message's new text under the widest budget the API allows. */
const THREAD_PAGE_BUDGET = 500_000;

/** A pmail without the threads routes answers 404 `route_not_found`: the page says so. */
const noThreads = (e: unknown) => e instanceof PmailError && e.code === 'route_not_found';

const messageLink = (m: ThreadMessage) =>
  `#/messages/${encodeURIComponent(m.identity_id)}/${encodeURIComponent(m.id)}`;

/**
 * An identity's conversations (GET …/threads), latest activity first, a page at a time, with
 * their labels, filtered by label and the search box; reloaded by the identity's message events on
 * the stream.
 */
export function Threads({ me, identities }: PageProps) {
  const list = useMailList(identities);
  const { identity, cursor } = list;
  const page = useLoad(
    () =>
      identity
        ? pmail().threads.list(identity, { ...list.query, cursor, limit: 25 })
        : Promise.resolve(undefined),
    [identity, list.label, list.q, cursor],
  );
  const live = useLive(
    identity && can(me, 'events:read') ? { identity_id: identity, types: ['message.*'] } : undefined,
    () => page.reload(),
  );
  if (noThreads(page.error)) return <p>This pmail does not serve threads; the Inbox lists received mail.</p>;
  const threadLink = (t: ThreadSummary) =>
    `#/threads/${encodeURIComponent(identity)}/${encodeURIComponent(t.id)}`;
  return (
    <>
      <MailFilters list={list} identities={identities} />
      <LoadState live={live} error={page.error} loading={page.loading && !page.value} />
      <Table<ThreadSummary>
        caption="Threads"
        rows={page.value?.data ?? []}
        rowKey={(t) => t.id}
        attrs={(t) => ({ 'data-thread': t.id })}
        empty="No threads."
        loaded={!page.loading && Boolean(page.value)}
        columns={[
          {
            head: 'Subject',
            cell: (t) => <SubjectCell href={threadLink(t)} row={t} onLabel={list.pickLabel} />,
          },
          { head: 'Participants', cell: (t) => t.participants.join(', ') },
          { head: 'Messages', cell: (t) => t.message_count },
          { head: 'Last message', cell: (t) => time(t.last_message_at) },
        ]}
      />
      <Paging cursors={list.cursors} next={page.value?.next_cursor} onChange={list.setCursors} />
    </>
  );
}

/**
 * One conversation, oldest message first, both directions: who wrote to whom, when, its status,
 * and its text — a received message's new text, with its quoted history one click away (the
 * message's whole text, read then), a sent message's text as it went out. Each links to its
 * message page (HTML, attachments, deliveries). The thread's events on the stream reload it.
 */
export function ThreadPage({ me, params }: PageProps) {
  const thread = useLoad(
    () =>
      pmail().threads.get(params.identity, params.thread, {
        text: 'extracted',
        max_chars: THREAD_PAGE_BUDGET,
      }),
    [params.identity, params.thread],
  );
  const live = useLive(
    can(me, 'events:read') ? { identity_id: params.identity, thread_id: params.thread } : undefined,
    () => thread.reload(),
  );
  const t = thread.value;
  return (
    <>
      <p>
        <a href="#/threads">← Threads</a>
      </p>
      {noThreads(thread.error) ? <p>This pmail does not serve threads.</p> : null}
      <LoadState
        live={live}
        error={noThreads(thread.error) ? undefined : thread.error}
        loading={thread.loading && !t}
      />
      {t ? (
        <>
          <h2 class="subject">{t.subject || '(no subject)'}</h2>
          <p>
            {t.message_count} messages · {t.participants.join(', ')}
            {t.messages_truncated ? ' · the latest 100 shown' : ''}
            {t.text_budget.messages_omitted ? ` · ${t.text_budget.messages_omitted} older left out` : ''}
          </p>
          {can(me, 'messages:write') ? (
            <LabelEditor
              labels={t.labels ?? []}
              change={async (c) => (await pmail().threads.label(params.identity, params.thread, c)).labels}
            />
          ) : (
            <LabelChips labels={t.labels} />
          )}
          <ol class="thread">
            {t.messages.map((m) => (
              <ThreadEntry key={m.id} m={m} />
            ))}
          </ol>
        </>
      ) : null}
    </>
  );
}

/** One message of the thread: who wrote to whom, when (a link to its page), its status, its text. */
function ThreadEntry({ m }: { m: ThreadMessage }) {
  return (
    <li data-message={m.id} class={m.direction}>
      <p>
        <strong>{m.direction === 'inbound' ? 'Received' : 'Sent'}</strong> {m.from.address} →{' '}
        {[...m.to, ...m.cc].map((r) => r.address).join(', ')}{' '}
        <a href={messageLink(m)}>
          <time dateTime={m.sent_at ?? m.received_at}>{time(m.sent_at ?? m.received_at)}</time>
        </a>{' '}
        <Status value={m.status} />
        {m.status_reason ? <span class="reason"> — {m.status_reason}</span> : null}
      </p>
      <ThreadText m={m} />
    </li>
  );
}

/** A message's text in the thread, and for a received one its whole text (the quote) on request. */
function ThreadText({ m }: { m: ThreadMessage }) {
  const [whole, setWhole] = useState<string | null>();
  const [error, setError] = useState<unknown>();
  if (m.body_withheld) return <p class="hint">No body shown ({m.body_withheld}).</p>;
  const showQuote = async () => {
    try {
      setWhole((await pmail().messages.get(m.identity_id, m.id)).text);
    } catch (e) {
      setError(e);
    }
  };
  return (
    <>
      {m.text !== null ? <pre class="body">{whole ?? m.text}</pre> : <p class="hint">No text.</p>}
      {m.direction === 'inbound' && whole === undefined && m.text !== null ? (
        <button type="button" class="secondary small" onClick={showQuote}>
          Show quoted history
        </button>
      ) : null}
      {m.text_form === 'cut' ? <p class="hint">Cut to fit: the message page has all of it.</p> : null}
      <ErrorNote error={error} />
    </>
  );
}
