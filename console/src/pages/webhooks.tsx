import { useState } from 'preact/hooks';
import { api, type Page } from '../api.ts';
import {
  ConfirmButton,
  can,
  ErrorNote,
  Loading,
  type PageProps,
  Section,
  Status,
  time,
  useLoad,
} from '../ui.tsx';

interface Webhook {
  id: string;
  url: string;
  event_types: string[] | null;
  description: string | null;
  status: string;
  disabled_reason: string | null;
  created_at: string;
}

interface Attempt {
  event_id: string;
  event_type: string;
  attempt: number;
  status_code: number | null;
  error: string | null;
  result: string;
  attempted_at: string;
  duration_ms: number;
}

const hookPath = (id: string) => `/v1/webhooks/${encodeURIComponent(id)}`;

/** The tenant's webhook endpoints (GET /v1/webhooks), each linking to its page; Delete where allowed. */
export function Webhooks({ me }: PageProps) {
  const list = useLoad(() => api<Page<Webhook>>('GET', '/v1/webhooks'), []);
  const manage = can(me, 'webhooks:manage');
  return (
    <>
      <ErrorNote error={list.error} />
      <Loading when={list.loading} />
      <table>
        <thead>
          <tr>
            <th scope="col">URL</th>
            <th scope="col">Events</th>
            <th scope="col">Status</th>
            <th scope="col">Created</th>
            {manage ? <th scope="col">Actions</th> : null}
          </tr>
        </thead>
        <tbody>
          {(list.value?.data ?? []).map((w) => (
            <tr key={w.id}>
              <td>
                <a href={`#/webhooks/${encodeURIComponent(w.id)}`}>
                  <code>{w.url}</code>
                </a>
                {w.description ? <div class="hint">{w.description}</div> : null}
              </td>
              <td>{w.event_types?.join(', ') ?? 'all'}</td>
              <td>
                <Status value={w.status} />
                {w.disabled_reason ? ` — ${w.disabled_reason}` : ''}
              </td>
              <td>{time(w.created_at)}</td>
              {manage ? (
                <td>
                  <ConfirmButton
                    label={`Delete ${w.url}`}
                    question={`Delete the endpoint ${w.url}? It receives no more events.`}
                    danger
                    run={async () => {
                      await api('DELETE', hookPath(w.id));
                      list.reload();
                    }}
                  />
                </td>
              ) : null}
            </tr>
          ))}
          {list.value?.data.length === 0 ? (
            <tr>
              <td colSpan={manage ? 5 : 4}>No webhook endpoints.</td>
            </tr>
          ) : null}
        </tbody>
      </table>
    </>
  );
}

/**
 * One endpoint: what it receives, its recent delivery attempts (GET …/deliveries) and, for a key
 * that manages webhooks, Send test (POST …/test), after which the list is read again until the
 * test's first attempt is in it.
 */
export function WebhookPage({ me, params }: PageProps) {
  const path = hookPath(params.webhook);
  const hook = useLoad(() => api<Webhook>('GET', path), [path]);
  const attempts = useLoad(() => api<Page<Attempt>>('GET', `${path}/deliveries`), [path]);
  const [notice, setNotice] = useState('');
  const [error, setError] = useState<unknown>();
  const [busy, setBusy] = useState(false);
  const sendTest = async () => {
    setBusy(true);
    setError(undefined);
    setNotice('');
    try {
      const out = await api<{ delivery_id: string }>('POST', `${path}/test`);
      setNotice(`Test event ${out.delivery_id} queued.`);
      for (let i = 0; i < 15; i++) {
        await new Promise((r) => setTimeout(r, 700));
        const page = await api<Page<Attempt>>('GET', `${path}/deliveries`);
        if (page.data.some((a) => a.event_id === out.delivery_id)) break;
      }
      attempts.reload();
    } catch (e) {
      setError(e);
    } finally {
      setBusy(false);
    }
  };
  const w = hook.value;
  return (
    <>
      <p>
        <a href="#/webhooks">← Webhooks</a>
      </p>
      <ErrorNote error={hook.error} />
      <Loading when={hook.loading && !w} />
      {w ? (
        <>
          <h2 class="subject">
            <code>{w.url}</code>
          </h2>
          <p>
            Status: <Status value={w.status} />
            {w.disabled_reason ? ` — ${w.disabled_reason}` : ''} · Events:{' '}
            {w.event_types?.join(', ') ?? 'all'}
            {w.description ? ` · ${w.description}` : ''}
          </p>
          {can(me, 'webhooks:manage') && w.status === 'active' ? (
            <section class="actions" aria-label="Actions">
              <button type="button" disabled={busy} onClick={sendTest}>
                Send test
              </button>
            </section>
          ) : null}
          <p role="status">{notice}</p>
          <ErrorNote error={error} />
        </>
      ) : null}
      <Section title="Recent deliveries">
        <ErrorNote error={attempts.error} />
        <Loading when={attempts.loading} />
        <Attempts rows={attempts.value?.data ?? []} loaded={Boolean(attempts.value)} />
        <button type="button" class="secondary" onClick={attempts.reload}>
          Refresh deliveries
        </button>
      </Section>
    </>
  );
}

function Attempts({ rows, loaded }: { rows: Attempt[]; loaded: boolean }) {
  return (
    <table>
      <caption class="visually-hidden">Recent deliveries</caption>
      <thead>
        <tr>
          <th scope="col">Time</th>
          <th scope="col">Event</th>
          <th scope="col">Attempt</th>
          <th scope="col">Answer</th>
          <th scope="col">Result</th>
        </tr>
      </thead>
      <tbody>
        {rows.map((a) => (
          <tr key={`${a.event_id}-${a.attempt}`} data-event={a.event_id}>
            <td>{time(a.attempted_at)}</td>
            <td>
              {a.event_type}
              <div class="hint">
                <code>{a.event_id}</code>
              </div>
            </td>
            <td>{a.attempt}</td>
            <td>
              {a.status_code ?? a.error ?? '—'} <span class="hint">({a.duration_ms} ms)</span>
            </td>
            <td>
              <Status value={a.result} />
            </td>
          </tr>
        ))}
        {loaded && rows.length === 0 ? (
          <tr>
            <td colSpan={5}>No deliveries in the last 3 days.</td>
          </tr>
        ) : null}
      </tbody>
    </table>
  );
}
