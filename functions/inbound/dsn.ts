import type { ParsedMail } from 'mailparser';
import type { Deps } from '../deps.ts';

/**
 * The hook through which ingest hands a delivery status notification (RFC 3464
 * `multipart/report; report-type=delivery-status`) to DSN routing. This placeholder routes nothing:
 * every DSN is stored as an ordinary inbound message until DSN routing lands here.
 */
export async function routeDsn(
  _deps: Deps,
  _input: { identityId: string; tenantId: string; parsed: ParsedMail; receivedAt: number },
): Promise<'routed' | 'unmatched' | 'not_dsn'> {
  return 'not_dsn';
}
