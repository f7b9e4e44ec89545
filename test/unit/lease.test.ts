import { describe, expect, it } from 'vitest';
import { LEASE_BLOCK, LEASE_FRACTION, leaseBlock, maxLeasedBefore } from '../../functions/core/quota.ts';

describe('leaseBlock: the block of the tenant’s day allowance an identity leases', () => {
  it.each([
    // remaining, identity headroom, block
    [10_000, 1_000, LEASE_BLOCK],
    [LEASE_FRACTION * 16, 1_000, 16],
    [LEASE_FRACTION * 16 - 1, 1_000, 15],
    [LEASE_FRACTION * 2, 1_000, 2],
    [LEASE_FRACTION, 1_000, 1],
    [5, 1_000, 1],
    [1, 1_000, 1],
    [0, 1_000, 0],
    [-3, 1_000, 0],
    [10_000, 5, 5],
    [10_000, 0, 0],
  ])('%i left, headroom %i → %i', (remaining, headroom, block) => {
    expect(leaseBlock(remaining, headroom)).toBe(block);
  });

  it('the condition bound admits the block only where the rule grants at least it', () => {
    for (const cap of [1, 2, 3, 64, 100, 1_000, 10_000]) {
      for (let leased = 0; leased <= cap; leased++) {
        for (const block of [1, 2, 5, 16]) {
          const admitted = leased <= maxLeasedBefore(cap, block);
          const granted = leaseBlock(cap - leased, 1_000);
          if (admitted) expect(granted).toBeGreaterThanOrEqual(block);
          // never past the cap
          if (admitted) expect(leased + block).toBeLessThanOrEqual(cap);
        }
      }
    }
  });
});
