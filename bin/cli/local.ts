/** `pmail start` and `pmail admin bootstrap`: the two commands that run the stack or write its table directly (loaded only when used, so the API commands start fast). */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { CloudFormationClient, DescribeStacksCommand } from '@aws-sdk/client-cloudformation';
import { bootstrapPlatformKey } from '../../functions/admin/bootstrap.ts';
import { sha256Hex } from '../../functions/core/fingerprint.ts';
import { permissionsOf } from '../../functions/core/keys.ts';
import { ulidFrom } from '../../functions/deps.ts';
import { startDynamoDbLocal } from '../../functions/local/dynamodb-local.ts';
import { startHttpServer } from '../../functions/local/http-server.ts';
import { startLocalSes } from '../../functions/local/local-ses.ts';
import { createLocalRuntime } from '../../functions/local/runtime.ts';
import { type SeededTenant, seedPlatformKey, seedTestTenant } from '../../functions/local/seed.ts';
import { describeExit } from '../../functions/local/supervise.ts';
import { createDb } from '../../functions/store/db.ts';
import { getApiKey, getTenant } from '../../functions/store/directory.store.ts';
import { CliError, EXIT } from './client.ts';

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
  const http = await startHttpServer(runtime.groups, { port, log: runtime.deps.log });
  const local = {
    api: http.url,
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

  const [agent, peer] = seeded.identities;
  process.stdout.write(
    [
      '',
      `pmail is running at ${http.url} (DynamoDB Local on ${dynamo.endpoint}; state in ${stateDir})`,
      `API key (test mode, every tenant permission): ${seeded.apiKey}`,
      `Console: ${http.url}/console (sign in with the API key)`,
      ...(seeded.platformKey ? [`Platform key (every platform permission): ${seeded.platformKey}`] : []),
      `Identities: ${seeded.identities.map((i) => `${i.name} ${i.id} <${i.address}>`).join(', ')}`,
      '',
      'Send a first email from agent to peer:',
      '',
      `curl -sS -X POST ${http.url}/v1/identities/${agent.id}/messages \\`,
      `  -H 'Authorization: Bearer ${seeded.apiKey}' \\`,
      `  -H 'Idempotency-Key: first-email' -H 'Content-Type: application/json' \\`,
      `  -d '{"to":["${peer.address}"],"subject":"Hello","text":"My first pmail."}'`,
      '',
      `Or from the CLI (it reads .pmail/local.json): npx pmail send --to ${peer.address} --subject Hello --text 'My first pmail.' --wait`,
      '',
      `Then read peer's inbox: curl -sS -H 'Authorization: Bearer ${seeded.apiKey}' '${http.url}/v1/identities/${peer.id}/messages?direction=inbound'`,
      '',
      `Local MX (SMTP, no auth) on ${mx.host}:${mx.port}, for this deployment's domains. Mail agent from outside:`,
      '',
      `node -e "require('nodemailer').createTransport({host:'${mx.host}',port:${mx.port}}).sendMail({from:'someone@example.net',to:'${agent.address}',subject:'Hi',text:'Hello agent'}).then(r=>console.log(r.response))"`,
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

  let stopping = false;
  const stop = async (code: number) => {
    if (stopping) return;
    stopping = true;
    // A stop after a service died may find calls hanging on it: exit after a few seconds regardless.
    setTimeout(() => process.exit(code), 5_000).unref();
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
  // Supervision: the API answers 500 for every call without DynamoDB Local, so when it (or the local
  // SES) ends on its own, say which and how, and stop rather than serve errors.
  void Promise.race([dynamo.died, ses.died]).then((exit) => {
    if (stopping) return;
    process.stderr.write(describeExit(exit));
    return stop(EXIT.unavailable);
  });
  return new Promise<number>(() => undefined);
}

type Seeded = SeededTenant & { platformKey?: string };

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
  const tenant = await seedTestTenant(deps, { names: ['agent', 'peer'], domain: 'mail.pmail.test' });
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
    domain: LIVE_DOMAIN,
    mode: 'live',
    transport: 'ses',
    ses: {},
  });
}

/**
 * `pmail admin bootstrap`: the first platform key of a deployment, written straight into its table
 * with the operator's AWS credentials (functions/admin/bootstrap.ts). The table comes from the
 * stack's outputs (`--stack`, output TableName), is named (`--table`, with `--endpoint` for a
 * DynamoDB Local), or is the one `npm start` runs on (`--local`, from .pmail/local.json). The key is
 * printed once, to stdout, and nowhere else.
 */
export interface BootstrapFlags {
  stack?: string;
  table?: string;
  endpoint?: string;
  region?: string;
  local?: boolean;
  name?: string;
  json?: boolean;
}

export async function adminBootstrap(values: BootstrapFlags, stateDir?: string): Promise<number> {
  const sources = [values.stack, values.table, values.local].filter((v) => v !== undefined).length;
  if (sources !== 1) throw new CliError(EXIT.usage, 'give exactly one of --stack, --table or --local');
  let table = values.table;
  let endpoint = values.endpoint;
  let api: string | undefined;
  if (values.local) {
    const file = join(resolve(stateDir ?? process.env.PMAIL_STATE_DIR ?? '.pmail'), 'local.json');
    if (!existsSync(file)) throw new CliError(EXIT.config, `${file} not found: run npm start first`);
    const local = JSON.parse(readFileSync(file, 'utf8')) as {
      table?: string;
      dynamoEndpoint?: string;
      api?: string;
    };
    if (!local.table || !local.dynamoEndpoint)
      throw new CliError(EXIT.config, `${file} names no table: restart npm start with this version`);
    table = local.table;
    endpoint = local.dynamoEndpoint;
    api = local.api;
  }
  if (values.stack) {
    const outputs = await stackOutputs(values.stack, values.region);
    table = outputs.TableName;
    api = outputs.ApiUrl;
    if (!table) throw new CliError(EXIT.config, `stack ${values.stack} has no TableName output`);
  }
  const db = createDb({ table: table!, endpoint, region: values.region });
  const clock = () => Date.now();
  try {
    const out = await bootstrapPlatformKey({ db, clock, newId: ulidFrom(clock) }, { name: values.name });
    if (out.status === 'exists') {
      throw new CliError(
        EXIT.config,
        out.key_ids.length > 0
          ? `a platform key exists (${out.key_ids.join(', ')}): use it, or revoke it (DELETE /v1/keys/{key_id}) before bootstrapping again`
          : 'another bootstrap minted a platform key just now: use that one',
      );
    }
    const expires = new Date(out.expires_at).toISOString();
    if (values.json) {
      process.stdout.write(
        `${JSON.stringify({ key_id: out.key_id, key: out.secret, expires_at: expires, api: api ?? null })}\n`,
      );
    } else {
      const base = (api ?? 'https://<ApiUrl>').replace(/\/+$/, '');
      process.stdout.write(
        [
          `Bootstrap platform key ${out.key_id}, valid until ${expires}. It is shown once; store it now:`,
          '',
          out.secret,
          '',
          'Next: make a long-lived platform key, then revoke this one:',
          `  curl -sS -X POST ${base}/v1/keys -H "Authorization: Bearer $PMAIL_BOOTSTRAP_KEY" -H 'Content-Type: application/json' \\`,
          `    -d '${JSON.stringify({ name: 'operator', level: 'platform', permissions: permissionsOf('platform') })}'`,
          `  curl -sS -X DELETE ${base}/v1/keys/${out.key_id} -H "Authorization: Bearer $PMAIL_PLATFORM_KEY"`,
          '',
        ].join('\n'),
      );
    }
    return EXIT.ok;
  } finally {
    db.doc.destroy();
  }
}

/** The stack's outputs (CloudFormation DescribeStacks; https://docs.aws.amazon.com/AWSCloudFormation/latest/APIReference/API_DescribeStacks.html). */
async function stackOutputs(stackName: string, region?: string): Promise<Record<string, string>> {
  const cfn = new CloudFormationClient(region ? { region } : {});
  try {
    const out = await cfn.send(new DescribeStacksCommand({ StackName: stackName }));
    const stack = out.Stacks?.[0];
    if (!stack) throw new CliError(EXIT.config, `stack ${stackName} not found`);
    return Object.fromEntries((stack.Outputs ?? []).map((o) => [o.OutputKey ?? '', o.OutputValue ?? '']));
  } finally {
    cfn.destroy();
  }
}
