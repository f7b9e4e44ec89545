import type { components } from '../../../packages/client/src/index.ts';
import { pmail } from '../api.ts';
import { LoadState, Table } from '../parts.tsx';
import { ConfirmButton, CopyButton, can, type PageProps, Section, Status, time, useLoad } from '../ui.tsx';

type DnsRecord = components['schemas']['Domain']['dns_records'][number];

/** The tenant's sending domains: state and reason, the DNS records to publish, and Verify. */
export function Domains({ me }: PageProps) {
  const tenant = me.tenant_id ?? '';
  const list = useLoad(() => pmail().domains.list(tenant), [tenant]);
  return (
    <>
      <LoadState error={list.error} loading={list.loading} />
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
                await pmail().domains.verify(tenant, d.id ?? '');
                list.reload();
              }}
            />
          ) : null}
          {d.dns_records.length ? (
            <Table<DnsRecord>
              caption="DNS records to publish"
              showCaption
              rows={d.dns_records}
              rowKey={(r) => `${r.type}${r.name}${r.value}`}
              columns={[
                { head: 'Type', cell: (r) => r.type },
                {
                  head: 'Name',
                  cell: (r) => (
                    <>
                      <code>{r.name}</code> <CopyButton text={r.name} label={`Copy name ${r.name}`} />
                    </>
                  ),
                },
                {
                  head: 'Value',
                  cell: (r) => (
                    <>
                      <code class="wrap">{r.value}</code>{' '}
                      <CopyButton text={r.value} label={`Copy value of ${r.name}`} />
                    </>
                  ),
                },
                { head: 'Purpose', cell: (r) => `${r.purpose}${r.required ? '' : ' (suggested)'}` },
              ]}
            />
          ) : (
            <p>No DNS records to publish.</p>
          )}
        </Section>
      ))}
    </>
  );
}
