import DOMPurify from 'dompurify';
import type { Message } from '../api.ts';
import { Section } from '../ui.tsx';

/**
 * A message's body, sent or received alike (openapi.yaml › Message): its text as text, its HTML
 * only sanitised in a sandbox, its attachments named. Mail from outside and a sent message that
 * quotes or forwards it carry text anyone wrote: nothing of it is rendered as the console's own.
 */
export function MessageBody({ m }: { m: Message }) {
  if (m.body_withheld)
    return (
      <Section title="Text">
        <p>
          No body shown ({m.body_withheld}): a transactional template’s message keeps no text once final, so a
          sign-in link or a code does not come back here.
        </p>
      </Section>
    );
  return (
    <>
      <Section title="Text">
        {m.text !== null ? <pre class="body">{m.text}</pre> : <p>No text part.</p>}
        {m.body_truncated ? <p class="hint">The body was cut to the size pmail keeps.</p> : null}
      </Section>
      {m.html !== null ? (
        <Section title="HTML preview">
          <HtmlPreview html={m.html} />
        </Section>
      ) : null}
      <Attachments m={m} />
    </>
  );
}

/** A message's attachments, named (the API serves their bytes, always as downloads). */
export function Attachments({ m }: { m: Message }) {
  if (m.attachments.length === 0) return null;
  return (
    <Section title="Attachments">
      <ul>
        {m.attachments.map((a) => (
          <li key={a.id}>
            {a.filename ?? '(unnamed)'} — {a.content_type}, {a.size} bytes
            {a.risky ? ` (risky: ${a.risk})` : ''}
          </li>
        ))}
      </ul>
    </Section>
  );
}

/**
 * An email's HTML, sanitised (DOMPurify: no scripts, no handlers, no forms) and shown in an iframe
 * with `sandbox` and no allowances: no scripts run, it has no origin, and it inherits the
 * console's Content-Security-Policy, so it loads nothing from elsewhere.
 */
export function HtmlPreview({ html, title = 'HTML preview' }: { html: string; title?: string }) {
  const clean = DOMPurify.sanitize(html, { FORBID_TAGS: ['form', 'style'], WHOLE_DOCUMENT: false });
  return <iframe class="preview" title={title} sandbox="" srcdoc={clean} referrerpolicy="no-referrer" />;
}
