import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import * as z from 'zod';
import { createIdentitySchema } from '../../functions/api/directory/create-identity.ts';
import { createTenantSchema } from '../../functions/api/directory/create-tenant.ts';
import { listIdentitiesQuerySchema } from '../../functions/api/directory/list-identities.ts';
import { listTenantsQuerySchema } from '../../functions/api/directory/list-tenants.ts';
import { POLICY_DEFAULTS } from '../../functions/api/directory/settings.ts';
import { updateTenantSchema } from '../../functions/api/directory/update-tenant.ts';
import { policyPatchSchema } from '../../functions/api/directory/update-tenant-policy.ts';
import { createDomainSchema } from '../../functions/api/domains/create-domain.ts';
import { updateDomainSchema } from '../../functions/api/domains/update-domain.ts';
import { ERRORS, errorResponse, matchRoute } from '../../functions/api/http.ts';
import { updateIdentitySchema } from '../../functions/api/identities/update-identity.ts';
import { createKeySchema } from '../../functions/api/keys/create-key.ts';
import { listAuditQuerySchema } from '../../functions/api/keys/list-audit-events.ts';
import { listKeysQuerySchema } from '../../functions/api/keys/list-keys.ts';
import { rotateKeySchema } from '../../functions/api/keys/rotate-key.ts';
import { listQuerySchema } from '../../functions/api/messages/list-messages.ts';
import { resolveBodySchema } from '../../functions/api/messages/resolve.ts';
import { routes } from '../../functions/api/routes.ts';
import { forwardBodySchema, replyBodySchema, sendBodySchema } from '../../functions/api/send.schema.ts';
import { createTemplateSchema } from '../../functions/api/templates/create-template.ts';
import { updateTemplateSchema } from '../../functions/api/templates/update-template.ts';
import { getThreadQuerySchema } from '../../functions/api/threads/get-thread.ts';
import { createWebhookSchema } from '../../functions/api/webhooks/create-webhook.ts';
import { effectivePolicy, toAuditView, toKeyView, toTenantView } from '../../functions/core/admin-views.ts';
import { toDomainView } from '../../functions/core/domains.ts';
import { PmailError } from '../../functions/core/errors.ts';
import { toIdentityView } from '../../functions/core/identity-view.ts';
import { IDEMPOTENCY_KEY_PATTERN } from '../../functions/core/limits.ts';
import { bodyOf } from '../../functions/core/message-body.ts';
import { toApiMessage } from '../../functions/core/message-view.ts';
import type {
  DeliveryStatus,
  MessageKind,
  MessageRecord,
  MessageStatus,
  Provider,
  RecipientField,
} from '../../functions/core/model.ts';
import {
  type FilterRule,
  SUPPRESSION_REASONS,
  type SuppressionReason,
} from '../../functions/core/suppressions.ts';
import { type TemplateRecord, toTemplateSummary, toTemplateView } from '../../functions/core/templates.ts';
import { toApiThread } from '../../functions/core/thread-view.ts';
import { toWebhookView, type WebhookEndpoint } from '../../functions/core/webhooks.ts';
import { silentLogger } from '../../functions/log.ts';
import type { DryRunResult } from '../../functions/send/submit.ts';
import { outboundMessage } from '../support/records.ts';

// openapi.yaml is the contract and is tested against the code. These tests read the
// document and compare it with the routes table, the error table, the zod schemas and the Message
// view, so a change on either side that the other does not follow fails here.

interface JsonSchema {
  $ref?: string;
  type?: string | string[];
  enum?: unknown[];
  const?: unknown;
  default?: unknown;
  format?: string;
  pattern?: string;
  properties?: Record<string, JsonSchema>;
  required?: string[];
  additionalProperties?: boolean | JsonSchema;
  propertyNames?: JsonSchema;
  items?: JsonSchema;
  anyOf?: JsonSchema[];
  allOf?: JsonSchema[];
  minLength?: number;
  maxLength?: number;
  minItems?: number;
  maxItems?: number;
  minimum?: number;
  maximum?: number;
}
interface Parameter {
  $ref?: string;
  name: string;
  in: 'path' | 'query' | 'header' | 'cookie';
  description?: string;
  required?: boolean;
  schema: JsonSchema;
}
interface Header {
  $ref?: string;
  schema: JsonSchema;
}
interface Response {
  $ref?: string;
  description: string;
  headers?: Record<string, Header>;
  content?: Record<string, { schema: JsonSchema }>;
}
interface Operation {
  operationId: string;
  security?: Record<string, string[]>[];
  parameters?: Parameter[];
  requestBody?: { required?: boolean; content: Record<string, { schema: JsonSchema; example?: unknown }> };
  responses: Record<string, Response>;
  'x-error-codes'?: string[];
}
type PathItem = { parameters?: Parameter[] } & Partial<Record<HttpMethod, Operation>>;
interface OpenApi {
  openapi: string;
  security?: Record<string, string[]>[];
  paths: Record<string, PathItem>;
  components: {
    schemas: Record<string, JsonSchema>;
    responses: Record<string, Response>;
    securitySchemes: Record<string, { type: string; scheme?: string }>;
  };
  'x-error-codes': Record<string, number>;
}

const HTTP_METHODS = ['get', 'put', 'post', 'delete', 'patch', 'options', 'head', 'trace'] as const;
type HttpMethod = (typeof HTTP_METHODS)[number];

const doc = parse(readFileSync(new URL('../../openapi.yaml', import.meta.url), 'utf8')) as OpenApi;

/** Follow local `$ref`s (`#/components/...`) until the node is not a reference. */
function deref<T extends { $ref?: string }>(node: T): T {
  let current = node;
  while (current.$ref !== undefined) {
    const ref: string = current.$ref;
    if (!ref.startsWith('#/')) throw new Error(`only local references are supported: ${ref}`);
    let target: unknown = doc;
    for (const part of ref.slice(2).split('/')) {
      target = (target as Record<string, unknown> | undefined)?.[
        part.replaceAll('~1', '/').replaceAll('~0', '~')
      ];
    }
    if (target === undefined) throw new Error(`unresolved reference ${ref}`);
    current = target as T;
  }
  return current;
}

const operations = Object.entries(doc.paths).flatMap(([path, item]) =>
  HTTP_METHODS.filter((m) => item[m] !== undefined).map((method) => ({
    path,
    method,
    item,
    op: item[method]!,
  })),
);

function operation(operationId: string) {
  const found = operations.find((o) => o.op.operationId === operationId);
  if (!found) throw new Error(`openapi.yaml has no operation ${operationId}`);
  return found;
}

/** Path-level parameters overlaid by the operation's, as OpenAPI merges them. */
function parametersOf(operationId: string): Parameter[] {
  const { item, op } = operation(operationId);
  const merged = new Map<string, Parameter>();
  for (const p of [...(item.parameters ?? []), ...(op.parameters ?? [])].map((p) => deref(p)))
    merged.set(`${p.in}:${p.name}`, p);
  return [...merged.values()];
}

const sorted = <T>(values: Iterable<T>): T[] => [...values].sort();
const typesOf = (s: JsonSchema): string[] => sorted(s.type === undefined ? [] : [s.type].flat());
/** The values an enum- or const-valued schema allows, or undefined when it allows any value. */
const allowedValues = (s: JsonSchema): unknown[] | undefined =>
  s.enum !== undefined ? sorted(s.enum) : s.const !== undefined ? [s.const] : undefined;

const BOUNDS = ['minLength', 'maxLength', 'minItems', 'maxItems', 'minimum', 'maximum'] as const;

/**
 * Where the document's schema differs from zod's JSON Schema: types, property names, required sets,
 * additionalProperties: false, enum/const values, bounds and defaults, recursively. Patterns and
 * descriptions are not compared (zod drops the `i` flag of a RegExp), and the document may add
 * `anyOf` branches that only require fields, for refinements zod cannot express in JSON Schema.
 */
function schemaDrift(expected: JsonSchema, docSchema: JsonSchema, at: string): string[] {
  const actual = deref(docSchema);
  const out: string[] = [];
  const differ = (what: string, e: unknown, a: unknown) => {
    if (JSON.stringify(e) !== JSON.stringify(a))
      out.push(
        `${at || '(root)'}: ${what} is ${JSON.stringify(a)} in openapi.yaml, ${JSON.stringify(e)} in zod`,
      );
  };
  differ('type', typesOf(expected), typesOf(actual));
  differ('allowed values', allowedValues(expected), allowedValues(actual));
  differ('default', expected.default, actual.default);
  for (const bound of BOUNDS) differ(bound, expected[bound], actual[bound]);
  differ('required', sorted(expected.required ?? []), sorted(actual.required ?? []));
  differ(
    'additionalProperties: false',
    expected.additionalProperties === false,
    actual.additionalProperties === false,
  );

  const expectedNames = sorted(Object.keys(expected.properties ?? {}));
  differ('properties', expectedNames, sorted(Object.keys(actual.properties ?? {})));
  for (const name of expectedNames) {
    const sub = actual.properties?.[name];
    if (sub) out.push(...schemaDrift(expected.properties![name], sub, `${at}.${name}`));
  }
  if (expected.items || actual.items) {
    if (expected.items && actual.items) out.push(...schemaDrift(expected.items, actual.items, `${at}[]`));
    else differ('items', Boolean(expected.items), Boolean(actual.items));
  }
  if (typeof expected.additionalProperties === 'object') {
    if (typeof actual.additionalProperties === 'object')
      out.push(...schemaDrift(expected.additionalProperties, actual.additionalProperties, `${at}{*}`));
    else differ('additionalProperties', expected.additionalProperties, actual.additionalProperties);
  }
  if (expected.propertyNames || actual.propertyNames)
    out.push(...schemaDrift(expected.propertyNames ?? {}, actual.propertyNames ?? {}, `${at}{names}`));

  const onlyRequires = (s: JsonSchema) => Object.keys(s).every((k) => k === 'required');
  if (expected.anyOf) {
    const branches = actual.anyOf ?? [];
    differ('anyOf length', expected.anyOf.length, branches.length);
    expected.anyOf.forEach((e, i) => {
      if (branches[i]) out.push(...schemaDrift(e, branches[i], `${at}|${i}`));
    });
  } else if (actual.anyOf && !actual.anyOf.every(onlyRequires)) {
    out.push(`${at || '(root)'}: anyOf in openapi.yaml has no counterpart in zod`);
  }
  return out;
}

/** A small JSON Schema check for the response shapes: enough to catch a field the document mistypes. */
function violations(schema: JsonSchema, value: unknown, at = '$'): string[] {
  const s = deref(schema);
  const out: string[] = [];
  for (const sub of s.allOf ?? []) out.push(...violations(sub, value, at));
  if (s.anyOf && !s.anyOf.some((sub) => violations(sub, value, at).length === 0))
    out.push(`${at}: matches no anyOf branch`);
  const isObject = typeof value === 'object' && value !== null && !Array.isArray(value);
  const is: Record<string, boolean> = {
    null: value === null,
    string: typeof value === 'string',
    boolean: typeof value === 'boolean',
    number: typeof value === 'number',
    integer: Number.isInteger(value),
    array: Array.isArray(value),
    object: isObject,
  };
  const types = typesOf(s);
  if (types.length > 0 && !types.some((t) => is[t])) {
    out.push(`${at}: ${JSON.stringify(value)} is not ${types.join(' or ')}`);
    return out;
  }
  const allowed = allowedValues(s);
  if (allowed && !allowed.includes(value))
    out.push(`${at}: ${JSON.stringify(value)} is not one of ${allowed}`);
  if (s.format === 'date-time' && typeof value === 'string' && !RFC3339_UTC.test(value))
    out.push(`${at}: ${value} is not an RFC 3339 UTC time`);
  if (Array.isArray(value) && s.items)
    value.forEach((v, i) => {
      out.push(...violations(s.items!, v, `${at}[${i}]`));
    });
  if (isObject) {
    const record = value as Record<string, unknown>;
    for (const name of s.required ?? []) if (!(name in record)) out.push(`${at}: ${name} is missing`);
    for (const [name, v] of Object.entries(record)) {
      const sub = s.properties?.[name];
      if (sub) out.push(...violations(sub, v, `${at}.${name}`));
      else if (s.additionalProperties === false) out.push(`${at}: ${name} is not allowed`);
      else if (typeof s.additionalProperties === 'object')
        out.push(...violations(s.additionalProperties, v, `${at}.${name}`));
    }
  }
  return out;
}

const RFC3339_UTC = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/;

/** Every property a schema declares, through $ref and allOf. */
function propertyNames(schema: JsonSchema): string[] {
  const s = deref(schema);
  return sorted(new Set([...Object.keys(s.properties ?? {}), ...(s.allOf ?? []).flatMap(propertyNames)]));
}
function requiredNames(schema: JsonSchema): string[] {
  const s = deref(schema);
  return sorted(new Set([...(s.required ?? []), ...(s.allOf ?? []).flatMap(requiredNames)]));
}

const jsonSchemaOf = (response: Response): JsonSchema => {
  const schema = deref(response).content?.['application/json']?.schema;
  if (!schema) throw new Error('response has no application/json schema');
  return schema;
};

/** Operations that take no API key, their own token being the authority: `security: []`. */
const PUBLIC_OPERATIONS = ['getLink', 'getHealth', 'getOpenApi', 'getConsole', 'getConsoleAsset'];
/**
 * Operations that take a key but need no permission (any key may describe itself; the MCP server
 * lists only the tools the key's permissions allow, and refuses inside the tool result).
 */
const ANY_KEY_OPERATIONS = ['getMe', 'mcp'];
const isPublic = (operationId: string) => PUBLIC_OPERATIONS.includes(operationId);

/** The code an operation answers when the identity or tenant its path names is not the key's. */
const SCOPE_CODES = [
  ['/v1/identities/', 'identity_not_found'],
  ['/v1/tenants/', 'tenant_not_found'],
  ['/v1/keys/', 'key_not_found'],
] as const;
/** Paths that act on the key's own tenant, named by no id, so no scope code applies. */
const KEY_TENANT_PATHS = [
  '/v1/events',
  '/v1/stream/tickets',
  '/v1/webhooks',
  '/v1/webhooks/{webhook_id}',
  '/v1/webhooks/{webhook_id}/deliveries',
  '/v1/webhooks/{webhook_id}/test',
  '/v1/keys',
  '/v1/me',
  '/v1/audit-events',
  '/v1/tenants',
  '/mcp',
];

/** The four operations of the submit path, with the document's request schema and zod's. */
const SEND_OPERATIONS = [
  ['sendMessage', 'SendMessageRequest', sendBodySchema],
  ['replyMessage', 'ReplyMessageRequest', replyBodySchema],
  ['replyAllMessage', 'ReplyMessageRequest', replyBodySchema],
  ['forwardMessage', 'ForwardMessageRequest', forwardBodySchema],
] as const;
const SEND_IDS = SEND_OPERATIONS.map(([id]) => id);

/**
 * The codes of the submit path in the order its checks run (docs/architecture.md › The submit
 * path): message_not_found only where a message is answered or forwarded,
 * thread_not_found only where the body can name a thread.
 */
const SUBMIT_PIPELINE = [
  'unauthenticated',
  'key_revoked',
  'key_expired',
  'permission_denied',
  'identity_not_found',
  'rate_limited',
  'idempotency_key_required',
  'invalid_idempotency_key',
  'payload_too_large',
  'invalid_request',
  'template_not_found',
  'invalid_payload',
  'idempotency_conflict',
  'request_in_progress',
  'tenant_suspended',
  'identity_paused',
  'identity_owner_required',
  'message_not_found',
  'thread_not_found',
  'address_invalid',
  'address_unsupported',
  'too_many_recipients',
  'test_mode_recipient',
  'marketing_requirements_missing',
  'auto_reply_not_allowed',
  'header_not_allowed',
  'domain_not_ready',
  'transport_unavailable',
  'message_too_large',
  'daily_cap_reached',
  'thread_busy',
  'recipient_blocked',
  'all_recipients_suppressed',
  'internal_error',
  'unavailable',
];
const pipelineOf = (operationId: string) =>
  SUBMIT_PIPELINE.filter((code) =>
    code === 'message_not_found'
      ? operationId !== 'sendMessage'
      : code === 'thread_not_found'
        ? operationId === 'sendMessage'
        : true,
  );

/** The codes each named error of functions/core/errors.ts builds, itself or through another it calls. */
const CODES_OF_FACTORY: Map<string, Set<string>> = (() => {
  const chunks = readFileSync(new URL('../../functions/core/errors.ts', import.meta.url), 'utf8')
    .split(/\nexport (?:const|function|class) /)
    .slice(1)
    .map((c) => ({ name: /^\w+/.exec(c)![0], body: c }));
  const own = new Map(
    chunks.map(({ name, body }) => [
      name,
      [...body.matchAll(/'([a-z_]+)'/g)].map((m) => m[1]).filter((w) => w in ERRORS),
    ]),
  );
  return new Map(
    chunks.map(({ name, body }) => {
      const called = [...body.matchAll(/\b(\w+)\(/g)]
        .map((m) => m[1])
        .filter((f) => f !== name && own.has(f));
      return [name, new Set([...own.get(name)!, ...called.flatMap((f) => own.get(f)!)])];
    }),
  );
})();

/** The error codes a source names: as literals, and through the named errors it calls. */
const codesNamedBy = (source: string): string[] => [
  ...[...source.matchAll(/'([a-z_]+)'/g)].map((m) => m[1]).filter((word) => word in ERRORS),
  ...[...source.matchAll(/\b(\w+)\(/g)].flatMap((m) => [...(CODES_OF_FACTORY.get(m[1]) ?? [])]),
];

/** The sources of the submit path; every error code they name must be documented on a send. */
const SUBMIT_SOURCES = [
  'functions/api/auth.ts',
  'functions/send/submit.ts',
  'functions/send/submit/after-commit.ts',
  'functions/send/submit/commit.ts',
  'functions/send/submit/complete.ts',
  'functions/send/submit/count.ts',
  'functions/send/submit/decide.ts',
  'functions/send/submit/give-back.ts',
  'functions/send/submit/input.ts',
  'functions/send/submit/lock.ts',
  'functions/send/submit/read.ts',
  'functions/send/submit/reserve.ts',
  'functions/api/messages/submit.ts',
  'functions/send/prepare.ts',
  'functions/core/policy.ts',
  'functions/core/submit-pipeline.ts',
  'functions/core/limits.ts',
  'functions/api/send.schema.ts',
  'functions/core/recipients.ts',
  'functions/core/headers.ts',
  'functions/core/compose.ts',
  'functions/send/template.ts',
];

/** The codes answered with a Retry-After header (PmailError.retryAfter: submit.ts, http.ts). */
const RETRY_AFTER_CODES = ['rate_limited', 'daily_cap_reached', 'thread_busy', 'unavailable'];

describe('openapi.yaml routes', () => {
  const documented = sorted(operations.map((o) => `${o.method.toUpperCase()} ${o.path} ${o.op.operationId}`));

  it('is an OpenAPI 3.1 document', () => {
    expect(doc.openapi).toMatch(/^3\.1\.\d+$/);
  });

  it('documents every route of routes.ts with its operationId', () => {
    for (const r of routes) expect(documented).toContain(`${r.method} ${r.path} ${r.operation}`);
  });

  it('documents no path or method that routes.ts lacks', () => {
    expect(documented).toEqual(sorted(routes.map((r) => `${r.method} ${r.path} ${r.operation}`)));
  });

  it('declares each path parameter of a route as a required path parameter, and no other', () => {
    for (const r of routes) {
      const inPath = sorted([...r.path.matchAll(/\{(\w+)\}/g)].map((m) => m[1]));
      const declared = parametersOf(r.operation).filter((p) => p.in === 'path');
      expect(sorted(declared.map((p) => p.name)), r.operation).toEqual(inPath);
      for (const p of declared) expect(p.required, `${r.operation} ${p.name}`).toBe(true);
    }
  });

  it('names as public only operations that routes.ts has', () => {
    for (const id of PUBLIC_OPERATIONS) expect(routes.map((r) => r.operation)).toContain(id);
  });

  it('requires a bearer API key on every operation but the public ones, which opt out with security: []', () => {
    expect(doc.components.securitySchemes.bearerAuth).toMatchObject({ type: 'http', scheme: 'bearer' });
    expect(doc.security).toEqual([{ bearerAuth: [] }]);
    for (const { op } of operations) {
      if (isPublic(op.operationId)) expect(op.security, op.operationId).toEqual([]);
      else expect(op.security, op.operationId).toBeUndefined();
    }
  });
});

/** What POST /mcp answers in the JSON-RPC error shape rather than the Error envelope. */
const MCP_PROTOCOL_STATUSES = ['400', '406', '415'];

describe('openapi.yaml errors', () => {
  it('maps every error code of ERRORS to its HTTP status, and no other code', () => {
    const fromCode = Object.fromEntries(Object.entries(ERRORS).map(([code, spec]) => [code, spec.status]));
    expect(doc['x-error-codes']).toEqual(fromCode);
  });

  it('lists on each operation only known codes, each with a response of its status that names it', () => {
    for (const { op } of operations) {
      const codes = op['x-error-codes'] ?? [];
      expect(codes.length, op.operationId).toBeGreaterThan(0);
      for (const code of codes) {
        const spec = ERRORS[code as keyof typeof ERRORS];
        expect(spec, `${op.operationId}: ${code} is not in ERRORS`).toBeDefined();
        const response = op.responses[String(spec.status)];
        expect(response, `${op.operationId}: no ${spec.status} response for ${code}`).toBeDefined();
        expect(deref(response).description, `${op.operationId} ${spec.status}`).toContain(`\`${code}\``);
      }
    }
  });

  it('explains every error response of an operation by a listed code, in the Error envelope', () => {
    for (const { op } of operations) {
      const codes = op['x-error-codes'] ?? [];
      for (const [status, response] of Object.entries(op.responses)) {
        if (Number(status) < 400) continue;
        // The MCP transport's protocol faults (test/integration/mcp.test.ts provokes each one).
        if (op.operationId === 'mcp' && MCP_PROTOCOL_STATUSES.includes(status)) {
          expect(jsonSchemaOf(response), `mcp ${status}`).toEqual({
            $ref: '#/components/schemas/JsonRpcError',
          });
          continue;
        }
        const explained = codes.filter((c) => String(ERRORS[c as keyof typeof ERRORS].status) === status);
        expect(explained, `${op.operationId} ${status} has no code in x-error-codes`).not.toEqual([]);
        expect(jsonSchemaOf(response), `${op.operationId} ${status}`).toEqual({
          $ref: '#/components/schemas/Error',
        });
      }
    }
  });

  it('answers internal failures on every operation', () => {
    for (const { op } of operations) expect(op['x-error-codes'], op.operationId).toContain('internal_error');
  });

  it('answers authentication and permission failures on every operation that takes a key, and not on a public one', () => {
    for (const { op } of operations) {
      const codes = op['x-error-codes'] ?? [];
      if (isPublic(op.operationId)) {
        expect(codes, op.operationId).not.toContain('unauthenticated');
        expect(codes, op.operationId).not.toContain('permission_denied');
      } else {
        expect(codes, op.operationId).toEqual(
          expect.arrayContaining(
            ANY_KEY_OPERATIONS.includes(op.operationId)
              ? ['unauthenticated', 'key_revoked', 'key_expired']
              : ['unauthenticated', 'key_revoked', 'key_expired', 'permission_denied'],
          ),
        );
      }
    }
  });

  it('answers the scope code of its path on every operation that takes a key', () => {
    for (const { path, op } of operations) {
      if (isPublic(op.operationId) || KEY_TENANT_PATHS.includes(path)) continue;
      const scope = SCOPE_CODES.find(([prefix]) => path.startsWith(prefix));
      expect(scope, `${op.operationId}: ${path} is under no known scope`).toBeDefined();
      expect(op['x-error-codes'], op.operationId).toContain(scope![1]);
    }
  });

  it('declares Retry-After on every response whose codes are answered with one', () => {
    for (const { op } of operations) {
      for (const code of (op['x-error-codes'] ?? []).filter((c) => RETRY_AFTER_CODES.includes(c))) {
        const status = String(ERRORS[code as keyof typeof ERRORS].status);
        expect(Object.keys(deref(op.responses[status]).headers ?? {}), `${op.operationId} ${code}`).toContain(
          'Retry-After',
        );
      }
    }
  });

  it('describes the envelope errorResponse builds, with its Request-Id and Retry-After headers', () => {
    const result = errorResponse(
      new PmailError('rate_limited', 'Too many sends.', { retryAfter: 7, details: { retry_after: 7 } }),
      'req_01jz8m4n7q2r5t8v1w3x6y9z0a',
      silentLogger,
    );
    const body = JSON.parse(String(result.body));
    expect(violations(doc.components.schemas.Error, body)).toEqual([]);
    expect(sorted(Object.keys(body.error))).toEqual(
      requiredNames(deref(doc.components.schemas.Error).properties!.error),
    );
    expect(result.headers['request-id']).toBe(body.error.request_id);

    const tooMany = operation('sendMessage').op.responses['429'];
    expect(Object.keys(deref(tooMany).headers ?? {})).toContain('Retry-After');
    expect(result.headers['retry-after']).toBe('7');
  });

  it('describes the 404 and 405 the router answers for any path, with Allow on the 405', () => {
    const routeError = (method: string, path: string) => {
      try {
        matchRoute(method, path);
      } catch (err) {
        return errorResponse(err, 'req_01jz8m4n7q2r5t8v1w3x6y9z0a', silentLogger);
      }
      throw new Error(`${method} ${path} matched a route`);
    };
    expect(routeError('GET', '/v1/nowhere').statusCode).toBe(doc['x-error-codes'].route_not_found);
    const wrongMethod = routeError(
      'DELETE',
      routes[0].path.replace('{identity_id}', 'idn_01jz8m4n7q2r5t8v1w3x6y9z0c'),
    );
    expect(wrongMethod.statusCode).toBe(doc['x-error-codes'].method_not_allowed);
    expect(wrongMethod.headers.allow).toBeTruthy();

    const { RouteNotFound, MethodNotAllowed } = doc.components.responses;
    expect(RouteNotFound.description).toContain('`route_not_found`');
    expect(MethodNotAllowed.description).toContain('`method_not_allowed`');
    expect(Object.keys(MethodNotAllowed.headers ?? {})).toEqual(
      expect.arrayContaining(['Request-Id', 'Allow']),
    );
  });
});

describe('openapi.yaml headers', () => {
  it('carries Request-Id on every response', () => {
    const everyResponse = [
      ...operations.flatMap((o) =>
        Object.entries(o.op.responses).map(([s, r]) => [`${o.op.operationId} ${s}`, r] as const),
      ),
      ...Object.entries(doc.components.responses),
    ];
    for (const [where, response] of everyResponse)
      expect(Object.keys(deref(response).headers ?? {}), where).toContain('Request-Id');
  });

  it('marks a replayed 202 with Idempotent-Replayed: true', () => {
    const accepted = deref(operation('sendMessage').op.responses['202']);
    const replayed = deref(accepted.headers!['Idempotent-Replayed']);
    expect(replayed.schema.enum).toEqual(['true']);
  });
});

describe('openapi.yaml request schemas', () => {
  const requestOf = (operationId: string) =>
    operation(operationId).op.requestBody!.content['application/json'];

  it.each(SEND_OPERATIONS)('%s takes a required JSON body described by %s', (id, name) => {
    expect(operation(id).op.requestBody?.required).toBe(true);
    expect(requestOf(id).schema).toEqual({ $ref: `#/components/schemas/${name}` });
  });

  it.each(SEND_OPERATIONS)(
    '%s: %s has the same fields, required sets, values and bounds as its zod schema',
    (_id, name, schema) => {
      const expected = z.toJSONSchema(schema, { io: 'input' }) as JsonSchema;
      expect(expected.additionalProperties).toBe(false);
      expect(doc.components.schemas[name].additionalProperties).toBe(false);
      expect(schemaDrift(expected, doc.components.schemas[name], '')).toEqual([]);
    },
  );

  it.each(SEND_OPERATIONS)(
    '%s: %s states the text-or-html-or-template rule its zod schema enforces',
    (id, name, schema) => {
      const base =
        id === 'replyMessage' || id === 'replyAllMessage' ? {} : { to: ['deliver@simulator.invalid'] };
      expect(schema.safeParse(base).success).toBe(false);
      expect(schema.safeParse({ ...base, html: '<p>hi</p>' }).success).toBe(true);
      expect(schema.safeParse({ ...base, text: 'hi' }).success).toBe(true);
      expect(schema.safeParse({ ...base, template: 'magic_link' }).success).toBe(true);
      expect(doc.components.schemas[name].anyOf).toEqual([
        { required: ['text'] },
        { required: ['html'] },
        { required: ['template'] },
      ]);
    },
  );

  it.each(SEND_OPERATIONS)(
    '%s gives a request example that its zod schema and %s both accept',
    (id, _name, schema) => {
      const { example } = requestOf(id);
      expect(example).toBeDefined();
      expect(schema.safeParse(example).success).toBe(true);
      expect(violations(requestOf(id).schema, example)).toEqual([]);
    },
  );

  it('describes resolveMessage with the same required body as resolveBodySchema, and cancelMessage with none', () => {
    expect(operation('resolveMessage').op.requestBody?.required).toBe(true);
    const name = requestOf('resolveMessage').schema.$ref!.split('/').pop()!;
    const expected = z.toJSONSchema(resolveBodySchema, { io: 'input' }) as JsonSchema;
    expect(schemaDrift(expected, doc.components.schemas[name], '')).toEqual([]);
    expect(operation('cancelMessage').op.requestBody).toBeUndefined();
  });

  it('offers send_at on every send operation, as a date-time', () => {
    for (const [id, name, schema] of SEND_OPERATIONS) {
      expect(deref(doc.components.schemas[name].properties!.send_at)).toMatchObject({
        type: 'string',
        format: 'date-time',
      });
      const base =
        id === 'replyMessage' || id === 'replyAllMessage'
          ? { text: 'x' }
          : { to: ['a@example.com'], text: 'x' };
      expect(schema.safeParse({ ...base, send_at: '2026-12-03T09:00:00Z' }).success, id).toBe(true);
      expect(schema.safeParse({ ...base, send_at: 'tomorrow' }).success, id).toBe(false);
    }
  });

  it('describes updateIdentity with the same required body as updateIdentitySchema, and answers it with an Identity', () => {
    expect(operation('updateIdentity').op.requestBody?.required).toBe(true);
    const expected = z.toJSONSchema(updateIdentitySchema, { io: 'input' }) as JsonSchema;
    expect(schemaDrift(expected, doc.components.schemas.IdentityUpdateRequest, '')).toEqual([]);
    for (const view of [
      toIdentityView({
        id: 'idn_01jd0000000000000000000000',
        tenant_id: 'ten_01jd0000000000000000000000',
        name: 'agent',
        status: 'paused',
        pause_reason: 'abuse_threshold',
        primary_address: 'agent@example.com',
        owner_email: 'owner@example.com',
      }),
      toIdentityView({
        id: 'idn_01jd0000000000000000000001',
        tenant_id: 'ten_01jd0000000000000000000000',
        name: 'peer',
        status: 'active',
        primary_address: 'peer@example.com',
        addresses: ['peer@example.com', 'p@example.net'],
        send_policy: { daily_cap: 5 },
      }),
    ]) {
      expect(violations(doc.components.schemas.Identity, view)).toEqual([]);
      expect(sorted(Object.keys(view))).toEqual(sorted(requiredNames(doc.components.schemas.Identity)));
    }
  });

  it.each([
    ['createKey', 'KeyCreateRequest', createKeySchema, true],
    ['rotateKey', 'KeyRotateRequest', rotateKeySchema, false],
    ['createTenant', 'TenantCreateRequest', createTenantSchema, true],
    ['updateTenant', 'TenantUpdateRequest', updateTenantSchema, true],
    ['updateTenantPolicy', 'PolicyPatchRequest', policyPatchSchema, true],
    ['createIdentity', 'IdentityCreateRequest', createIdentitySchema, true],
    ['createTemplate', 'TemplateCreateRequest', createTemplateSchema, true],
    ['updateTemplate', 'TemplateUpdateRequest', updateTemplateSchema, true],
  ] as const)(
    'describes %s with %s, as its zod schema, with an example it accepts',
    (id, name, schema, required) => {
      const body = operation(id).op.requestBody!;
      expect(body.required ?? false).toBe(required);
      const media = body.content['application/json'];
      expect(media.schema).toEqual({ $ref: `#/components/schemas/${name}` });
      const expected = z.toJSONSchema(schema, { io: 'input' }) as JsonSchema;
      expect(schemaDrift(expected, doc.components.schemas[name], '')).toEqual([]);
      expect(schema.safeParse(media.example).success).toBe(true);
    },
  );

  it.each([
    ['listKeys', listKeysQuerySchema],
    ['listAuditEvents', listAuditQuerySchema],
    ['listTenants', listTenantsQuerySchema],
    ['listIdentities', listIdentitiesQuerySchema],
  ] as const)('describes the same %s query parameters as its zod schema', (id, schema) => {
    const query = z.toJSONSchema(schema, { io: 'input' }) as JsonSchema;
    const documented = parametersOf(id).filter((p) => p.in === 'query');
    expect(sorted(documented.map((p) => p.name))).toEqual(sorted(Object.keys(query.properties ?? {})));
    for (const p of documented) expect(schemaDrift(query.properties![p.name], p.schema, p.name)).toEqual([]);
  });

  it('declares exactly the fields of the key, tenant, policy and audit views', () => {
    const now = Date.parse('2026-12-03T00:00:00Z');
    const key = toKeyView(
      {
        key_id: 'key_01jd0000000000000000000000',
        name: 'agent',
        level: 'identity',
        tenant_id: 'ten_01jd0000000000000000000000',
        identity_id: 'idn_01jd0000000000000000000000',
        scopes: ['messages:send'],
        mode: 'test',
        created_at: now,
        created_by: 'key_01jd0000000000000000000001',
        secrets: ['x'],
        version: 1,
      },
      now,
    );
    expect(violations(doc.components.schemas.Key, key)).toEqual([]);
    expect(sorted(Object.keys(key))).toEqual(requiredNames(doc.components.schemas.Key));
    const tenant = {
      id: 'ten_01jd0000000000000000000000',
      status: 'active' as const,
      mode: 'live' as const,
      name: 'Acme',
      timezone: 'UTC',
      policy: { max_recipients: 20 },
      slug: 'acme',
      created_at: now,
      updated_at: now,
    };
    const policy = effectivePolicy(tenant.policy, POLICY_DEFAULTS);
    const tenantView = toTenantView(tenant, policy);
    expect(violations(doc.components.schemas.Tenant, tenantView)).toEqual([]);
    expect(sorted(Object.keys(tenantView))).toEqual(requiredNames(doc.components.schemas.Tenant));
    expect(sorted(Object.keys(policy))).toEqual(
      propertyNames(doc.components.schemas.EffectivePolicy).filter((n) => n !== 'ai_disclosure'),
    );
    for (const item of [
      {
        pk: 'T#ten_01jd0000000000000000000000',
        sk: 'AU#01jd0000000000000000000000',
        action: 'key.create',
        actor: 'bootstrap',
        target_type: 'api_key',
        target_id: 'key_01jd0000000000000000000000',
        details: {},
        created_at: now,
      },
      {
        pk: 'T#ten_01jd0000000000000000000000',
        sk: 'AU#01jd0000000000000000000001',
        action: 'message.cancel',
        actor: 'system',
        message_id: 'msg_01jd0000000000000000000000',
        details: {},
        at: now,
      },
      {
        pk: 'PLATFORM',
        sk: 'AU#01jd0000000000000000000002',
        action: 'identity.pause',
        actor: 'key_x',
        identity_id: 'idn_01jd0000000000000000000000',
        details: {},
        created_at: now,
      },
    ]) {
      const view = toAuditView(item);
      expect(violations(doc.components.schemas.AuditEvent, view)).toEqual([]);
      expect(sorted(Object.keys(view))).toEqual(requiredNames(doc.components.schemas.AuditEvent));
    }
  });

  it('declares exactly the fields of the Message view, sent and received, and of a thread under its budget', () => {
    const sent = outboundMessage({ id: 'msg_01jd0000000000000000000000', unless_reply: true });
    const body = bodyOf(sent, {
      text: 'Hello',
      html: '<p>Hello</p>',
      attachments: [{ filename: 'a.pdf', content_type: 'application/pdf', size: 3 }],
    });
    const received = outboundMessage({
      id: 'msg_01jd0000000000000000000001',
      direction: 'inbound',
      status: 'received',
      inbound: {
        ses_message_id: 's',
        received_at: 0,
        envelope_from: 'c@x.example',
        envelope_recipient: 'a@example.com',
        routed_to: 'a@example.com',
        dedupe_key: 'd',
        canonical: { from: 'c@x.example', to: [], cc: [], reply_to: [] },
        parse: 'parsed',
        threaded_by: 'new',
        text: 'Thanks',
        extracted_text: 'Thanks',
        headers: [],
        attachments: [],
        verdicts: {},
      },
    });
    for (const view of [
      toApiMessage(sent, body),
      toApiMessage(sent, body, 'summary'),
      toApiMessage(sent),
      toApiMessage(received, bodyOf(received)),
    ]) {
      expect(violations(doc.components.schemas.Message, view)).toEqual([]);
      const withDeliveries = view.direction === 'outbound' ? ['deliveries'] : [];
      expect(sorted(Object.keys(view))).toEqual(
        sorted([...requiredNames(doc.components.schemas.Message), ...withDeliveries]),
      );
    }
    const summary = {
      id: 'thr_01jd0000000000000000000000',
      subject: 's',
      participants: [],
      message_ids: [sent.id, received.id],
      last_message_at: 0,
      snippet: '',
    };
    const thread = toApiThread(
      summary,
      [sent, received],
      new Map([
        [sent.id, body],
        [received.id, bodyOf(received)],
      ]),
      { max_chars: 200, prefer: 'whole' },
    );
    expect(violations(doc.components.schemas.Thread, thread)).toEqual([]);
    expect(sorted(Object.keys(thread))).toEqual(requiredNames(doc.components.schemas.Thread));
    expect(sorted(Object.keys(thread.text_budget))).toEqual(
      sorted(deref(doc.components.schemas.Thread).allOf![1].properties!.text_budget.required!),
    );
  });

  it('describes the same getThread query parameters as getThreadQuerySchema', () => {
    const query = z.toJSONSchema(getThreadQuerySchema, { io: 'input' }) as JsonSchema;
    const params = parametersOf('getThread').filter((p) => p.in === 'query');
    const documented: JsonSchema = {
      type: 'object',
      properties: Object.fromEntries(params.map((p) => [p.name, p.schema])),
      required: params.filter((p) => p.required).map((p) => p.name),
    };
    expect(schemaDrift({ ...query, additionalProperties: undefined }, documented, '')).toEqual([]);
  });

  it('describes the same listMessages query parameters as listQuerySchema', () => {
    const query = z.toJSONSchema(listQuerySchema, { io: 'input' }) as JsonSchema;
    const params = parametersOf('listMessages').filter((p) => p.in === 'query');
    const documented: JsonSchema = {
      type: 'object',
      properties: Object.fromEntries(params.map((p) => [p.name, p.schema])),
      required: params.filter((p) => p.required).map((p) => p.name),
    };
    expect(schemaDrift({ ...query, additionalProperties: undefined }, documented, '')).toEqual([]);
    // Spelled out, the parts a client relies on most.
    const limit = params.find((p) => p.name === 'limit')!.schema;
    expect(limit).toMatchObject({ type: 'integer', minimum: 1, maximum: 100, default: 25 });
    expect(params.find((p) => p.name === 'direction')!.schema.enum).toEqual(['inbound', 'outbound']);
  });
});

describe('openapi.yaml send operations', () => {
  it.each(SEND_IDS)(
    '%s answers 202 with SendMessageResponse, marking a replay with Idempotent-Replayed',
    (id) => {
      const accepted = operation(id).op.responses['202'];
      expect(jsonSchemaOf(accepted)).toEqual({ $ref: '#/components/schemas/SendMessageResponse' });
      expect(Object.keys(deref(accepted).headers ?? {})).toContain('Idempotent-Replayed');
    },
  );

  it.each(SEND_IDS)(
    '%s takes dry_run, an optional boolean query parameter, and answers it 200 with a DryRunResult',
    (id) => {
      const dryRun = parametersOf(id).find((p) => p.in === 'query' && p.name === 'dry_run');
      expect(dryRun, `${id} has no dry_run query parameter`).toBeDefined();
      expect(dryRun!.required ?? false).toBe(false);
      expect(dryRun!.schema).toMatchObject({ type: 'boolean', default: false });
      expect(jsonSchemaOf(operation(id).op.responses['200'])).toEqual({
        $ref: '#/components/schemas/DryRunResult',
      });
    },
  );

  it.each(SEND_IDS)('%s lists its codes in the order the submit path checks them', (id) => {
    expect(operation(id).op['x-error-codes']).toEqual(pipelineOf(id));
  });

  it('documents on some send operation every error code the submit path names', () => {
    const named = new Set(
      SUBMIT_SOURCES.flatMap((file) =>
        codesNamedBy(readFileSync(new URL(`../../${file}`, import.meta.url), 'utf8')),
      ),
    );
    const documented = new Set(SEND_IDS.flatMap((id) => operation(id).op['x-error-codes'] ?? []));
    expect(named.size).toBeGreaterThan(10);
    expect(sorted(named).filter((code) => !documented.has(code))).toEqual([]);
  });

  const dryRunResult = doc.components.schemas.DryRunResult;
  const dryRunRecipient = () => deref(deref(dryRunResult).properties!.recipients).items!;

  // Record<…, boolean> literals fail to type-check when the filter gains or loses a list rule.
  // send_block is false: a send-block match turns a dry run into 422 recipient_blocked, so it
  // never reaches a 200.
  const listRulesInA200 = {
    send_block: false,
    not_on_allowlist: true,
    unknown_recipient: true,
  } satisfies Record<Exclude<FilterRule, SuppressionReason>, boolean>;
  const reasonsInA200: string[] = [
    ...SUPPRESSION_REASONS,
    ...Object.entries(listRulesInA200)
      .filter(([, inA200]) => inA200)
      .map(([rule]) => rule),
  ];

  it('enumerates as a DryRunResult reason every suppression reason and every list rule a 200 can carry', () => {
    expect(sorted(deref(dryRunRecipient().properties!.reason).enum ?? [])).toEqual(sorted(reasonsInA200));
    expect(deref(dryRunRecipient().properties!.reason).enum).not.toContain('send_block');
    for (const id of SEND_IDS) expect(operation(id).op['x-error-codes'], id).toContain('recipient_blocked');
  });

  const recipientFields = { address: true, field: true, status: true, reason: true } satisfies Record<
    keyof DryRunResult['recipients'][number],
    true
  >;

  it('declares exactly the fields of the DryRunResult submit.ts returns', () => {
    expect(propertyNames(dryRunResult)).toEqual(sorted(['would_send', 'recipients']));
    expect(requiredNames(dryRunResult)).toEqual(sorted(['would_send', 'recipients']));
    expect(propertyNames(dryRunRecipient())).toEqual(sorted(Object.keys(recipientFields)));
    expect(requiredNames(dryRunRecipient())).toEqual(sorted(['address', 'field', 'status']));
    expect(sorted(deref(dryRunRecipient().properties!.status).enum ?? [])).toEqual(['queued', 'suppressed']);
  });

  it.each(reasonsInA200)('accepts a dry run whose suppressed recipient has reason %s', (reason) => {
    const result: DryRunResult = {
      would_send: true,
      recipients: [
        { address: 'deliver@simulator.invalid', field: 'to', status: 'queued' },
        { address: 'audit@example.com', field: 'bcc', status: 'suppressed', reason },
      ],
    };
    expect(violations(dryRunResult, result)).toEqual([]);
  });

  it('refuses a dry-run recipient with send_block, or with a field or status the model lacks', () => {
    const bad = (recipient: Record<string, string>) =>
      violations(dryRunResult, { would_send: true, recipients: [recipient] });
    const queued = { address: 'deliver@simulator.invalid', field: 'to', status: 'queued' };
    expect(bad({ ...queued, status: 'suppressed', reason: 'send_block' })).not.toEqual([]);
    expect(bad({ ...queued, field: 'reply_to' })).not.toEqual([]);
    expect(bad({ ...queued, status: 'sent' })).not.toEqual([]);
  });
});

describe('openapi.yaml Idempotency-Key', () => {
  const keyParameter = (operationId = 'sendMessage') => {
    const found = parametersOf(operationId).find((p) => p.in === 'header' && p.name === 'Idempotency-Key');
    if (!found) throw new Error(`${operationId} has no Idempotency-Key header parameter`);
    return found;
  };
  const pattern = () => new RegExp(keyParameter().schema.pattern!);

  // Required: every send without it is a 400. A dry run ignores it, which the description says;
  // OpenAPI cannot make a header's presence depend on a query parameter.
  it.each(SEND_IDS)('is a required header of %s that the description lets a dry run leave out', (id) => {
    expect(keyParameter(id).required).toBe(true);
    expect(keyParameter(id).description).toMatch(/dry run/);
  });

  it.each(SEND_IDS)('states on %s the pattern submit.ts enforces', (id) => {
    expect(keyParameter(id).schema.pattern).toBe(IDEMPOTENCY_KEY_PATTERN.source);
  });

  it.each([
    ['a 255-byte key with spaces', `order 2291 ${'x'.repeat(244)}`, true],
    [
      'every printable ASCII character',
      Array.from({ length: 95 }, (_, i) => String.fromCharCode(0x20 + i)).join(''),
      true,
    ],
    ['the empty string', '', false],
    ['a 256-byte key', 'k'.repeat(256), false],
    ['a key containing the byte 0x7F', 'order-\x7F-2291', false],
    ['a key containing a tab', 'order\t2291', false],
    ['a key with a non-ASCII character', 'commande-é', false],
  ])('judges %s as submit.ts does', (_name, key, accepted) => {
    expect(pattern().test(key)).toBe(accepted);
    expect(IDEMPOTENCY_KEY_PATTERN.test(key)).toBe(accepted);
  });

  it('counts the 255-byte example as 255 bytes', () => {
    expect(Buffer.byteLength(`order 2291 ${'x'.repeat(244)}`)).toBe(255);
  });
});

describe('openapi.yaml Message', () => {
  const at = Date.UTC(2025, 6, 1, 9, 30);
  const outbound: MessageRecord = {
    id: 'msg_01jz8m4n7q2r5t8v1w3x6y9z0a',
    tenant_id: 'ten_01jz8m4n7q2r5t8v1w3x6y9z0d',
    identity_id: 'idn_01jz8m4n7q2r5t8v1w3x6y9z0c',
    thread_id: 'thr_01jz8m4n7q2r5t8v1w3x6y9z0b',
    direction: 'outbound',
    status: 'queued',
    operation: 'send',
    from: { address: 'orders@example.com' },
    to: [{ address: 'deliver@simulator.invalid', name: 'Test Recipient' }],
    cc: [],
    bcc: [{ address: 'audit@example.com' }],
    reply_to: [],
    subject: 'Your order has shipped',
    kind: 'transactional',
    labels: [],
    flags: [],
    rfc_message_id: '01jz8m4n7q2r5t8v1w3x6y9z0a@example.com',
    raw_key:
      't/ten_01jz8m4n7q2r5t8v1w3x6y9z0d/i/idn_01jz8m4n7q2r5t8v1w3x6y9z0c/out/msg_01jz8m4n7q2r5t8v1w3x6y9z0a.eml',
    raw_size: 1024,
    created_at: at,
    updated_at: at,
    version: 1,
    deliveries: [
      { address: 'deliver@simulator.invalid', field: 'to', status: 'queued', updated_at: at },
      { address: 'audit@example.com', field: 'bcc', status: 'queued', updated_at: at },
    ],
    dispatch: { execution: 'msg_01jz8m4n7q2r5t8v1w3x6y9z0a-1', at, n: 1 },
  };
  const settled: MessageRecord = {
    ...outbound,
    status: 'bounced',
    status_reason: 'hard_bounce',
    from: { address: 'orders@example.com', name: 'Example Orders' },
    labels: ['receipts'],
    flags: ['loopback'],
    metadata: { order: '2291' },
    in_reply_to: 'earlier@example.com',
    provider: 'simulator',
    provider_message_id: 'sim-42',
    deliveries: [
      {
        address: 'deliver@simulator.invalid',
        field: 'to',
        status: 'bounced',
        smtp_code: '550',
        enhanced_code: '5.1.1',
        smtp_response: '550 5.1.1 mailbox unknown',
        bounce_type: 'hard',
        updated_at: at + 60_000,
        event_ids: ['evt_01jz8m4n7q2r5t8v1w3x6y9z0e'],
      },
    ],
  };
  const inbound: MessageRecord = {
    ...outbound,
    direction: 'inbound',
    status: 'received',
    deliveries: undefined,
    dispatch: undefined,
  };
  const message = doc.components.schemas.Message;
  const keys = (value: object) => sorted(Object.keys(value));

  it('declares exactly the fields toApiMessage returns for an outbound message', () => {
    expect(propertyNames(message)).toEqual(keys(toApiMessage(outbound)));
  });

  it('requires every field toApiMessage always returns, leaving out only the outbound deliveries', () => {
    expect(requiredNames(message)).toEqual(keys(toApiMessage(inbound)));
    expect(propertyNames(message).filter((n) => !requiredNames(message).includes(n))).toEqual(['deliveries']);
  });

  it('declares and requires exactly the Delivery fields toApiMessage returns', () => {
    const delivery = toApiMessage(settled).deliveries![0];
    expect(propertyNames(doc.components.schemas.Delivery)).toEqual(keys(delivery));
    expect(requiredNames(doc.components.schemas.Delivery)).toEqual(keys(delivery));
  });

  it('declares the Message fields plus deduplicated on the 202 of sendMessage', () => {
    const accepted = jsonSchemaOf(operation('sendMessage').op.responses['202']);
    expect(propertyNames(accepted)).toEqual(sorted([...Object.keys(toApiMessage(outbound)), 'deduplicated']));
    expect(requiredNames(accepted)).toContain('deduplicated');
  });

  it('answers getMessage with a Message and listMessages with a MessageList', () => {
    expect(jsonSchemaOf(operation('getMessage').op.responses['200'])).toEqual({
      $ref: '#/components/schemas/Message',
    });
    expect(jsonSchemaOf(operation('listMessages').op.responses['200'])).toEqual({
      $ref: '#/components/schemas/MessageList',
    });
  });

  it.each([
    ['a freshly queued outbound message', outbound],
    ['a settled outbound message with every optional field', settled],
    ['an inbound message', inbound],
  ])('accepts what toApiMessage returns for %s, null fields included', (_name, record) => {
    const view = toApiMessage(record);
    expect(violations(message, view)).toEqual([]);
    expect(
      violations(jsonSchemaOf(operation('sendMessage').op.responses['202']), {
        ...view,
        deduplicated: false,
      }),
    ).toEqual([]);
    expect(violations(doc.components.schemas.MessageList, { data: [view], next_cursor: null })).toEqual([]);
  });

  // Record<Union, true> literals fail to type-check when the model gains or loses a value.
  const messageStatuses = {
    queued: true,
    submitted: true,
    delivered: true,
    deferred: true,
    bounced: true,
    complained: true,
    rejected: true,
    failed: true,
    uncertain: true,
    suppressed: true,
    canceled: true,
    undispatched: true,
    pending_approval: true,
    received: true,
  } satisfies Record<MessageStatus, true>;
  const deliveryStatuses = {
    queued: true,
    submitted: true,
    delivered: true,
    deferred: true,
    bounced: true,
    complained: true,
    rejected: true,
    failed: true,
    uncertain: true,
    suppressed: true,
  } satisfies Record<DeliveryStatus, true>;
  const kinds = { transactional: true, marketing: true, auto_reply: true } satisfies Record<
    MessageKind,
    true
  >;
  const providers = {
    simulator: true,
    loopback: true,
    ses: true,
    cloudflare: true,
    smtp: true,
  } satisfies Record<Provider, true>;
  const fields = { to: true, cc: true, bcc: true } satisfies Record<RecipientField, true>;
  const directions = { outbound: true, inbound: true } satisfies Record<MessageRecord['direction'], true>;
  const bounceTypes = { hard: true, soft: true } satisfies Record<
    NonNullable<NonNullable<MessageRecord['deliveries']>[number]['bounce_type']>,
    true
  >;

  it.each([
    ['Message.status', () => message.properties!.status, Object.keys(messageStatuses)],
    ['Message.direction', () => message.properties!.direction, Object.keys(directions)],
    ['Message.kind', () => message.properties!.kind, Object.keys(kinds)],
    ['Message.provider', () => message.properties!.provider, [...Object.keys(providers), null]],
    [
      'Delivery.status',
      () => doc.components.schemas.Delivery.properties!.status,
      Object.keys(deliveryStatuses),
    ],
    ['Delivery.field', () => doc.components.schemas.Delivery.properties!.field, Object.keys(fields)],
    [
      'Delivery.bounce_type',
      () => doc.components.schemas.Delivery.properties!.bounce_type,
      [...Object.keys(bounceTypes), null],
    ],
  ])('lists the values of %s that the model has', (_name, schema, values) => {
    expect(sorted(schema().enum ?? [])).toEqual(sorted(values));
  });
});

describe('openapi.yaml webhooks', () => {
  const endpoint: WebhookEndpoint = {
    id: 'whk_01jz8m4n7q2r5t8v1w3x6y9z0a',
    tenant_id: 'ten_01jz8m4n7q2r5t8v1w3x6y9z0d',
    url: 'https://hooks.example.com/pmail?k=1',
    status: 'active',
    created_at: Date.UTC(2026, 9, 9),
    updated_at: Date.UTC(2026, 9, 9),
  };
  const disabled: WebhookEndpoint = {
    ...endpoint,
    event_types: ['message.delivered'],
    description: 'Orders',
    status: 'disabled',
    disabled_reason: 'gone',
  };

  it.each([
    ['createDomain', 'DomainCreateRequest', createDomainSchema],
    ['updateDomain', 'DomainUpdateRequest', updateDomainSchema],
  ] as const)('describes %s with the same body as its zod schema', (id, name, schema) => {
    const body = operation(id).op.requestBody!.content['application/json'];
    expect(body.schema).toEqual({ $ref: `#/components/schemas/${name}` });
    const expected = z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any' }) as JsonSchema;
    expect(schemaDrift(expected, doc.components.schemas[name], '')).toEqual([]);
    expect(schema.safeParse(body.example).success).toBe(true);
  });

  it('declares exactly the fields toDomainView returns', () => {
    const view = toDomainView({ domain: 'a.example', tenant_id: 't', state: 'healthy', reply_token: 'none' });
    const keys = sorted(Object.keys(view));
    expect(propertyNames(doc.components.schemas.Domain)).toEqual(keys);
    expect(requiredNames(doc.components.schemas.Domain)).toEqual(keys);
  });

  it('describes createWebhook with the same body as createWebhookSchema', () => {
    const body = operation('createWebhook').op.requestBody!.content['application/json'];
    expect(body.schema).toEqual({ $ref: '#/components/schemas/WebhookCreateRequest' });
    const expected = z.toJSONSchema(createWebhookSchema(false), { io: 'input' }) as JsonSchema;
    expect(schemaDrift(expected, doc.components.schemas.WebhookCreateRequest, '')).toEqual([]);
    expect(createWebhookSchema(false).safeParse(body.example).success).toBe(true);
  });

  it('declares exactly the fields toWebhookView returns, and the secret only on the 201', () => {
    const keys = (v: object) => sorted(Object.keys(v));
    expect(propertyNames(doc.components.schemas.Webhook)).toEqual(keys(toWebhookView(endpoint)));
    expect(requiredNames(doc.components.schemas.Webhook)).toEqual(keys(toWebhookView(endpoint)));
    const created = jsonSchemaOf(operation('createWebhook').op.responses['201']);
    expect(propertyNames(created)).toEqual(sorted([...keys(toWebhookView(endpoint)), 'secret']));
    for (const id of ['getWebhook', 'listWebhooks']) {
      expect(JSON.stringify(operation(id).op.responses['200'])).not.toContain('WebhookCreated');
    }
  });

  it.each([
    ['an active endpoint', endpoint],
    ['a disabled endpoint with types and a description', disabled],
  ])('accepts what toWebhookView returns for %s', (_name, w) => {
    expect(violations(doc.components.schemas.Webhook, toWebhookView(w))).toEqual([]);
    expect(
      violations(doc.components.schemas.WebhookList, { data: [toWebhookView(w)], next_cursor: null }),
    ).toEqual([]);
    expect(
      violations(jsonSchemaOf(operation('createWebhook').op.responses['201']), {
        ...toWebhookView(w),
        secret: 'whsec_AAAA',
      }),
    ).toEqual([]);
  });
});

describe('openapi.yaml templates', () => {
  const t: TemplateRecord = {
    tenant_id: 'ten_01jz8m4n7q2r5t8v1w3x6y9z0d',
    name: 'magic_link',
    version: 2,
    subject: 'Sign in',
    text: 'Hello {{name}}',
    variables_schema: { type: 'object' },
    category: 'transactional',
    kind: 'transactional',
    created_at: Date.UTC(2026, 9, 9),
    updated_at: Date.UTC(2026, 9, 10),
  };
  const keys = (v: object) => sorted(Object.keys(v));

  it('declares and requires exactly the fields of toTemplateView and toTemplateSummary', () => {
    expect(propertyNames(doc.components.schemas.Template)).toEqual(keys(toTemplateView(t)));
    expect(requiredNames(doc.components.schemas.Template)).toEqual(keys(toTemplateView(t)));
    expect(propertyNames(doc.components.schemas.TemplateSummary)).toEqual(keys(toTemplateSummary(t)));
    expect(requiredNames(doc.components.schemas.TemplateSummary)).toEqual(keys(toTemplateSummary(t)));
  });

  it.each([
    ['a template with text only', t],
    [
      'a marketing template with html and a description',
      {
        ...t,
        text: undefined,
        html: '<p>x</p>',
        category: 'marketing' as const,
        kind: 'elective' as const,
        description: 'News',
      },
    ],
  ])('accepts what the views return for %s', (_name, record) => {
    expect(violations(doc.components.schemas.Template, toTemplateView(record))).toEqual([]);
    expect(
      violations(doc.components.schemas.TemplateList, {
        data: [toTemplateSummary(record)],
        next_cursor: null,
      }),
    ).toEqual([]);
  });

  it('shows a send by template on the Message: template and payload_redacted_at', () => {
    const view = toApiMessage({
      id: 'msg_01jz8m4n7q2r5t8v1w3x6y9z0a',
      tenant_id: t.tenant_id,
      identity_id: 'idn_01jz8m4n7q2r5t8v1w3x6y9z0c',
      thread_id: 'thr_01jz8m4n7q2r5t8v1w3x6y9z0a',
      direction: 'outbound',
      status: 'delivered',
      from: { address: 'a@example.com' },
      to: [{ address: 'b@example.com' }],
      cc: [],
      bcc: [],
      reply_to: [],
      subject: 'Sign in',
      kind: 'transactional',
      labels: [],
      flags: [],
      rfc_message_id: 'x@example.com',
      raw_key: 'k',
      raw_size: 1,
      created_at: t.created_at,
      updated_at: t.updated_at,
      version: 3,
      template: { name: 'magic_link', version: 2, category: 'transactional' },
      template_variables: {},
      payload_redacted_at: t.updated_at,
      deliveries: [],
    });
    expect(view.template).toEqual({ name: 'magic_link', version: 2 });
    expect(JSON.stringify(view)).not.toContain('variables');
    expect(violations(doc.components.schemas.Message, view)).toEqual([]);
  });
});
