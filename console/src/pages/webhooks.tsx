import { api, type Page } from '../api.ts';
import { ConfirmButton, can, ErrorNote, Loading, type PageProps, Status, time, useLoad } from '../ui.tsx';

interface Webhook {
  id: string;
  url: string;
  event_types: string[] | null;
  description: string | null;
  status: string;
  disabled_reason: string | null;
  created_at: string;
}

/** The tenant's webhook endpoints (GET /v1/webhooks), and Delete where the key may manage them. */
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
                <code>{w.url}</code>
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
                      await api('DELETE', `/v1/webhooks/${w.id}`);
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
