import { afterAll, expect } from 'vitest';
import { missingPortCalls } from '../../functions/lambda-ports.ts';

/**
 * Every test file: no component of the local runtime used a port its Lambda is built without
 * (functions/lambda-ports.ts). Checked here as well as by the thrower itself, because some callers
 * catch a port's error and log it (a failed dispatch is left to the sweeper).
 */
afterAll(() => {
  expect(missingPortCalls, 'a Lambda used a port it is built without').toEqual([]);
});
