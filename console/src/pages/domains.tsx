import { api, type Page } from '../api.ts';
import {
  ConfirmButton,
  CopyButton,
  can,
  ErrorNote,
  Loading,
  type PageProps,
  Section,
  Status,
  time,
  useLoad,
} from '../ui.tsx';

interface Domain {
  id: string | null;
  name: string;
  transport: string;
  state: string;
  state_reason: string | null;
  checked_at: string | null;
  dns_records: { type: string; name: string; value: string; purpose: string; required: boolean }[];
}

/** The tenant's sending domains: state and reason, the DNS records to publish, and Verify. */
export function Domains({ me }: PageProps) {
  const base = `/v1/tenants/${me.tenant_id}/domains`;
  const list = useLoad(() => api<Page<Domain>>('GET', base), [base]);
  return (
    <>
      <ErrorNote error={list.error} />
      <Loading when={list.loading} />
      {list.value?.data.length === 0 ? <p>No sending domains.</p> : null}
      {(list.value?.data ?? []).map((d) => (
        <Section key={d.name} title={d.name}>
          <p>
            <Status value={d.state} /> {d.state_reason ? `— ${d.state_reason}` : ''} · transport {d.transport}{' '}
            · checked {time(d.checked_at)}
          </p>
          {can(me, 'domains:write') && d.id ? (
            <ConfirmButton
              label={`Verify ${d.name}`}
              question={`Check the DNS records and the provider's state of ${d.name} now?`}
              run={async () => {
                await api('POST', `${base}/${d.id}/verify`);
                list.reload();
              }}
            />
          ) : null}
          {d.dns_records.length ? (
            <table>
              <caption>DNS records to publish</caption>
              <thead>
                <tr>
                  <th scope="col">Type</th>
                  <th scope="col">Name</th>
                  <th scope="col">Value</th>
                  <th scope="col">Purpose</th>
                </tr>
              </thead>
              <tbody>
                {d.dns_records.map((r) => (
                  <tr key={`${r.type}${r.name}${r.value}`}>
                    <td>{r.type}</td>
                    <td>
                      <code>{r.name}</code> <CopyButton text={r.name} label={`Copy name ${r.name}`} />
                    </td>
                    <td>
                      <code class="wrap">{r.value}</code>{' '}
                      <CopyButton text={r.value} label={`Copy value of ${r.name}`} />
                    </td>
                    <td>
                      {r.purpose}
                      {r.required ? '' : ' (suggested)'}
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          ) : (
            <p>No DNS records to publish.</p>
          )}
        </Section>
      ))}
    </>
  );
}
