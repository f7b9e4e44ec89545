import { loadBody } from '../../bodies/read-bodies.ts';
import { attachmentNotFound, messageNotFound } from '../../core/errors.ts';
import { attachmentDisposition, servedAttachmentType } from '../../core/inbound.ts';
import { attachmentIndex } from '../../core/message-view.ts';
import { readAttachment } from '../../inbound/attachment.ts';
import type { DepsFor } from '../../lambda-ports.ts';
import { messageOf } from '../messages/get-message.ts';
import type { IdentityRoute } from '../operation.ts';

/**
 * GET …/messages/{message_id}/attachments/{attachment_id}: one attachment's bytes of a message,
 * received or sent: never inline, never sniffed, a risky or active type as bytes only. Read from the
 * stored MIME in the blob store: the threads Lambda is built with `blobs`.
 */
export const getAttachmentRoute: IdentityRoute<DepsFor<'api-threads'>> = {
  handle: async (deps, { key, identity, params, requestId }) => {
    const m = await messageOf(deps.db, identity.id, params.message_id, key);
    if (!m) throw messageNotFound();
    const index = attachmentIndex(params.attachment_id);
    const all = index === undefined ? [] : (await loadBody(deps, m)).attachments;
    const listed = index === undefined ? undefined : all[index];
    const parsed = m.direction === 'outbound' || m.inbound?.parse === 'parsed';
    const raw = listed && parsed ? await deps.blobs.get(m.raw_key) : undefined;
    const bytes = raw && listed ? await readAttachment(raw.body, index!, all) : undefined;
    if (!listed || !bytes) throw attachmentNotFound();
    return {
      statusCode: 200,
      headers: {
        'content-type': servedAttachmentType(listed.content_type, listed.risky !== undefined),
        'content-disposition': attachmentDisposition(listed.filename ?? params.attachment_id),
        'x-content-type-options': 'nosniff',
        'content-security-policy': "sandbox; default-src 'none'",
        'cache-control': 'private, no-store',
        'request-id': requestId,
      },
      body: bytes.toString('base64'),
      isBase64Encoded: true,
    };
  },
};
