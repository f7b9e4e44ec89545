import { useState } from 'preact/hooks';
import { api, type Page } from '../api.ts';
import { ErrorNote, Loading, type PageProps, Section, time, useLoad } from '../ui.tsx';
import { HtmlPreview } from './message.tsx';

interface TemplateSummary {
  name: string;
  version: number;
  subject: string;
  category: string;
  kind: string;
  description: string | null;
  updated_at: string;
}
interface Template extends TemplateSummary {
  text: string | null;
  html: string | null;
  variables_schema: { properties?: Record<string, { examples?: unknown[]; default?: unknown }> };
}

/**
 * Sample variables from the template's schema: each property's first example or default, else its
 * name in brackets. The preview fills plain `{{name}}` placeholders with them; the API renders
 * the real message with Handlebars (which needs code generation the console's policy forbids).
 */
function sample(t: Template): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, p] of Object.entries(t.variables_schema?.properties ?? {}))
    out[k] = String(p.examples?.[0] ?? p.default ?? `[${k}]`);
  return out;
}
const fill = (source: string, vars: Record<string, string>) =>
  source.replace(/\{\{\{?\s*([\w.]+)\s*\}?\}\}/g, (whole, name: string) => vars[name] ?? whole);

export function Templates({ me }: PageProps) {
  const base = `/v1/tenants/${me.tenant_id}/templates`;
  const list = useLoad(() => api<Page<TemplateSummary>>('GET', base), [base]);
  const [open, setOpen] = useState<string>();
  const one = useLoad(
    () => (open ? api<Template>('GET', `${base}/${encodeURIComponent(open)}`) : Promise.resolve(undefined)),
    [open],
  );
  const t = one.value;
  const vars = t ? sample(t) : {};
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
                <button type="button" class="link" onClick={() => setOpen(s.name)}>
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
      <ErrorNote error={one.error} />
      {t ? (
        <Section title={`Preview: ${t.name}`}>
          <p>
            Subject: <strong>{fill(t.subject, vars)}</strong>
          </p>
          <p>Sample variables: {JSON.stringify(vars)}</p>
          {t.text ? <pre class="body">{fill(t.text, vars)}</pre> : null}
          {t.html ? <HtmlPreview html={fill(t.html, vars)} title={`Preview of ${t.name}`} /> : null}
        </Section>
      ) : null}
    </>
  );
}
