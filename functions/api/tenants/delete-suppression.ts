import { suppressionNotFound } from '../../core/errors.ts';
import { normaliseAddress } from '../../core/recipients.ts';
import { addressHash } from '../../core/suppressions.ts';
import { deleteSuppression } from '../../store/suppressions.store.ts';
import { noContent } from '../http.ts';
import type { TenantRoute } from '../operation.ts';

/** DELETE /v1/tenants/{tenant_id}/suppressions/{address}: the suppression lifted; 404 when there is none. */
export const deleteSuppressionRoute: TenantRoute = {
  handle: async (deps, { tenantId, params, requestId }) => {
    const address = normaliseAddress(params.address, 'address');
    const deleted = await deleteSuppression(deps.db, tenantId, addressHash(deps.config.hashKey, address));
    if (!deleted) throw suppressionNotFound();
    return noContent(requestId);
  },
};
