import { afterAll, describe, expect, inject, it } from 'vitest';
import { bootstrapPlatformKey } from '../../functions/admin/bootstrap.ts';
import { sha256Hex } from '../../functions/core/fingerprint.ts';
import { ulidFrom } from '../../functions/deps.ts';
import { ensureTable } from '../../functions/local/table.ts';
import { keyItemKey } from '../../functions/store/api-keys.store.ts';
import { getApiKey } from '../../functions/store/directory.store.ts';
import { createDb } from '../../functions/store/dynamodb.ts';

/** The bootstrap on a table of its own, as on a fresh deployment. */
const db = createDb({
  table: `boot-${Date.now().toString(36)}-${process.pid}`,
  endpoint: inject('dynamoEndpoint'),
});
afterAll(() => db.destroy());

describe('bootstrapPlatformKey', () => {
  it('mints exactly one platform key when bootstraps race, stores only its hash, and refuses the next', async () => {
    await ensureTable(db);
    const clock = () => Date.now();
    const deps = { db, clock, newId: ulidFrom(clock) };
    const outs = await Promise.all(Array.from({ length: 5 }, () => bootstrapPlatformKey(deps)));
    const created = outs.filter((o) => o.status === 'created');
    expect(created).toHaveLength(1);
    const { secret, key_id, expires_at } = created[0] as Extract<
      (typeof outs)[number],
      { status: 'created' }
    >;
    expect(expires_at - Date.now()).toBeGreaterThan(23.9 * 3600_000);

    const stored = await getApiKey(db, sha256Hex(secret));
    expect(stored).toMatchObject({ key_id, level: 'platform' });
    const items = await Promise.all(
      ['PLATFORM', keyItemKey(key_id).pk, `K#${sha256Hex(secret)}`].map((pk) =>
        db.query({
          TableName: db.table,
          KeyConditionExpression: 'pk = :pk',
          ExpressionAttributeValues: { ':pk': pk },
        }),
      ),
    );
    expect(items.flatMap((i) => i.Items ?? []).length).toBeGreaterThanOrEqual(3);
    expect(JSON.stringify(items)).not.toContain(secret);

    const next = await bootstrapPlatformKey(deps);
    expect(next).toEqual({ status: 'exists', key_ids: [key_id] });
  });
});
