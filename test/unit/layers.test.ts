import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

/**
 * The layers of docs/architecture.md, enforced on the import graph (every static and dynamic import
 * and re-export, read with the TypeScript compiler's own pre-processor):
 *   - core imports only core and pure packages (no I/O: see also core-purity.test.ts);
 *   - store imports only core, store and its SDK;
 *   - transports import only core, their port and their clients (a transport never writes the store);
 *   - use cases (send, events, sweeper, domains, admin, webhooks) never import api/;
 *   - the sweeper never imports a transport;
 *   - lib/ (the CDK) reads from functions/ only the lists it deploys (routes, transport tasks, metric
 *     names) and core's constants; bin/ drives use cases and the local runtime, never the send path.
 * A `*.handler.ts` is a Lambda entry point (a composition root: it builds the adapters and wires the
 * ports). The transports' entries are the send machine's tasks and live in send/
 * (`send/{provider}-transport.handler.ts`), so the transports rule holds for every file under
 * transports/, with no exemption.
 */
const ROOT = resolve(import.meta.dirname, '../..');

interface Edge {
  from: string;
  to: string;
}

function importsOf(file: string, source: string): string[] {
  const info = ts.preProcessFile(source, true, true);
  return info.importedFiles.map((i) =>
    i.fileName.startsWith('.')
      ? relative(ROOT, resolve(dirname(join(ROOT, file)), i.fileName))
      : `pkg:${i.fileName}`,
  );
}

function sources(dir: string): string[] {
  return readdirSync(join(ROOT, dir), { recursive: true })
    .map(String)
    .filter((f) => /\.(ts|mjs)$/.test(f) && !f.endsWith('.d.ts'))
    .map((f) => join(dir, f));
}

const FILES = ['functions', 'lib', 'bin'].flatMap(sources);

function edges(files: string[], read = (f: string) => readFileSync(join(ROOT, f), 'utf8')): Edge[] {
  return files.flatMap((from) => importsOf(from, read(from)).map((to) => ({ from, to })));
}

const under = (dir: string) => (p: string) => p.startsWith(`${dir}/`);
const pkg =
  (...names: (string | RegExp)[]) =>
  (p: string) =>
    p.startsWith('pkg:') &&
    names.some((n) => (typeof n === 'string' ? p === `pkg:${n}` : n.test(p.slice(4))));
const USE_CASES = ['send', 'events', 'sweeper', 'domains', 'admin', 'webhooks'].map((d) => `functions/${d}`);

interface Rule {
  name: string;
  /** The files the rule applies to. */
  from: (f: string) => boolean;
  /** What they may import (allow-list) … */
  allow?: ((to: string) => boolean)[];
  /** … or what they may not (deny-list). */
  deny?: ((to: string) => boolean)[];
}

const RULES: Rule[] = [
  {
    name: 'core imports only core and pure packages',
    from: under('functions/core'),
    // ajv, ajv-formats and handlebars compile schemas and templates in memory (core/templates.ts).
    allow: [
      under('functions/core'),
      pkg('node:crypto', 'node:url', 'ipaddr.js', 'ajv', 'ajv-formats', 'handlebars'),
    ],
  },
  {
    name: 'store imports only core, store and its SDK',
    from: under('functions/store'),
    allow: [
      under('functions/core'),
      under('functions/store'),
      pkg(/^@aws-sdk\//, 'node:crypto', 'node:zlib', 'node:fs/promises', 'node:path'),
    ],
  },
  {
    name: 'transports import only core, their port and their clients',
    from: under('functions/transports'),
    allow: [
      under('functions/core'),
      under('functions/transports'),
      // The ports every adapter is given: the logger, and the simulator's event queue.
      (t) => t === 'functions/log.ts' || t === 'functions/events/event-sink.ts',
      pkg(/^@aws-sdk\/client-sesv2$/, /^nodemailer\//, 'mailparser', /^node:(dns\/promises|net|stream)$/),
    ],
  },
  {
    name: 'use cases never import api/',
    from: (f) => USE_CASES.some((d) => under(d)(f)),
    deny: [under('functions/api')],
  },
  {
    name: 'the sweeper never imports a transport',
    from: under('functions/sweeper'),
    deny: [under('functions/transports')],
  },
  {
    name: 'lib/ reads from functions/ only what it deploys',
    from: under('lib'),
    allow: [
      (t) => !t.startsWith('functions/'),
      under('functions/core'),
      (t) =>
        [
          'functions/api/routes.ts',
          'functions/transports/tasks.ts',
          'functions/transports/transport.ts',
          'functions/metrics.ts',
          // The receipt rule's S3 action writes under the prefix the ingest reads.
          'functions/inbound/notification.ts',
        ].includes(t),
    ],
  },
  {
    name: 'bin/ never reaches into the send path',
    from: under('bin'),
    deny: ['send', 'events', 'sweeper', 'webhooks', 'transports'].map((d) => under(`functions/${d}`)),
  },
];

function violations(all: Edge[]): string[] {
  const out: string[] = [];
  for (const rule of RULES) {
    for (const e of all.filter((x) => rule.from(x.from))) {
      const bad = rule.allow ? !rule.allow.some((ok) => ok(e.to)) : rule.deny!.some((no) => no(e.to));
      if (bad) out.push(`${rule.name}: ${e.from} -> ${e.to.replace(/^pkg:/, '')}`);
    }
  }
  return out;
}

describe('layers', () => {
  const graph = edges(FILES);

  it('reads the whole import graph', () => {
    expect(FILES.length).toBeGreaterThan(100);
    expect(
      graph.some((e) => e.from === 'functions/send/submit.ts' && e.to === 'functions/core/errors.ts'),
    ).toBe(true);
  });

  it('has no import that crosses a layer the wrong way', () => {
    expect(violations(graph)).toEqual([]);
  });

  it.each([
    [
      'functions/send/submit.ts',
      "import { sendBodySchema } from '../api/send.schema.ts';",
      'use cases never import api/',
    ],
    [
      'functions/core/quota.ts',
      "import { getThread } from '../store/threads.store.ts';",
      'core imports only core',
    ],
    ['functions/core/quota.ts', "const fs = await import('node:fs');", 'core imports only core'],
    [
      'functions/transports/ses.transport.ts',
      "export { putMessage } from '../store/messages.store.ts';",
      'transports import only',
    ],
    [
      'functions/store/messages.store.ts',
      "import type { Transport } from '../transports/transport.ts';",
      'store imports only',
    ],
    [
      'functions/sweeper/sweeper.ts',
      "import { TRANSPORT_TASKS } from '../transports/tasks.ts';",
      'the sweeper never',
    ],
    ['lib/api.ts', "import { submit } from '../functions/send/submit.ts';", 'lib/ reads'],
  ])('fails when %s gains `%s`', (file, line, rule) => {
    const found = violations(edges([file], (f) => `${readFileSync(join(ROOT, f), 'utf8')}\n${line}\n`));
    expect(found.some((v) => v.startsWith(rule))).toBe(true);
  });
});
