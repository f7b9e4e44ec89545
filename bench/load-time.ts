import { spawnSync } from 'node:child_process';

/** Module-load time of `file` in a fresh Node process, in ms (the import, top-level await included). */
export function loadTime(file: string): number {
  const script = `const t = performance.now(); await import(${JSON.stringify(file)}); process.stdout.write(String(performance.now() - t));`;
  const out = spawnSync(process.execPath, ['--input-type=module', '-e', script], {
    encoding: 'utf8',
    env: {
      ...process.env,
      // What loadLambdaDeps reads; nothing is called at load time.
      AWS_REGION: 'eu-west-1',
      AWS_ACCESS_KEY_ID: 'bench',
      AWS_SECRET_ACCESS_KEY: 'bench',
      AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
      PMAIL_TABLE: 'pmail-bench',
      PMAIL_BLOB_BUCKET: 'pmail-bench',
      PMAIL_EVENTS_QUEUE_URL: 'https://sqs.eu-west-1.amazonaws.com/000000000000/bench',
      PM_HASH_KEY: 'bench-hash-key',
    },
  });
  if (out.status !== 0) throw new Error(`loading ${file} failed: ${out.stderr.slice(0, 500)}`);
  return Number(out.stdout);
}

/** The median of `runs` fresh processes' module-load times of `file`, in ms. */
export function medianLoadTime(file: string, runs: number): number {
  const times = Array.from({ length: runs }, () => loadTime(file)).sort((a, b) => a - b);
  return times[Math.floor(times.length / 2)]!;
}
