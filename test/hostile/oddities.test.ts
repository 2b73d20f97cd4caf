import { strict as assert } from 'node:assert';
import { runBounded } from './bounded';
import type { Loaded } from './odditiesCases';

const MB = 1024 * 1024;
const BOUNDS = { timeoutMs: 30_000, maxHeapMb: 512 };

function warnings(r: Loaded): Loaded['issues'] {
  for (const i of r.issues) assert.equal(i.severity, 'warning', `only warnings: ${JSON.stringify(i)}`);
  return r.issues;
}

describe('hostile oddities: loaded as shown, and warned of, located (issue 18 item 6)', () => {
  for (const ids of ['reverse', 'duplicate', 'negative'] as const) {
    it(`ATIF step ids ${ids}: every step shown in file order, each odd step_id a located warning`, async () => {
      const r = await runBounded<Loaded>('odditiesCases.ts', 'atifOdd', [ids], BOUNDS);
      assert.equal(r.value.steps, r.value.originalSteps);
      const w = warnings(r.value);
      assert.ok(w.length >= 1, 'warned');
      for (const i of w) {
        if (i.line === null) continue;
        assert.match(i.pointer ?? '', /^\/steps\/\d+\/step_id$/);
        assert.ok(i.line > 1 && (i.column ?? 0) > 0);
        assert.match(i.expected, /step_id/);
      }
      assert.ok(r.peakHeapBytes < 300 * MB);
    });
  }
  for (const ts of ['Tuesday', '1', '+275760-09-13T00:00:00.000Z', '2026-13-45T99:99:99Z', 'x'.repeat(10_000)]) {
    it(`a step timestamp of ${JSON.stringify(ts.slice(0, 30))} is a located warning; the steps are shown`, async () => {
      const r = await runBounded<Loaded>('odditiesCases.ts', 'atifOdd', ['none', ts], BOUNDS);
      assert.equal(r.value.steps, r.value.originalSteps);
      const w = warnings(r.value).filter((i) => /step timestamp/.test(i.expected));
      assert.equal(w.length, Math.min(20, r.value.steps) + (r.value.steps > 20 ? 1 : 0));
      assert.ok(w[0].line !== null && w[0].line > 1, 'located at the step');
    });
  }
  it('real timestamps raise no warning', async () => {
    const r = await runBounded<Loaded>('odditiesCases.ts', 'atifOdd', ['none'], BOUNDS);
    assert.deepEqual(r.value.issues, []);
  });
  it('a cast whose times go back loads, warns per event line, and plays in order', async () => {
    const r = await runBounded<Loaded>('odditiesCases.ts', 'castOdd', ['back'], BOUNDS);
    const w = warnings(r.value);
    assert.equal(w.length, 21, '20 located + one count');
    assert.equal(w[0].line, 5, 'the event at 0.05 s after one at 0.2 s (event 3, line 5)');
    assert.equal(w[0].pointer, '/0');
    assert.match(w[20].found, /479 more/);
    assert.match(r.value.messages.join(''), /good output 999/);
    assert.match(r.value.note ?? '', /499 events have times before the event before/);
  });
  it('a cast with a 1e308 time loads, warns, and the player duration stays real', async () => {
    const r = await runBounded<Loaded>('odditiesCases.ts', 'castOdd', ['huge'], BOUNDS);
    const w = warnings(r.value);
    assert.ok(w.some((i) => i.line === 507 && i.pointer === '/0' && /under 1000000000 s/.test(i.expected) && i.found === 'number 1e+308'), JSON.stringify(w));
    assert.ok(Number.isFinite(r.value.playerDuration) && (r.value.playerDuration ?? 0) < 1000);
    for (const t of r.value.times ?? []) assert.ok(t === null || (typeof t === 'number' && Number.isFinite(t) && t < 1e9), `a step time ${t}`);
    assert.match(r.value.messages.join(''), /good output 999/);
  });
  it('unknown event codes are located warnings, skipped by the player with a note', async () => {
    const r = await runBounded<Loaded>('odditiesCases.ts', 'castOdd', ['code'], BOUNDS);
    const w = warnings(r.value);
    assert.equal(w[0].pointer, '/1');
    assert.equal(w[0].line, 2);
    assert.match(r.value.note ?? '', /334 events have an event code the player does not know/);
  });
  it('an absurd cast size is a located warning and a player note', async () => {
    const r = await runBounded<Loaded>('odditiesCases.ts', 'castOdd', ['size', 10], BOUNDS);
    const w = warnings(r.value);
    assert.equal(w.length, 1);
    assert.deepEqual([w[0].line, w[0].pointer, w[0].found], [1, '/width', '10000×10000']);
    assert.match(r.value.note ?? '', /10000×10000/);
  });
});
