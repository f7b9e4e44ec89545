import { secretProblem } from '../core/keys.ts';
import { closeReasonAt, heartbeatFrameText } from '../core/stream.ts';
import { getApiKey } from '../store/directory.store.ts';
import { gatewayConnections, type StreamConnection, standing, streamsOf } from '../store/stream.store.ts';
import type { StreamConnections } from './connections.ts';
import {
  closeWith,
  deliverAll,
  eachAtMost,
  forgetGone,
  PER_ROUND,
  postFrame,
  type StreamDeps,
  wakeFor,
} from './deliver.ts';

/**
 * The stream's schedule (every minute on AWS: docs/design/stream.md › The schedule): every open
 * stream of the gateway gets a heartbeat frame, or is closed when its key was revoked or has ended
 * (so a revoked or expired key's sockets close within a minute) or at its 2-hour age; a stream the
 * gateway no longer has is forgotten; and each tenant's streams are sent what they are owed, so a
 * wake that never came (a fan-out that died holding a lease, a writer that died before its commit)
 * costs at most one period.
 */
export async function streamTick(
  deps: StreamDeps,
  connections: StreamConnections,
  budgetMs: number,
): Promise<void> {
  const until = deps.clock() + budgetMs;
  const tenants = [
    ...new Set((await gatewayConnections(deps.db, connections.gateway)).map((c) => c.tenant_id)),
  ];
  for (const tenantId of tenants) {
    if (deps.clock() >= until) return;
    await tickTenant(deps, connections, tenantId, until);
  }
}

async function tickTenant(deps: StreamDeps, connections: StreamConnections, tenantId: string, until: number) {
  const wake = wakeFor(deps, connections, tenantId, until);
  const view = await streamsOf(deps.db, tenantId, connections.gateway);
  const mine = view.connections.filter((c) => c.gateway === connections.gateway);
  const problems = await keyProblems(deps, mine);
  const ended = new Set<string>();
  await eachAtMost(mine, PER_ROUND, async (c) => {
    const now = deps.clock();
    const last = standing(c, view.cursor).last_event_id;
    const reason = c.refused ?? closeReasonAt(c, problems.get(c.key_hash), now);
    const step = reason ? 'closed' : await postFrame(wake, c, heartbeatFrameText(now));
    if (step === 'next') deps.metrics.add('stream_frames', { type: 'heartbeat' });
    else if (step !== 'later') ended.add(c.connection_id);
    if (reason) return closeWith(wake, c, reason, last);
    if (step === 'drop') return forgetGone(wake, c);
    if (step === 'close') return closeWith(wake, c, 'slow_consumer', last);
  });
  await deliverAll(wake, view, (c) => !c.refused && !ended.has(c.connection_id), { prune: true });
}

/** Each secret's state now, read once per tenant: revoked, expired (a rotation's end included), or fine. */
async function keyProblems(deps: StreamDeps, conns: StreamConnection[]) {
  const out = new Map<string, 'key_revoked' | 'key_expired' | undefined>();
  for (const hash of new Set(conns.map((c) => c.key_hash))) {
    const key = await getApiKey(deps.db, hash);
    out.set(hash, key ? secretProblem(key, deps.clock()) : 'key_revoked');
  }
  return out;
}
