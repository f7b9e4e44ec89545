import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Duration, RemovalPolicy, Validations } from 'aws-cdk-lib';
import { AccessLogFormat } from 'aws-cdk-lib/aws-apigateway';
import {
  HttpApi,
  HttpMethod,
  HttpRoute,
  HttpRouteKey,
  HttpStage,
  LogGroupLogDestination,
} from 'aws-cdk-lib/aws-apigatewayv2';
import { HttpLambdaIntegration } from 'aws-cdk-lib/aws-apigatewayv2-integrations';
import { LogGroup, RetentionDays } from 'aws-cdk-lib/aws-logs';
import { Construct } from 'constructs';
import { parse } from 'yaml';
import { consoleAssetsFile } from '../console/build.ts';
import { type RouteGroup, routeGroupEntries, routes } from '../functions/api/routes.ts';
import { WAIT_MAX_SECONDS } from '../functions/core/follow.ts';
import { BATCH_FUNCTION_TIMEOUT_SECONDS } from '../functions/core/limits.ts';
import { PmailFunction, REPO_ROOT } from './defaults.ts';

const packageVersion = () =>
  (JSON.parse(readFileSync(join(REPO_ROOT, 'package.json'), 'utf8')) as { version: string }).version;

/**
 * openapi.yaml converted to JSON at synth time, in a temporary file named by its content (so
 * repeated synths reuse it) that the bundler copies beside the meta function's bundle.
 */
function openapiJsonFile(): string {
  const json = JSON.stringify(parse(readFileSync(join(REPO_ROOT, 'openapi.yaml'), 'utf8')));
  const dir = join(tmpdir(), 'pmail-openapi');
  mkdirSync(dir, { recursive: true });
  const file = join(dir, `${createHash('sha256').update(json).digest('hex').slice(0, 16)}.json`);
  writeFileSync(file, json);
  return file;
}

/**
 * One access-log line per request. Route keys, not raw paths or query strings, so that nothing a
 * client put in a URL (an address in a filter, say) reaches the logs.
 */
const ACCESS_LOG_FORMAT = AccessLogFormat.custom(
  JSON.stringify({
    requestId: '$context.requestId',
    requestTime: '$context.requestTime',
    routeKey: '$context.routeKey',
    status: '$context.status',
    responseLength: '$context.responseLength',
    responseLatency: '$context.responseLatency',
    integrationLatency: '$context.integrationLatency',
    integrationError: '$context.integrationErrorMessage',
    sourceIp: '$context.identity.sourceIp',
    userAgent: '$context.identity.userAgent',
  }),
);

/** The MCP group's function timeout: a full wait and its last reads, below API Gateway's 30 s. */
export const MCP_TIMEOUT_SECONDS = WAIT_MAX_SECONDS + 3;

export interface PmailApiProps {
  /** Environment of every route-group function. */
  readonly environment: Record<string, string>;
  /**
   * Route-group function timeout; API Gateway gives up on an integration after 30 s.
   * @default Duration.seconds(15)
   */
  readonly timeout?: Duration;
  /** @default RetentionDays.ONE_MONTH */
  readonly logRetention?: RetentionDays;
  /**
   * The stage's throttle (API Gateway answers 429 above it, before any Lambda runs): steady requests
   * per second and burst. Per-tenant and per-identity limits are pmail's own (core/quota.ts); this one
   * protects the account.
   * @default - context `pmail:apiRateLimit` (default 100) and `pmail:apiBurstLimit` (default 200)
   */
  readonly throttle?: { rateLimit: number; burstLimit: number };
}

export const API_THROTTLE_CONTEXT = {
  rateLimit: 'pmail:apiRateLimit',
  burstLimit: 'pmail:apiBurstLimit',
} as const;

/**
 * The HTTP API: one Lambda per route group and one route per entry of functions/api/routes.ts, the
 * table the local server routes by too. Authentication is the API key check in the handlers
 * (functions/api/auth.ts), so routes have no API Gateway authorizer.
 */
export class PmailApi extends Construct {
  readonly httpApi: HttpApi;
  readonly stage: HttpStage;
  readonly accessLogs: LogGroup;
  readonly functions: Readonly<Record<RouteGroup, PmailFunction>>;

  constructor(scope: Construct, id: string, props: PmailApiProps) {
    super(scope, id);

    this.httpApi = new HttpApi(this, 'Http', {
      description: 'pmail outbound email API',
      createDefaultStage: false,
    });
    this.accessLogs = new LogGroup(this, 'AccessLogs', {
      retention: props.logRetention ?? RetentionDays.ONE_MONTH,
      removalPolicy: RemovalPolicy.RETAIN,
    });
    this.stage = new HttpStage(this, 'DefaultStage', {
      httpApi: this.httpApi,
      stageName: '$default',
      autoDeploy: true,
      throttle: props.throttle ?? {
        rateLimit: Number(this.node.tryGetContext(API_THROTTLE_CONTEXT.rateLimit) ?? 100),
        burstLimit: Number(this.node.tryGetContext(API_THROTTLE_CONTEXT.burstLimit) ?? 200),
      },
      accessLogSettings: {
        destination: new LogGroupLogDestination(this.accessLogs),
        format: ACCESS_LOG_FORMAT,
      },
    });

    const functions = {} as Record<RouteGroup, PmailFunction>;
    const integrations = {} as Record<RouteGroup, HttpLambdaIntegration>;
    for (const [group, { entry, handler }] of Object.entries(routeGroupEntries) as [
      RouteGroup,
      { entry: string; handler: string },
    ][]) {
      const name = group.charAt(0).toUpperCase() + group.slice(1);
      functions[group] = new PmailFunction(this, name, {
        entry,
        handler,
        description: `pmail api: ${group}`,
        // The MCP group waits for mail up to WAIT_MAX_SECONDS (wait_for_message), the messages
        // group runs a batch of sends (core/limits.ts › BATCH_TIME_BUDGET_MS); both answer inside
        // API Gateway's 30-second integration limit.
        timeout: Duration.seconds(
          group === 'mcp'
            ? MCP_TIMEOUT_SECONDS
            : group === 'messages'
              ? BATCH_FUNCTION_TIMEOUT_SECONDS
              : (props.timeout?.toSeconds() ?? 15),
        ),
        // Signed links point at this API (PM_API_BASE_URL).
        environment: {
          ...props.environment,
          PM_API_BASE_URL: this.httpApi.apiEndpoint,
          ...(group === 'meta' ? { PMAIL_VERSION: packageVersion() } : {}),
        },
        logRetention: props.logRetention,
        // GET /openapi.json serves the contract: openapi.yaml as JSON, beside the bundle.
        ...(group === 'meta' ? { bundleFiles: { [openapiJsonFile()]: 'openapi.json' } } : {}),
        // GET /console serves the web console, built by esbuild at synth time (console/build.ts).
        ...(group === 'console' ? { bundleFiles: { [consoleAssetsFile()]: 'console-assets.json' } } : {}),
      });
      integrations[group] = new HttpLambdaIntegration(`${name}Integration`, functions[group].fn);
    }
    this.functions = functions;

    for (const route of routes) {
      this.httpApi.addRoutes({
        path: route.path,
        methods: [HttpMethod[route.method]],
        integration: integrations[route.group],
      });
    }

    // Anything else reaches the messages group too, whose router answers with pmail's own
    // 404 route_not_found / 405 method_not_allowed envelope of openapi.yaml rather than API Gateway's.
    new HttpRoute(this.httpApi, 'Fallback', {
      httpApi: this.httpApi,
      routeKey: HttpRouteKey.DEFAULT,
      integration: integrations.messages,
    });

    Validations.of(this.httpApi).acknowledge({
      id: 'AwsSolutions-APIG4',
      reason:
        'Clients authenticate with pmail API keys (Authorization: Bearer), checked by the handlers against hashed key items; no IAM or Cognito authorizer fits agent API keys.',
    });
  }

  /** The base URL clients call, e.g. `https://abc.execute-api.eu-west-1.amazonaws.com/`. */
  get url(): string {
    return this.stage.url;
  }
}
