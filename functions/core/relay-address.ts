import { publicAddress, publicAddresses } from './address-policy.ts';
import { SMTP_ALLOWED_PORTS } from './smtp-outcome.ts';

/**
 * SSRF rules for a customer-named relay: the adapter resolves the host itself and connects only to
 * an address that passes here, on an allowed port. Which addresses pass is core/address-policy.ts
 * (the same rule as webhook endpoints): public unicast only, fail closed.
 */
/** A relay host as a domain may name it: a DNS name (one label or more) or a dotted IPv4 address. */
export const RELAY_HOST_PATTERN =
  /^(?=.{1,253}$)[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?(\.[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)*$/;

export type RelayTargetCheck = { ok: true } | { ok: false; detail: string };

const refused = (range: string): RelayTargetCheck =>
  range === 'invalid'
    ? { ok: false, detail: 'the relay host did not resolve to an IP address' }
    : range === 'none'
      ? { ok: false, detail: 'the relay host did not resolve' }
      : { ok: false, detail: `the relay host resolves to a ${range} address, which relays may not use` };

export function relayAddressAllowed(ip: string): RelayTargetCheck {
  const c = publicAddress(ip);
  return c.ok ? c : refused(c.range);
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
  const c = publicAddresses(addresses);
  return c.ok ? c : refused(c.range);
}
