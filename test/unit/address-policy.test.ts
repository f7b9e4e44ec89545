import { describe, expect, it } from 'vitest';
import { publicAddress, publicAddresses, publicHost } from '../../functions/core/address-policy.ts';
import { relayAddressAllowed } from '../../functions/core/relay-address.ts';
import { webhookUrlProblem } from '../../functions/core/webhooks.ts';

/**
 * The one address policy of core/address-policy.ts, as a table: every address an outbound
 * connection (an SMTP relay, a webhook endpoint) may be pointed at or resolve to, and its verdict.
 * The relay rule and the webhook URL rule give the same verdict for each.
 */
const REFUSED: [string, string][] = [
  ['127.0.0.1', 'loopback'],
  ['127.255.255.254', 'loopback'],
  ['10.0.0.1', 'private'],
  ['172.16.5.4', 'private'],
  ['192.168.1.1', 'private'],
  ['169.254.169.254', 'linkLocal'],
  ['100.64.0.1', 'carrierGradeNat'],
  ['192.0.2.10', 'reserved'],
  ['198.51.100.1', 'reserved'],
  ['203.0.113.7', 'reserved'],
  ['198.18.0.1', 'reserved'],
  ['198.19.255.255', 'reserved'],
  ['224.0.0.1', 'multicast'],
  ['224.0.0.5', 'multicast'],
  ['255.255.255.255', 'broadcast'],
  ['0.0.0.0', 'unspecified'],
  ['240.0.0.1', 'reserved'],
  ['::1', 'loopback'],
  ['::', 'unspecified'],
  ['::7f00:1', 'not global unicast'],
  ['::127.0.0.1', 'loopback (inside ipv4Mapped)'],
  ['fe80::1', 'linkLocal'],
  ['fe80::1%eth0', 'zoned'],
  ['fc00::1', 'uniqueLocal'],
  ['fd12:3456::1', 'uniqueLocal'],
  ['fec0::1', 'deprecatedSiteLocal'],
  ['ff02::1', 'multicast'],
  ['2001:db8::1', 'reserved'],
  ['2001:2::1', 'benchmarking'],
  ['2001::1', 'teredo'],
  ['2002:7f00:1::', '6to4'],
  ['2002:808:808::1', '6to4'],
  ['4000::1', 'not global unicast'],
  ['::ffff:127.0.0.1', 'loopback (inside ipv4Mapped)'],
  ['::ffff:10.0.0.1', 'private (inside ipv4Mapped)'],
  ['::ffff:169.254.169.254', 'linkLocal (inside ipv4Mapped)'],
  ['64:ff9b::7f00:1', 'loopback (inside rfc6052)'],
  ['64:ff9b::a9fe:a9fe', 'linkLocal (inside rfc6052)'],
  ['64:ff9b:1::808:808', 'rfc6052'],
  ['not-an-ip', 'invalid'],
  ['127.1', 'invalid'],
  ['', 'invalid'],
];

const ALLOWED = [
  '8.8.8.8',
  '1.1.1.1',
  '172.32.0.1',
  '100.128.0.1',
  '198.20.0.1',
  '2a00:1450:4001:81c::201a',
  '2606:4700:4700::1111',
  '::ffff:8.8.4.4',
  '64:ff9b::808:808',
];

/** How a URL names an address: IPv6 in brackets. */
const urlOf = (ip: string) => `https://${ip.includes(':') ? `[${ip}]` : ip}/hook`;

describe('the address policy', () => {
  it.each(REFUSED)('refuses %s (%s), for relays and webhook URLs alike', (ip, range) => {
    expect(publicAddress(ip)).toEqual({ ok: false, range });
    expect(relayAddressAllowed(ip).ok).toBe(false);
    // A literal the URL parser accepts is refused as a webhook URL (zones and junk do not parse).
    if (URL.canParse(urlOf(ip)) && ip !== '' && !ip.includes('%'))
      expect(webhookUrlProblem(urlOf(ip), false)).toMatch(/^must not name an internal address/);
  });

  it.each(ALLOWED)('allows %s, for relays and webhook URLs alike', (ip) => {
    expect(publicAddress(ip)).toEqual({ ok: true });
    expect(relayAddressAllowed(ip).ok).toBe(true);
    expect(webhookUrlProblem(urlOf(ip), false)).toBeUndefined();
  });

  it('refuses a resolved host when any one of its addresses is refused, or when it has none', () => {
    expect(publicAddresses(['8.8.8.8', '2606:4700:4700::1111'])).toEqual({ ok: true });
    expect(publicAddresses(['8.8.8.8', '127.0.0.1'])).toEqual({ ok: false, range: 'loopback' });
    expect(publicAddresses([])).toEqual({ ok: false, range: 'none' });
  });

  it.each([
    ['localhost', '.localhost name'],
    ['localhost.', '.localhost name'],
    ['foo.localhost.', '.localhost name'],
    ['metadata.google.internal', '.internal name'],
    ['metadata.google.internal.', '.internal name'],
    ['printer.local', '.local name'],
    ['nas.home.arpa', '.home.arpa name'],
    ['metadata', 'single-label name'],
    ['[::1]', 'loopback'],
    ['127.0.0.1', 'loopback'],
  ])('refuses the URL host %s (%s)', (host, range) => {
    expect(publicHost(host)).toEqual({ ok: false, range });
  });

  it.each(['hooks.example.com', 'hooks.example.com.', 'localhost.example.com', '[2606:4700:4700::1111]'])(
    'allows the URL host %s (where a name resolves is checked at delivery)',
    (host) => {
      expect(publicHost(host)).toEqual({ ok: true });
    },
  );
});
