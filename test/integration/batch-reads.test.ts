import { describe, expect, it } from 'vitest';
import { batchedReads } from '../../functions/store/batch-reads.ts';
import { getContacts } from '../../functions/store/contacts.store.ts';
import { getAddresses, getDomain } from '../../functions/store/directory.store.ts';
import { hooksOf } from '../../functions/store/dynamodb.ts';
import { stackPerTest } from '../support/local.ts';

/**
 * The pipeline's reads of one round go to DynamoDB as one BatchGetItem (docs/architecture.md › The
 * submit path).
 */
const stack = stackPerTest();

describe('batchedReads', () => {
  it('sends the reads of one round as one BatchGetItem (consistent ones apart) and answers each caller as its own command', async () => {
    const s = await stack();
    const { table } = s.deps.db;
    await s.deps.db.put({
      TableName: table,
      Item: { pk: `I#${s.agent.id}`, sk: 'C#x@peer.org', outbound_count: 2 },
    });
    const calls: string[] = [];
    hooksOf(s.deps.db).aroundCall(async (operation, given, next) => {
      const input = given as {
        RequestItems?: Record<string, { Keys: unknown[]; ConsistentRead?: boolean }>;
      };
      const r = input.RequestItems?.[table];
      calls.push(`${operation}${r ? ` ${r.Keys.length}${r.ConsistentRead ? ' consistent' : ''}` : ''}`);
      return next();
    });
    const db = batchedReads(s.deps.db);
    const [addresses, domain, missing, contacts, consistent, other] = await Promise.all([
      getAddresses(db, [s.agent.address, s.peer.address, 'nobody@example.com']),
      getDomain(db, s.agent.address.split('@')[1]),
      getDomain(db, 'absent.example'),
      getContacts(db, s.agent.id, ['x@peer.org', 'y@peer.org']),
      db.get({ TableName: table, Key: { pk: `I#${s.agent.id}`, sk: 'I' }, ConsistentRead: true }),
      // A command for another table, or with a projection, goes straight through.
      db.batchGet({
        RequestItems: {
          [table]: { Keys: [{ pk: `I#${s.agent.id}`, sk: 'I' }], ProjectionExpression: 'pk' },
        },
      }),
    ]);
    expect(calls.sort()).toEqual(['BatchGetItem 1', 'BatchGetItem 1 consistent', 'BatchGetItem 7']);
    expect([...addresses.keys()].sort()).toEqual([s.agent.address, s.peer.address].sort());
    expect(domain?.domain).toBe(s.agent.address.split('@')[1]);
    expect(missing).toBeUndefined();
    expect(contacts).toEqual(
      new Map([['x@peer.org', { inbound_count: 0, authenticated_inbound_count: 0, outbound_count: 2 }]]),
    );
    expect(consistent.Item?.id).toBe(s.agent.id);
    expect(other.Responses?.[table]).toEqual([{ pk: `I#${s.agent.id}` }]);
  });
});
