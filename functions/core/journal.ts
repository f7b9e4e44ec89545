/**
 * The journal copy: every Cloudflare send may carry a hidden BCC
 * `journal+{message ulid}.{identity ulid}@{PM_PLATFORM_DOMAIN}` (both ULIDs lower case, without
 * prefixes). It is not a delivery row, so delivery events for it are acked and ignored
 * (events/consume.ts).
 */
export function journalAddress(messageId: string, identityId: string, platformDomain: string): string {
  const bare = (id: string) => id.replace(/^[a-z]+_/i, '').toLowerCase();
  return `journal+${bare(messageId)}.${bare(identityId)}@${platformDomain.toLowerCase()}`;
}

/**
 * True for `journal+…@{platform domain}` (any detail, case-insensitive): the consumer ignores the
 * address whatever the detail says, as an inbound handler recognises it by its prefix.
 */
export function isJournalAddress(address: string, platformDomain: string): boolean {
  const at = address.lastIndexOf('@');
  if (at < 0 || !platformDomain) return false;
  const local = address.slice(0, at).toLowerCase();
  const domain = address.slice(at + 1).toLowerCase();
  return (
    local.startsWith('journal+') &&
    local.length > 'journal+'.length &&
    domain === platformDomain.toLowerCase()
  );
}
