// Decompression bombs in zip archives (Inspect AI `.eval` logs): inflating stops at the size the
// zip directory declares, and an archive has an inflate budget over all its entries. Each case runs
// under the watchdog (test/hostile/bounded.ts) with a heap far below what the bomb inflates to.
import { strict as assert } from 'node:assert';
import { runBounded } from './bounded';
import type { EntryOutcome } from './zipbombsCases';

const MiB = 1024 * 1024;

describe('hostile zip archives: decompression bombs', () => {
  it('a zstd entry that claims 1 KiB and inflates to 3 GiB stops at the claimed size', async () => {
    const r = await runBounded<EntryOutcome>('zipbombsCases.ts', 'zstdLyingSize', [], { timeoutMs: 60_000, maxHeapMb: 256 });
    assert.ok(r.value.archiveBytes < 200 * 1024, `the bomb is small (${r.value.archiveBytes} bytes)`);
    assert.equal(r.value.size, null);
    assert.match(r.value.error ?? '', /more than 1024 bytes after decompression where the directory says 1024/);
    assert.ok(r.peakHeapBytes < 200 * MiB, `peak heap ${Math.round(r.peakHeapBytes / MiB)} MiB`);
  });

  it('a DEFLATE entry that claims 1 KiB and inflates to 400 MiB stops at the claimed size', async () => {
    const r = await runBounded<EntryOutcome>('zipbombsCases.ts', 'deflateLyingSize', [], { timeoutMs: 60_000, maxHeapMb: 256 });
    assert.equal(r.value.size, null);
    assert.ok(r.value.error, 'the entry is refused');
    assert.ok(r.peakHeapBytes < 200 * MiB, `peak heap ${Math.round(r.peakHeapBytes / MiB)} MiB`);
  });

  it('honest entries past the archive inflate budget: the first is read, the one past the budget is refused before it inflates', async () => {
    const r = await runBounded<{ first: EntryOutcome; second: EntryOutcome }>('zipbombsCases.ts', 'honestEntriesPastBudget', [], { timeoutMs: 60_000, maxHeapMb: 512 });
    assert.equal(r.value.first.size, 40 * MiB);
    assert.equal(r.value.second.size, null);
    assert.match(r.value.second.error ?? '', /at most 67108864 are inflated per file/);
  });

  it('an .eval whose entries are zstd bombs fails to load with a located error naming the entry', async () => {
    const r = await runBounded<{ error: string | null; issues: string[] }>('zipbombsCases.ts', 'evalFileWithBomb', [], { timeoutMs: 60_000, maxHeapMb: 256 });
    assert.ok(r.value.error, 'the load fails');
    assert.ok(r.value.issues.some((f) => /more than 2048 bytes after decompression/.test(f)), JSON.stringify(r.value));
    assert.ok(r.peakHeapBytes < 200 * MiB, `peak heap ${Math.round(r.peakHeapBytes / MiB)} MiB`);
  });
});
