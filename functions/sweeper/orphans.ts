import { decodeTime, encodeTime } from 'ulid';
import { inOrphanWindow, ORPHAN_GRACE_MS, ORPHAN_WINDOW_MS, outboundMessageOf } from '../core/orphans.ts';
import type { Deps } from '../deps.ts';
import { errorFields } from '../log.ts';
import type { BlobStore } from '../store/blobs.ts';
import { listIdentities } from '../store/identities.store.ts';
import { messagesThatMayExist } from '../store/orphans.store.ts';
import { tableSearchIndex } from '../store/search.store.ts';
import { listTenants } from '../store/tenants.store.ts';

export type OrphanDeps = Pick<Deps, 'db' | 'clock' | 'log'> & { blobs: BlobStore };

export interface OrphanReport {
  /** Identities whose outbound prefix was listed. */
  identities: number;
  /** Messages of the window whose objects were looked at. */
  checked: number;
  /** Objects deleted (each orphaned `.eml` and link object). */
  deleted: number;
}

/**
 * The daily orphan pass (core/orphans.ts): for every identity, list the outbound objects
 * of messages minted in the window (one ListObjectsV2 from `StartAfter` = the window's first ULID,
 * since message ids sort by time), read which of those messages exist (one consistent
 * BatchGetItem per 100), and delete the objects and the search document of the ones that do not. An identity's failure is
 * logged and the pass goes on; the next pass's window covers it again.
 */
export async function sweepOrphans(
  deps: OrphanDeps,
  opts: {
    /** Only these tenants (tests, on the shared table); default every tenant. */ tenantIds?: string[];
  } = {},
): Promise<OrphanReport> {
  const now = deps.clock();
  const report: OrphanReport = { identities: 0, checked: 0, deleted: 0 };
  let tenantsAfter: string | undefined;
  do {
    const tenants = opts.tenantIds
      ? { data: opts.tenantIds.map((id) => ({ id })), next: undefined }
      : await listTenants(deps.db, { limit: 100, after: tenantsAfter });
    for (const tenant of tenants.data) {
      let identitiesAfter: string | undefined;
      do {
        const page = await listIdentities(deps.db, tenant.id, { limit: 100, after: identitiesAfter });
        for (const identity of page.data) {
          try {
            await sweepIdentity(deps, tenant.id, identity.id, now, report);
          } catch (err) {
            deps.log.error('orphan pass failed for an identity', {
              identity_id: identity.id,
              ...errorFields(err),
            });
          }
        }
        identitiesAfter = page.next;
      } while (identitiesAfter);
    }
    tenantsAfter = tenants.next;
  } while (tenantsAfter);
  deps.log.info('orphan pass', { ...report });
  return report;
}

async function sweepIdentity(
  deps: OrphanDeps,
  tenantId: string,
  identityId: string,
  now: number,
  report: OrphanReport,
): Promise<void> {
  report.identities++;
  const prefix = `t/${tenantId}/i/${identityId}/out/`;
  const startAfter = `${prefix}msg_${encodeTime(now - ORPHAN_WINDOW_MS, 10).toLowerCase()}`;
  const byMessage = new Map<string, string[]>();
  for await (const key of deps.blobs.list(prefix, startAfter)) {
    const messageId = outboundMessageOf(key.slice(prefix.length));
    if (!messageId) continue;
    const minted = decodeTime(messageId.slice('msg_'.length).toUpperCase());
    // Keys sort by minting time: past the grace, every later key is younger still.
    if (minted > now - ORPHAN_GRACE_MS) break;
    if (!inOrphanWindow(minted, now)) continue;
    byMessage.set(messageId, [...(byMessage.get(messageId) ?? []), key]);
  }
  if (byMessage.size === 0) return;
  report.checked += byMessage.size;
  const exist = await messagesThatMayExist(deps.db, identityId, [...byMessage.keys()]);
  for (const [messageId, objects] of byMessage) {
    if (exist.has(messageId)) continue;
    for (const key of objects) await deps.blobs.delete(key);
    // Its search document, put beside the objects (docs/design/search.md › Full text).
    await tableSearchIndex(deps.db).remove(identityId, messageId);
    report.deleted += objects.length;
    deps.log.info('orphaned objects deleted', { message_id: messageId, objects: objects.length });
  }
}
