import { readFile } from 'node:fs/promises';

/**
 * The local MX's DNS (docs/guides/receiving.md › Who sent it, on your laptop): it answers only from
 * a zone file (`.pmail/dns.zone` under `npm start`), never from the network, so SPF, DKIM and DMARC
 * are checked against records you write by hand. One record a line:
 *
 *     # a comment
 *     example.org                  TXT   "v=spf1 ip4:127.0.0.1 -all"
 *     sel1._domainkey.example.org  TXT   "v=DKIM1; k=rsa; p=MIIBIjAN…" "…the rest of the key"
 *     _dmarc.example.org           TXT   "v=DMARC1; p=reject"
 *     mail.example.org             A     127.0.0.1
 *     example.org                  MX    10 mail.example.org
 *
 * Names are case-insensitive, a trailing dot is optional; a TXT record is one or more quoted
 * strings (its chunks), or the rest of the line; types A, AAAA, MX, TXT. A name or type the file
 * does not have is not found (ENOTFOUND), as a lookup of a missing name is.
 */
/** The zone file's name in the state folder. */
export const DNS_ZONE_FILE = 'dns.zone';

export type ZoneRecords = Map<string, { type: string; value: string }[]>;

export function parseZone(text: string): ZoneRecords {
  const zone: ZoneRecords = new Map();
  for (const raw of text.split(/\r?\n/)) {
    const line = raw.trim();
    if (!line || line.startsWith('#') || line.startsWith(';')) continue;
    const m = /^(\S+)\s+(A|AAAA|MX|TXT)\s+(.+)$/i.exec(line);
    if (!m) continue;
    const name = m[1].toLowerCase().replace(/\.$/, '');
    const list = zone.get(name) ?? [];
    list.push({ type: m[2].toUpperCase(), value: m[3].trim() });
    zone.set(name, list);
  }
  return zone;
}

const notFound = (name: string) => Object.assign(new Error(`ENOTFOUND ${name}`), { code: 'ENOTFOUND' });

/** A TXT record's chunks: its quoted strings, or the whole value when it has none. */
function txtChunks(value: string): string[] {
  const quoted = [...value.matchAll(/"((?:[^"\\]|\\.)*)"/g)].map((q) => q[1].replace(/\\(.)/g, '$1'));
  return quoted.length ? quoted : [value];
}

/** A resolver with `dns.promises.resolve`'s contract over one zone (what mailauth takes). */
export function zoneResolver(zone: ZoneRecords) {
  return async (name: string, rrtype = 'A'): Promise<unknown[]> => {
    const type = rrtype.toUpperCase();
    const found = (zone.get(name.toLowerCase().replace(/\.$/, '')) ?? []).filter((r) => r.type === type);
    if (found.length === 0) throw notFound(name);
    if (type === 'TXT') return found.map((r) => txtChunks(r.value));
    if (type === 'MX')
      return found.map((r) => {
        const [priority, exchange] = r.value.split(/\s+/);
        return { priority: Number(priority), exchange: (exchange ?? '').replace(/\.$/, '') };
      });
    return found.map((r) => r.value);
  };
}

/** A resolver over the zone file at `path`, read at each lookup (an edit applies to the next message; no file: nothing is found). */
export function zoneFileResolver(path: string) {
  return async (name: string, rrtype?: string): Promise<unknown[]> => {
    const text = await readFile(path, 'utf8').catch(() => '');
    return zoneResolver(parseZone(text))(name, rrtype);
  };
}
