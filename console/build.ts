import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildSync } from 'esbuild';

/**
 * The console's static files, built by esbuild from console/src: one script, one stylesheet and
 * the tab's icon with content-hashed names (served as immutable), and the page that loads them (served briefly
 * cached, so a deployment shows on the next load). The page has no inline script or style, so the
 * strict Content-Security-Policy of functions/api/console.api.ts holds.
 */
export interface ConsoleAsset {
  type: string;
  body: string;
}
export type ConsoleAssets = Record<string, ConsoleAsset>;

const SRC = fileURLToPath(new URL('./src/', import.meta.url));

const TYPES: Record<string, string> = {
  '.svg': 'image/svg+xml',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.html': 'text/html; charset=utf-8',
};

/** `index.html` and the hashed files it names, in memory. */
export function buildConsole(): ConsoleAssets {
  const out = buildSync({
    entryPoints: [join(SRC, 'main.tsx')],
    bundle: true,
    write: false,
    outdir: '/console',
    entryNames: '[name]-[hash]',
    format: 'esm',
    target: 'es2022',
    platform: 'browser',
    minify: true,
    jsx: 'automatic',
    jsxImportSource: 'preact',
    legalComments: 'none',
    logLevel: 'error',
    // @pmail/client's webhook verification imports node:crypto; the browser never runs it.
    alias: { 'node:crypto': join(SRC, 'no-node-crypto.ts') },
  });
  const assets: ConsoleAssets = {};
  for (const f of out.outputFiles) {
    const name = basename(f.path);
    const ext = name.slice(name.lastIndexOf('.'));
    assets[name] = { type: TYPES[ext] ?? 'application/octet-stream', body: f.text };
  }
  const script = Object.keys(assets).find((n) => n.endsWith('.js'));
  const style = Object.keys(assets).find((n) => n.endsWith('.css'));
  // The tab's icon, named by its content like the script and the stylesheet.
  const svg = readFileSync(join(SRC, 'favicon.svg'), 'utf8');
  const icon = `favicon-${createHash('sha256').update(svg).digest('hex').slice(0, 8)}.svg`;
  assets[icon] = { type: TYPES['.svg'], body: svg };
  assets['index.html'] = {
    type: TYPES['.html'],
    body: [
      '<!doctype html>',
      '<html lang="en">',
      '<head>',
      '<meta charset="utf-8">',
      '<meta name="viewport" content="width=device-width, initial-scale=1">',
      '<meta name="referrer" content="no-referrer">',
      '<title>pmail console</title>',
      `<link rel="icon" type="image/svg+xml" href="/console/${icon}">`,
      style ? `<link rel="stylesheet" href="/console/${style}">` : '',
      `<script type="module" src="/console/${script}"></script>`,
      '</head>',
      '<body><div id="app"></div><noscript>The pmail console needs JavaScript.</noscript></body>',
      '</html>',
      '',
    ]
      .filter(Boolean)
      .join('\n'),
  };
  return assets;
}

/**
 * The built console as one JSON file in a temporary directory, named by its content (repeated
 * synths reuse it), which lib/api.ts copies beside the console function's bundle.
 */
export function consoleAssetsFile(): string {
  const json = JSON.stringify(buildConsole());
  const dir = join(tmpdir(), 'pmail-console');
  mkdirSync(dir, { recursive: true });
  const file = join(dir, `${createHash('sha256').update(json).digest('hex').slice(0, 16)}.json`);
  writeFileSync(file, json);
  return file;
}
