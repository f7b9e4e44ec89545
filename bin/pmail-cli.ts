#!/usr/bin/env node
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { sha256Hex } from '../functions/core/fingerprint.ts';
import { startDynamoDbLocal } from '../functions/local/dynamodb-local.ts';
import { startHttpServer } from '../functions/local/http-server.ts';
import { startLocalSes } from '../functions/local/local-ses.ts';
import { createLocalRuntime } from '../functions/local/runtime.ts';
import { type SeededTenant, seedTestTenant } from '../functions/local/seed.ts';
import { getApiKey, getTenant } from '../functions/store/directory.store.ts';

/**
 * `pmail start`: the whole service on this machine on the real engines — DynamoDB Local (data in
 * .pmail/), the send-attempt ASL run locally, the events consumer on an in-process queue — and the
 * HTTP API on 127.0.0.1:$PMAIL_PORT (default 8787).
 */
async function start() {
  const stateDir = resolve(process.env.PMAIL_STATE_DIR ?? '.pmail');
  mkdirSync(stateDir, { recursive: true });
  const port = Number(process.env.PMAIL_PORT ?? 8787);
  const dynamo = await startDynamoDbLocal({
    port: Number(process.env.PMAIL_DYNAMODB_PORT ?? 0) || undefined,
    dataDir: join(stateDir, 'dynamodb'),
  });
  // A local SES (aws-ses-v2-local) for live mode: the live tenant's domain sends through it.
  const ses = await startLocalSes(Number(process.env.PMAIL_SES_PORT ?? 8005));
  const runtime = await createLocalRuntime({
    endpoint: dynamo.endpoint,
    stateDir,
    sesEndpoint: ses.url,
    durableQueue: true,
    webhooks: true,
    // The sweeper's schedule (EventBridge, every minute, in AWS).
    sweepEveryMs: 60_000,
  });
  const localFile = join(stateDir, 'local.json');
  const seeded = await reuseOrSeed(runtime.deps, localFile);
  const live = await reuseOrSeedLive(runtime.deps, localFile);
  const http = await startHttpServer(runtime.groups, { port, log: runtime.deps.log });
  const local = {
    api: http.url,
    apiKey: seeded.apiKey,
    tenantId: seeded.tenantId,
    identities: seeded.identities,
    live: { apiKey: live.apiKey, tenantId: live.tenantId, identity: live.identities[0], ses: ses.url },
  };
  writeFileSync(localFile, `${JSON.stringify(local, null, 2)}\n`, { mode: 0o600 });

  const [agent, peer] = seeded.identities;
  process.stdout.write(
    [
      '',
      `pmail is running at ${http.url} (DynamoDB Local on ${dynamo.endpoint}; state in ${stateDir})`,
      `API key (test mode, every tenant permission): ${seeded.apiKey}`,
      `Identities: ${seeded.identities.map((i) => `${i.name} ${i.id} <${i.address}>`).join(', ')}`,
      '',
      'Send a first email from agent to peer:',
      '',
      `curl -sS -X POST ${http.url}/v1/identities/${agent.id}/messages \\`,
      `  -H 'Authorization: Bearer ${seeded.apiKey}' \\`,
      `  -H 'Idempotency-Key: first-email' -H 'Content-Type: application/json' \\`,
      `  -d '{"to":["${peer.address}"],"subject":"Hello","text":"My first pmail."}'`,
      '',
      `Then read peer's inbox: curl -sS -H 'Authorization: Bearer ${seeded.apiKey}' '${http.url}/v1/identities/${peer.id}/messages?direction=inbound'`,
      '',
      `Live mode: the live tenant's domain ${LIVE_DOMAIN} sends through SES — the real SES code path — to a local SES (${ses.url}, open it to see the mail):`,
      '',
      `curl -sS -X POST ${http.url}/v1/identities/${live.identities[0].id}/messages \\`,
      `  -H 'Authorization: Bearer ${live.apiKey}' \\`,
      `  -H 'Idempotency-Key: first-live' -H 'Content-Type: application/json' \\`,
      `  -d '{"to":["someone@example.net"],"subject":"Through SES","text":"Sent through the SES adapter."}'`,
      '',
      'Ctrl-C stops everything (DynamoDB Local included).',
      '',
    ].join('\n'),
  );

  const stop = async () => {
    await http.close();
    await runtime.close();
    await ses.stop();
    await dynamo.stop();
    process.exit(0);
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
}

/** Keep the tenant and key of an earlier start when the table still has them; else seed anew. */
async function reuseOrSeed(
  deps: Parameters<typeof seedTestTenant>[0],
  localFile: string,
): Promise<SeededTenant> {
  if (existsSync(localFile)) {
    try {
      const prev = JSON.parse(readFileSync(localFile, 'utf8')) as SeededTenant;
      if ((await getTenant(deps.db, prev.tenantId)) && (await getApiKey(deps.db, sha256Hex(prev.apiKey))))
        return prev;
    } catch {
      // unreadable or stale: seed anew
    }
  }
  return seedTestTenant(deps, { names: ['agent', 'peer'], domain: 'mail.pmail.test' });
}

/** The live tenant's sending domain (transport `ses`, sending to the local SES). */
const LIVE_DOMAIN = 'live.pmail.test';

/** The live tenant of an earlier start when the table still has it; else a new one. */
async function reuseOrSeedLive(
  deps: Parameters<typeof seedTestTenant>[0],
  localFile: string,
): Promise<SeededTenant> {
  if (existsSync(localFile)) {
    try {
      const prev = JSON.parse(readFileSync(localFile, 'utf8')) as {
        live?: { apiKey: string; tenantId: string; identity: SeededTenant['identities'][number] };
      };
      if (
        prev.live &&
        (await getTenant(deps.db, prev.live.tenantId)) &&
        (await getApiKey(deps.db, sha256Hex(prev.live.apiKey)))
      )
        return { apiKey: prev.live.apiKey, tenantId: prev.live.tenantId, identities: [prev.live.identity] };
    } catch {
      // unreadable or stale: seed anew
    }
  }
  return seedTestTenant(deps, {
    names: ['sender'],
    domain: LIVE_DOMAIN,
    mode: 'live',
    transport: 'ses',
    ses: {},
  });
}

const [command] = process.argv.slice(2);
if (command === 'start') {
  start().catch((err) => {
    process.stderr.write(`pmail start failed: ${err instanceof Error ? err.message : String(err)}\n`);
    process.exit(1);
  });
} else {
  process.stderr.write('usage: pmail start\n');
  process.exit(2);
}
