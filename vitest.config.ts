import { defineConfig } from 'vitest/config';

/** Runs after every other file: it checks the AWS calls they recorded (npm run check:deploy). */
const AFTER_ALL = 'test/deploy/permissions.test.ts';

export default defineConfig({
  test: {
    globalSetup: ['test/global-setup.ts'],
    testTimeout: 30_000,
    hookTimeout: 180_000,
    // Integration files share one DynamoDB Local; each test makes its own tenant and identities.
    pool: 'forks',
    maxWorkers: 2,
    projects: [
      {
        extends: true,
        test: {
          name: 'suite',
          include: ['test/**/*.test.ts'],
          exclude: [AFTER_ALL],
          // Every file records the AWS calls its Lambdas make (functions/local/aws-calls.ts).
          setupFiles: ['test/support/record-aws-calls.ts'],
        },
      },
      { extends: true, test: { name: 'deploy', include: [AFTER_ALL], sequence: { groupOrder: 1 } } },
    ],
  },
});
