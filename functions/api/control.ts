import { canonicalJson } from '../core/canonical-json.ts';
import { idempotencyConflict, requestInProgress } from '../core/errors.ts';
import { sha256Hex } from '../core/fingerprint.ts';
import { checkIdempotencyKey } from '../core/limits.ts';
import type { Deps } from '../deps.ts';
import {
  type ControlIdempotency,
  completeControlUpdate,
  releaseControl,
  reserveControl,
} from '../store/control-idempotency.store.ts';
import type { Caller } from './auth.ts';
import { type ApiEvent, type ApiResult, header, json } from './http.ts';

/**
 * Optional Idempotency-Key on control-plane POSTs: the same key and request replays the
 * first answer (`Idempotent-Replayed: true`), without any secret it carried (`secret_replayed:
 * false`); another request with the key is 409 idempotency_conflict; one still running is 409
 * request_in_progress. `run` receives `finish(status, replayBody)`, the transaction item that
 * records the answer, to write with its change.
 */
export type Finish = (status: number, replayBody: unknown) => ReturnType<typeof completeControlUpdate>[];

export async function idempotentControl(
  deps: Pick<Deps, 'db' | 'clock' | 'newId'>,
  key: Caller,
  event: ApiEvent,
  operation: string,
  body: unknown,
  requestId: string,
  run: (finish: Finish | undefined) => Promise<ApiResult>,
): Promise<ApiResult> {
  const raw = checkIdempotencyKey(header(event, 'idempotency-key'), false);
  if (raw === undefined) return run(undefined);
  const c: ControlIdempotency = {
    callerKeyId: key.key_id,
    keyHash: sha256Hex(raw),
    fingerprint: sha256Hex(`${operation}\n${event.rawPath}\n${canonicalJson(body ?? {})}`),
    owner: deps.newId(),
    now: deps.clock(),
  };
  const found = await reserveControl(deps.db, c);
  if (found.type === 'replay')
    return json(found.status, JSON.parse(found.body), requestId, { 'idempotent-replayed': 'true' });
  if (found.type === 'conflict') throw idempotencyConflict();
  if (found.type === 'in_progress') throw requestInProgress();
  let used = false;
  try {
    const out = await run((status, replayBody) => {
      used = true;
      return [completeControlUpdate(deps.db, c, status, JSON.stringify(replayBody))];
    });
    // Nothing was written with the record (e.g. an existing identity answered): give the key back.
    if (!used) await releaseControl(deps.db, c);
    return out;
  } catch (err) {
    await releaseControl(deps.db, c);
    throw err;
  }
}
