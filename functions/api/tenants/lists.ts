import { invalidRequest } from '../../core/errors.ts';
import { LIST_KINDS, type ListKind } from '../../core/suppressions.ts';

/** The send list a path names (`…/lists/{direction}/{kind}`); 400 invalid_request for any other. */
export function listKind(direction: string, kind: string): ListKind {
  const errors: { path: string; message: string }[] = [];
  // Inbound (receive) lists come with the inbound path; until then only `send` exists.
  if (direction !== 'send') errors.push({ path: 'direction', message: 'must be send' });
  if (!(LIST_KINDS as readonly string[]).includes(kind))
    errors.push({ path: 'kind', message: 'must be block or allow' });
  if (errors.length > 0) throw invalidRequest(errors, 'The list is not valid.');
  return kind as ListKind;
}
