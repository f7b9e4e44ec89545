import { useState } from 'preact/hooks';
import { api, type Page } from '../api.ts';
import { ConfirmButton, ErrorNote, Loading, type PageProps, Section, time, useLoad } from '../ui.tsx';

interface Suppression {
  address_hint: string;
  reason: string;
  created_at: string;
  expires_at: string | null;
  source_message_id: string | null;
}

/**
 * The tenant's suppressions. The API keeps only a hash and a hint of each address, so removing
 * one takes its full address, typed.
 */
export function Suppressions({ me }: PageProps) {
  const base = `/v1/tenants/${me.tenant_id}/suppressions`;
  const list = useLoad(() => api<Page<Suppression>>('GET', base, { query: { limit: '100' } }), [base]);
  const [address, setAddress] = useState('');
  const [reason, setReason] = useState('manual');
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
              await api('POST', base, { body: { address: address.trim(), reason } });
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
            <select value={reason} onChange={(e) => setReason((e.target as HTMLSelectElement).value)}>
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
              await api('DELETE', `${base}/${encodeURIComponent(removeAddress.trim())}`);
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
        <ErrorNote error={list.error} />
        <Loading when={list.loading} />
        <table>
          <thead>
            <tr>
              <th scope="col">Address</th>
              <th scope="col">Reason</th>
              <th scope="col">Since</th>
              <th scope="col">Expires</th>
              <th scope="col">Message</th>
            </tr>
          </thead>
          <tbody>
            {(list.value?.data ?? []).map((s) => (
              <tr key={`${s.address_hint}${s.created_at}`}>
                <td>{s.address_hint}</td>
                <td>{s.reason}</td>
                <td>{time(s.created_at)}</td>
                <td>{time(s.expires_at)}</td>
                <td>{s.source_message_id ?? '—'}</td>
              </tr>
            ))}
            {list.value?.data.length === 0 ? (
              <tr>
                <td colSpan={5}>No suppressions.</td>
              </tr>
            ) : null}
          </tbody>
        </table>
      </Section>
    </>
  );
}
