import { readdirSync } from 'node:fs';
import { join, relative } from 'node:path';
import { build } from 'esbuild';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { keysApi } from '../../functions/api/keys.api.ts';
import { threadsApi } from '../../functions/api/threads.api.ts';
import type { Deps } from '../../functions/deps.ts';
import { loadLambdaDeps } from '../../functions/env.ts';
import { LAMBDA_PORTS, portsFor } from '../../functions/lambda-ports.ts';
import type { BlobStore } from '../../functions/store/blobs.ts';
import { REPO_ROOT } from '../../lib/defaults.ts';

/**
 * Each Lambda gets only the costly ports its row of functions/lambda-ports.ts names (docs/operating.md ›
 * Cold starts), as a type: `DepsFor<S>`. That the rows are enough is proved by the type-check of every
 * entry and of the local runtime (functions/local/runtime.ts), which gives each route group and task
 * `portsFor(deps, S)`, and by the integration suite running them; here: the built objects lack the
 * ports outside their row (at run time and for the compiler), the production loader, and that the
 * bundles carry an AWS client only where the row asks for its port.
 */

const blobs: BlobStore = {
  put: async () => {},
  get: async () => undefined,
  delete: async () => {},
  async *list() {},
};
const input = { tenant_id: 't', identity_id: 'i', message_id: 'm' };

afterEach(() => {
  vi.unstubAllEnvs();
  vi.resetModules();
});

describe('portsFor', () => {
  it('gives a service the base ports and its row’s, and leaves the others out', () => {
    const base = {
      blobs,
      dispatcher: { start: async () => {} },
      events: { publish: async () => {} },
      log: { info() {} },
    } as unknown as Deps;
    const links = portsFor(base, 'api-links');
    expect(links.blobs).toBe(blobs);
    expect(links.log).toBe(base.log);
    expect('dispatcher' in links).toBe(false);
    expect('events' in links).toBe(false);
    expect(Object.keys(links).sort()).toEqual(['blobs', 'log']);
    // A call to a port its row lacks fails at run time as well as at compile time.
    expect(() => (links as unknown as Deps).dispatcher.start('x', input)).toThrow(TypeError);
    // A port set on the base later (the local runtime sets its dispatcher and queue last) is seen.
    const sweeper = portsFor(base, 'sweeper');
    const dispatcher = { start: async () => {} };
    base.dispatcher = dispatcher;
    expect(sweeper.dispatcher).toBe(dispatcher);
    expect('events' in sweeper).toBe(false);
  });

  it('types a service’s deps without the ports outside its row (checked by the compiler)', () => {
    // Never run: tsc (npm run lint) checks these lines.
    const typeChecks = (deps: Deps) => {
      const links = portsFor(deps, 'api-links');
      void links.blobs;
      // @ts-expect-error api-links is built without the dispatcher
      void links.dispatcher;
      // @ts-expect-error the events consumer is built without blobs
      void portsFor(deps, 'delivery-events').blobs;
      const attempt: Deps = portsFor(deps, 'send-attempt');
      // @ts-expect-error a service without the events port is not a whole Deps
      const sweeper: Deps = portsFor(deps, 'sweeper');
      void [attempt, sweeper];
      // A route group declares the ports its operations use: threads reads attachments' bytes.
      // @ts-expect-error the keys Lambda is built without the blob store the threads group needs
      threadsApi(portsFor(deps, 'api-keys'));
      keysApi(portsFor(deps, 'api-keys'));
    };
    expect(typeChecks).toBeTypeOf('function');
  });
});

describe('loadLambdaDeps (production wiring)', () => {
  it('builds the ports from the factories given, and no other costly port', async () => {
    vi.stubEnv('PMAIL_TABLE', 'pmail-test');
    vi.stubEnv('PM_HASH_KEY', 'test-hash-key');
    vi.stubEnv('PMAIL_KEYS_SECRET_ARN', '');
    const { loadLambdaDeps: load } = await import('../../functions/env.ts');
    const seen: string[] = [];
    const deps = await load('api-links', {
      blobs: (required: (name: string) => string) => {
        seen.push(required('PMAIL_TABLE'));
        return blobs;
      },
    });
    expect(deps.blobs).toBe(blobs);
    expect(seen).toEqual(['pmail-test']);
    expect('events' in deps).toBe(false);
    expect('dispatcher' in deps).toBe(false);
    expect(Object.keys(deps).sort()).toEqual(['blobs', 'clock', 'config', 'db', 'log', 'metrics', 'newId']);
  });

  it('takes exactly the factories of the service’s row and returns its deps (checked by the compiler)', () => {
    // Never run: tsc (npm run lint) checks these lines.
    const typeChecks = async () => {
      // @ts-expect-error api-messages needs its dispatcher
      void loadLambdaDeps('api-messages', { blobs: () => blobs });
      // @ts-expect-error api-keys is built without blobs
      void loadLambdaDeps('api-keys', { blobs: () => blobs });
      const keys = await loadLambdaDeps('api-keys', {});
      // @ts-expect-error api-keys is built without blobs
      void keys.blobs;
      void keys.db;
    };
    expect(typeChecks).toBeTypeOf('function');
  });
});

describe('bundles', () => {
  const entries = (dir: string): string[] =>
    readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
      e.isDirectory()
        ? entries(join(dir, e.name))
        : e.name.endsWith('.handler.ts')
          ? [join(dir, e.name)]
          : [],
    );
  /** The service name each entry passes to loadLambdaDeps; `blobs`: built by hand with blobs (the transports all read blobs too). */
  const serviceOf: Record<string, keyof typeof LAMBDA_PORTS | 'blobs' | 'none'> = {
    'functions/domains/check.handler.ts': 'domain-check',
    'functions/events/cloudflare-pull.handler.ts': 'none',
    'functions/events/delivery-events.handler.ts': 'delivery-events',
    'functions/inbound/ingest.handler.ts': 'inbound-ingest',
    'functions/send/send-attempt.handler.ts': 'send-attempt',
    'functions/sweeper/sweeper.handler.ts': 'sweeper',
    'functions/sweeper/orphans.handler.ts': 'blobs',
    'functions/webhooks/deliver.handler.ts': 'webhook-deliverer',
    'functions/webhooks/fan-out.handler.ts': 'webhook-fan-out',
    'functions/api/stream.handler.ts': 'stream-connect',
    'functions/api/stream-authorizer.handler.ts': 'stream-authorizer',
    'functions/stream/fan-out.handler.ts': 'stream-fan-out',
  };

  it('carry the S3 client only where the function reads or writes blobs, and MIME parsing only where it parses', async () => {
    const found: Record<string, { s3: boolean; libmime: boolean }> = {};
    for (const entry of entries(join(REPO_ROOT, 'functions'))) {
      const rel = relative(REPO_ROOT, entry);
      const out = await build({
        entryPoints: [entry],
        bundle: true,
        platform: 'node',
        format: 'esm',
        write: false,
        metafile: true,
        outdir: '/nonexistent',
        logLevel: 'silent',
      });
      // What ends up in the bundle (the metafile also lists modules whose code was tree-shaken away).
      const inputs = Object.values(out.metafile.outputs).flatMap((o) =>
        Object.entries(o.inputs)
          .filter(([, i]) => i.bytesInOutput > 0)
          .map(([p]) => p),
      );
      found[rel] = {
        s3: inputs.some((p) => p.includes('node_modules/@aws-sdk/client-s3/')),
        libmime: inputs.some((p) => p.includes('node_modules/libmime/')),
      };
    }
    const expected = Object.fromEntries(
      Object.keys(found).map((rel) => {
        const api = /^functions\/api\/(\w+)\.handler\.ts$/.exec(rel)?.[1];
        const service = serviceOf[rel] ?? (api ? (`api-${api}` as keyof typeof LAMBDA_PORTS) : undefined);
        const s3 =
          /^functions\/send\/\w+-transport\.handler\.ts$/.test(rel) ||
          service === 'blobs' ||
          (service !== undefined &&
            service !== 'none' &&
            (LAMBDA_PORTS[service] as readonly string[]).includes('blobs'));
        // mailparser: the forward of a stored message (messages, and MCP's forward tool), an attachment's download (threads), the Cloudflare
        // transport, the inbound ingest, and Record (loopback copies go through the ingest); never another transport.
        const libmime =
          rel === 'functions/api/messages.handler.ts' ||
          rel === 'functions/inbound/ingest.handler.ts' ||
          rel === 'functions/send/send-attempt.handler.ts' ||
          rel === 'functions/api/mcp.handler.ts' ||
          rel === 'functions/api/threads.handler.ts' ||
          rel === 'functions/send/cloudflare-transport.handler.ts';
        return [rel, { s3, libmime }];
      }),
    );
    expect(found).toEqual(expected);
  }, 180_000);
});
