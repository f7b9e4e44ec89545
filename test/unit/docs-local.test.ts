import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import Handlebars from 'handlebars';
import { describe, expect, it } from 'vitest';

/**
 * What a newcomer reads beside `npm start`: docs/reference/configuration.md names every variable
 * and port that `npm start`, the CLI and the capture relay read, with the defaults the code has;
 * the templates guide's CLI example gives its template every variable it renders.
 */
const ROOT = join(import.meta.dirname, '../..');
const read = (path: string) => readFileSync(join(ROOT, path), 'utf8');
const filesOf = (dir: string, ext: RegExp) =>
  readdirSync(join(ROOT, dir), { recursive: true })
    .map(String)
    .filter((f) => ext.test(f))
    .map((f) => join(dir, f));

/** `process.env.X` and `env.X` (the CLI's own environment) of the files `npm start` and the CLI run. */
function variablesRead(): Map<string, string | undefined> {
  const files = [...filesOf('bin', /\.(ts|mjs)$/), ...filesOf('functions/local', /\.ts$/)].filter(
    (f) => !f.endsWith('cdk-app.ts') && !f.endsWith('docs-errors.ts'),
  );
  const found = new Map<string, string | undefined>();
  for (const file of files) {
    for (const m of read(file).matchAll(/\benv\.([A-Z][A-Z0-9_]+)(?:\s*\?\?=?\s*'?([\w .=-]+)'?)?/g)) {
      if (!found.has(m[1]) || m[2]) found.set(m[1], m[2]);
    }
  }
  return found;
}

describe('docs/reference/configuration.md', () => {
  const doc = read('docs/reference/configuration.md');
  const local = doc.slice(doc.indexOf('## Environment variables of `npm start` and the CLI'));

  it('names every variable npm start, the CLI and the capture relay read', () => {
    const names = [...variablesRead().keys()];
    expect(names).toEqual(expect.arrayContaining(['PMAIL_PORT', 'PMAIL_MX_PORT', 'PMAIL_CAPTURE_PORT']));
    const missing = names.filter((n) => !local.includes(`\`${n}\``));
    expect(missing).toEqual([]);
  });

  it('gives each port the default the code has', () => {
    const ports = [...variablesRead()].filter(
      ([name, d]) => name.endsWith('_PORT') && d && d !== '0' && /^\d+$/.test(d),
    );
    expect(ports.map(([n]) => n).sort()).toEqual([
      'PMAIL_CAPTURE_PORT',
      'PMAIL_MX_PORT',
      'PMAIL_PORT',
      'PMAIL_SES_PORT',
    ]);
    for (const [name, port] of ports) {
      const row = local.split('\n').find((l) => l.startsWith(`| \`${name}\``));
      expect(row, name).toContain(`default ${port}`);
    }
  });

  it('puts no two services of npm start on one default port', () => {
    const defaults = [...variablesRead()].filter(([n, d]) => n.endsWith('_PORT') && d).map(([, d]) => d);
    expect(new Set(defaults).size).toBe(defaults.length);
  });
});

describe('docs/guides/templates.md', () => {
  it('gives, in its CLI example, every variable its template renders', () => {
    const guide = read('docs/guides/templates.md');
    // The template the guide's "Try it locally" creates, then the CLI send of it.
    const created = guide.slice(guide.indexOf('## Try it locally'));
    const source = /"subject": "([^"]*)",\s*"text": "([^"]*)",\s*"html": "((?:[^"\\]|\\.)*)"/.exec(created);
    expect(source).not.toBeNull();
    const cli = /npx pmail send [^`]*--template magic_link --variables '([^']+)'/.exec(guide);
    expect(cli).not.toBeNull();
    const variables = JSON.parse(cli![1]) as Record<string, string>;
    const [, subject, text, html] = source!;
    for (const part of [subject, text, html.replace(/\\"/g, '"')]) {
      const used = [...part.matchAll(/\{\{\s*(\w+)\s*\}\}/g)].map((m) => m[1]);
      for (const name of used) expect(variables, `{{${name}}}`).toHaveProperty(name);
      // Rendered, nothing is left empty where a variable stood.
      const rendered = Handlebars.compile(part, { strict: true })(variables);
      expect(rendered).not.toMatch(/\{\{/);
    }
  });
});
