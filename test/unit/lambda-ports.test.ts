import { readdirSync } from 'node:fs';
import { join, relative } from 'node:path';
import { build } from 'esbuild';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { Deps } from '../../functions/deps.ts';
import { loadLambdaDeps } from '../../functions/env.ts';
import { LAMBDA_PORTS, missingPortCalls, withPorts } from '../../functions/lambda-ports.ts';
import type { BlobStore } from '../../functions/store/blobs.ts';
import { REPO_ROOT } from '../../lib/defaults.ts';

/**
 * Each Lambda gets only the costly ports its row of functions/lambda-ports.ts names (docs/operating.md ›
 * Cold starts). That the rows are enough is proved by the whole integration suite, which runs every
 * route group and task through `withPorts` (functions/local/runtime.ts) with test/setup/ports.ts
 * failing any file that touched an omitted port; here: the throwers themselves, the production
 * loader, and that the bundles carry an AWS client only where the row asks for its port.
 */

const blobs: BlobStore = {
  put: async () => {},
  get: async () => undefined,
  delete: async () => {},
  async *list() {},
};

afterEach(() => {
  // This file provokes the throwers on purpose.
  missingPortCalls.splice(0);
  vi.unstubAllEnvs();
  vi.resetModules();
});

describe('withPorts', () => {
  it('reads the ports a service is built with through, and throws, naming it, on the others', async () => {
    const base = { blobs, log: { info() {} } } as unknown as Deps;
    const links = withPorts(base, 'api-links');
    expect(links.blobs).toBe(blobs);
    expect(links.log).toBe(base.log);
    expect(() => links.dispatcher.start('x', { tenant_id: 't', identity_id: 'i', message_id: 'm' })).toThrow(
      /api-links used deps\.dispatcher\.start, a port it is built without/,
    );
    // A port set on the base later (the local runtime sets its dispatcher and queue last) is seen.
    const sweeper = withPorts(base, 'sweeper');
    const dispatcher = { start: async () => {} };
    base.dispatcher = dispatcher;
    expect(sweeper.dispatcher).toBe(dispatcher);
    expect(() => sweeper.events.publish([], 0)).toThrow(/sweeper used deps\.events\.publish/);
    // Even when the caller swallows the error, the call is on record for the test setup.
    expect(missingPortCalls).toHaveLength(2);
  });
});

describe('loadLambdaDeps (production wiring)', () => {
  it('builds the ports from the factories given, every other costly port a thrower', async () => {
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
    await expect(async () => deps.events.publish([], 0)).rejects.toThrow(
      /api-links used deps\.events\.publish/,
    );
    await expect(async () =>
      deps.dispatcher.start('x', { tenant_id: 't', identity_id: 'i', message_id: 'm' }),
    ).rejects.toThrow(/api-links used deps\.dispatcher\.start/);
  });

  it('takes exactly the factories of the service’s row (checked by the compiler)', () => {
    // Never run: tsc (npm run lint) checks these lines.
    const typeChecks = () => {
      // @ts-expect-error api-messages needs its dispatcher
      void loadLambdaDeps('api-messages', { blobs: () => blobs });
      // @ts-expect-error api-keys is built without blobs
      void loadLambdaDeps('api-keys', { blobs: () => blobs });
      void loadLambdaDeps('api-keys', {});
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
        const service = api ? (`api-${api}` as keyof typeof LAMBDA_PORTS) : serviceOf[rel];
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
