import { strict as assert } from 'node:assert';
import { runBounded } from './bounded';
import { HOSTILE } from './escapesCases';
import { clampEscapes, EscapeClamp } from '../../src/core/escapes';

const MB = 1024 * 1024;

describe('hostile escapes: absurd CSI counts (issue 18 item 1)', () => {
  for (const seq of HOSTILE) {
    const name = JSON.stringify(seq);
    it(`the replay normaliser renders ${name} ×200 in bounded time and memory, the text after it kept`, async () => {
      const r = await runBounded<string>('escapesCases.ts', 'normalizeHostile', [seq, 200], { timeoutMs: 30_000, maxHeapMb: 256 });
      assert.match(r.value, /good after/);
      assert.ok(r.peakHeapBytes < 200 * MB, `peak heap ${r.peakHeapBytes}`);
    });
    it(`the cast view lowers ${name} (cut between two events) to the screen size and says so`, async () => {
      const r = await runBounded<{ note: string | null; out: string }>('escapesCases.ts', 'castHostile', [seq, 500], { timeoutMs: 30_000, maxHeapMb: 256 });
      assert.doesNotMatch(r.value.out, /\d{5,}/, 'no absurd count reaches the player');
      assert.match(r.value.out, /good 499/);
      assert.match(r.value.note ?? '', /escape sequences ask for more rows or columns than the screen has/);
      assert.ok(r.peakHeapBytes < 200 * MB, `peak heap ${r.peakHeapBytes}`);
    });
  }
  it('the normaliser writes carriage returns over a 1 MB line 600,000 times (2.2 MB: the line-by-line renderer) in bounded time (linear, not a copy per return)', async () => {
    const r = await runBounded<{ length: number; head: string }>('escapesCases.ts', 'normalizeCrFlood', [600_000], { timeoutMs: 30_000, maxHeapMb: 512 });
    assert.equal(r.value.head, 'axx');
    assert.equal(r.value.length, 1_000_000 + '\ngood after'.length);
  });
  it('a 10000×10000 header is played at most 500×200, with a note', async () => {
    const r = await runBounded<{ note: string | null; cols: number; rows: number }>('escapesCases.ts', 'castHostile', ['', 1, 10000, 10000], { timeoutMs: 30_000, maxHeapMb: 256 });
    assert.equal(r.value.cols, 500);
    assert.equal(r.value.rows, 200);
    assert.match(r.value.note ?? '', /asks for a 10000×10000 terminal; the player shows at most 500×200/);
  });
  it('keeps reasonable sequences byte for byte (colours, private modes, cursor moves on the screen)', () => {
    const ok = '\x1b[38;2;255;128;0mhi\x1b[0m\x1b[?2004h\x1b[?1049l\x1b[10;20H\x1b[3A\x1b[5S';
    assert.deepEqual(clampEscapes(ok, { rows: 24, cols: 80 }), { text: ok, clamped: 0 });
    assert.equal(clampEscapes('\x1b[2147483647S', { rows: 24, cols: 80 }).text, '\x1b[24S');
    assert.equal(clampEscapes('a\x1b[2147483647b', { rows: 24, cols: 80 }).text, 'a\x1b[80b');
    assert.equal(clampEscapes('\x1b[1;99999999H', { rows: 24, cols: 80 }).text, '\x1b[1;80H');
  });
  it('the stream clamp reassembles a sequence cut anywhere between chunks', () => {
    const seq = 'ab\x1b[2147483647Scd';
    for (let cut = 0; cut <= seq.length; cut++) {
      const c = new EscapeClamp({ rows: 24, cols: 80 });
      const out = c.push(seq.slice(0, cut)) + c.push(seq.slice(cut)) + c.flush();
      assert.equal(out, 'ab\x1b[24Scd', `cut at ${cut}`);
    }
  });
});
