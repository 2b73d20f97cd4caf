import { strict as assert } from 'node:assert';
import { BoundExceeded, runBounded } from './bounded';

describe('hostile tier watchdog (test/hostile/bounded.ts)', () => {
  it('returns a case value with its time and peak heap', async () => {
    const r = await runBounded<number>('boundedCases.ts', 'sum', [[1, 2, 3]]);
    assert.equal(r.value, 6);
    assert.ok(r.peakHeapBytes > 0);
  });
  it('stops a case that never yields (a synchronous loop) at its time limit', async () => {
    await assert.rejects(runBounded('boundedCases.ts', 'spin', [], { timeoutMs: 1500 }), (e: unknown) => e instanceof BoundExceeded && e.kind === 'timeout');
  });
  it('stops a case that runs out of its heap', async () => {
    await assert.rejects(runBounded('boundedCases.ts', 'hog', [], { maxHeapMb: 64, timeoutMs: 60_000 }), (e: unknown) => e instanceof BoundExceeded && e.kind === 'heap');
  });
  it("passes a case's own error through", async () => {
    await assert.rejects(runBounded('boundedCases.ts', 'fail'), /case failed on purpose/);
  });
});
