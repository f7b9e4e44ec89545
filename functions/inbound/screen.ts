import { pastStrangerRate, type Screened, screenCopy, strangerLimits, strangerOf } from '../core/hold.ts';
import { isAuthenticated } from '../core/trust.ts';
import type { Deps } from '../deps.ts';
import { getContacts } from '../store/contacts.store.ts';
import { getIdentity } from '../store/directory.store.ts';
import { countStranger } from '../store/hold.store.ts';
import { getReceiveListMatch } from '../store/send-lists.store.ts';
import type { RecipientCopy } from './inbound-record.ts';

/**
 * The screen of one recipient's copy (core/hold.ts › screenCopy, docs/guides/receiving.md › Held
 * mail): the identity's receive policy, the tenant's receive lists and the identity's contact for
 * the From, read in one round trip; then, for a stranger's copy the screen would show, the
 * stranger rate's count. A copy with no From header is screened by its envelope sender.
 */
export async function screen(
  deps: Pick<Deps, 'db' | 'clock' | 'metrics'>,
  args: Pick<RecipientCopy, 'address' | 'authResults' | 'parsed' | 'n'>,
): Promise<Screened> {
  const { address } = args;
  const from = args.parsed.from?.address || args.n.mail.source;
  const [identity, lists, contacts] = await Promise.all([
    getIdentity(deps.db, address.identity_id),
    from ? getReceiveListMatch(deps.db, address.tenant_id, from) : { block: false },
    from ? getContacts(deps.db, address.identity_id, [from]) : new Map(),
  ]);
  const policy = identity?.receive_policy;
  const screened = screenCopy({
    policy: policy?.hold ?? 'none',
    authenticated: isAuthenticated(args.authResults),
    contact: from ? contacts.get(strangerOf(from)) : undefined,
    lists,
  });
  if (screened.held || !screened.stranger) return screened;
  // Mail with no sender at all (a bounce's `<>`) is one stranger.
  const sender = from ? strangerOf(from) : '<>';
  const counts = await countStranger(deps.db, address.identity_id, sender, deps.clock());
  if (!pastStrangerRate(counts, strangerLimits(policy))) return screened;
  deps.metrics.add('inbound_held_rate');
  return { ...screened, held: 'rate' };
}
