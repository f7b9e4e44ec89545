import { describe, expect, it } from 'vitest';
import { PmailError } from '../../functions/core/errors.ts';
import { MAX_TEMPLATE_VARIABLES_BYTES } from '../../functions/core/limits.ts';
import type { MessageRecord, MessageStatus } from '../../functions/core/model.ts';
import { redactPayload } from '../../functions/core/template-payload.ts';
import {
  checkTemplateSource,
  checkVariables,
  renderTemplate,
  type TemplateRecord,
  type TemplateSource,
} from '../../functions/core/templates.ts';

const source: TemplateSource = {
  subject: 'Sign in to {{app}}',
  text: 'Hello {{name}}, your link: {{link}}',
  html: '<p>Hello {{name}}</p><a href="{{link}}">Sign in</a>',
  variables_schema: {
    type: 'object',
    properties: {
      name: { type: 'string', maxLength: 100 },
      link: { type: 'string', format: 'uri' },
      app: { type: 'string' },
    },
    required: ['name', 'link'],
    additionalProperties: false,
  },
  category: 'transactional',
  kind: 'transactional',
};
const template: TemplateRecord = {
  ...source,
  tenant_id: 'ten_01jd0000000000000000000000',
  name: 'magic_link',
  version: 3,
  created_at: 0,
  updated_at: 0,
};

const codeOf = (fn: () => unknown) => {
  try {
    fn();
  } catch (err) {
    if (err instanceof PmailError) return { code: err.code, details: err.details };
    throw err;
  }
  return undefined;
};

describe('checkTemplateSource', () => {
  it('accepts a template whose sources parse and whose schema Ajv compiles in strict mode', () => {
    expect(codeOf(() => checkTemplateSource(source))).toBeUndefined();
  });

  it.each([
    [
      'an unknown keyword (strict mode)',
      { ...source, variables_schema: { type: 'object', propertys: {} } },
      'variables_schema',
    ],
    [
      'a schema that is not of an object',
      { ...source, variables_schema: { type: 'string' } },
      'variables_schema.type',
    ],
    [
      'a wrong type value',
      { ...source, variables_schema: { type: 'object', properties: { a: { type: 'strin' } } } },
      'variables_schema',
    ],
    [
      'an unknown format',
      {
        ...source,
        variables_schema: { type: 'object', properties: { a: { type: 'string', format: 'nope' } } },
      },
      'variables_schema',
    ],
    [
      'a remote $ref',
      {
        ...source,
        variables_schema: { type: 'object', properties: { a: { $ref: 'https://example.com/s.json' } } },
      },
      'variables_schema',
    ],
    ['an unclosed block in html', { ...source, html: '{{#if name}}<p>x</p>' }, 'html'],
    ['an unknown helper', { ...source, text: '{{shout name}}' }, 'text'],
    ['a helper with the wrong arity', { ...source, subject: '{{#if}}x{{/if}}' }, 'subject'],
    ['no body at all', { ...source, text: undefined, html: undefined }, 'text'],
    ['a marketing template that is not elective', { ...source, category: 'marketing' as const }, 'kind'],
  ])('refuses %s with 400 invalid_template naming the field', (_name, bad, path) => {
    const out = codeOf(() => checkTemplateSource(bad as TemplateSource));
    expect(out?.code).toBe('invalid_template');
    expect(((out?.details?.errors ?? []) as { path: string }[]).map((e) => e.path)).toContain(path);
  });
});

describe('checkVariables', () => {
  it('accepts variables that match the schema', () => {
    expect(
      codeOf(() => checkVariables(template, { name: 'Ada', link: 'https://app.example/l/1' })),
    ).toBeUndefined();
  });

  it('refuses a bad payload with instance paths and keywords, never the values', () => {
    const secret = 'tok-3f9a-should-never-be-echoed';
    const out = codeOf(() => checkVariables(template, { name: 42, link: secret, extra: secret }));
    expect(out?.code).toBe('invalid_payload');
    const errors = out?.details?.errors as { instance_path: string; keyword: string }[];
    expect(errors.map((e) => [e.instance_path, e.keyword])).toEqual(
      expect.arrayContaining([
        ['/name', 'type'],
        ['/link', 'format'],
        ['', 'additionalProperties'],
      ]),
    );
    expect(JSON.stringify(out)).not.toContain(secret);
    expect(JSON.stringify(out)).not.toContain('42');
  });

  it('refuses a missing required variable', () => {
    const out = codeOf(() => checkVariables(template, { link: 'https://app.example/l/1' }));
    expect(out?.details?.errors).toEqual([
      expect.objectContaining({ instance_path: '', keyword: 'required' }),
    ]);
  });

  it('refuses variables larger than the limit before validating them', () => {
    const out = codeOf(() =>
      checkVariables(template, { name: 'x'.repeat(MAX_TEMPLATE_VARIABLES_BYTES), link: 'https://a.example' }),
    );
    expect(out?.code).toBe('invalid_payload');
    expect(out?.details?.errors).toEqual([expect.objectContaining({ keyword: 'maxBytes' })]);
  });
});

describe('renderTemplate', () => {
  it('escapes variables for HTML in the html body and leaves text and subject plain', () => {
    const out = renderTemplate(
      { ...template },
      { name: '<b>Ada & "Bob"</b>', link: 'https://a.example/?a=1&b=2', app: 'R&D' },
    );
    expect(out.html).toContain('&lt;b&gt;Ada &amp; &quot;Bob&quot;&lt;/b&gt;');
    expect(out.html).not.toContain('<b>Ada');
    expect(out.html).toContain('href="https://a.example/?a&#x3D;1&amp;b&#x3D;2"');
    expect(out.text).toBe('Hello <b>Ada & "Bob"</b>, your link: https://a.example/?a=1&b=2');
    expect(out.subject).toBe('Sign in to R&D');
  });

  it('keeps the subject to one line whatever the variables hold', () => {
    const out = renderTemplate(template, { name: 'x', link: 'y', app: 'A\r\nBcc: victim@example.com' });
    expect(out.subject).toBe('Sign in to A Bcc: victim@example.com');
  });

  it('does not reach prototype properties through a variable', () => {
    const out = renderTemplate(
      { ...template, text: '{{name.constructor.name}}|{{__proto__}}' },
      { name: 'x', link: 'y' },
    );
    expect(out.text).toBe('|');
  });

  it('turns a render that fails at run time into invalid_payload, without the engine’s message', () => {
    const out = codeOf(() =>
      renderTemplate(
        { ...template, text: '{{#each items}}{{#if}}x{{/if}}{{/each}}' },
        { items: ['tok-secret-1'] },
      ),
    );
    expect(out?.code).toBe('invalid_payload');
    expect(JSON.stringify(out)).not.toContain('tok-secret-1');
  });

  it('refuses to render a marketing template without an HTTPS unsubscribe URL', () => {
    const marketing = { ...template, category: 'marketing' as const };
    for (const url of [undefined, 'http://example.com/u', 'not a url']) {
      const out = codeOf(() => renderTemplate(marketing, { name: 'x', link: 'y' }, { unsubscribeUrl: url }));
      expect(out?.code).toBe('marketing_requirements_missing');
      expect(out?.details).toMatchObject({ missing: ['unsubscribe.url'], template: 'magic_link' });
    }
  });

  it('renders a marketing template with its unsubscribe URL as @unsubscribe_url', () => {
    const marketing = {
      ...template,
      category: 'marketing' as const,
      html: '<a href="{{@unsubscribe_url}}">Leave</a>',
    };
    const out = renderTemplate(
      marketing,
      { name: 'x', link: 'y' },
      { unsubscribeUrl: 'https://example.com/u?t=1' },
    );
    expect(out.html).toBe('<a href="https://example.com/u?t&#x3D;1">Leave</a>');
  });
});

describe('redactPayload', () => {
  const at = 1_700_000_000_000;
  const message = (status: MessageStatus, category: 'transactional' | 'marketing' = 'transactional') =>
    ({
      status,
      updated_at: at,
      template: { name: 'magic_link', version: 3, category },
      template_variables: { link: 'https://a.example/l/secret' },
    }) as unknown as MessageRecord;

  it.each(['delivered', 'bounced', 'complained', 'rejected', 'failed', 'suppressed', 'canceled'] as const)(
    'empties a transactional template’s variables once the message is %s, stamped with the write’s time',
    (status) => {
      const out = redactPayload(message(status));
      expect(out.template_variables).toEqual({});
      expect(out.payload_redacted_at).toBe(at);
      expect(out.template).toEqual({ name: 'magic_link', version: 3, category: 'transactional' });
    },
  );

  it.each(['queued', 'submitted', 'deferred', 'uncertain'] as const)(
    'keeps them while the message is %s',
    (status) => {
      expect(redactPayload(message(status)).template_variables).toEqual({
        link: 'https://a.example/l/secret',
      });
    },
  );

  it('keeps a marketing template’s variables, and never restamps a redaction', () => {
    expect(redactPayload(message('delivered', 'marketing')).template_variables).toEqual({
      link: 'https://a.example/l/secret',
    });
    const once = redactPayload(message('delivered'));
    expect(redactPayload({ ...once, updated_at: at + 5 }).payload_redacted_at).toBe(at);
  });
});
