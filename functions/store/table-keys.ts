/** Item keys of the single table (docs/architecture.md › Items and their keys). */
export const keys = {
  tenant: (tenantId: string) => ({ pk: `T#${tenantId}`, sk: 'T' }),
  apiKey: (keyHash: string) => ({ pk: `K#${keyHash}`, sk: 'K' }),
  identity: (identityId: string) => ({ pk: `I#${identityId}`, sk: 'I' }),
  address: (address: string) => ({ pk: `A#${address.toLowerCase()}`, sk: 'A' }),
  domain: (domain: string) => ({ pk: `D#${domain.toLowerCase()}`, sk: 'D' }),
  message: (identityId: string, messageId: string) => ({ pk: `I#${identityId}`, sk: `M#${messageId}` }),
  idempotency: (identityId: string, keyHash: string) => ({ pk: `I#${identityId}`, sk: `IK#${keyHash}` }),
};

export const MESSAGE_SK_PREFIX = 'M#';
