import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { conditionalWrites } from '../support/conditional-writes.ts';

/**
 * Every conditional write in `functions/store/` has a test that loses its answer inside the SDK's
 * retry (docs/lost-answers.md): a file under test/ that calls `loseAnswerInRetry` names the write
 * as `'file.ts › function'` (in a describe or test title). A new conditional write without one
 * fails here, with its name.
 */
function coveredIds(): Set<string> {
  const out = new Set<string>();
  const walk = (dir: string) => {
    for (const e of readdirSync(dir, { withFileTypes: true })) {
      const p = join(dir, e.name);
      if (e.isDirectory()) walk(p);
      else if (p.endsWith('.test.ts')) {
        const text = readFileSync(p, 'utf8');
        if (!text.includes('loseAnswerInRetry(')) continue;
        for (const m of text.matchAll(/([\w.-]+\.ts) › (\w+)/g)) out.add(`${m[1]} › ${m[2]}`);
      }
    }
  };
  walk('test');
  return out;
}

describe('the conditional writes of the store', () => {
  const writes = conditionalWrites();

  it('are found (the scan still sees the store)', () => {
    expect(writes).toContain('messages.store.ts › putAcceptedMessage');
    expect(writes).toContain('quota.store.ts › countOnIdentity');
    expect(writes.length).toBeGreaterThan(40);
  });

  it('each have a test that loses their answer inside the SDK retry', () => {
    const covered = coveredIds();
    expect(writes.filter((w) => !covered.has(w))).toEqual([]);
  });
});
