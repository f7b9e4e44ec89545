import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type CfnResource, Duration, RemovalPolicy, Validations } from 'aws-cdk-lib';
import { type IGrantable, type IPrincipal, Role, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import { Architecture, type CfnFunction, Runtime, Tracing } from 'aws-cdk-lib/aws-lambda';
import { LogLevel, NodejsFunction, OutputFormat } from 'aws-cdk-lib/aws-lambda-nodejs';
import { LogGroup, RetentionDays } from 'aws-cdk-lib/aws-logs';
import { Construct } from 'constructs';
import type { BuildOptions } from 'esbuild';

/** The repository root: handler entries and the lockfile are resolved from here. */
export const REPO_ROOT = fileURLToPath(new URL('../', import.meta.url));

/**
 * esbuild emits ESM, but some dependencies (nodemailer, parts of the AWS SDK) still call `require`
 * for Node built-ins; this banner gives the bundle a real one.
 */
export const ESM_REQUIRE_BANNER =
  "import { createRequire } from 'module'; const require = createRequire(import.meta.url);";

/**
 * Packages every bundle resolves to one file. libmime ships a CommonJS and an ES build, mailparser
 * imports it and mailsplit requires it, so without this a bundle that parses mail carries both
 * (about 90 KB). The CommonJS build serves both: mailparser uses only its default export.
 * `test/unit/bundles.test.ts` parses mail with a bundle built this way.
 */
export const BUNDLE_ALIAS: Readonly<Record<string, string>> = {
  libmime: join(REPO_ROOT, 'node_modules/libmime/dist/cjs/libmime.js'),
};

/**
 * How every function is bundled, as esbuild options: `PmailFunction` below passes the same to
 * NodejsFunction, and the bench and the tests that build a function's bundle start from these.
 */
export const BUNDLE_BUILD = {
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node22',
  mainFields: ['module', 'main'],
  banner: { js: ESM_REQUIRE_BANNER },
  alias: BUNDLE_ALIAS,
  minify: true,
} as const satisfies BuildOptions;

/** Every pmail function's memory unless its construct sets another (the bench prices GB-seconds with it). */
export const LAMBDA_MEMORY_MB = 512;

/** The template metadata naming a function's handler file and export (read by `npm run check:deploy`). */
export const ENTRY_METADATA = 'pmail:entry';
export const HANDLER_METADATA = 'pmail:handler';

/**
 * Silence one cfn-lint rule on one resource, with the reason written beside it in the template
 * (`cfn-lint` reads `Metadata.cfn-lint.config.ignore_checks`; test/deploy/wiring.test.ts runs it).
 */
export function suppressLint(resource: CfnResource, rule: string, reason: string): void {
  const now = (resource.getMetadata('cfn-lint') ?? { config: { ignore_checks: [] } }) as {
    config: { ignore_checks: string[] };
  };
  now.config.ignore_checks = [...new Set([...now.config.ignore_checks, rule])];
  resource.addMetadata('cfn-lint', now);
  const reasons = (resource.getMetadata('pmail:lint-reasons') ?? {}) as Record<string, string>;
  resource.addMetadata('pmail:lint-reasons', { ...reasons, [rule]: reason });
}

export interface PmailFunctionProps {
  /** Handler file relative to the repository root, e.g. `functions/send/send-attempt.handler.ts`. */
  readonly entry: string;
  /**
   * Exported name of the handler in `entry`.
   * @default 'handler'
   */
  readonly handler?: string;
  /** @default Duration.seconds(10) */
  readonly timeout?: Duration;
  /** @default 512 */
  readonly memorySize?: number;
  /**
   * Extra environment variables. `NODE_OPTIONS=--enable-source-maps` is always set.
   * @default - only NODE_OPTIONS
   */
  readonly environment?: Record<string, string>;
  /** @default RetentionDays.ONE_MONTH */
  readonly logRetention?: RetentionDays;
  /**
   * What happens to the log group when it leaves the stack.
   * @default RemovalPolicy.RETAIN
   */
  readonly logRemovalPolicy?: RemovalPolicy;
  /** @default - none */
  readonly description?: string;
  /**
   * Files to place beside the bundle (absolute source path → name in the bundle directory), for data
   * the handler reads at start-up.
   * @default - none
   */
  readonly bundleFiles?: Record<string, string>;
}

/** CDK's notice of each asset it bundles, written to stderr whatever the CLI's `--quiet`. */
const BUNDLING_NOTICE = /^Bundling asset \S+\.\.\.\r?\n$/;
let quieted = false;

/**
 * `cdk synth --quiet` prints nothing on success: CDK announces each asset it bundles on stderr
 * (aws-cdk-lib core/lib/asset-staging.js, one line per function, about forty here) however the CLI
 * was asked to be quiet, so those lines, and only those, are dropped from this process's stderr.
 */
function quietBundlingNotices(): void {
  if (quieted) return;
  quieted = true;
  const write = process.stderr.write.bind(process.stderr) as (...a: unknown[]) => boolean;
  process.stderr.write = ((chunk: unknown, ...rest: unknown[]) =>
    typeof chunk === 'string' && BUNDLING_NOTICE.test(chunk)
      ? true
      : write(chunk, ...rest)) as typeof process.stderr.write;
}

/**
 * One Lambda function with pmail's fixed defaults: Node 22 on arm64, ESM bundle built locally by
 * esbuild (no Docker), source maps, X-Ray active tracing, its own log group (one month) and its own
 * role that may write to that log group and nothing else until a construct grants more.
 *
 * The AWS SDK is bundled rather than taken from the runtime, so production runs the SDK version
 * the lockfile pins and the tests exercise.
 *
 * Grant to this construct (it is the IGrantable), so that cdk-nag acknowledgements made here cover
 * the role's policy too.
 */
export class PmailFunction extends Construct implements IGrantable {
  readonly fn: NodejsFunction;
  readonly logGroup: LogGroup;
  readonly role: Role;
  readonly grantPrincipal: IPrincipal;

  constructor(scope: Construct, id: string, props: PmailFunctionProps) {
    super(scope, id);
    quietBundlingNotices();

    this.logGroup = new LogGroup(this, 'Logs', {
      retention: props.logRetention ?? RetentionDays.ONE_MONTH,
      removalPolicy: props.logRemovalPolicy ?? RemovalPolicy.RETAIN,
    });

    // An own role instead of AWSLambdaBasicExecutionRole: logs go to this log group only.
    this.role = new Role(this, 'Role', { assumedBy: new ServicePrincipal('lambda.amazonaws.com') });
    this.logGroup.grantWrite(this.role);
    this.grantPrincipal = this.role;

    this.fn = new NodejsFunction(this, 'Fn', {
      entry: join(REPO_ROOT, props.entry),
      handler: props.handler ?? 'handler',
      description: props.description,
      runtime: Runtime.NODEJS_22_X,
      architecture: Architecture.ARM_64,
      memorySize: props.memorySize ?? LAMBDA_MEMORY_MB,
      timeout: props.timeout ?? Duration.seconds(10),
      tracing: Tracing.ACTIVE,
      logGroup: this.logGroup,
      role: this.role,
      projectRoot: REPO_ROOT,
      depsLockFilePath: join(REPO_ROOT, 'package-lock.json'),
      environment: { ...props.environment, NODE_OPTIONS: '--enable-source-maps' },
      bundling: {
        forceDockerBundling: false,
        // BUNDLE_BUILD in NodejsFunction's terms.
        format: OutputFormat.ESM,
        target: BUNDLE_BUILD.target,
        mainFields: [...BUNDLE_BUILD.mainFields],
        banner: BUNDLE_BUILD.banner.js,
        minify: BUNDLE_BUILD.minify,
        // esbuild's summary of each bundle is noise in `cdk synth --quiet`; its warnings still print.
        logLevel: LogLevel.WARNING,
        sourceMap: true,
        // Stack traces need file and line mappings only; dropping the sources keeps the zips small.
        sourcesContent: false,
        externalModules: [],
        esbuildArgs: Object.fromEntries(
          Object.entries(BUNDLE_BUILD.alias).map(([name, to]) => [`--alias:${name}`, to]),
        ),
        ...(props.bundleFiles
          ? {
              commandHooks: {
                beforeBundling: () => [],
                beforeInstall: () => [],
                afterBundling: (_input: string, outputDir: string) =>
                  Object.entries(props.bundleFiles ?? {}).map(
                    ([from, name]) => `cp ${JSON.stringify(from)} ${JSON.stringify(join(outputDir, name))}`,
                  ),
              },
            }
          : {}),
      },
    });

    // `npm run check:deploy` finds each function's code by these (deploy/lambdas.ts).
    const cfn = this.fn.node.defaultChild as CfnFunction;
    cfn.addMetadata(ENTRY_METADATA, props.entry);
    cfn.addMetadata(HANDLER_METADATA, props.handler ?? 'handler');
    suppressLint(
      cfn,
      'W3005',
      'The CDK makes a function depend on its role and the role’s policy, so that no invocation runs before the policy exists; the role’s half of it is also implied by the Role property, which cfn-lint reports.',
    );

    Validations.of(this).acknowledge(
      {
        id: 'AwsSolutions-IAM5[Resource::*]',
        reason:
          'Active tracing adds xray:PutTraceSegments and xray:PutTelemetryRecords, which support no resource-level permissions.',
      },
      {
        id: 'AwsSolutions-L1',
        reason:
          'pmail pins Node.js 22 (docs/deploying.md › Prerequisites): bundles target node22; moving to a newer runtime is a deliberate upgrade with its own checks.',
      },
    );
  }

  /** Adds environment variables to the function (for values that exist only after it, e.g. an ARN). */
  addEnvironment(variables: Record<string, string>): void {
    for (const [name, value] of Object.entries(variables)) this.fn.addEnvironment(name, value);
  }
}
