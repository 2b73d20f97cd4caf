/**
 * Broken Harbor trials (issue 18 item 5): a folder where `agent/trajectory.json` should be, a
 * truncated or mistyped trial `result.json`, a truncated continuation, a folder that cannot be listed.
 * Each is a located warning or failure; the good trial beside them is still shown, its steps whole.
 */
import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { runBounded } from './bounded';
import type { FolderOutcome } from './harborCases';
import { sample } from '../unit/samples';

const ATIF = fs.readFileSync(sample('atif/harbor-golden_terminus2_invalid-json_ATIF-v1.5.trajectory.json'), 'utf8');
const RESULT = fs.readFileSync(sample('harbor-trial-result/thinharness_configure-git-webserver__YfkUhxf_result.json'), 'utf8');
const STEPS = (JSON.parse(ATIF) as { steps: unknown[] }).steps.length;

function put(file: string, text: string): void {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, text);
}

/** A Harbor job folder of trials, one per way of breaking it, beside one good trial. */
function makeJob(): string {
  const job = fs.mkdtempSync(path.join(os.tmpdir(), 'ti-hostile-harbor-'));
  const trial = (name: string, result: string | null, traj: string | null) => {
    if (result !== null) put(path.join(job, name, 'result.json'), result);
    if (traj !== null) put(path.join(job, name, 'agent', 'trajectory.json'), traj);
    fs.mkdirSync(path.join(job, name, 'verifier'), { recursive: true });
  };
  trial('good', RESULT, ATIF);
  // a folder where the trajectory file should be
  trial('dirtraj', RESULT, null);
  fs.mkdirSync(path.join(job, 'dirtraj', 'agent', 'trajectory.json'), { recursive: true });
  trial('truncres', RESULT.slice(0, Math.floor(RESULT.length / 2)), ATIF);
  const mistyped = JSON.parse(RESULT) as Record<string, unknown>;
  mistyped.task_name = 42;
  trial('mistyped', JSON.stringify(mistyped), ATIF);
  const first = JSON.parse(ATIF) as Record<string, unknown>;
  first.continued_trajectory_ref = 'trajectory.cont-1.json';
  trial('cont', RESULT, JSON.stringify(first));
  put(path.join(job, 'cont', 'agent', 'trajectory.cont-1.json'), ATIF.slice(0, Math.floor(ATIF.length / 3)));
  trial('locked', RESULT, ATIF);
  return job;
}

describe('hostile: broken Harbor trials are said, never a silent ok', () => {
  let job: string;
  let out: FolderOutcome;
  before(async () => {
    job = makeJob();
    const r = await runBounded<FolderOutcome>('harborCases.ts', 'loadFolder', [job, [path.join(job, 'locked')]], { timeoutMs: 60_000, maxHeapMb: 512 });
    assert.ok(r.peakHeapBytes < 400 * 2 ** 20, `peak heap ${r.peakHeapBytes}`);
    out = r.value;
  });
  after(() => fs.rmSync(job, { recursive: true, force: true }));

  it('shows the good trial whole, with its reward and task', () => {
    const good = out.rollouts.find((r) => r.path === path.join(job, 'good', 'agent', 'trajectory.json'));
    assert.ok(good, JSON.stringify(out.rollouts));
    assert.equal(good.steps, STEPS);
    assert.notEqual(good.task, null);
  });
  it('a folder named agent/trajectory.json: a located failure, and the trial is still listed from its result.json', () => {
    const at = path.join(job, 'dirtraj', 'agent', 'trajectory.json');
    assert.ok(out.failures.some((f) => f.startsWith(`${at}: `) && /a folder/.test(f)), out.failures.join('\n'));
    assert.ok(out.rollouts.some((r) => r.path === path.join(job, 'dirtraj', 'result.json')), JSON.stringify(out.rollouts));
    assert.ok(out.warnings.some((w) => w.includes(at) && /is a folder/.test(w)), out.warnings.join('\n'));
  });
  it('a truncated or mistyped result.json: the trial is shown and a warning names the file', () => {
    for (const name of ['truncres', 'mistyped']) {
      const res = path.join(job, name, 'result.json');
      assert.ok(out.rollouts.some((r) => r.path === path.join(job, name, 'agent', 'trajectory.json') && r.steps === STEPS));
      assert.ok(out.warnings.some((w) => w.includes(`trial result ${res} was not joined`)), `${name}: ${out.warnings.join('\n')}`);
    }
    assert.ok(out.warnings.some((w) => w.includes('task_name')), out.warnings.join('\n'));
  });
  it('a truncated continuation: its steps are said to be missing', () => {
    assert.ok(out.warnings.some((w) => w.includes(path.join(job, 'cont', 'agent', 'trajectory.cont-1.json')) && /could not be read/.test(w)), out.warnings.join('\n'));
  });
  it('a folder that cannot be listed is a located failure, not skipped', () => {
    assert.ok(out.failures.some((f) => f.startsWith(`${path.join(job, 'locked')}: `) && /permission denied/.test(f)), out.failures.join('\n'));
  });
});
