import { invalidList } from '../../core/errors.ts';
import { LIST_DIRECTIONS, LIST_KINDS, type ListDirection, type ListKind } from '../../core/suppressions.ts';

/** The list a path names (`…/lists/{direction}/{kind}`); 400 invalid_request for any other. */
export function listKind(direction: string, kind: string): { direction: ListDirection; kind: ListKind } {
  const errors: { path: string; message: string }[] = [];
  if (!(LIST_DIRECTIONS as readonly string[]).includes(direction))
    errors.push({ path: 'direction', message: 'must be send or receive' });
  if (!(LIST_KINDS as readonly string[]).includes(kind))
    errors.push({ path: 'kind', message: 'must be block or allow' });
  if (errors.length > 0) throw invalidList(errors);
  return { direction: direction as ListDirection, kind: kind as ListKind };
}
