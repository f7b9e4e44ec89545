import { useState } from 'preact/hooks';
import { ApiError, api, type Message, type Page } from '../api.ts';
import { useIdentity } from '../identity.ts';
import { type LabelChange, LabelChips, LabelEditor, LabelFilter } from '../labels.tsx';
import { useLive } from '../live.ts';
import { type Highlight, HighlightText, SearchBox } from '../search.tsx';
import {
  addressQuery,
  can,
  ErrorNote,
  LiveMark,
  Loading,
  type PageProps,
  Paging,
  Status,
  time,
  useAddress,
  useLoad,
} from '../ui.tsx';

interface ThreadSummary {
  id: string;
  subject: string;
  participants: string[];
  message_count: number;
  last_message_at: string;
  snippet: string;
  labels?: string[];
  /** Where a search (`q`) found it. */
  highlight?: Highlight;
}

interface Thread extends ThreadSummary {
  /** Each with `text` as the budget left it (`text_form`: its extracted text here, or cut). */
  messages: (Message & { text_form: 'whole' | 'extracted' | 'cut' })[];
  messages_truncated: boolean;
  text_budget: { max_chars: number; messages_omitted: number };
}

/** The thread page asks for every message's new text under the widest budget the API allows. */
const THREAD_PAGE_BUDGET = '500000';

/** A pmail without the threads routes answers 404 `route_not_found`: the page says so. */
const noThreads = (e: unknown) => e instanceof ApiError && e.code === 'route_not_found';

const messageLink = (m: Message) =>
  `#/messages/${encodeURIComponent(m.identity_id)}/${encodeURIComponent(m.id)}`;

/**
 * An identity's conversations (GET …/threads), latest activity first, a page at a time; reloaded
 * by the identity's message events on the stream.
 */
export function Threads({ me, identities }: PageProps) {
  // The filters are part of the page's address (`#/threads?identity=…&label=…`).
  const given = addressQuery();
  const [identity, setIdentity] = useIdentity(identities, given.get('identity'));
  const [label, setLabel] = useState(given.get('label') ?? '');
  const [q, setQ] = useState(given.get('q') ?? '');
  useAddress(identity ? { identity, label, q } : undefined);
  const [cursors, setCursors] = useState<(string | undefined)[]>([undefined]);
  const cursor = cursors[cursors.length - 1];
  const page = useLoad(
    () =>
      identity
        ? api<Page<ThreadSummary>>('GET', `/v1/identities/${encodeURIComponent(identity)}/threads`, {
            query: { q: q || undefined, label: label || undefined, cursor, limit: '25' },
          })
        : Promise.resolve({ data: [], next_cursor: null }),
    [identity, label, q, cursor],
  );
  const search = (words: string) => {
    setQ(words);
    setCursors([undefined]);
  };
  const pickLabel = (l: string) => {
    setLabel(l);
    setCursors([undefined]);
  };
  const live = useLive(
    identity && can(me, 'events:read') ? { identity_id: identity, types: ['message.*'] } : undefined,
    () => page.reload(),
  );
  if (noThreads(page.error)) return <p>This pmail does not serve threads; the Inbox lists received mail.</p>;
  return (
    <>
      <form class="filters" onSubmit={(e) => e.preventDefault()}>
        <label>
          Identity
          <select
            value={identity}
            onChange={(e) => {
              setIdentity((e.target as HTMLSelectElement).value);
              setCursors([undefined]);
            }}
          >
            {identities.map((i) => (
              <option key={i.id} value={i.id}>
                {i.username} ({i.primary_address})
              </option>
            ))}
          </select>
        </label>
        <label>
          Label
          <input value={label} onChange={(e) => pickLabel((e.target as HTMLInputElement).value.trim())} />
        </label>
      </form>
      <SearchBox q={q} onSearch={search} />
      <LabelFilter label={label} onClear={() => pickLabel('')} />
      <LiveMark live={live} />
      <ErrorNote error={page.error} />
      <Loading when={page.loading && !page.value} />
      <table>
        <caption class="visually-hidden">Threads</caption>
        <thead>
          <tr>
            <th scope="col">Subject</th>
            <th scope="col">Participants</th>
            <th scope="col">Messages</th>
            <th scope="col">Last message</th>
          </tr>
        </thead>
        <tbody>
          {(page.value?.data ?? []).map((t) => (
            <tr key={t.id} data-thread={t.id}>
              <td>
                <a href={`#/threads/${encodeURIComponent(identity)}/${encodeURIComponent(t.id)}`}>
                  {t.subject || '(no subject)'}
                </a>
                {t.highlight ? (
                  <HighlightText highlight={t.highlight} />
                ) : t.snippet ? (
                  <div class="hint snippet">{t.snippet}</div>
                ) : null}
                <LabelChips labels={t.labels} onPick={pickLabel} />
              </td>
              <td>{t.participants.join(', ')}</td>
              <td>{t.message_count}</td>
              <td>{time(t.last_message_at)}</td>
            </tr>
          ))}
          {!page.loading && page.value?.data.length === 0 ? (
            <tr>
              <td colSpan={4}>No threads.</td>
            </tr>
          ) : null}
        </tbody>
      </table>
      <Paging cursors={cursors} next={page.value?.next_cursor} onChange={setCursors} />
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
  const path = `/v1/identities/${encodeURIComponent(params.identity)}/threads/${encodeURIComponent(params.thread)}`;
  const thread = useLoad(
    () => api<Thread>('GET', path, { query: { text: 'extracted', max_chars: THREAD_PAGE_BUDGET } }),
    [path],
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
      <LiveMark live={live} />
      {noThreads(thread.error) ? (
        <p>This pmail does not serve threads.</p>
      ) : (
        <ErrorNote error={thread.error} />
      )}
      <Loading when={thread.loading && !t} />
      {t ? (
        <>
          <h2 class="subject">{t.subject || '(no subject)'}</h2>
          <p>
            {t.message_count} messages · {t.participants.join(', ')}
            {t.messages_truncated ? ' · the latest 100 shown' : ''}
            {t.text_budget.messages_omitted ? ` · ${t.text_budget.messages_omitted} older left out` : ''}
          </p>
          {can(me, 'messages:write') ? (
            <LabelEditor labels={t.labels ?? []} change={(c) => changeLabels(path, c)} />
          ) : (
            <LabelChips labels={t.labels} />
          )}
          <ol class="thread">
            {t.messages.map((m) => (
              <li key={m.id} data-message={m.id} class={m.direction}>
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
            ))}
          </ol>
        </>
      ) : null}
    </>
  );
}

/** Sends a change of the thread's labels (POST …/labels) and answers its labels after it. */
async function changeLabels(path: string, change: LabelChange): Promise<string[]> {
  return (await api<{ labels: string[] }>('POST', `${path}/labels`, { body: change })).labels;
}

/** A message's text in the thread, and for a received one its whole text (the quote) on request. */
function ThreadText({ m }: { m: Thread['messages'][number] }) {
  const [whole, setWhole] = useState<string | null>();
  const [error, setError] = useState<unknown>();
  if (m.body_withheld) return <p class="hint">No body shown ({m.body_withheld}).</p>;
  const showQuote = async () => {
    try {
      const path = `/v1/identities/${encodeURIComponent(m.identity_id)}/messages/${encodeURIComponent(m.id)}`;
      setWhole((await api<Message>('GET', path)).text);
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
