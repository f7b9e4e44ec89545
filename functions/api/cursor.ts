import * as z from 'zod';
import { invalidCursor } from '../core/errors.ts';

/**
 * The pages of the control-plane lists (keys, the audit log, tenants, identities, suppressions,
 * list entries): `limit` and `cursor` in the query, `next_cursor` in the answer. A cursor is the last
 * sort key read, base64url.
 */
export const pageQueryFields = {
  limit: z.coerce.number().int().min(1).max(100).default(25),
  cursor: z.string().max(400).optional(),
};

/** The `next_cursor` of a page: the last sort key read, or null on the last page. */
export const encodeCursor = (last: string | undefined) =>
  last === undefined ? null : Buffer.from(last).toString('base64url');

/** A sort key of the keys, the audit log, the tenants and the identities lists. */
const isSortKey = (value: string) => /^[~0-9a-z_#]{1,120}$/.test(value);

/** The sort key a cursor holds; 400 invalid_request (path `cursor`) unless `valid` accepts it. */
export function decodeCursor(cursor: string, valid: (value: string) => boolean = isSortKey): string {
  const value = Buffer.from(cursor, 'base64url').toString('utf8');
  if (!valid(value)) {
    throw invalidCursor();
  }
  return value;
}
