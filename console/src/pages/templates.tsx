import { useState } from 'preact/hooks';
import { api, type Page } from '../api.ts';
import { ErrorNote, Loading, type PageProps, Section, time, useLoad } from '../ui.tsx';
import { HtmlPreview } from './body.tsx';

interface TemplateSummary {
  name: string;
  version: number;
  subject: string;
  category: string;
  kind: string;
  description: string | null;
  updated_at: string;
}
interface Preview {
  name: string;
  version: number;
  variables: Record<string, unknown>;
  subject: string;
  text: string | null;
  html: string | null;
}

/**
 * The tenant's templates; choosing one shows it rendered by the API (POST …/preview), as a send
 * renders it: first with samples from its schema, then with the variables typed in.
 */
export function Templates({ me }: PageProps) {
  const base = `/v1/tenants/${me.tenant_id}/templates`;
  const list = useLoad(() => api<Page<TemplateSummary>>('GET', base), [base]);
  const [open, setOpen] = useState<string>();
  // The variables to render with: none first (the API's samples from the schema), then as edited.
  const [given, setGiven] = useState<Record<string, unknown>>();
  const [draft, setDraft] = useState('');
  const [draftError, setDraftError] = useState('');
  const preview = useLoad(
    () =>
      open
        ? api<Preview>('POST', `${base}/${encodeURIComponent(open)}/preview`, {
            body: given ? { variables: given } : {},
          })
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
      <ErrorNote error={list.error} />
      <Loading when={list.loading} />
      <table>
        <thead>
          <tr>
            <th scope="col">Name</th>
            <th scope="col">Subject</th>
            <th scope="col">Kind</th>
            <th scope="col">Version</th>
            <th scope="col">Updated</th>
          </tr>
        </thead>
        <tbody>
          {(list.value?.data ?? []).map((s) => (
            <tr key={s.name}>
              <td>
                <button type="button" class="link" onClick={() => choose(s.name)}>
                  {s.name}
                </button>
              </td>
              <td>{s.subject}</td>
              <td>{s.kind}</td>
              <td>{s.version}</td>
              <td>{time(s.updated_at)}</td>
            </tr>
          ))}
          {list.value?.data.length === 0 ? (
            <tr>
              <td colSpan={5}>No templates.</td>
            </tr>
          ) : null}
        </tbody>
      </table>
      {open ? (
        <Section title={`Preview: ${open}`}>
          <ErrorNote error={preview.error} />
          <Loading when={preview.loading} />
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
