import * as z from 'zod';
import { MAX_ADDRESS_CHARS, MAX_LABEL_CHARS } from '../core/limits.ts';
import type { ListFilter } from '../core/list-filter.ts';

/**
 * The filter fields of GET …/messages and GET …/threads (core/list-filter.ts): each absent is
 * "any"; `since`/`until` are RFC 3339 times, `has_attachment` `true` or `false`.
 */
export const listFilterFields = {
  label: z.string().min(1).max(MAX_LABEL_CHARS).optional(),
  from: z.string().min(1).max(MAX_ADDRESS_CHARS).optional(),
  to: z.string().min(1).max(MAX_ADDRESS_CHARS).optional(),
  subject: z.string().min(1).max(200).optional(),
  since: z.iso.datetime({ offset: true }).optional(),
  until: z.iso.datetime({ offset: true }).optional(),
  has_attachment: z.enum(['true', 'false']).optional(),
};

/** The filter a parsed query names. */
export function listFilterOf(q: {
  label?: string;
  from?: string;
  to?: string;
  subject?: string;
  since?: string;
  until?: string;
  has_attachment?: 'true' | 'false';
}): ListFilter {
  return {
    ...(q.label !== undefined ? { label: q.label } : {}),
    ...(q.from !== undefined ? { from: q.from } : {}),
    ...(q.to !== undefined ? { to: q.to } : {}),
    ...(q.subject !== undefined ? { subject: q.subject } : {}),
    ...(q.since !== undefined ? { since: Date.parse(q.since) } : {}),
    ...(q.until !== undefined ? { until: Date.parse(q.until) } : {}),
    ...(q.has_attachment !== undefined ? { has_attachment: q.has_attachment === 'true' } : {}),
  };
}

/** Whether the filter names anything. */
export const anyFilter = (f: ListFilter): boolean => Object.keys(f).length > 0;
