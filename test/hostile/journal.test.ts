import { strict as assert } from 'node:assert';
import { runBounded } from './bounded';
import type { JournalOutcome } from './journalCases';

const MB = 1024 * 1024;

/** Times a hostile journal line may hold: past what Date can write, not ISO, not a date, far future, not a string. */
const BAD_TIMES: unknown[] = ['+275760-09-13T00:00:00.000Z', '-271821-04-20T00:00:00.000Z', '9999-12-31T23:59:59.999Z', 'zzzz', 'Tuesday', '2026-13-45T99:99:99Z', '1', '2026-03-02 10:15:04', 12345, null, 'x'.repeat(100_000)];

describe('hostile journal: entries with bad times (issue 18 item 2)', () => {
  for (const time of BAD_TIMES) {
    for (const when of ['before', 'during'] as const) {
      const name = typeof time === 'string' && time.length > 40 ? `a ${time.length}-character string` : JSON.stringify(time);
      it(`a time of ${name} (${when === 'before' ? 'in the journal when opened' : 'appended between writes'}) stops no write, wins over no label, and is a located warning`, async () => {
        const r = await runBounded<JournalOutcome>('journalCases.ts', 'hostileTime', [time, when], { timeoutMs: 30_000, maxHeapMb: 256 });
        assert.deepEqual(r.value.thrown, []);
        assert.deepEqual(r.value.values, { 2: -1, 3: 0, 4: 1 }, "every label alice wrote is shown, step 2's included");
        assert.equal(r.value.warnings.length, 1, r.value.warnings.join('\n'));
        assert.match(r.value.warnings[0], /apb\.jsonl\.labels\.jsonl:\d+: skipped: not a label entry \(\/time: /);
        assert.ok(r.peakHeapBytes < 200 * MB, `peak heap ${r.peakHeapBytes}`);
      });
    }
  }
  // Other fields: entries for keys that exist nowhere, prototype names, huge values.
  const OTHER: Array<[string, Record<string, unknown>, number]> = [
    ['a step index past every rollout', { stepIndex: 1e15 }, 0],
    ['an unknown rollout id', { rolloutId: 'no-such-rollout' }, 0],
    ['__proto__ as rollout id and annotator', { rolloutId: '__proto__', annotator: '__proto__' }, 0],
    ['a 1 MB note', { rolloutId: '$r0', stepIndex: 5, note: 'n'.repeat(1 << 20) }, 0],
    ['a value of 2', { value: 2 }, 1],
    ['an empty id', { id: '' }, 1],
    ['stepIndex -1', { stepIndex: -1 }, 1],
    ['journal version 2', { v: 2 }, 1],
  ];
  for (const [what, patch, warned] of OTHER) {
    it(`an entry with ${what} stops no write and hides no label (${warned ? 'a located warning' : 'kept, harmless'})`, async () => {
      const r = await runBounded<JournalOutcome>('journalCases.ts', 'hostileEntry', [patch, 'during'], { timeoutMs: 30_000, maxHeapMb: 256 });
      assert.deepEqual(r.value.thrown, []);
      for (const [k, v] of Object.entries({ 2: -1, 3: 0, 4: 1 })) assert.equal(r.value.values[k], v, `step ${k}`);
      assert.equal(r.value.warnings.length, warned, r.value.warnings.join('\n'));
      if (warned) assert.match(r.value.warnings[0], /apb\.jsonl\.labels\.jsonl:\d+: skipped: /);
    });
  }
});
