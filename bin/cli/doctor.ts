import { spawnSync } from 'node:child_process';
import { connect } from 'node:net';
import { Pmail } from '../../packages/client/src/index.ts';
import { awsHint } from './aws.ts';
import { EXIT, type LocalFile, type Profile } from './client.ts';
import { type Ctx, profileOf } from './context.ts';
import { out, printJson } from './io.ts';

interface Check {
  name: string;
  result: 'pass' | 'warn' | 'fail' | 'skip';
  detail: string;
}

/**
 * `pmail doctor`: Java (DynamoDB Local needs 17+), DynamoDB Local and the table of
 * `.pmail/local.json`, the API's /health (the table and the state machines as the API sees them),
 * the local SES, the local MX (its SMTP greeting); with `--aws` the SES account of the current AWS credentials: sending enabled,
 * production access and the 24-hour quota (SESv2 GetAccount,
 * https://docs.aws.amazon.com/ses/latest/APIReference-V2/API_GetAccount.html). Exit 12 on any fail.
 */
export async function doctorCommand(ctx: Ctx): Promise<number> {
  const checks: Check[] = [javaCheck()];
  let profile: Profile | undefined;
  try {
    profile = profileOf(ctx);
  } catch (e) {
    checks.push({ name: 'profile', result: 'fail', detail: (e as Error).message });
  }
  checks.push(...(await dynamoChecks(profile?.local)));
  if (profile) checks.push(...(await apiChecks(profile)));
  if (profile?.local?.live?.apiKey) checks.push(await localSesCheck(profile.local));
  if (profile?.local?.inbound) checks.push(await localMxCheck(profile.local.inbound));
  if (ctx.opts.aws) checks.push(await sesAccountCheck(ctx.opts.region));
  if (ctx.opts.json) printJson({ checks });
  else for (const c of checks) out(`${c.result.padEnd(4)}  ${c.name.padEnd(22)}  ${c.detail}`);
  return checks.some((c) => c.result === 'fail') ? EXIT.doctor_failed : EXIT.ok;
}

function javaCheck(): Check {
  const java = spawnSync('java', ['-version'], { encoding: 'utf8' });
  const version = /version "(\d+)/.exec(`${java.stderr}${java.stdout}`)?.[1];
  if (java.error || !version)
    return {
      name: 'java',
      result: 'fail',
      detail: 'java not found: DynamoDB Local needs Java 17+ (apt-get install openjdk-17-jre-headless)',
    };
  return { name: 'java', result: Number(version) >= 17 ? 'pass' : 'fail', detail: `Java ${version}` };
}

async function dynamoChecks(local: LocalFile | undefined): Promise<Check[]> {
  if (!local?.dynamoEndpoint || !local.table)
    return [{ name: 'dynamodb', result: 'skip', detail: 'no local stack in .pmail/local.json' }];
  const { DescribeTableCommand, DynamoDBClient } = await import('@aws-sdk/client-dynamodb');
  const ddb = new DynamoDBClient({
    endpoint: local.dynamoEndpoint,
    region: 'local',
    credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
    maxAttempts: 1,
  });
  try {
    const t = await ddb.send(new DescribeTableCommand({ TableName: local.table }));
    return [
      { name: 'dynamodb', result: 'pass', detail: `DynamoDB Local at ${local.dynamoEndpoint}` },
      {
        name: 'table',
        result: t.Table?.TableStatus === 'ACTIVE' ? 'pass' : 'warn',
        detail: `${local.table}: ${t.Table?.TableStatus}`,
      },
    ];
  } catch (e) {
    const detail = `${local.dynamoEndpoint}: ${(e as Error).message} (is npm start running?)`;
    return [{ name: 'dynamodb', result: 'fail', detail }];
  } finally {
    ddb.destroy();
  }
}

/** GET /health through @pmail/client (it needs no key), once: the doctor reports, it does not retry. */
async function apiChecks(profile: Profile): Promise<Check[]> {
  const api = new Pmail({ apiKey: profile.key ?? '', baseUrl: profile.api, retries: 0 });
  try {
    const r = await api.http.GET('/health', { signal: AbortSignal.timeout(10_000) });
    const h = (r.data ?? r.error) as { status: string; version?: string; checks: Record<string, string> };
    const machines = h.checks.state_machines;
    return [
      {
        name: 'api',
        result: r.response.ok ? 'pass' : 'fail',
        detail: `${profile.api} ${h.status} (version ${h.version})`,
      },
      {
        name: 'state machines',
        result: machines === 'unreachable' ? 'fail' : machines === 'ok' ? 'pass' : 'warn',
        detail: machines,
      },
      { name: 'table (API)', result: h.checks.table === 'ok' ? 'pass' : 'fail', detail: h.checks.table },
    ];
  } catch (e) {
    return [{ name: 'api', result: 'fail', detail: `${profile.api}: ${(e as Error).message}` }];
  }
}

/** The local SES of `npm start`'s live tenant (aws-ses-v2-local answers GET /store). */
async function localSesCheck(local: LocalFile): Promise<Check> {
  const ses = (local.live as { ses?: string }).ses;
  const name = 'transport ses (local)';
  try {
    const res = ses ? await fetch(`${ses}/store`, { signal: AbortSignal.timeout(5000) }) : undefined;
    return { name, result: res?.ok ? 'pass' : 'fail', detail: ses ?? 'not configured' };
  } catch (e) {
    return { name, result: 'fail', detail: `${ses}: ${(e as Error).message}` };
  }
}

/** The local MX of `npm start` (SMTP, SES receiving's stand-in): it greets with 220, and is left with QUIT. */
function localMxCheck(mx: { host: string; port: number }): Promise<Check> {
  const name = 'local MX';
  const at = `${mx.host}:${mx.port}`;
  return new Promise((resolve) => {
    const sock = connect(mx.port, mx.host);
    let greeting = '';
    const done = (result: Check['result'], detail: string) => {
      sock.destroy();
      resolve({ name, result, detail });
    };
    sock.setTimeout(5000, () => done('fail', `${at}: no SMTP greeting within 5 s`));
    sock.on('error', (e: NodeJS.ErrnoException) =>
      done('fail', `${at}: ${e.code ?? e.message} (is npm start running?)`),
    );
    sock.on('data', (d) => {
      greeting += d;
      if (!greeting.includes('\n')) return;
      if (!greeting.startsWith('220')) return done('fail', `${at} answered something other than SMTP`);
      sock.write('QUIT\r\n');
      done('pass', `${at} (SMTP, mail for this deployment's domains)`);
    });
  });
}

async function sesAccountCheck(region: string | undefined): Promise<Check> {
  const { GetAccountCommand, SESv2Client } = await import('@aws-sdk/client-sesv2');
  const ses = new SESv2Client(region ? { region } : {});
  try {
    const a = await ses.send(new GetAccountCommand({}));
    const q = a.SendQuota;
    return {
      name: 'ses account',
      result: a.SendingEnabled ? (a.ProductionAccessEnabled ? 'pass' : 'warn') : 'fail',
      detail: `sending ${a.SendingEnabled ? 'enabled' : 'DISABLED'}, ${a.ProductionAccessEnabled ? 'production access' : 'sandbox (verified recipients only)'}, ${a.EnforcementStatus ?? ''}; quota ${q?.SentLast24Hours ?? 0}/${q?.Max24HourSend ?? 0} per 24 h, ${q?.MaxSendRate ?? 0}/s`,
    };
  } catch (e) {
    return { name: 'ses account', result: 'fail', detail: awsHint(e).message };
  } finally {
    ses.destroy();
  }
}
