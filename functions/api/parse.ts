import type * as z from 'zod';
import { invalidJson, invalidQuery, invalidRequest } from '../core/errors.ts';
import type { ApiEvent } from './http.ts';
import { zodErrors } from './send.schema.ts';

/**
 * A JSON request body checked against its zod schema: 400 invalid_request with `details.errors[]`
 * for bad JSON or a schema failure. `optional`: an empty body is `{}`.
 */
export function parseBody<T extends z.ZodType>(raw: string, schema: T, optional = false): z.output<T> {
  let value: unknown;
  if (optional && raw.trim() === '') value = {};
  else {
    try {
      value = JSON.parse(raw);
    } catch {
      throw invalidJson();
    }
  }
  const parsed = schema.safeParse(value);
  if (!parsed.success) {
    throw invalidRequest(zodErrors(parsed.error));
  }
  return parsed.data;
}

/** The query string checked against its zod schema (400 invalid_request with `details.errors[]`). */
export function parseQuery<T extends z.ZodType>(event: ApiEvent, schema: T): z.output<T> {
  const parsed = schema.safeParse(event.queryStringParameters ?? {});
  if (!parsed.success) {
    throw invalidQuery(zodErrors(parsed.error));
  }
  return parsed.data;
}
