import { useState } from 'preact/hooks';
import { grantablePermissions } from '../../../functions/core/guardrails.ts';
import type { components } from '../../../packages/client/src/index.ts';
import { pmail } from '../api.ts';
import { Facts, LoadState, Table } from '../parts.tsx';
import {
  ConfirmButton,
  CopyButton,
  can,
  ErrorNote,
  type PageProps,
  Section,
  Status,
  time,
  useLoad,
} from '../ui.tsx';

type KeyView = components['schemas']['Key'];
type Permission = components['schemas']['KeyCreateRequest']['permissions'][number];

const RANK = { platform: 3, tenant: 2, identity: 1 } as const;

/**
 * This key, and with `keys:manage` the keys it reaches: create one no wider than itself (the
 * levels and permissions offered are only those the API would allow it), its secret shown once;
 * revoke one.
 */
export function Keys({ me, identities }: PageProps) {
  const manage = can(me, 'keys:manage');
  const list = useLoad(
    () => (manage ? pmail().keys.list({ limit: 100 }) : Promise.resolve(undefined)),
    [manage],
  );
  return (
    <>
      <Section title="This key">
        <Facts
          entries={[
            ['Key', me.key_id],
            ['Level', me.level],
            ['Permissions', me.permissions.join(', ')],
          ]}
        />
      </Section>
      {manage ? (
        <>
          <CreateKey me={me} identities={identities} onCreated={list.reload} />
          <Section title="Keys">
            <LoadState error={list.error} loading={list.loading} />
            <Table<KeyView>
              rows={list.value?.data ?? []}
              rowKey={(k) => k.id}
              columns={[
                {
                  head: 'Name',
                  cell: (k) => (
                    <>
                      {k.name}
                      <div class="hint">{k.id}</div>
                    </>
                  ),
                },
                { head: 'Level', cell: (k) => `${k.level}${k.identity_id ? ` ${k.identity_id}` : ''}` },
                { head: 'Permissions', cell: (k) => k.permissions.join(', ') },
                { head: 'Status', cell: (k) => <Status value={k.status} /> },
                { head: 'Last used', cell: (k) => time(k.last_used_at) },
                {
                  head: 'Actions',
                  cell: (k) =>
                    k.status === 'active' && k.id !== me.key_id ? (
                      <ConfirmButton
                        label={`Revoke ${k.name}`}
                        question={`Revoke the key ${k.name}? Requests with it fail from now on.`}
                        danger
                        run={async () => {
                          await pmail().keys.revoke(k.id);
                          list.reload();
                        }}
                      />
                    ) : null,
                },
              ]}
            />
          </Section>
        </>
      ) : (
        <p>This key may not manage keys (it lacks keys:manage).</p>
      )}
    </>
  );
}

function CreateKey({
  me,
  identities,
  onCreated,
}: Pick<PageProps, 'me' | 'identities'> & { onCreated: () => void }) {
  const levels = (['tenant', 'identity'] as const).filter((l) => RANK[l] <= RANK[me.level]);
  const [name, setName] = useState('');
  const [level, setLevel] = useState<'tenant' | 'identity'>(levels[levels.length - 1]);
  const [identity, setIdentity] = useState(me.identity_id ?? identities[0]?.id ?? '');
  const [chosen, setChosen] = useState<string[]>([]);
  const [secret, setSecret] = useState<string>();
  const [error, setError] = useState<unknown>();
  // Only what this key may grant at the level (core/guardrails.ts): the API refuses anything else.
  const offered: string[] = grantablePermissions({ level: me.level, scopes: me.permissions }, level);
  return (
    <Section title="Create a key">
      <form
        onSubmit={async (e) => {
          e.preventDefault();
          setError(undefined);
          setSecret(undefined);
          try {
            const out = await pmail().keys.create({
              name: name.trim(),
              level,
              permissions: chosen.filter((p) => offered.includes(p)) as Permission[],
              ...(level === 'identity' ? { identity_id: identity } : {}),
              ...(me.level === 'platform' && me.tenant_id ? { tenant_id: me.tenant_id } : {}),
            });
            setSecret(out.data.secret);
            setName('');
            setChosen([]);
            onCreated();
          } catch (err) {
            setError(err);
          }
        }}
      >
        <label>
          Key name
          <input
            required
            maxLength={100}
            value={name}
            onInput={(e) => setName((e.target as HTMLInputElement).value)}
          />
        </label>
        <label>
          Level
          <select
            value={level}
            onChange={(e) => setLevel((e.target as HTMLSelectElement).value as typeof level)}
          >
            {levels.map((l) => (
              <option key={l} value={l}>
                {l}
              </option>
            ))}
          </select>
        </label>
        {level === 'identity' ? (
          <label>
            Identity
            <select value={identity} onChange={(e) => setIdentity((e.target as HTMLSelectElement).value)}>
              {identities.map((i) => (
                <option key={i.id} value={i.id}>
                  {i.username} ({i.primary_address})
                </option>
              ))}
            </select>
          </label>
        ) : null}
        <fieldset>
          <legend>Permissions</legend>
          {offered.map((p) => (
            <label key={p} class="check">
              <input
                type="checkbox"
                checked={chosen.includes(p)}
                onChange={(e) =>
                  setChosen(
                    (e.target as HTMLInputElement).checked ? [...chosen, p] : chosen.filter((c) => c !== p),
                  )
                }
              />
              {p}
            </label>
          ))}
        </fieldset>
        <button type="submit">Create key</button>
      </form>
      <ErrorNote error={error} />
      {secret ? (
        <div class="secret" role="status">
          <p>The new key's secret, shown once — store it now:</p>
          <code class="wrap">{secret}</code> <CopyButton text={secret} label="Copy the new key's secret" />
        </div>
      ) : null}
    </Section>
  );
}
