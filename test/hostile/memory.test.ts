// Big valid inputs: memory follows what is shown, not the file. A 700,000-step ATIF opens by its
// steps (the first window read) within a heap far below the file's decoded size; `show --json` of a
// JSONL of 1,000,000 tiny rollouts streams its document (no string of the whole output).
import { strict as assert } from 'node:assert';
import { runBounded } from './bounded';

const MiB = 1024 * 1024;

describe('hostile sizes: memory follows what is shown', function () {
  this.timeout(600_000);

  it('a 700,000-step ATIF (~145 MB) opens by its steps, the first window read, within a 128 MiB heap', async () => {
    // Generating the file is not part of the bound.
    await runBounded('memoryCases.ts', 'makeBigAtif', [700_000], { timeoutMs: 300_000, maxHeapMb: 512 });
    const r = await runBounded<{ count: number; got: number; firstRole: string; lastIndex: number; bytes: number }>('memoryCases.ts', 'firstWindowOfBigAtif', [700_000, 100], {
      timeoutMs: 300_000,
      maxHeapMb: 128,
    });
    assert.equal(r.value.count, 700_000);
    assert.equal(r.value.got, 100);
    assert.equal(r.value.firstRole, 'user');
    assert.equal(r.value.lastIndex, 99);
    assert.ok(r.value.bytes > 140 * 1000 * 1000, `the file is big (${r.value.bytes} bytes)`);
    assert.ok(r.peakHeapBytes < 64 * MiB, `peak heap ${Math.round(r.peakHeapBytes / MiB)} MiB`);
  });

  it('show --json of a JSONL of 1,000,000 tiny rollouts completes, streamed in chunks of at most ~1 Mi characters', async () => {
    await runBounded('memoryCases.ts', 'makeTinyRows', [1_000_000], { timeoutMs: 300_000, maxHeapMb: 512 });
    const r = await runBounded<{ chars: number; rollouts: number; tail: string; longestChunk: number }>('memoryCases.ts', 'showJsonOfTinyRows', [1_000_000], {
      timeoutMs: 540_000,
      maxHeapMb: 3072,
    });
    assert.equal(r.value.rollouts, 1_000_000);
    assert.ok(r.value.chars > 512 * MiB, `the document is longer than V8's longest string (${r.value.chars} characters)`);
    assert.ok(r.value.longestChunk < 2 * MiB, `longest chunk ${r.value.longestChunk}`);
    assert.match(r.value.tail, /"skipped": \[\]\n\}\n$/);
  });
});
