import type { DomainCheckPorts } from '../../domains/lifecycle.ts';
import type { KeyedRoute } from '../operation.ts';

export interface DomainsApiPorts extends DomainCheckPorts {
  /** The configuration set new SES identities join (the stack's; PMAIL_SES_CONFIGURATION_SET). */
  configurationSet?: string;
  /** Local only: the SES endpoint live domains created here send through (`npm start`'s local SES). */
  sesEndpoint?: string;
  /** The relay secrets' prefix (the stack name; PMAIL_SMTP_SECRET_PREFIX). */
  secretPrefix?: string;
  /**
   * Local runtime and tests only: accept relay hosts the SSRF rules refuse (the same opt-out as the
   * SMTP adapter's `allowLocalRelays`). @default false
   */
  allowLocalRelays?: boolean;
  /** Resolves a relay host to its addresses (default: the system resolver, all families). */
  resolve?: (host: string) => Promise<string[]>;
}

/**
 * An operation of the `domains` group (functions/api/domains.api.ts): the permission the shared step
 * checks, and its handler, given the key's tenant and the group's ports.
 */
export type DomainsRoute = KeyedRoute<{ tenantId: string; ports: DomainsApiPorts }> & {
  permission: 'domains:read' | 'domains:write';
};
