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
 *   - use cases (send, events, sweeper, domains, admin, webhooks, stream, outcomes, bodies, inbound)
 *     never import api/;
 *   - no use case reaches into the event consumer: what the send attempt's Record and the consumer
 *     both write for a recipient's outcome lives in outcomes/, which imports no use case; events/
 *     is reached only through its port (events/event-sink.ts);
 *   - no `@aws-sdk/*` outside store/, transports/, adapters/, the Lambda entries and the composition
 *     roots (functions/env.ts, functions/deps.ts, functions/lambda-ports.ts, functions/local/, lib/,
 *     bin/); a use case is given an adapter as a port and never imports one;
 *   - the sweeper never imports a transport;
 *   - no import cycles in functions/ (type-only imports included);
 *   - lib/ (the CDK) reads from functions/ only the lists it deploys (routes, transport tasks, metric
 *     names) and core's constants; bin/ drives use cases and the local runtime, never the send path;
 *   - functions/local/ (the local runtime) is imported only by itself, bin/ and the tools that run it
 *     (tests, bench/, deploy/): no Lambda bundle holds it;
 *   - the console (console/src) reads from functions/ only core's pure rules, and calls the API;
 *   - the client package (packages/client/src) imports nothing of functions/, console/, bin/, lib/.
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
    .filter(
      (f) => /\.(ts|tsx|mjs)$/.test(f) && !f.endsWith('.d.ts') && !f.split('/').includes('node_modules'),
    )
    .map((f) => join(dir, f));
}

const FILES = ['functions', 'lib', 'bin', 'bench', 'deploy', 'console/src', 'packages/client/src'].flatMap(
  sources,
);

function edges(files: string[], read = (f: string) => readFileSync(join(ROOT, f), 'utf8')): Edge[] {
  return files.flatMap((from) => importsOf(from, read(from)).map((to) => ({ from, to })));
}

const under = (dir: string) => (p: string) => p.startsWith(`${dir}/`);
const pkg =
  (...names: (string | RegExp)[]) =>
  (p: string) =>
    p.startsWith('pkg:') &&
    names.some((n) => (typeof n === 'string' ? p === `pkg:${n}` : n.test(p.slice(4))));
const USE_CASES = [
  'send',
  'events',
  'sweeper',
  'domains',
  'admin',
  'webhooks',
  'stream',
  'outcomes',
  'bodies',
  'inbound',
].map((d) => `functions/${d}`);
const isEntry = (f: string) => f.endsWith('.handler.ts');
/**
 * Where an AWS SDK client may be built or a command sent: the adapters (store/, transports/,
 * adapters/), the Lambda entries and the composition roots that build the ports.
 */
const SDK_HOMES = (f: string) =>
  ['functions/store', 'functions/transports', 'functions/adapters', 'functions/local', 'lib', 'bin'].some(
    (d) => under(d)(f),
  ) ||
  isEntry(f) ||
  ['functions/env.ts', 'functions/deps.ts', 'functions/lambda-ports.ts'].includes(f);

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
      // The table's client (store/dynamodb.ts) is @aws-lite/client; the blob store and the
      // secrets are the AWS SDK's.
      pkg(/^@aws-sdk\//, '@aws-lite/client', 'node:crypto', 'node:zlib', 'node:fs/promises', 'node:path'),
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
    name: 'no @aws-sdk outside the adapters, the entries and the composition roots',
    from: (f) => under('functions')(f) && !SDK_HOMES(f),
    deny: [pkg(/^@aws-sdk\//)],
  },
  {
    // functions/adapters/: the AWS adapters of ports that are neither storage (store/) nor a way to
    // send mail (transports/): the Step Functions dispatcher, the SQS queues, the SES identities, the
    // SMTP probe's Lambda invoke, the stream's connections (API Gateway's Management API).
    name: 'adapters import only core, store, the ports they implement and their SDKs',
    from: under('functions/adapters'),
    allow: [
      under('functions/core'),
      under('functions/store'),
      (t) =>
        [
          'functions/send/dispatcher.ts',
          'functions/events/event-sink.ts',
          'functions/events/cloudflare-pull.ts',
          'functions/webhooks/webhook-queue.ts',
          'functions/stream/connections.ts',
          'functions/domains/ses-identities.ts',
          'functions/domains/smtp-probe.ts',
        ].includes(t),
      pkg(/^@aws-sdk\//, '@aws-lite/client'),
    ],
  },
  {
    name: 'use cases take adapters as ports, never import them',
    from: (f) => USE_CASES.some((d) => under(d)(f)) && !isEntry(f),
    deny: [under('functions/adapters')],
  },
  {
    name: 'use cases never import api/',
    from: (f) => USE_CASES.some((d) => under(d)(f)),
    deny: [under('functions/api')],
  },
  {
    name: 'no use case reaches into the event consumer',
    from: (f) => USE_CASES.some((d) => under(d)(f)) && !under('functions/events')(f),
    deny: [(t) => under('functions/events')(t) && t !== 'functions/events/event-sink.ts'],
  },
  {
    name: 'outcomes/ imports no use case',
    from: under('functions/outcomes'),
    deny: [...USE_CASES.filter((d) => d !== 'functions/outcomes'), 'functions/api', 'functions/local'].map(
      (d) => under(d),
    ),
  },
  {
    name: 'the sweeper takes from send/ only the dispatcher port',
    from: under('functions/sweeper'),
    deny: [(t) => under('functions/send')(t) && t !== 'functions/send/dispatcher.ts'],
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
    // The local runtime stands in for AWS on one machine; a Lambda bundle never holds it.
    name: 'only functions/local/, bin/ and the tools that run it import functions/local/',
    from: (f) => !['functions/local', 'bin', 'bench', 'deploy'].some((d) => under(d)(f)),
    deny: [under('functions/local')],
  },
  {
    // A browser bundle: core's pure rules (what a key may grant) are shown, not written again.
    name: 'the console reads from functions/ only core, and no server package',
    from: under('console/src'),
    deny: [
      (t) => t.startsWith('functions/') && !under('functions/core')(t),
      under('bin'),
      under('lib'),
      pkg(/^node:/, /^@aws-sdk\//, '@aws-lite/client'),
    ],
  },
  {
    name: 'the client package imports nothing of the service, the console or the tools',
    from: under('packages/client/src'),
    deny: [
      under('functions'),
      under('console'),
      under('bin'),
      under('lib'),
      pkg(/^@aws-sdk\//, '@aws-lite/client'),
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

/** The import cycles among functions/ (strongly connected components of more than one file, or a file importing itself). */
function cycles(all: Edge[]): string[][] {
  const next = new Map<string, string[]>();
  for (const e of all.filter((x) => under('functions')(x.from) && under('functions')(x.to)))
    next.set(e.from, [...(next.get(e.from) ?? []), e.to]);
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const found: string[][] = [];
  const visit = (v: string) => {
    index.set(v, index.size);
    low.set(v, index.get(v)!);
    stack.push(v);
    for (const w of next.get(v) ?? []) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (stack.includes(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) !== index.get(v)) return;
    const component = stack.splice(stack.indexOf(v));
    if (component.length > 1 || next.get(v)?.includes(v)) found.push(component.sort());
  };
  for (const v of next.keys()) if (!index.has(v)) visit(v);
  return found;
}

describe('layers', () => {
  const graph = edges(FILES);

  it('reads the whole import graph', () => {
    expect(FILES.length).toBeGreaterThan(100);
    for (const dir of [
      'functions/inbound',
      'functions/local',
      'bench',
      'deploy',
      'console/src',
      'packages/client/src',
    ])
      expect(FILES.some(under(dir)), dir).toBe(true);
    expect(FILES).toContain('console/src/pages/keys.tsx');
    expect(
      graph.some((e) => e.from === 'functions/send/submit/decide.ts' && e.to === 'functions/core/errors.ts'),
    ).toBe(true);
  });

  it('has no import that crosses a layer the wrong way', () => {
    expect(violations(graph)).toEqual([]);
  });

  it('has no import cycle in functions/', () => {
    expect(cycles(graph)).toEqual([]);
  });

  it('fails when a planted import closes a cycle (core/model.ts ← core/compose.ts)', () => {
    const plant = (f: string) =>
      readFileSync(join(ROOT, f), 'utf8') +
      (f === 'functions/core/model.ts' ? "\nimport type { Operation } from './compose.ts';\n" : '');
    const found = cycles(edges(FILES, plant));
    expect(
      found.some((c) => c.includes('functions/core/compose.ts') && c.includes('functions/core/model.ts')),
    ).toBe(true);
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
    [
      'functions/send/attempt.ts',
      "import { consumeDeliveryEvent } from '../events/consume.ts';",
      'no use case reaches into the event consumer',
    ],
    [
      'functions/sweeper/sweeper.ts',
      "export { parseDeliveryEvent } from '../events/consume.ts';",
      'no use case reaches into the event consumer',
    ],
    [
      'functions/outcomes/outcomes.ts',
      "import { claim } from '../send/attempt.ts';",
      'outcomes/ imports no use case',
    ],
    [
      'functions/sweeper/sweeper.ts',
      "import { emitAttemptEnd } from '../send/attempt.ts';",
      'the sweeper takes from send/ only',
    ],
    [
      'functions/domains/lifecycle.ts',
      "import { SESv2Client } from '@aws-sdk/client-sesv2';",
      'no @aws-sdk outside',
    ],
    ['functions/api/auth.ts', "import type { SQSClient } from '@aws-sdk/client-sqs';", 'no @aws-sdk outside'],
    [
      'functions/adapters/sqs-queues.ts',
      "import { fanOut } from '../webhooks/fan-out.ts';",
      'adapters import only',
    ],
    [
      'functions/webhooks/fan-out.ts',
      "import { sqsWebhookQueue } from '../adapters/sqs-queues.ts';",
      'use cases take adapters as ports',
    ],
    [
      'functions/inbound/ingest.ts',
      "import type { QueueConsumer } from '../local/queue.ts';",
      'only functions/local/, bin/ and the tools',
    ],
    ['functions/api/http.ts', "import { LocalQueue } from '../local/queue.ts';", 'only functions/local/'],
    ['lib/api.ts', "import { startRuntime } from '../functions/local/runtime.ts';", 'only functions/local/'],
    [
      'functions/inbound/held.ts',
      "import { parseSendBody } from '../api/send.schema.ts';",
      'use cases never import api/',
    ],
    [
      'functions/inbound/screen.ts',
      "import { consumeDeliveryEvent } from '../events/consume.ts';",
      'no use case reaches into the event consumer',
    ],
    [
      'console/src/pages/keys.tsx',
      "import { getMessage } from '../../../functions/store/messages.store.ts';",
      'the console reads from functions/ only core',
    ],
    ['console/src/api.ts', "import { readFileSync } from 'node:fs';", 'the console reads'],
    [
      'packages/client/src/index.ts',
      "import type { MessageRecord } from '../../../functions/core/model.ts';",
      'the client package imports nothing',
    ],
    [
      'packages/client/src/stream.ts',
      "export { h } from '../../../console/src/ui.tsx';",
      'the client package',
    ],
  ])('fails when %s gains `%s`', (file, line, rule) => {
    const found = violations(edges([file], (f) => `${readFileSync(join(ROOT, f), 'utf8')}\n${line}\n`));
    expect(found.some((v) => v.startsWith(rule))).toBe(true);
  });
});
