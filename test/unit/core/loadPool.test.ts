/**
 * The load workers (core/loadPool.ts, worker entry core/loadWorkerMain.ts, run here under tsx) and
 * the host's RolloutLoader (host/loadWorker.ts): a file read in a worker is the same LoadedFile as
 * an in-thread `loadFile` (every real sample), errors come back as the same classes with the same
 * located issues, a worker that stops mid-load fails that load clearly and the next load works,
 * cancelled and superseded loads fail with LoadCancelledError.
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { Worker } from 'node:worker_threads';
import { atifLong } from '../../../bench/genLarge';
import { RolloutLoadError, UnknownFormatError } from '../../../src/core/errors';
import { loadFile, type LoadedFile } from '../../../src/core/load';
import { LoadCancelledError, LoadPool, LoadWorkerError } from '../../../src/core/loadPool';
import { packLoadedFile, unpackLoadedFile } from '../../../src/core/loadTransfer';
import { startLoadWorkers, IN_THREAD_MAX_BYTES, type RolloutLoader } from '../../../src/host/loadWorker';
import { REPO_ROOT, sample, SAMPLES_DIR, tmpDir, tmpFile } from '../samples';

const SCRIPT = path.join(REPO_ROOT, 'src', 'core', 'loadWorkerMain.ts');
const TSX = { execArgv: ['--require', 'tsx/cjs'] };

/** What loading `file` gives: the LoadedFile or the error, as a value to compare. */
async function outcome(load: () => Promise<LoadedFile>): Promise<{ loaded: LoadedFile } | { error: Error }> {
  try {
    return { loaded: await load() };
  } catch (e) {
    assert.ok(e instanceof Error, `not an Error: ${String(e)}`);
    return { error: e };
  }
}

/** The error's class, message and own fields (stack left out: it is where it was thrown). */
function errorShape(e: Error): Record<string, unknown> {
  const { stack: _stack, ...fields } = e as Error & Record<string, unknown>;
  return { ...fields, class: e.constructor.name, name: e.name, message: e.message };
}

function allSamples(): string[] {
  const out: string[] = [];
  const walk = (d: string): void => {
    for (const n of fs.readdirSync(d).sort()) {
      const p = path.join(d, n);
      if (fs.statSync(p).isDirectory()) walk(p);
      else if (!/\.(md|tsv)$/i.test(n)) out.push(p);
    }
  };
  walk(SAMPLES_DIR);
  return out;
}

/** A 10,000-step ATIF trajectory (about 9 MB; about a second to load), made once for the suite. */
let bigFile: string | null = null;
function big(): string {
  bigFile ??= atifLong(path.join(tmpDir(), 'long.trajectory.json'), 10_000).file;
  return bigFile;
}

describe('core/loadPool: rollout files read in worker threads', function () {
  this.timeout(120_000);
  let pool: LoadPool;
  const started: Worker[] = [];

  beforeEach(() => {
    started.length = 0;
    pool = new LoadPool({ script: SCRIPT, workerOptions: TSX, size: 2, onWorkerStart: (w) => started.push(w) });
  });
  afterEach(async () => {
    await pool.dispose();
  });

  it('gives the same LoadedFile, or the same error, as loadFile in-thread for every real sample', async () => {
    const files = allSamples();
    assert.ok(files.length >= 20, `only ${files.length} samples under ${SAMPLES_DIR}`);
    let loaded = 0;
    let failed = 0;
    for (const f of files) {
      const here = await outcome(() => loadFile(f));
      const there = await outcome(() => pool.load(f));
      if ('loaded' in here) {
        assert.ok('loaded' in there, `${f}: in-thread loaded, worker threw ${'error' in there ? there.error.message : ''}`);
        assert.deepStrictEqual(there.loaded, here.loaded, f);
        loaded++;
      } else {
        assert.ok('error' in there, `${f}: in-thread threw, worker loaded`);
        assert.deepStrictEqual(errorShape(there.error), errorShape(here.error), f);
        failed++;
      }
    }
    // The samples hold rollouts of every format and files that are no rollouts (results.json, …).
    assert.ok(loaded >= 20 && failed >= 1, `loaded ${loaded}, failed ${failed}`);
    assert.ok(started.length <= 2, `${started.length} workers started for one load at a time`);
  });

  it('a malformed rollout gives the same located RolloutLoadError', async () => {
    const atif = JSON.parse(fs.readFileSync(sample('atif/harbor-golden_terminus2_invalid-json_ATIF-v1.5.trajectory.json'), 'utf8'));
    atif.steps[3].source = 'robot';
    const file = tmpFile('bad.trajectory.json', JSON.stringify(atif, null, 2));
    const there = await outcome(() => pool.load(file));
    assert.ok('error' in there && there.error instanceof RolloutLoadError, 'a RolloutLoadError');
    const e = there.error as RolloutLoadError;
    assert.equal(e.format, 'Harbor ATIF trajectory');
    const issue = e.issues.find((i) => i.pointer === '/steps/3/source');
    assert.ok(issue, `no issue at /steps/3/source: ${e.message}`);
    assert.equal(issue.found, 'string "robot"');
    // The line the worker names is the line of "robot" in the file.
    const lines = fs.readFileSync(file, 'utf8').split('\n');
    assert.match(lines[issue.line! - 1], /"source": "robot"/);
    const here = await outcome(() => loadFile(file));
    assert.ok('error' in here);
    assert.deepStrictEqual(errorShape(e), errorShape(here.error));

    const syntax = tmpFile('broken.traj', '{\n  "trajectory": [\n    {"action": "ls"\n  ]\n}\n');
    const s = await outcome(() => pool.load(syntax));
    assert.ok('error' in s && s.error instanceof RolloutLoadError && s.error.format === null, 'a syntax error before detection');
    assert.equal((s.error as RolloutLoadError).issues[0].line, 4);
  });

  it('a JSON file of no known format gives UnknownFormatError with every format declined', async () => {
    const file = tmpFile('other.json', JSON.stringify({ hello: 'world', items: [1, 2, 3] }));
    const there = await outcome(() => pool.load(file));
    assert.ok('error' in there && there.error instanceof UnknownFormatError, 'an UnknownFormatError');
    const here = await outcome(() => loadFile(file));
    assert.ok('error' in here && here.error instanceof UnknownFormatError);
    assert.deepStrictEqual((there.error as UnknownFormatError).declined, here.error.declined);
    assert.ok((there.error as UnknownFormatError).declined.length >= 5);
    assert.equal(there.error.message, here.error.message);
  });

  it('a missing file gives the same RolloutLoadError as in-thread', async () => {
    const file = path.join(tmpDir(), 'gone.traj');
    const there = await outcome(() => pool.load(file));
    const here = await outcome(() => loadFile(file));
    assert.ok('error' in there && 'error' in here);
    assert.ok(there.error instanceof RolloutLoadError);
    assert.deepStrictEqual(errorShape(there.error), errorShape(here.error));
  });

  it('a worker stopped mid-load fails that load with LoadWorkerError; the next load gets a new worker', async () => {
    const file = big();
    await pool.load(sample('swe-agent/6e44b9__sweagenttestrepo-1c2844.traj')); // the worker is up
    assert.equal(started.length, 1);
    const pending = outcome(() => pool.load(file));
    await new Promise((r) => setTimeout(r, 50)); // it is parsing the 9 MB file now
    await started[0].terminate();
    const r = await pending;
    assert.ok('error' in r && r.error instanceof LoadWorkerError, `expected LoadWorkerError, got ${'error' in r ? r.error.stack : 'a LoadedFile'}`);
    assert.match(r.error.message, /long\.trajectory\.json: the load worker stopped \(exit code 1\)/);
    assert.equal(pool.workers, 0);
    const again = await pool.load(file);
    assert.equal(again.rollouts[0].steps.length, 10_000);
    assert.equal(started.length, 2, 'a new worker');
  });

  it('a worker that runs out of memory fails that load with LoadWorkerError; the pool goes on', async () => {
    const small = new LoadPool({ script: SCRIPT, workerOptions: { ...TSX, resourceLimits: { maxOldGenerationSizeMb: 24 } } });
    try {
      const r = await outcome(() => small.load(big()));
      assert.ok('error' in r && r.error instanceof LoadWorkerError, `expected LoadWorkerError, got ${'error' in r ? r.error.stack : 'a LoadedFile'}`);
      assert.match(r.error.message, /ran out of memory/);
      const ok = await small.load(sample('swe-agent/6e44b9__sweagenttestrepo-1c2844.traj'));
      assert.equal(ok.format, 'swe-agent');
    } finally {
      await small.dispose();
    }
  });

  it('a worker script that cannot start fails the load with LoadWorkerError naming why', async () => {
    const broken = new LoadPool({ script: path.join(tmpDir(), 'missing', 'loadWorker.js') });
    try {
      const r = await outcome(() => broken.load(sample('swe-agent/6e44b9__sweagenttestrepo-1c2844.traj')));
      assert.ok('error' in r && r.error instanceof LoadWorkerError, `expected LoadWorkerError, got ${'error' in r ? r.error.stack : 'a LoadedFile'}`);
      assert.match(r.error.message, /6e44b9__sweagenttestrepo-1c2844\.traj: the load worker (failed \(.*Cannot find module|could not start)/);
    } finally {
      await broken.dispose();
    }
  });

  it('runs loads in parallel on at most `size` workers and answers each with its own file', async () => {
    const files = [
      sample('swe-agent/6e44b9__sweagenttestrepo-1c2844.traj'),
      sample('openhands/tests_runtime_trajs_basic.json'),
      sample('inspect/log_read_sample.eval'),
      sample('mini-swe-agent/harbor-rfc_mini-swe-agent-trajectory.json'),
      sample('atif/harbor-golden_openhands_hello-world_ATIF-v1.5.trajectory.json'),
    ];
    const got = await Promise.all(files.map((f) => pool.load(f)));
    assert.deepEqual(got.map((g) => g.path), files);
    assert.deepEqual(got.map((g) => g.format), ['swe-agent', 'openhands-v0', 'inspect', 'mini-swe-agent', 'atif']);
    assert.equal(started.length, 2);
  });

  it('a cancelled load fails with LoadCancelledError, queued or running; the others finish', async () => {
    const ac1 = new AbortController();
    const ac2 = new AbortController();
    const one = new LoadPool({ script: SCRIPT, workerOptions: TSX, size: 1 });
    try {
      const running = outcome(() => one.load(big(), { signal: ac1.signal }));
      const queued = outcome(() => one.load(big(), { signal: ac2.signal }));
      const after = one.load(sample('swe-agent/6e44b9__sweagenttestrepo-1c2844.traj'));
      ac2.abort();
      await new Promise((r) => setTimeout(r, 50));
      ac1.abort();
      for (const r of [await running, await queued]) {
        assert.ok('error' in r && r.error instanceof LoadCancelledError, `expected LoadCancelledError, got ${'error' in r ? r.error.stack : 'a LoadedFile'}`);
      }
      assert.equal((await after).format, 'swe-agent');
      const pre = new AbortController();
      pre.abort();
      await assert.rejects(one.load(big(), { signal: pre.signal }), LoadCancelledError);
    } finally {
      await one.dispose();
    }
  });

  it('dispose fails pending loads with LoadWorkerError and refuses new ones', async () => {
    const pending = outcome(() => pool.load(big()));
    await new Promise((r) => setTimeout(r, 20));
    await pool.dispose();
    const r = await pending;
    assert.ok('error' in r && r.error instanceof LoadWorkerError);
    assert.match(r.error.message, /closed/);
    await assert.rejects(pool.load(big()), LoadWorkerError);
  });
});

describe('core/loadTransfer: a LoadedFile in pieces', function () {
  this.timeout(60_000);

  it('packs and unpacks to the same LoadedFile, letting the event loop run between pieces', async () => {
    const loaded = await loadFile(big());
    const packed = packLoadedFile(loaded);
    assert.equal(packed.kinds.length, 1 + 10_000);
    let turns = 0;
    let on = true;
    const spin = (): void => {
      turns++;
      if (on) setImmediate(spin);
    };
    setImmediate(spin);
    const back = await unpackLoadedFile(packed, 0);
    on = false;
    assert.deepStrictEqual(back, loaded);
    // sliceMs 0: a turn of the event loop after every piece.
    assert.ok(turns >= 10_000, `${turns} turns of the event loop while 10,001 pieces were rebuilt`);
  });

  it('stops with the error `cancelled` gives', async () => {
    const packed = packLoadedFile(await loadFile(big()));
    let calls = 0;
    await assert.rejects(unpackLoadedFile(packed, 0, () => (++calls === 5 ? new LoadCancelledError('x') : null)), LoadCancelledError);
    assert.equal(calls, 5);
  });
});

describe('host/loadWorker: RolloutLoader', function () {
  this.timeout(120_000);
  const log: string[] = [];
  let loader: RolloutLoader & { dispose(): void };
  const loadRolloutFile = (file: string, opts?: Parameters<RolloutLoader['load']>[1]) => loader.load(file, opts);

  before(() => {
    loader = startLoadWorkers(SCRIPT, { info: (m: string) => log.push(m), warn: (m: string) => log.push(`warn: ${m}`) }, TSX);
  });
  after(() => loader?.dispose());

  it('reads a small file in-thread and a large one in a worker, with the same result as loadFile', async () => {
    const small = sample('swe-agent/v0.7_default__marshmallow-code__marshmallow-1867.traj');
    assert.ok(fs.statSync(small).size < IN_THREAD_MAX_BYTES);
    assert.deepStrictEqual(await loadRolloutFile(small), await loadFile(small));
    assert.deepEqual(log.filter((m) => /started/.test(m)), [], 'no worker for a small file');
    const file = big();
    assert.deepStrictEqual(await loadRolloutFile(file), await loadFile(file));
    assert.equal(log.filter((m) => /load worker \d+ started/.test(m)).length, 1);
  });

  it('the inflate budget of an archive (RolloutLoader.setOptions, the setting) reaches loads in the worker and in-thread', async () => {
    const evalFile = sample('inspect/log_read_sample.eval');
    const refused = (e: unknown) => e instanceof RolloutLoadError && e.issues.some((i) => /at most 1000 are inflated per file/.test(i.found));
    await assert.rejects(loadFile(evalFile, undefined, { maxInflatedBytes: 1000 }), refused);
    const own = new LoadPool({ script: SCRIPT, workerOptions: TSX, size: 1 });
    try {
      await assert.rejects(own.load(evalFile, { options: { maxInflatedBytes: 1000 } }), refused);
    } finally {
      await own.dispose();
    }
    try {
      loader.setOptions({ maxInflatedBytes: 1000 });
      await assert.rejects(loadRolloutFile(evalFile), refused);
    } finally {
      loader.setOptions({});
    }
    assert.equal((await loadRolloutFile(evalFile)).rollouts.length, 1);
  });

  it('a newer load with the same owner cancels the one still running', async () => {
    const owner = {};
    const first = outcome(() => loadRolloutFile(big(), { supersede: owner }));
    await new Promise((r) => setTimeout(r, 20));
    const second = loadRolloutFile(big(), { supersede: owner });
    const r = await first;
    assert.ok('error' in r && r.error instanceof LoadCancelledError);
    assert.equal((await second).rollouts[0].steps.length, 10_000);
    // Another owner's load is not touched.
    const [a, b] = await Promise.all([loadRolloutFile(big(), { supersede: {} }), loadRolloutFile(big(), { supersede: {} })]);
    assert.equal(a.rollouts.length + b.rollouts.length, 2);
  });
});
