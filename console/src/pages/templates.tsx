import { useState } from 'preact/hooks';
import type { components } from '../../../packages/client/src/index.ts';
import { pmail } from '../api.ts';
import { LoadedTable, LoadState } from '../parts.tsx';
import { type PageProps, Section, time, useLoad } from '../ui.tsx';
import { HtmlPreview } from './body.tsx';

type TemplateSummary = components['schemas']['TemplateSummary'];

/**
 * The tenant's templates; choosing one shows it rendered by the API (POST …/preview), as a send
 * renders it: first with samples from its schema, then with the variables typed in.
 */
export function Templates({ me }: PageProps) {
  const tenant = me.tenant_id ?? '';
  const list = useLoad(() => pmail().templates.list(tenant), [tenant]);
  const [open, setOpen] = useState<string>();
  // The variables to render with: none first (the API's samples from the schema), then as edited.
  const [given, setGiven] = useState<Record<string, unknown>>();
  const [draft, setDraft] = useState('');
  const [draftError, setDraftError] = useState('');
  const preview = useLoad(
    () =>
      open
        ? pmail().templates.preview(tenant, open, given ? { variables: given } : {})
        : Promise.resolve(undefined),
    [open, JSON.stringify(given)],
  );
  const t = preview.value;
  const choose = (name: string) => {
    setOpen(name);
    setGiven(undefined);
    setDraft('');
    setDraftError('');
  };
  const shown = t ? JSON.stringify(t.variables, null, 2) : '';
  return (
    <>
      <LoadedTable<TemplateSummary>
        load={list}
        rowKey={(t) => t.name}
        empty="No templates."
        columns={[
          {
            head: 'Name',
            cell: (t) => (
              <button type="button" class="link" onClick={() => choose(t.name)}>
                {t.name}
              </button>
            ),
          },
          { head: 'Subject', cell: (t) => t.subject },
          { head: 'Kind', cell: (t) => t.kind },
          { head: 'Version', cell: (t) => t.version },
          { head: 'Updated', cell: (t) => time(t.updated_at) },
        ]}
      />
      {open ? (
        <Section title={`Preview: ${open}`}>
          <LoadState error={preview.error} loading={preview.loading} />
          {t ? (
            <>
              <p>
                Subject: <strong>{t.subject}</strong> <span class="hint">(version {t.version})</span>
              </p>
              {t.text !== null ? <pre class="body">{t.text}</pre> : null}
              {t.html !== null ? <HtmlPreview html={t.html} title={`Preview of ${t.name}`} /> : null}
            </>
          ) : null}
          <form
            onSubmit={(e) => {
              e.preventDefault();
              try {
                setGiven(JSON.parse(draft || shown));
                setDraftError('');
              } catch {
                setDraftError('The variables are not valid JSON.');
              }
            }}
          >
            <label>
              Sample variables
              <textarea
                rows={6}
                value={draft || shown}
                onInput={(e) => setDraft((e.target as HTMLTextAreaElement).value)}
              />
            </label>
            {draftError ? (
              <p class="error" role="alert">
                {draftError}
              </p>
            ) : null}
            <button type="submit">Render preview</button>
          </form>
        </Section>
      ) : null}
    </>
  );
}
