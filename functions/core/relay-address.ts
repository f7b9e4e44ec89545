import ipaddr from 'ipaddr.js';
import { SMTP_ALLOWED_PORTS } from './smtp-outcome.ts';

/**
 * SSRF rules for a customer-named relay (seed 000 › SMTP relay; provider-outcomes.md › Security for
 * relays): the adapter resolves the host itself and connects only to an address that passes here,
 * on an allowed port. Only global unicast addresses pass; loopback, private (RFC 1918), link-local
 * (169.254/16 — the instance metadata endpoint — and fe80::/10), CGNAT (100.64/10), documentation
 * and benchmark ranges, multicast, broadcast, unspecified, reserved, unique-local, and IPv6
 * transition forms are refused. An IPv4-mapped (::ffff:a.b.c.d) or NAT64 (64:ff9b::/96) address is
 * judged by the IPv4 address inside it. Anything that does not parse is refused (fail closed).
 * Ranges are ipaddr.js's `range()` (IANA special-purpose registries).
 */
/** A relay host as a domain may name it: a DNS name (one label or more) or a dotted IPv4 address. */
export const RELAY_HOST_PATTERN =
  /^(?=.{1,253}$)[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?(\.[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)*$/;

export type RelayTargetCheck = { ok: true } | { ok: false; detail: string };

export function relayAddressAllowed(ip: string): RelayTargetCheck {
  if (!ipaddr.isValid(ip)) return { ok: false, detail: 'the relay host did not resolve to an IP address' };
  let addr = ipaddr.parse(ip);
  let range = addr.range();
  if (addr.kind() === 'ipv6' && (range === 'ipv4Mapped' || range === 'rfc6052')) {
    const v6 = addr as ipaddr.IPv6;
    const bytes = v6.toByteArray().slice(12);
    addr = ipaddr.fromByteArray(bytes);
    range = addr.range();
  }
  if (range === 'unicast') return { ok: true };
  return { ok: false, detail: `the relay host resolves to a ${range} address, which relays may not use` };
}

export function relayPortAllowed(port: number): RelayTargetCheck {
  return SMTP_ALLOWED_PORTS.includes(port)
    ? { ok: true }
    : { ok: false, detail: `relay port ${port} is not one of ${SMTP_ALLOWED_PORTS.join(', ')}` };
}

/** Every resolved address must pass (fail closed: a host with one private address is refused). */
export function relayTargetAllowed(port: number, addresses: readonly string[]): RelayTargetCheck {
  const p = relayPortAllowed(port);
  if (!p.ok) return p;
  if (addresses.length === 0) return { ok: false, detail: 'the relay host did not resolve' };
  for (const a of addresses) {
    const c = relayAddressAllowed(a);
    if (!c.ok) return c;
  }
  return { ok: true };
}
