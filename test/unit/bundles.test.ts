import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { build, type Metafile } from 'esbuild';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseInbound } from '../../functions/inbound/parse.ts';
import { BUNDLE_BUILD, REPO_ROOT } from '../../lib/defaults.ts';

/**
 * A Lambda runs its bundle, not the sources the rest of the suite imports. Mail parsing is where
 * the two could part: the bundles resolve libmime to one build (lib/defaults.ts › BUNDLE_ALIAS, in BUNDLE_BUILD),
 * which mailparser imports and mailsplit requires. Here the inbound parser is bundled as the
 * functions are and parses a message whose headers and body need libmime's charsets (ISO-2022-JP
 * through encoding-japanese, Shift_JIS and windows-1252 through iconv-lite), and its answer is the
 * sources' answer.
 */

const RAW = [
  'From: =?windows-1252?Q?Ren=E9?= <rene@example.org>',
  'To: inbox@example.com',
  'Subject: =?ISO-2022-JP?B?GyRCJUYlOSVIGyhC?=',
  'Message-ID: <bundle-test@example.org>',
  'MIME-Version: 1.0',
  'Content-Type: multipart/mixed; boundary="b1"',
  '',
  '--b1',
  'Content-Type: text/plain; charset=Shift_JIS',
  'Content-Transfer-Encoding: base64',
  '',
  'grGC8YLJgr+CzQ==',
  '--b1',
  'Content-Type: text/plain; charset=utf-8',
  'Content-Disposition: attachment; filename="=?UTF-8?Q?r=C3=A9sum=C3=A9.txt?="',
  '',
  'cv',
  '--b1--',
  '',
].join('\r\n');

let dir: string;
let meta: Metafile;
let bundled: typeof parseInbound;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'pmail-bundle-'));
  const outfile = join(dir, 'parse.mjs');
  const result = await build({
    stdin: {
      contents: "export { parseInbound } from './functions/inbound/parse.ts';",
      resolveDir: REPO_ROOT,
      loader: 'ts',
    },
    ...BUNDLE_BUILD,
    outfile,
    metafile: true,
    logLevel: 'error',
  });
  meta = result.metafile;
  ({ parseInbound: bundled } = await import(pathToFileURL(outfile).href));
});

afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('a bundle that parses mail', () => {
  it('carries one build of libmime', () => {
    const builds = new Set(
      Object.keys(meta.inputs).flatMap((p) => /node_modules\/libmime\/dist\/(\w+)\//.exec(p)?.[1] ?? []),
    );
    expect([...builds]).toEqual(['cjs']);
  });

  it('decodes headers, bodies and file names as the sources do', async () => {
    const raw = new TextEncoder().encode(RAW);
    const [fromBundle, fromSources] = await Promise.all([bundled(raw), parseInbound(raw)]);
    const seen = (p: Awaited<ReturnType<typeof parseInbound>>) => ({
      parse: p.parse,
      subject: p.subject,
      from: p.from,
      text: p.text?.trim(),
      files: p.attachments.map((a) => a.filename),
    });
    expect(seen(fromBundle)).toEqual(seen(fromSources));
    expect(seen(fromBundle)).toMatchObject({
      parse: 'parsed',
      subject: 'テスト',
      from: { name: 'René', address: 'rene@example.org' },
      text: 'こんにちは',
      files: ['résumé.txt'],
    });
  });
});
