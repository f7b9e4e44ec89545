import { attachmentLinkNotFound, routeNotFound } from '../core/errors.ts';
import {
  attachmentLinkKey,
  contentDisposition,
  filenameFromMetadata,
  servedContentType,
  verifyLink,
} from '../core/links.ts';
import type { DepsFor } from '../lambda-ports.ts';
import { routeGroup } from './http.ts';

/** A cached copy may live at most this long, and never past the link's expiry. */
const MAX_CACHE_SECONDS = 3_600;

/**
 * The `links` route group: `GET /v1/links/{token}` (core/links.ts).
 * No API key: the token's MAC is the authority, so an Authorization header is ignored. A malformed
 * token, an unknown kid, a bad MAC, an expired link and a missing blob all answer the same 404
 * `attachment_not_found`, so a link reveals nothing about why it failed. The token is never logged.
 */
export function linksApi(deps: DepsFor<'api-links'>) {
  return routeGroup(deps, async ({ route, params, requestId }) => {
    if (route.operation !== 'getLink') throw routeNotFound();

    const now = Math.floor(deps.clock() / 1000);
    const link = verifyLink(deps.config.linkKeys, params.token, now);
    if (!link.ok) {
      deps.log.info('link refused', { request_id: requestId, reason: link.reason });
      throw notFound();
    }
    const blob = await deps.blobs.get(
      attachmentLinkKey(link.tenantId, link.identityId, link.messageId, link.attachmentId),
    );
    if (!blob) {
      deps.log.info('link refused', { request_id: requestId, reason: 'missing_blob' });
      throw notFound();
    }
    // The submit path stores linked attachments with core/links.linkBlobMetadata.
    return {
      statusCode: 200,
      headers: {
        'content-type': servedContentType(blob.metadata.content_type),
        'content-disposition': contentDisposition(filenameFromMetadata(blob.metadata)),
        'x-content-type-options': 'nosniff',
        'content-security-policy': 'sandbox',
        'cache-control': `private, max-age=${Math.min(link.expiresUnixS - now, MAX_CACHE_SECONDS)}`,
        'referrer-policy': 'no-referrer',
        'cross-origin-resource-policy': 'same-origin',
        'request-id': requestId,
      },
      body: Buffer.from(blob.body).toString('base64'),
      isBase64Encoded: true,
    };
  });
}

const notFound = attachmentLinkNotFound;
