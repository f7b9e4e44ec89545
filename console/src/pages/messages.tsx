import { useState } from 'preact/hooks';
import { api, type Message, type Page } from '../api.ts';
import { useIdentity } from '../identity.ts';
import { LabelChips, LabelFilter } from '../labels.tsx';
import { useLive } from '../live.ts';
import { HighlightText, SearchBox } from '../search.tsx';
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

const STATUSES = [
  'pending_approval',
  'queued',
  'submitted',
  'delivered',
  'deferred',
  'bounced',
  'complained',
  'failed',
  'rejected',
  'uncertain',
  'sent',
  'canceled',
  'suppressed',
  'received',
];

/**
 * The messages of one identity, newest first, a page at a time (the API's cursor): who wrote each
 * and to whom, whatever its direction. Direction is the API's filter; status filters the page shown.
 * It opens on the identity src/identity.ts chooses; the identity's message events on the stream
 * reload the page (a message sent, received, delivered, bounced…).
 */
export function Messages({ me, identities, fixedDirection }: PageProps & { fixedDirection?: 'inbound' }) {
  // The filters are part of the page's address (`#/messages?identity=…&direction=…&status=…&label=…`).
  const given = addressQuery();
  const [identity, setIdentity] = useIdentity(identities, given.get('identity'));
  const [direction, setDirection] = useState<string>(fixedDirection ?? given.get('direction') ?? '');
  const [status, setStatus] = useState(given.get('status') ?? '');
  const [label, setLabel] = useState(given.get('label') ?? '');
  const [q, setQ] = useState(given.get('q') ?? '');
  useAddress(
    identity ? { identity, direction: fixedDirection ? '' : direction, status, label, q } : undefined,
  );
  const [cursors, setCursors] = useState<(string | undefined)[]>([undefined]);
  const cursor = cursors[cursors.length - 1];
  const page = useLoad(
    () =>
      identity
        ? api<Page<Message>>('GET', `/v1/identities/${identity}/messages`, {
            query: {
              direction: direction || undefined,
              q: q || undefined,
              label: label || undefined,
              cursor,
              limit: '25',
            },
          })
        : Promise.resolve({ data: [], next_cursor: null }),
    [identity, direction, label, q, cursor],
  );
  const live = useLive(
    identity && can(me, 'events:read') ? { identity_id: identity, types: ['message.*'] } : undefined,
    () => page.reload(),
  );
  const reset = () => setCursors([undefined]);
  const search = (words: string) => {
    setQ(words);
    reset();
  };
  const pickLabel = (l: string) => {
    setLabel(l);
    reset();
  };
  const rows = (page.value?.data ?? []).filter((m) => !status || m.status === status);
  return (
    <>
      <form class="filters" onSubmit={(e) => e.preventDefault()}>
        <label>
          Identity
          <select
            value={identity}
            onChange={(e) => {
              setIdentity((e.target as HTMLSelectElement).value);
              reset();
            }}
          >
            {identities.map((i) => (
              <option key={i.id} value={i.id}>
                {i.username} ({i.primary_address})
              </option>
            ))}
          </select>
        </label>
        {fixedDirection ? null : (
          <label>
            Direction
            <select
              value={direction}
              onChange={(e) => {
                setDirection((e.target as HTMLSelectElement).value);
                reset();
              }}
            >
              <option value="">All</option>
              <option value="outbound">Outbound</option>
              <option value="inbound">Inbound</option>
            </select>
          </label>
        )}
        <label>
          Status
          <select value={status} onChange={(e) => setStatus((e.target as HTMLSelectElement).value)}>
            <option value="">All</option>
            {STATUSES.map((s) => (
              <option key={s} value={s}>
                {s}
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
        <caption class="visually-hidden">Messages</caption>
        <thead>
          <tr>
            <th scope="col">Subject</th>
            <th scope="col">From</th>
            <th scope="col">Recipients</th>
            <th scope="col">Status</th>
            <th scope="col">Time</th>
          </tr>
        </thead>
        <tbody>
          {rows.map((m) => (
            <tr key={m.id} data-message={m.id}>
              <td>
                <a href={`#/messages/${encodeURIComponent(m.identity_id)}/${encodeURIComponent(m.id)}`}>
                  {m.subject || '(no subject)'}
                </a>
                {m.highlight ? (
                  <HighlightText highlight={m.highlight} />
                ) : m.snippet ? (
                  <div class="hint snippet">{m.snippet}</div>
                ) : null}
                <LabelChips labels={m.labels} onPick={pickLabel} />
              </td>
              <td>{m.from.address}</td>
              {/* Whom it was written to, sent or received: a received message's To and Cc, never its sender. */}
              <td>{[...m.to, ...m.cc, ...m.bcc].map((r) => r.address).join(', ')}</td>
              <td>
                <Status value={m.status} />
              </td>
              <td>{time(m.sent_at ?? m.received_at)}</td>
            </tr>
          ))}
          {!page.loading && rows.length === 0 ? (
            <tr>
              <td colSpan={5}>No messages.</td>
            </tr>
          ) : null}
        </tbody>
      </table>
      <Paging cursors={cursors} next={page.value?.next_cursor} onChange={setCursors} />
    </>
  );
}
