import ipaddr from 'ipaddr.js';

/**
 * The one rule for where pmail may connect on a customer's say-so: an SMTP relay's host
 * (core/relay-address.ts) and a webhook endpoint's URL (core/webhooks.ts), each checked when it is
 * saved and again at every connection, after DNS resolution, on the addresses the connection then
 * uses (functions/transports/smtp.transport.ts, functions/webhooks/http-client.ts).
 *
 * Only public unicast addresses pass (fail closed: anything that does not parse is refused):
 * - IPv4: ipaddr.js's `unicast` range only. Loopback, private (RFC 1918), link-local (169.254/16,
 *   where cloud metadata answers), CGNAT (100.64/10), documentation, benchmarking (198.18/15),
 *   multicast, broadcast, unspecified and reserved ranges are refused (ipaddr.js names each one
 *   after the IANA special-purpose registry).
 * - IPv6: the global unicast block 2000::/3 only, and within it ipaddr.js's `unicast` range only.
 *   That refuses loopback, unspecified, IPv4-compatible (::a.b.c.d), unique-local (fc00::/7),
 *   link-local (fe80::/10), site-local (fec0::/10), multicast, documentation, benchmarking, and the
 *   transition forms 6to4 (2002::/16, which carries an IPv4 address such as 127.0.0.1) and Teredo.
 * - An IPv4-mapped address (::ffff:a.b.c.d) or a well-known-prefix NAT64 address (64:ff9b::/96) is
 *   judged by the IPv4 address inside it; the local-use NAT64 prefix (64:ff9b:1::/48) is refused.
 * - An address with an IPv6 zone (fe80::1%eth0) names an interface of this machine: refused.
 */
export type AddressCheck = { ok: true } | { ok: false; range: string };

const MAPPED_V4 = [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff];
const NAT64_V4 = [0, 0x64, 0xff, 0x9b, 0, 0, 0, 0, 0, 0, 0, 0];

/** Whether a connection may go to this IP address (a resolver's answer or a URL's literal). */
export function publicAddress(ip: string): AddressCheck {
  const text = ip.trim();
  let addr: ipaddr.IPv4 | ipaddr.IPv6;
  if (ipaddr.IPv4.isValidFourPartDecimal(text)) addr = ipaddr.IPv4.parse(text);
  else if (ipaddr.IPv6.isValid(text)) addr = ipaddr.IPv6.parse(text);
  else return { ok: false, range: 'invalid' };
  if (addr.kind() === 'ipv4') {
    const range = addr.range();
    return range === 'unicast' ? { ok: true } : { ok: false, range };
  }
  const v6 = addr as ipaddr.IPv6;
  if (v6.zoneId) return { ok: false, range: 'zoned' };
  const bytes = v6.toByteArray();
  const prefixed = (prefix: number[]) => prefix.every((b, i) => bytes[i] === b);
  if (prefixed(MAPPED_V4) || prefixed(NAT64_V4)) {
    const inner = publicAddress(ipaddr.fromByteArray(bytes.slice(12)).toString());
    return inner.ok ? inner : { ok: false, range: `${inner.range} (inside ${v6.range()})` };
  }
  // 2000::/3: the first three bits are 001.
  if ((bytes[0] & 0xe0) !== 0x20) {
    const range = v6.range();
    return { ok: false, range: range === 'unicast' ? 'not global unicast' : range };
  }
  const range = v6.range();
  return range === 'unicast' ? { ok: true } : { ok: false, range };
}

/** Every address a host resolved to must pass: one refused address refuses the host. */
export function publicAddresses(addresses: readonly string[]): AddressCheck {
  if (addresses.length === 0) return { ok: false, range: 'none' };
  for (const a of addresses) {
    const c = publicAddress(a);
    if (!c.ok) return c;
  }
  return { ok: true };
}

/**
 * Names that never lead to a public address: `localhost` and its subdomains (RFC 6761), the
 * private-use `.internal` (where cloud metadata names live, e.g. metadata.google.internal),
 * multicast DNS's `.local`, `.home.arpa` (RFC 8375), and one-label names (a resolver completes
 * them with its own search domains). Compared without the trailing dot of a fully qualified name.
 */
const INTERNAL_SUFFIXES = ['localhost', 'internal', 'local', 'home.arpa'];

/**
 * Whether a URL's host (as `URL.hostname` gives it: lower case, IPv4 in four decimal parts, IPv6
 * in brackets) may be saved as a connection target. An IP literal is judged by publicAddress; a
 * name by its suffix only: where it resolves is checked at connection time.
 */
export function publicHost(hostname: string): AddressCheck {
  const host = hostname.toLowerCase().replace(/\.+$/, '');
  if (host.startsWith('[') && host.endsWith(']')) return publicAddress(host.slice(1, -1));
  if (ipaddr.IPv4.isValidFourPartDecimal(host)) return publicAddress(host);
  for (const s of INTERNAL_SUFFIXES)
    if (host === s || host.endsWith(`.${s}`)) return { ok: false, range: `.${s} name` };
  if (host === '' || !host.includes('.')) return { ok: false, range: 'single-label name' };
  return { ok: true };
}
