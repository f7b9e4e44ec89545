import { randomUUID } from 'node:crypto';
import type { Context } from 'aws-lambda';
import type { ApiEvent, ApiResult } from '../functions/api/http.ts';
import type { RouteGroup } from '../functions/api/routes.ts';

/**
 * The API as Lambda runs it, for the bench's "Lambda handler alone" rows: a route group's function
 * exported exactly as its entry exports it (functions/api/messages.handler.ts: `messagesApi(deps)`,
 * the deps built once), invoked with an API Gateway HTTP API
 * payload v2 event and a Lambda context, as the Lambda runtime invokes it (API Gateway has already
 * picked the group's function by its route). No HTTP server or client runs in the process: on AWS,
 * API Gateway terminates the HTTP. What this leaves out of the CPU figure is the Lambda runtime's
 * own per-invocation work (one GET and one POST to the Runtime API on localhost).
 */
export function lambdaHandler(
  group: RouteGroup,
  fn: (e: ApiEvent) => Promise<ApiResult>,
): (event: ApiEvent) => Promise<ApiResult> {
  const handler = fn as (event: ApiEvent, context: Context) => Promise<ApiResult>;
  return (event) => handler(event, lambdaContext(group));
}

/** An API Gateway HTTP API (payload format 2.0) event, as functions/local/http-server.ts builds one. */
export function apiEvent(
  method: string,
  path: string,
  headers: Record<string, string>,
  body?: string,
): ApiEvent {
  const now = Date.now();
  return {
    version: '2.0',
    routeKey: '$default',
    rawPath: path,
    rawQueryString: '',
    headers: { host: 'bench.execute-api.local', 'user-agent': 'pmail-bench', ...headers },
    requestContext: {
      accountId: 'bench',
      apiId: 'bench',
      domainName: 'bench.execute-api.local',
      domainPrefix: 'bench',
      http: { method, path, protocol: 'HTTP/1.1', sourceIp: '127.0.0.1', userAgent: 'pmail-bench' },
      requestId: randomUUID(),
      routeKey: '$default',
      stage: '$default',
      time: new Date(now).toUTCString(),
      timeEpoch: now,
    },
    body,
    isBase64Encoded: false,
  };
}

/** The route groups' function timeout is 15 s (lib/api.ts), as the Lambda runtime reports it. */
function lambdaContext(group: string): Context {
  const deadline = Date.now() + 15_000;
  return {
    callbackWaitsForEmptyEventLoop: false,
    functionName: `pmail-api-${group}`,
    functionVersion: '$LATEST',
    invokedFunctionArn: `arn:aws:lambda:us-east-1:000000000000:function:pmail-api-${group}`,
    memoryLimitInMB: '512',
    awsRequestId: randomUUID(),
    logGroupName: `/aws/lambda/pmail-api-${group}`,
    logStreamName: 'bench',
    getRemainingTimeInMillis: () => deadline - Date.now(),
    done: () => undefined,
    fail: () => undefined,
    succeed: () => undefined,
  };
}
