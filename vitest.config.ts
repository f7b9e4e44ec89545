import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    globalSetup: ['test/global-setup.ts'],
    // Every file records the AWS calls its Lambdas make (npm run check:deploy reads them).
    setupFiles: ['test/support/record-aws-calls.ts'],
    testTimeout: 30_000,
    hookTimeout: 180_000,
    // Integration files share one DynamoDB Local; each test makes its own tenant and identities.
    pool: 'forks',
    maxWorkers: 2,
  },
});
