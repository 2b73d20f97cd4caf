// Big valid inputs: memory follows what is shown, not the file. A 700,000-step ATIF opens by its
// steps (the first window read) within a heap far below the file's decoded size; `show --json` of a
// JSONL of 1,000,000 tiny rollouts streams its document (no string of the whole output).
import { strict as assert } from 'node:assert';
import { runBounded } from './bounded';
import type { ShowJsonChild } from './memoryCases';

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

  // The CLI as a user runs it (dist/cli.js, `npm run build` first), streamed from 1 byte on so that
  // small files take the path of big ones (64 MiB and up). Under a 64 MiB V8 heap a full load of
  // the bigger files runs out of memory (exit 134); streamed, the bigger file's peak RSS stays
  // within 1.5x that of a file a quarter its size, and the document has every step and rollout.
  const HEAP_MB = 64;
  const showBoth = async (kind: 'atif' | 'rows', big: number): Promise<[ShowJsonChild, ShowJsonChild]> => {
    const run = async (n: number) => (await runBounded<ShowJsonChild>('memoryCases.ts', 'showJsonInChild', [kind, n, HEAP_MB], { timeoutMs: 120_000, maxHeapMb: 1024 })).value;
    return [await run(big / 4), await run(big)];
  };
  const warned = (r: ShowJsonChild, how: RegExp) => assert.ok(r.warnings.some((w) => how.test(w)), `a warning says how the file was read: ${JSON.stringify(r.warnings)}`);

  it('show --json (dist/cli.js) of an 80,000-step ATIF streams its steps by windows: within a 64 MiB heap, peak RSS < 1.5x that of a quarter of it', async () => {
    const [small, big] = await showBoth('atif', 80_000);
    assert.deepEqual([small.rollouts, small.steps, big.rollouts, big.steps, big.fileRollouts], [1, 20_000, 1, 80_000, [1]]);
    assert.ok(big.bytes > 15 * 1000 * 1000, `the file is big (${big.bytes} bytes)`);
    warned(big, /read 1000 steps at a time \(step timestamps and step_id order not checked/);
    assert.ok(big.maxRssKb < 1.5 * small.maxRssKb, `peak RSS ${big.maxRssKb} KiB (80,000 steps) vs ${small.maxRssKb} KiB (20,000 steps)`);
    assert.ok(big.maxRssKb < 256 * 1024, `peak RSS ${big.maxRssKb} KiB`);
  });

  it('show --json (dist/cli.js) of a JSONL of 100,000 tiny rows streams a row at a time: within a 64 MiB heap, peak RSS < 1.5x that of a quarter of it', async () => {
    const [small, big] = await showBoth('rows', 100_000);
    assert.deepEqual([small.rollouts, small.steps, big.rollouts, big.steps, big.fileRollouts], [25_000, 50_000, 100_000, 200_000, [100_000]]);
    warned(big, /read one row at a time/);
    assert.ok(big.maxRssKb < 1.5 * small.maxRssKb, `peak RSS ${big.maxRssKb} KiB (100,000 rows) vs ${small.maxRssKb} KiB (25,000 rows)`);
    assert.ok(big.maxRssKb < 256 * 1024, `peak RSS ${big.maxRssKb} KiB`);
  });
});
