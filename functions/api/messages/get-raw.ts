import { messageNotFound } from '../../core/errors.ts';
import { messageOf } from './get-message.ts';
import type { ScopedRoute } from './operation.ts';

/**
 * GET …/messages/{id}/raw: the stored original, the received bytes of an inbound message, the sent
 * MIME of an outbound one. Scoped and answered 404 exactly as getMessage.
 */
export const getMessageRawRoute: ScopedRoute = {
  permission: 'messages:read',
  handle: async (deps, { key, identity, params, requestId }) => {
    const m = await messageOf(deps.db, identity.id, params.message_id, key);
    const raw = m ? await deps.blobs.get(m.raw_key) : undefined;
    if (!m || !raw) throw messageNotFound();
    return {
      statusCode: 200,
      headers: {
        'content-type': 'message/rfc822',
        'content-disposition': `attachment; filename="${m.id}.eml"`,
        'x-content-type-options': 'nosniff',
        'request-id': requestId,
      },
      body: Buffer.from(raw.body).toString('base64'),
      isBase64Encoded: true,
    };
  },
};
