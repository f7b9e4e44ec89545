import * as z from 'zod';
import { MAX_LABELS } from '../core/labels.ts';

/**
 * The body of POST …/messages/{id}/labels and …/threads/{id}/labels: the labels to add and to
 * remove (each list at most MAX_LABELS strings; the label rules are core/labels.ts's, so their
 * refusals carry `invalid_label`). At least one of the two.
 */
export const labelChangeSchema = z
  .strictObject({
    add: z.array(z.string().max(200)).max(MAX_LABELS).default([]),
    remove: z.array(z.string().max(200)).max(MAX_LABELS).default([]),
  })
  .refine((c) => c.add.length + c.remove.length > 0, {
    message: 'name labels to add or remove',
    path: ['add'],
  });
