import type { DomainRecord } from '../../functions/core/model.ts';
import { keys } from '../../functions/store/table-keys.ts';
import type { TestStack } from './local.ts';

/**
 * Make the test tenant live and its agent's sending domain use a live transport (what the domains
 * API will write): `fields` are set on the domain record, which becomes `healthy`.
 */
export async function makeLive(
  s: TestStack,
  fields: Pick<DomainRecord, 'transport'> & Partial<Pick<DomainRecord, 'smtp' | 'cloudflare'>>,
): Promise<string> {
  const domain = s.agent.address.split('@')[1]!;
  const names = Object.keys(fields) as (keyof typeof fields)[];
  await s.deps.db.update({
    TableName: s.deps.db.table,
    Key: keys.domain(domain),
    UpdateExpression: `SET #s = :s, ${names.map((_, i) => `#f${i} = :f${i}`).join(', ')}`,
    ExpressionAttributeNames: {
      '#s': 'state',
      ...Object.fromEntries(names.map((n, i) => [`#f${i}`, n])),
    },
    ExpressionAttributeValues: {
      ':s': 'healthy',
      ...Object.fromEntries(names.map((n, i) => [`:f${i}`, fields[n]])),
    },
  });
  await s.deps.db.update({
    TableName: s.deps.db.table,
    Key: keys.tenant(s.tenantId),
    UpdateExpression: 'SET #m = :m',
    ExpressionAttributeNames: { '#m': 'mode' },
    ExpressionAttributeValues: { ':m': 'live' },
  });
  return domain;
}
