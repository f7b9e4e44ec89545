import * as z from 'zod';
import { HELD_CAPS } from '../../core/hold.ts';
import { isId } from '../../core/ids.ts';
import { toApiMessage } from '../../core/message-view.ts';
import { getHeldSummary, listHeld } from '../../store/hold.store.ts';
import { withStoredLabels } from '../../store/labels.store.ts';
import { decodeCursor, encodeCursor, pageQueryFields } from '../cursor.ts';
import { json } from '../http.ts';
import { parseQuery } from '../parse.ts';
import type { ScopedRoute } from './operation.ts';

/** GET …/held query. */
export const listHeldQuerySchema = z.strictObject(pageQueryFields);

/**
 * GET /v1/identities/{identity_id}/held: the identity's held messages, newest first, and what it
 * holds against its caps (`held`: count, bytes, dropped past the caps, the caps). `messages:hold`.
 */
export const listHeldRoute: ScopedRoute = {
  permission: 'messages:hold',
  handle: async (deps, { event, identity, requestId }) => {
    const q = parseQuery(event, listHeldQuerySchema);
    const after = q.cursor === undefined ? undefined : decodeCursor(q.cursor, (s) => isId('message', s));
    const [page, summary] = await Promise.all([
      listHeld(deps.db, identity.id, { limit: q.limit, after }),
      getHeldSummary(deps.db, identity.id),
    ]);
    const labelled = await withStoredLabels(deps.db, page.data);
    return json(
      200,
      {
        data: labelled.map((m) => toApiMessage(m, undefined, 'summary')),
        next_cursor: encodeCursor(page.next),
        held: { ...summary, caps: { count: HELD_CAPS.count, bytes: HELD_CAPS.bytes } },
      },
      requestId,
    );
  },
};
