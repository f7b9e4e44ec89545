import MailComposer from 'nodemailer/lib/mail-composer/index.js';
import type { ComposePlan } from '../core/compose.ts';
import type { Mailbox } from '../core/model.ts';

/**
 * MIME bytes from a compose plan, with nodemailer's composer (not hand-written MIME). The plan
 * carries the Message-ID and Date, so nothing here reads the clock; Bcc is never written (the plan
 * has none, and the composer drops a Bcc header anyway).
 */
export async function buildMime(plan: ComposePlan): Promise<Buffer> {
  // nodemailer title-cases header names (X-AI-Generated → X-Ai-Generated); send them as planned:
  // X- names as the caller gave them, the others in their canonical case.
  const names = new Map(Object.keys(plan.headers).map((k) => [k.toLowerCase(), k]));
  const composer = new MailComposer({
    messageId: plan.messageId,
    date: plan.date,
    from: mailbox(plan.from),
    to: plan.to.map(mailbox),
    cc: plan.cc.map(mailbox),
    ...(plan.replyTo ? { replyTo: mailbox(plan.replyTo) } : {}),
    ...(plan.inReplyTo ? { inReplyTo: plan.inReplyTo } : {}),
    ...(plan.references?.length ? { references: plan.references } : {}),
    subject: plan.subject,
    text: plan.text,
    html: plan.html,
    headers: plan.headers,
    normalizeHeaderKey: (key: string) => names.get(key.toLowerCase()) ?? key,
    attachments: plan.attachments.map((a) => ({
      filename: a.filename,
      contentType: a.content_type,
      content: Buffer.from(a.content_base64, 'base64'),
      contentDisposition: a.disposition ?? 'attachment',
      // An inline part is referenced from the HTML as cid:{content_id}; the composer puts parts with
      // a cid in multipart/related next to the HTML.
      ...(a.content_id ? { cid: a.content_id } : {}),
    })),
    // Never read files or URLs named in a request.
    disableFileAccess: true,
    disableUrlAccess: true,
  });
  return composer.compile().build();
}

function mailbox(m: Mailbox): string | { name: string; address: string } {
  return m.name ? { name: m.name, address: m.address } : m.address;
}
