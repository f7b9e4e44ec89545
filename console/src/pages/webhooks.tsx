import { useState } from 'preact/hooks';
import type { components } from '../../../packages/client/src/index.ts';
import { pmail } from '../api.ts';
import { LoadedTable, LoadState, Table } from '../parts.tsx';
import { ConfirmButton, can, ErrorNote, type PageProps, Section, Status, time, useLoad } from '../ui.tsx';

type Webhook = components['schemas']['Webhook'];
type Attempt = components['schemas']['WebhookDeliveryAttempt'];

/** The tenant's webhook endpoints (GET /v1/webhooks), each linking to its page; Delete where allowed. */
export function Webhooks({ me }: PageProps) {
  const list = useLoad(() => pmail().webhooks.list(), []);
  const manage = can(me, 'webhooks:manage');
  return (
    <LoadedTable<Webhook>
      load={list}
      rowKey={(w) => w.id}
      empty="No webhook endpoints."
      columns={[
        {
          head: 'URL',
          cell: (w) => (
            <>
              <a href={`#/webhooks/${encodeURIComponent(w.id)}`}>
                <code>{w.url}</code>
              </a>
              {w.description ? <div class="hint">{w.description}</div> : null}
            </>
          ),
        },
        { head: 'Events', cell: (w) => w.event_types?.join(', ') ?? 'all' },
        {
          head: 'Status',
          cell: (w) => (
            <>
              <Status value={w.status} />
              {w.disabled_reason ? ` — ${w.disabled_reason}` : ''}
            </>
          ),
        },
        { head: 'Created', cell: (w) => time(w.created_at) },
        {
          head: 'Actions',
          when: manage,
          cell: (w) => (
            <ConfirmButton
              label={`Delete ${w.url}`}
              question={`Delete the endpoint ${w.url}? It receives no more events.`}
              danger
              run={async () => {
                await pmail().webhooks.delete(w.id);
                list.reload();
              }}
            />
          ),
        },
      ]}
    />
  );
}

/**
 * One endpoint: what it receives, its recent delivery attempts (GET …/deliveries) and, for a key
 * that manages webhooks, Send test (POST …/test), after which the list is read again until the
 * test's first attempt is in it.
 */
export function WebhookPage({ me, params }: PageProps) {
  const id = params.webhook;
  const hook = useLoad(() => pmail().webhooks.get(id), [id]);
  const attempts = useLoad(() => pmail().webhooks.deliveries(id), [id]);
  const [notice, setNotice] = useState('');
  const [error, setError] = useState<unknown>();
  const [busy, setBusy] = useState(false);
  const sendTest = async () => {
    setBusy(true);
    setError(undefined);
    setNotice('');
    try {
      const out = await pmail().webhooks.test(id);
      setNotice(`Test event ${out.delivery_id} queued.`);
      for (let i = 0; i < 15; i++) {
        await new Promise((r) => setTimeout(r, 700));
        const page = await pmail().webhooks.deliveries(id);
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
      <LoadState error={hook.error} loading={hook.loading && !w} />
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
        <LoadState error={attempts.error} loading={attempts.loading} />
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
    <Table<Attempt>
      caption="Recent deliveries"
      rows={rows}
      rowKey={(a) => `${a.event_id}-${a.attempt}`}
      attrs={(a) => ({ 'data-event': a.event_id })}
      empty="No deliveries in the last 3 days."
      loaded={loaded}
      columns={[
        { head: 'Time', cell: (a) => time(a.attempted_at) },
        {
          head: 'Event',
          cell: (a) => (
            <>
              {a.event_type}
              <div class="hint">
                <code>{a.event_id}</code>
              </div>
            </>
          ),
        },
        { head: 'Attempt', cell: (a) => a.attempt },
        {
          head: 'Answer',
          cell: (a) => (
            <>
              {a.status_code ?? a.error ?? '—'} <span class="hint">({a.duration_ms} ms)</span>
            </>
          ),
        },
        { head: 'Result', cell: (a) => <Status value={a.result} /> },
      ]}
    />
  );
}
