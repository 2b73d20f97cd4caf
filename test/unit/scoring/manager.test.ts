/**
 * The scorer client and manager against real processes: the built-in scorer (through tsx) and
 * test/fixtures/scorers/fake-scorer.js, which crashes, hangs, prints garbage or answers wrongly
 * on purpose. Every failure must come back as a failure with its reason, never as scores, and
 * nothing of it may reach the cache.
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { ScoreCache } from '../../../src/core/scoring/cache';
import { ScorerClient, type ScorerCommand } from '../../../src/core/scoring/client';
import { toScoreRollout } from '../../../src/core/scoring/input';
import { ScorerManager, takeBatch, type ManagerOptions } from '../../../src/core/scoring/manager';
import type { ScoreRollout } from '../../../src/core/scoring/protocol';
import { loadFile } from '../../../src/core/load';
import { scoreRollout } from '../../../src/scorers/builtin/rules';
import { REPO_ROOT, sample, tmpDir } from '../samples';

const FAKE = path.join(REPO_ROOT, 'test', 'fixtures', 'scorers', 'fake-scorer.js');
const fake = (mode: string, env: Record<string, string> = {}): ScorerCommand => ({ command: process.execPath, args: [FAKE, mode], env });
const BUILTIN: ScorerCommand = { command: process.execPath, args: ['-r', 'tsx/cjs', path.join(REPO_ROOT, 'src', 'scorers', 'builtin', 'main.ts')], cwd: REPO_ROOT };

function synth(id: string, n: number): ScoreRollout {
  return {
    id,
    task: { id: 't', instruction: 'do it' },
    steps: Array.from({ length: n }, (_, i) => ({
      index: i,
      role: i === 0 ? ('user' as const) : ('agent' as const),
      message: null,
      reasoning: null,
      actions: [{ kind: 'shell' as const, command: `echo ${id} ${i}`, tool: null, arguments: null }],
      observations: [{ output: `${id} ${i}`, exitCode: 0, truncated: false }],
      durationMs: null,
    })),
  };
}

/** Cache files (the identity hints under scorers/ are not scores). */
function cachedFiles(dir: string): string[] {
  if (!fs.existsSync(dir)) return [];
  return (fs.readdirSync(dir, { recursive: true }) as string[]).filter((f) => f.endsWith('.json') && !f.startsWith('scorers'));
}

const managers: ScorerManager[] = [];
function manager(command: ScorerCommand, extra: Partial<ManagerOptions> = {}, cacheDir: string | null = tmpDir('ti-cache-')): ScorerManager {
  const notices: string[] = [];
  const m = new ScorerManager({
    command,
    client: { name: 'test', version: '0' },
    cache: cacheDir ? new ScoreCache(cacheDir) : null,
    initTimeoutMs: 15_000,
    requestTimeoutMs: 10_000,
    backoffMs: 10,
    ...extra,
  });
  m.onNotice((msg) => notices.push(msg));
  (m as unknown as { notices: string[] }).notices = notices;
  managers.push(m);
  return m;
}
const noticesOf = (m: ScorerManager): string[] => (m as unknown as { notices: string[] }).notices;

function alive(pid: number | undefined): boolean {
  if (pid === undefined) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

describe('scorer client and manager', function () {
  // Starts scorer processes: a loaded 2-core machine needs far longer than an idle one.
  this.timeout(180_000);
  afterEach(async () => {
    await Promise.all(managers.splice(0).map((m) => m.dispose()));
  });

  it('scores a real rollout through the built-in scorer process exactly as the rules do in-process', async () => {
    const f = await loadFile(sample('swe-agent/v0.7_default__marshmallow-code__marshmallow-1867.traj'));
    const r = toScoreRollout(f.rollouts[0]);
    const c = await ScorerClient.start(BUILTIN, { client: { name: 'test', version: '0' }, initTimeoutMs: 15_000 });
    assert.equal(c.info.scorer.name, 'builtin');
    assert.deepEqual(c.info.scoreRange, [0, 1]);
    const progress: number[] = [];
    const out = await c.score([r, { ...r, id: 'copy' }], { timeoutMs: 10_000, onProgress: (p) => progress.push(p.done) });
    assert.deepEqual(out[0].steps, scoreRollout(r));
    assert.equal(out[1].id, 'copy');
    await c.shutdown();
    assert.deepEqual(await c.whenExited(), { code: 0, signal: null });
  });

  it('caches validated scores: a second manager serves them without starting the scorer', async () => {
    const dir = tmpDir('ti-cache-');
    const rs = [synth('a', 4), synth('b', 3)];
    const m1 = manager(BUILTIN, {}, dir);
    const run1 = await m1.score(rs);
    assert.equal(run1.failures.length, 0);
    assert.deepEqual(run1.results.map((r) => r.fromCache), [false, false]);
    assert.equal(cachedFiles(dir).length, 2);
    await m1.dispose();
    const m2 = manager(BUILTIN, {}, dir);
    const run2 = await m2.score(rs);
    assert.deepEqual(run2.results.map((r) => r.fromCache), [true, true]);
    assert.deepEqual(run2.results.map((r) => r.steps), run1.results.map((r) => r.steps));
    assert.equal(m2.pid, undefined, 'no scorer process was started');
    assert.equal(m2.state.kind, 'stopped');
    // Changed content is a miss.
    const changed = synth('a', 4);
    changed.steps[2].observations[0].exitCode = 1;
    const run3 = await m2.score([changed]);
    assert.equal(run3.results[0].fromCache, false);
    assert.equal(run3.results[0].steps[2].value, 0.2);
  });

  it('a scorer killed mid-batch: the batch fails with the reason, nothing is cached, the next request restarts it and says so', async () => {
    const dir = tmpDir('ti-cache-');
    const mark = path.join(tmpDir(), 'crashed');
    const m = manager(fake('crash-once', { FAKE_SCORER_MARK: mark }), {}, dir);
    const states: string[] = [];
    m.onState((s) => states.push(s.kind));
    const seen: string[] = [];
    const run = await m.score([synth('a', 3), synth('b', 3)], { onResult: (r) => seen.push(r.id) });
    assert.equal(run.results.length, 0);
    assert.equal(run.failures.length, 1);
    assert.equal(run.failures[0].error.kind, 'crashed');
    assert.match(run.failures[0].error.message, /exit code 3.*crashing now/);
    assert.deepEqual(run.failures[0].ids, ['a', 'b']);
    assert.equal(cachedFiles(dir).length, 0, 'nothing of a crashed request is cached');
    assert.ok(states.includes('restarting'));
    assert.ok(noticesOf(m).some((n) => /failed: the scorer exited.*restarting in/.test(n)));
    const again = await m.score([synth('a', 3), synth('b', 3)]);
    assert.equal(again.failures.length, 0);
    assert.deepEqual(again.results.map((r) => r.steps.map((s) => s.value)), [[null, 0.5, 0.5], [null, 0.5, 0.5]]);
    assert.ok(noticesOf(m).some((n) => /restarted \(attempt 1 after: the scorer exited/.test(n)));
    assert.equal(cachedFiles(dir).length, 2);
  });

  it('the built-in scorer killed (SIGKILL) in the middle of a large batch: the batch fails, nothing is cached, the next request restarts it', async () => {
    const dir = tmpDir('ti-cache-');
    const m = manager(BUILTIN, {}, dir);
    await m.score([synth('warm', 2)]);
    const pid = m.pid!;
    assert.ok(alive(pid));
    const big = Array.from({ length: 200 }, (_, i) => synth(`big-${i}`, 250));
    const seen: string[] = [];
    const p = m.score(big, { onResult: (r) => seen.push(r.id) });
    // Kill it once it has started on the batch (its first $/progress came back).
    await new Promise<void>((res) => {
      const t = setInterval(() => {
        if (m.state.kind === 'busy') {
          clearInterval(t);
          process.kill(pid, 'SIGKILL');
          res();
        }
      }, 1);
    });
    const run = await p;
    assert.equal(run.failures.length >= 1, true);
    assert.equal(run.failures[0].error.kind, 'crashed', run.failures[0].error.message);
    assert.match(run.failures[0].error.message, /signal SIGKILL/);
    assert.ok(run.results.length < big.length, 'not every rollout was scored');
    const scoredIds = new Set(run.results.map((r) => r.id));
    for (const f of run.failures) for (const id of f.ids) assert.ok(!scoredIds.has(id), `${id} is both scored and failed`);
    // Only the warm-up rollout and batches that completed before the kill are cached.
    assert.equal(cachedFiles(dir).length, 1 + run.results.length);
    const after = await m.score([synth('after', 3)]);
    assert.equal(after.failures.length, 0);
    assert.notEqual(m.pid, pid, 'a new process');
  });

  it('a hung scorer is timed out, killed and restarted with backoff; after too many failures it stops and says why', async () => {
    const dir = tmpDir('ti-cache-');
    const m = manager(fake('hang'), { requestTimeoutMs: 400, maxRestarts: 1 }, dir);
    const run = await m.score([synth('a', 2)]);
    const pid1 = (run.failures[0]?.error && m.pid) as number | undefined;
    assert.equal(pid1, undefined, 'the hung process is gone');
    assert.equal(run.failures[0].error.kind, 'timeout');
    assert.match(run.failures[0].error.message, /did not answer score within/);
    assert.equal(m.state.kind, 'restarting');
    const run2 = await m.score([synth('a', 2)]);
    assert.equal(run2.failures[0].error.kind, 'timeout');
    assert.equal(m.state.kind, 'failed');
    assert.ok(noticesOf(m).some((n) => /stopped after 2 failures in a row/.test(n)));
    const run3 = await m.score([synth('a', 2)]);
    assert.match(run3.failures[0].error.message, /stopped after repeated failures/);
    assert.equal(cachedFiles(dir).length, 0);
    m.restart();
    assert.equal((m.state as { kind: string }).kind, 'stopped');
  });

  for (const [mode, why] of [
    ['garbage', /not a protocol message.*loading weights/],
    ['wrong-count', /1 step\(s\) not answered/],
    ['out-of-range', /value 1\.5 is outside the score range \[0, 1\]/],
    ['nan', /not a protocol message/],
    ['bad-progress', /malformed \$\/progress.*value 7 is outside/],
  ] as const) {
    it(`a scorer that answers wrongly (${mode}) gets a protocol error, no scores and nothing cached`, async () => {
      const dir = tmpDir('ti-cache-');
      const m = manager(fake(mode), {}, dir);
      const seen: unknown[] = [];
      const run = await m.score([synth('a', 3)], { onResult: (r) => seen.push(r) });
      assert.equal(run.results.length, 0);
      assert.deepEqual(seen, []);
      assert.equal(run.failures.length, 1);
      assert.equal(run.failures[0].error.kind, 'protocol');
      assert.match(run.failures[0].error.message, why);
      assert.equal(cachedFiles(dir).length, 0);
    });
  }

  it('cancelling a request answers nothing, caches nothing, and leaves the scorer warm', async () => {
    const dir = tmpDir('ti-cache-');
    const m = manager(fake('good'), {}, dir);
    await m.score([synth('warm', 2)]);
    const pid = m.pid;
    const ac = new AbortController();
    const p = m.score([synth('big', 600)], { signal: ac.signal });
    setTimeout(() => ac.abort(), 50);
    const run = await p;
    assert.equal(run.cancelled, true);
    assert.equal(run.results.length, 0);
    assert.equal(cachedFiles(dir).length, 1, 'only the warm-up rollout is cached');
    const after = await m.score([synth('next', 2)]);
    assert.equal(after.failures.length, 0);
    assert.equal(m.pid, pid, 'same process');
    assert.ok(alive(pid));
  });

  it('splits a batch the scorer has no memory for', async () => {
    const m = manager(fake('oom'), {}, null);
    const run = await m.score([synth('a', 2), synth('b', 2), synth('c', 2)]);
    assert.equal(run.failures.length, 0);
    assert.deepEqual(run.results.map((r) => r.id).sort(), ['a', 'b', 'c']);
    assert.ok(noticesOf(m).some((n) => /out of memory on 3 rollouts/.test(n)));
  });

  it('a scorer that cannot load its model fails at once with the scorer\'s reason; a missing command likewise', async () => {
    const m = manager(fake('model-fail'), {}, null);
    const run = await m.score([synth('a', 2)]);
    assert.equal(run.failures[0].error.kind, 'scorer');
    assert.match(run.failures[0].error.message, /ModelLoadFailed: cannot load model \{"model":"\/nope","reason":"no such file"\}/);
    assert.equal(m.state.kind, 'failed');
    const m2 = manager({ command: '/nonexistent/scorer', args: [] }, {}, null);
    const run2 = await m2.score([synth('a', 2)]);
    assert.equal(run2.failures[0].error.kind, 'spawn');
    assert.match(run2.failures[0].error.message, /ENOENT/);
  });

  it('batches within the declared limits', () => {
    const q = [synth('a', 5), synth('b', 5), synth('c', 5)];
    assert.deepEqual(takeBatch(q, 2, 100).map((r) => r.id), ['a', 'b']);
    assert.deepEqual(takeBatch(q, 10, 9).map((r) => r.id), ['a']);
    assert.deepEqual(takeBatch([synth('huge', 50)], 10, 9).map((r) => r.id), ['huge']);
  });
});
