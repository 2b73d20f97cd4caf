/**
 * stdout and stderr apart (core/replay/streams.ts): each stream decoded on its own, the cap over
 * both, and the interleaving the comparison uses (mergeLike) — the recording's order where it shows
 * both streams, each stream's own order always kept.
 */
import * as assert from 'node:assert/strict';
import { mergeLike, StreamCollector } from '../../../src/core/replay/streams';

describe('replay streams', () => {
  it('a 4-byte character split by a write to the other stream decodes whole', () => {
    const c = new StreamCollector(1 << 20);
    const smile = Buffer.from('😀 done\n');
    c.push(0, smile.subarray(0, 2));
    c.push(1, Buffer.from('warn\n'));
    c.push(0, smile.subarray(2));
    c.end();
    const t = c.texts();
    assert.deepEqual(t, { arrival: 'warn\n😀 done\n', stdout: '😀 done\n', stderr: 'warn\n' });
  });

  it('keeps at most capBytes over both streams; cuts each stream at a given position', () => {
    const c = new StreamCollector(6);
    c.push(0, Buffer.from('abcd'));
    c.push(1, Buffer.from('efgh'));
    assert.ok(c.overCap);
    assert.equal(c.texts().arrival, 'abcdef');
    assert.deepEqual(c.texts([2, 1]), { arrival: 'abe', stdout: 'ab', stderr: 'e' });
  });

  it('mergeLike: the recording\'s order of stdout and stderr lines; each stream\'s own order kept', () => {
    const streams = { stdout: 'a\nc\n', stderr: 'b\nd\n', arrival: 'a\nc\nb\nd\n' };
    assert.equal(mergeLike('a\nb\nc\nd\n', streams), 'a\nb\nc\nd\n');
    // A recording that differs: still each stream in its order (c stays before nothing of stdout), so the diff shows x vs c.
    assert.equal(mergeLike('a\nb\nx\nd\n', streams), 'a\nb\nd\nc\n');
    // No stderr line in the recording: the arrival order.
    assert.equal(mergeLike('a\nc\n', streams), streams.arrival);
    assert.equal(mergeLike('b\na\n', { stdout: 'a\n', stderr: '', arrival: 'a\n' }), 'a\n');
  });
});
