import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { CloudFormationClient, DescribeStacksCommand } from '@aws-sdk/client-cloudformation';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { bootstrapPlatformKey } from '../../functions/admin/bootstrap.ts';
import { ulidFrom } from '../../functions/deps.ts';
import { createDb } from '../../functions/store/dynamodb.ts';
import { CliError, EXIT } from './client.ts';

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

/** The table to bootstrap (and the API it serves): exactly one of --stack, --table or --local names it. */
async function bootstrapTarget(
  values: BootstrapFlags,
  stateDir: string | undefined,
): Promise<{ table: string; endpoint?: string; api?: string }> {
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
  return { table: table!, endpoint, api };
}

export async function adminBootstrap(values: BootstrapFlags, stateDir?: string): Promise<number> {
  const { table, endpoint, api } = await bootstrapTarget(values, stateDir);
  // A DynamoDB Local takes any Region; AWS needs the operator's (flag, AWS_REGION or ~/.aws/config).
  const region = values.region ?? (endpoint ? undefined : await sdkRegion());
  const db = createDb({ table, endpoint, region });
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
          'Next: make a long-lived platform key (every platform permission), then revoke this one:',
          `  export PMAIL_API=${base}`,
          '  npx pmail keys create --name operator --level platform --key "$PMAIL_BOOTSTRAP_KEY"',
          `  npx pmail keys revoke ${out.key_id} --key "$PMAIL_PLATFORM_KEY"`,
          '',
        ].join('\n'),
      );
    }
    return EXIT.ok;
  } finally {
    db.destroy();
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

/** The Region the AWS SDK finds (AWS_REGION, the profile's config); "Region is missing" when none. */
async function sdkRegion(): Promise<string> {
  const probe = new DynamoDBClient({});
  try {
    return await probe.config.region();
  } finally {
    probe.destroy();
  }
}
