/** `pmail start`: the command that runs the stack (loaded only when used, so the API commands start fast). */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { sha256Hex } from '../../functions/core/fingerprint.ts';
import { startDynamoDbLocal } from '../../functions/local/dynamodb-local.ts';
import { STREAM_PATH, startHttpServer } from '../../functions/local/http-server.ts';
import { startLocalSes } from '../../functions/local/local-ses.ts';
import { createLocalRuntime } from '../../functions/local/runtime.ts';
import { type SeededTenant, seedPlatformKey, seedTestTenant } from '../../functions/local/seed.ts';
import { describeExit } from '../../functions/local/supervise.ts';
import { getApiKey, getTenant } from '../../functions/store/directory.store.ts';
import { pmailCommand } from '../node22.mjs';
import { EXIT } from './client.ts';

/** bin/pmail.mjs, the script `npx pmail` runs: the banner's CLI lines name it on an older Node. */
const PMAIL_SCRIPT = join(import.meta.dirname, '../pmail.mjs');

/**
 * `pmail start`: the whole service on this machine on the real engines — DynamoDB Local (data in
 * .pmail/), the send-attempt ASL run locally, the events consumer on an in-process queue — and the
 * HTTP API on 127.0.0.1:$PMAIL_PORT (default 8787).
 */
export async function start(): Promise<number> {
  const stateDir = resolve(process.env.PMAIL_STATE_DIR ?? '.pmail');
  mkdirSync(stateDir, { recursive: true });
  const port = Number(process.env.PMAIL_PORT ?? 8787);
  const dynamo = await startDynamoDbLocal({
    port: Number(process.env.PMAIL_DYNAMODB_PORT ?? 0) || undefined,
    dataDir: join(stateDir, 'dynamodb'),
    // `stop` below ends it, after the stack's own shutdown.
    stoppedByCaller: true,
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
    // The local MX (SES receiving's stand-in): mail to the identities goes through the ingest.
    inbound: { port: Number(process.env.PMAIL_MX_PORT ?? 2525) },
    // The event stream (docs/guides/stream.md): `ws://…/v1/stream` on the API's own port.
    stream: {},
    // A local relay's self-signed certificate (docs/guides/domains.md, `npm run capture-relay`).
    smtp: process.env.PMAIL_SMTP_CA_FILE
      ? { tlsCa: [readFileSync(process.env.PMAIL_SMTP_CA_FILE, 'utf8')] }
      : {},
  });
  const mx = runtime.mx;
  if (!mx) throw new Error('the local MX did not start');
  const localFile = join(stateDir, 'local.json');
  const seeded = await reuseOrSeed(runtime.deps, localFile);
  const live = await reuseOrSeedLive(runtime.deps, localFile);
  const http = await startHttpServer(runtime.groups, { port, log: runtime.deps.log, stream: runtime.stream });
  const stream = `${http.url.replace(/^http:/, 'ws:')}${STREAM_PATH}`;
  const local = {
    api: http.url,
    stream,
    apiKey: seeded.apiKey,
    tenantId: seeded.tenantId,
    identities: seeded.identities,
    live: { apiKey: live.apiKey, tenantId: live.tenantId, identity: live.identities[0], ses: ses.url },
    platformKey: seeded.platformKey,
    inbound: { host: mx.host, port: mx.port },
    // Where `pmail admin bootstrap --local` finds the table.
    dynamoEndpoint: dynamo.endpoint,
    table: runtime.deps.db.table,
  };
  writeFileSync(localFile, `${JSON.stringify(local, null, 2)}\n`, { mode: 0o600 });

  process.stdout.write(
    welcome({ url: http.url, dynamo: dynamo.endpoint, stateDir, stream, seeded, live, mx, ses: ses.url }),
  );
  stopOnSignalOrDeath({ runtime, http, ses, dynamo });
  return new Promise<number>(() => undefined);
}

type Seeded = SeededTenant & { platformKey?: string };

/** What `npm start` prints once it runs: where things are, and a first send by curl, the CLI and SMTP. */
function welcome(o: {
  url: string;
  dynamo: string;
  stateDir: string;
  stream: string;
  seeded: Seeded;
  live: SeededTenant;
  mx: { host: string; port: number };
  ses: string;
}): string {
  const [agent, peer] = o.seeded.identities;
  return [
    '',
    `pmail is running at ${o.url} (DynamoDB Local on ${o.dynamo}; state in ${o.stateDir})`,
    `API key (test mode, every tenant permission): ${o.seeded.apiKey}`,
    `Console: ${o.url}/console (sign in with the API key)`,
    `Event stream (WebSocket, same key as "Authorization: Bearer"): ${o.stream}`,
    ...(o.seeded.platformKey ? [`Platform key (every platform permission): ${o.seeded.platformKey}`] : []),
    `Identities: ${o.seeded.identities.map((i) => `${i.name} ${i.id} <${i.address}>`).join(', ')}`,
    '',
    'Send a first email from agent to peer:',
    '',
    `curl -sS -X POST ${o.url}/v1/identities/${agent.id}/messages \\`,
    `  -H 'Authorization: Bearer ${o.seeded.apiKey}' \\`,
    `  -H 'Idempotency-Key: first-email' -H 'Content-Type: application/json' \\`,
    `  -d '{"to":["${peer.address}"],"subject":"Hello","text":"My first pmail."}'`,
    '',
    `Or from the CLI (it reads .pmail/local.json): ${cli(['send', '--to', peer.address, '--subject', 'Hello', '--text', 'My first pmail.', '--wait'])}`,
    '',
    `Then read peer's inbox: curl -sS -H 'Authorization: Bearer ${o.seeded.apiKey}' '${o.url}/v1/identities/${peer.id}/messages?direction=inbound'`,
    '',
    `Local MX (SMTP, no auth) on ${o.mx.host}:${o.mx.port}, for this deployment's domains. Mail agent from outside:`,
    '',
    `node -e "require('nodemailer').createTransport({host:'${o.mx.host}',port:${o.mx.port}}).sendMail({from:'someone@example.net',to:'${agent.address}',subject:'Hi',text:'Hello agent'}).then(r=>console.log(r.response))"`,
    '',
    `Live mode: the live tenant's domain ${LIVE_DOMAIN} sends through SES — the real SES code path — to a local SES (${o.ses}, open it to see the mail):`,
    '',
    `curl -sS -X POST ${o.url}/v1/identities/${o.live.identities[0].id}/messages \\`,
    `  -H 'Authorization: Bearer ${o.live.apiKey}' \\`,
    `  -H 'Idempotency-Key: first-live' -H 'Content-Type: application/json' \\`,
    `  -d '{"to":["someone@example.net"],"subject":"Through SES","text":"Sent through the SES adapter."}'`,
    '',
    `When something does not work: ${cli(['doctor'])}`,
    '',
    'Ctrl-C stops everything (DynamoDB Local included).',
    '',
  ].join('\n');
}

/**
 * Stops everything, in order, on SIGINT or SIGTERM, when the process that started this one has gone,
 * or when DynamoDB Local or the local SES ends on its own.
 */
function stopOnSignalOrDeath(parts: {
  runtime: Awaited<ReturnType<typeof createLocalRuntime>>;
  http: Awaited<ReturnType<typeof startHttpServer>>;
  ses: Awaited<ReturnType<typeof startLocalSes>>;
  dynamo: Awaited<ReturnType<typeof startDynamoDbLocal>>;
}): void {
  const { runtime, http, ses, dynamo } = parts;
  let stopping = false;
  const stop = async (code: number) => {
    if (stopping) return;
    stopping = true;
    // A stop after a service died may find calls hanging on it: exit after a few seconds regardless.
    setTimeout(() => process.exit(code), 5_000).unref();
    // Streams first, while the server and the table are up: their clients see 1001 going away.
    await runtime.stream?.stop();
    await http.close();
    await runtime.close();
    // What production writes to CloudWatch as EMF (functions/metrics.ts), counted since this start.
    const counted = runtime.metrics.lines();
    process.stdout.write(
      `\nmetrics since start (namespace pmail):\n${counted.map((l) => `  ${l}`).join('\n') || '  none'}\n`,
    );
    await ses.stop();
    await dynamo.stop();
    process.exit(code);
  };
  process.once('SIGINT', () => stop(EXIT.ok));
  process.once('SIGTERM', () => stop(EXIT.ok));
  // The process that started this one (npm, a shell) killed without a word (SIGKILL): this one is
  // handed to another parent, and stops rather than live on holding its ports and data.
  const parent = process.ppid;
  setInterval(() => {
    if (process.ppid === parent || stopping) return;
    process.stderr.write(`pmail: the process that started it (pid ${parent}) has gone; stopping.\n`);
    void stop(EXIT.ok);
  }, 1000).unref();
  // Supervision: the API answers 500 for every call without DynamoDB Local, so when it (or the local
  // SES) ends on its own, say which and how, and stop rather than serve errors.
  void Promise.race([dynamo.died, ses.died]).then((exit) => {
    if (stopping) return;
    process.stderr.write(describeExit(exit));
    return stop(EXIT.unavailable);
  });
}

/** `pmail ARGS` as a line that runs on the Node this runs on (bin/node22.mjs). */
const cli = (args: string[]) => pmailCommand(args, PMAIL_SCRIPT, process.cwd());

/** Keep the tenant and keys of an earlier start when the table still has them; else seed anew. */
async function reuseOrSeed(deps: Parameters<typeof seedTestTenant>[0], localFile: string): Promise<Seeded> {
  if (existsSync(localFile)) {
    try {
      const prev = JSON.parse(readFileSync(localFile, 'utf8')) as Seeded;
      if ((await getTenant(deps.db, prev.tenantId)) && (await getApiKey(deps.db, sha256Hex(prev.apiKey))))
        return prev;
    } catch {
      // unreadable or stale: seed anew
    }
  }
  const tenant = await seedTestTenant(deps, {
    names: ['agent', 'peer'],
    domain: 'mail.pmail.test',
    tenant: { slug: 'local-test', name: 'Local test tenant: the simulator and local mailboxes' },
  });
  const platform = await seedPlatformKey(deps);
  return { ...tenant, platformKey: platform.apiKey };
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
    tenant: { slug: 'local-live', name: 'Local live tenant: SES, to the local SES' },
    domain: LIVE_DOMAIN,
    mode: 'live',
    transport: 'ses',
    ses: {},
  });
}
