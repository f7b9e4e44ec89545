import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { spawnRun } from '../support/cli.ts';

/**
 * The CLI on a Node older than it needs, taken from the npm registry's `node` package (`npx -p
 * node@20`), as a user on an older machine Node runs it: one line saying it needs Node 22 and the
 * command that runs it, exit 1, never a stack trace; and that command works.
 */
const sh = (command: string) => spawnRun('sh', ['-c', command]);

/** The major version of the Node at `path`. */
const majorOf = (path: string) =>
  execFileSync(path, ['-p', 'process.versions.node.split(".")[0]'], { encoding: 'utf8' }).trim();

/** The machine's own Node, when it is older than 22 (Debian's, say): the one a new user has. */
const machineNode = ['/usr/bin/node', '/usr/local/bin/node'].find(
  (path) => existsSync(path) && Number(majorOf(path)) < 22,
);

/** The line bin/pmail.mjs prints on Node `major` for `pmail list`. */
const toldFor = (major: string) =>
  new RegExp(
    `^pmail needs Node 22 or newer and this is Node ${major}\\.\\d+\\.\\d+; run it without installing Node 22: ` +
      'npx -y -p node@22 -- node bin/pmail\\.mjs list$',
  );

describe('pmail on an older Node', () => {
  it.each(['20', '16'])(
    'Node %s: one line with the command that runs it, and exit 1',
    async (major) => {
      const r = await sh(
        `npx -y -p node@${major} -- node bin/pmail.mjs send --to ada@example.com --text "it's me"`,
      );
      expect(r.code).toBe(1);
      expect(r.stdout).toBe('');
      expect(r.stderr.trimEnd().split('\n')).toEqual([
        expect.stringMatching(
          new RegExp(
            `^pmail needs Node 22 or newer and this is Node ${major}\\.\\d+\\.\\d+; run it without installing Node 22: ` +
              `npx -y -p node@22 -- node bin/pmail\\.mjs send --to ada@example\\.com --text 'it'\\\\''s me'$`,
          ),
        ),
      ]);
    },
    180_000,
  );

  it('the command it gives runs the CLI', async () => {
    const told = await sh('npx -y -p node@20 -- node bin/pmail.mjs --help');
    const command = /: (npx -y -p node@22 -- .+)$/.exec(told.stderr.trim())?.[1];
    expect(command).toBe('npx -y -p node@22 -- node bin/pmail.mjs --help');
    const run = await sh(command!);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toMatch(/^Usage: pmail \[options\] \[command\]/);
  }, 180_000);

  it('the start banner’s CLI lines are made for the Node it runs on', async () => {
    const script =
      "import('./bin/node22.mjs').then((m) => console.log(m.pmailCommand(['send', '--to', 'peer@mail.pmail.test', '--wait'], process.cwd() + '/bin/pmail.mjs', process.cwd())))";
    const old = await sh(`npx -y -p node@20 -- node -e "${script}"`);
    expect(old.stdout.trim()).toBe(
      'npx -y -p node@22 -- node bin/pmail.mjs send --to peer@mail.pmail.test --wait',
    );
    const current = await sh(`"${process.execPath}" -e "${script}"`);
    expect(current.stdout.trim()).toBe('npx pmail send --to peer@mail.pmail.test --wait');
  }, 180_000);

  it.skipIf(machineNode === undefined)(
    'the machine’s own older Node: `node bin/pmail.mjs` and `npx pmail` each print the line and exit 1',
    async () => {
      const node = machineNode!;
      const major = majorOf(node);
      const npx = join(dirname(node), 'npx');
      // That Node first on PATH, so `npx` and the `node` of the bin's shebang are the machine's.
      const env = { ...process.env, PATH: `${dirname(node)}:${process.env.PATH}` } as Record<string, string>;
      const runs = [await spawnRun(node, ['bin/pmail.mjs', 'list'], env)];
      if (existsSync(npx)) runs.push(await spawnRun(npx, ['--no-install', 'pmail', 'list'], env));
      for (const r of runs) {
        expect(r.code).toBe(1);
        expect(r.stdout).toBe('');
        expect(r.stderr.trimEnd().split('\n')).toEqual([expect.stringMatching(toldFor(major))]);
      }
    },
    60_000,
  );
});
