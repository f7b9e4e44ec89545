import MailComposer from 'nodemailer/lib/mail-composer/index.js';
import type { ComposePlan } from '../core/compose.ts';

/**
 * MIME bytes from a compose plan, with nodemailer's composer (not hand-written MIME). The plan
 * carries the Message-ID and Date, so nothing here reads the clock; Bcc is never written.
 */
export async function buildMime(plan: ComposePlan): Promise<Buffer> {
  const composer = new MailComposer({
    messageId: plan.messageId,
    date: plan.date,
    from: plan.from.name ? { name: plan.from.name, address: plan.from.address } : plan.from.address,
    to: plan.to.map((m) => (m.name ? { name: m.name, address: m.address } : m.address)),
    cc: plan.cc.map((m) => (m.name ? { name: m.name, address: m.address } : m.address)),
    subject: plan.subject,
    text: plan.text,
    html: plan.html,
    headers: plan.headers,
    attachments: plan.attachments.map((a) => ({
      filename: a.filename,
      contentType: a.content_type,
      content: Buffer.from(a.content_base64, 'base64'),
      contentDisposition: a.disposition ?? 'attachment',
      ...(a.content_id ? { cid: a.content_id } : {}),
    })),
    // Never read files or URLs named in a request.
    disableFileAccess: true,
    disableUrlAccess: true,
  });
  return composer.compile().build();
}
