import { useState } from 'preact/hooks';
import type { components } from '../../../packages/client/src/index.ts';
import { pmail } from '../api.ts';
import { LoadedTable } from '../parts.tsx';
import { ConfirmButton, ErrorNote, type PageProps, Section, time, useLoad } from '../ui.tsx';

type Suppression = components['schemas']['Suppression'];

/**
 * The tenant's suppressions. The API keeps only a hash and a hint of each address, so removing
 * one takes its full address, typed.
 */
export function Suppressions({ me }: PageProps) {
  const tenant = me.tenant_id ?? '';
  const list = useLoad(() => pmail().suppressions.list(tenant, { limit: 100 }), [tenant]);
  const [address, setAddress] = useState('');
  const [reason, setReason] = useState<'manual' | 'unsubscribe'>('manual');
  const [removeAddress, setRemoveAddress] = useState('');
  const [error, setError] = useState<unknown>();
  const [notice, setNotice] = useState('');
  return (
    <>
      <Section title="Add a suppression">
        <form
          class="inline"
          onSubmit={async (e) => {
            e.preventDefault();
            setError(undefined);
            try {
              await pmail().suppressions.add(tenant, { address: address.trim(), reason });
              setNotice(`Suppressed ${address.trim()}.`);
              setAddress('');
              list.reload();
            } catch (err) {
              setError(err);
            }
          }}
        >
          <label>
            Address
            <input
              type="email"
              required
              value={address}
              onInput={(e) => setAddress((e.target as HTMLInputElement).value)}
            />
          </label>
          <label>
            Reason
            <select
              value={reason}
              onChange={(e) => setReason((e.target as HTMLSelectElement).value as typeof reason)}
            >
              <option value="manual">manual</option>
              <option value="unsubscribe">unsubscribe</option>
            </select>
          </label>
          <button type="submit">Add suppression</button>
        </form>
      </Section>
      <Section title="Remove a suppression">
        <form class="inline" onSubmit={(e) => e.preventDefault()}>
          <label>
            Address to remove
            <input
              type="email"
              value={removeAddress}
              onInput={(e) => setRemoveAddress((e.target as HTMLInputElement).value)}
            />
          </label>
          <ConfirmButton
            label="Remove suppression"
            question={`Remove the suppression of ${removeAddress || 'this address'}? Mail to it will be sent again.`}
            danger
            run={async () => {
              await pmail().suppressions.remove(tenant, removeAddress.trim());
              setNotice(`Removed the suppression of ${removeAddress.trim()}.`);
              setRemoveAddress('');
              list.reload();
            }}
          />
        </form>
      </Section>
      <p role="status">{notice}</p>
      <ErrorNote error={error} />
      <Section title="Suppressed addresses">
        <LoadedTable<Suppression>
          load={list}
          rowKey={(x) => `${x.address_hint}${x.created_at}`}
          empty="No suppressions."
          columns={[
            { head: 'Address', cell: (x) => x.address_hint },
            { head: 'Reason', cell: (x) => x.reason },
            { head: 'Since', cell: (x) => time(x.created_at) },
            { head: 'Expires', cell: (x) => time(x.expires_at) },
            { head: 'Message', cell: (x) => x.source_message_id ?? '—' },
          ]}
        />
      </Section>
    </>
  );
}
