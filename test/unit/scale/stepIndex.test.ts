import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { RolloutLoadError } from '../../../src/core/errors';
import { loadFile } from '../../../src/core/load';
import { countedSteps, type Rollout } from '../../../src/core/model';
import { NotIndexableError } from '../../../src/core/scale/indexBase';
import { openSteppedRollout } from '../../../src/core/scale/stepIndex';
import { sample, sampleJson, tmpDir } from '../samples';

const SAMPLES = [
  'atif/harbor-golden_terminus2_invalid-json_ATIF-v1.5.trajectory.json',
  'atif/harbor-golden_openhands_hello-world_ATIF-v1.5.trajectory.json',
  'atif/trajectory.summarization-1-summary.json',
];
const RESULT = 'harbor-trial-result/thinharness_configure-git-webserver__YfkUhxf_result.json';

/** The rollout of a full load without what only a full load gives (steps, subagent refs collected over all steps). */
function head(r: Rollout): Rollout {
  const metadata = { ...r.metadata };
  delete metadata.subagentRefs;
  return { ...r, steps: [], metadata };
}

async function sameAsFullLoad(file: string, window = 2): Promise<void> {
  const full = (await loadFile(file)).rollouts[0];
  const lazy = await openSteppedRollout(file);
  assert.equal(lazy.count, full.steps.length);
  assert.equal(lazy.copied, full.steps.length - countedSteps(full), `${file}: steps copied from an earlier context`);
  assert.deepEqual(lazy.rollout, head(full));
  assert.deepEqual(await lazy.read(0, lazy.count), full.steps);
  const parts = [];
  for (let i = 0; i < lazy.count; i += window) parts.push(...(await lazy.read(i, window)));
  assert.deepEqual(parts, full.steps, `${file} read ${window} steps at a time`);
}

describe('scale/stepIndex: an ATIF trajectory read a window of steps at a time', () => {
  it('gives the rollout and the steps of a full load, whole or window by window, for every ATIF sample', async () => {
    for (const s of SAMPLES) await sameAsFullLoad(sample(s), 2);
  });

  it('places steps as a full load does after multi-byte text, a BOM and pretty printing; joins the trial result; links subagents', async () => {
    const dir = tmpDir();
    fs.mkdirSync(path.join(dir, 'agent'));
    fs.copyFileSync(sample(RESULT), path.join(dir, 'result.json'));
    fs.writeFileSync(path.join(dir, 'agent', 'sub.json'), '{}');
    const src = sampleJson(SAMPLES[0]);
    src.agent.name = 'agént 😀';
    src.steps[1].message = 'ünïcode 😀 before\nthe next steps';
    src.steps.push({ step_id: 99, source: 'system', message: 'handoff', observation: { results: [{ subagent_trajectory_ref: [{ session_id: 's', trajectory_path: 'sub.json' }, { trajectory_id: 'x' }] }] } });
    const file = path.join(dir, 'agent', 'trajectory.json');
    fs.writeFileSync(file, '\ufeff' + JSON.stringify(src, null, 3));
    await sameAsFullLoad(file, 3);
    const lazy = await openSteppedRollout(file);
    assert.ok(lazy.rollout.task.id, 'the trial result is joined');
    // A copied step, one that says false, and a nested key of that name are told apart.
    const copiedSrc = sampleJson(SAMPLES[1]);
    copiedSrc.steps[0].is_copied_context = true;
    copiedSrc.steps[1].is_copied_context = false;
    copiedSrc.steps[2].extra = { is_copied_context: true };
    const copiedFile = path.join(dir, 'copied.json');
    fs.writeFileSync(copiedFile, JSON.stringify(copiedSrc));
    await sameAsFullLoad(copiedFile, 2);
    assert.equal((await openSteppedRollout(copiedFile)).copied, 1);
    const last = await lazy.read(lazy.count - 1, 5);
    assert.deepEqual(last[0].links?.map((l) => l.missing), [null, 'the reference names no trajectory_path']);
  });

  it('clamps windows to the file; a step that does not conform fails its window with a located issue', async () => {
    const src = sampleJson(SAMPLES[1]);
    src.steps[3].source = 42;
    const file = path.join(tmpDir(), 'trajectory.json');
    fs.writeFileSync(file, JSON.stringify(src, null, 2));
    const lazy = await openSteppedRollout(file);
    assert.equal((await lazy.read(0, 3)).length, 3);
    assert.deepEqual(await lazy.read(lazy.count, 10), []);
    assert.equal((await lazy.read(-5, 2)).length, 2);
    const full = await loadFile(file).catch((e: unknown) => e);
    const win = await lazy.read(2, 4).catch((e: unknown) => e);
    assert.ok(full instanceof RolloutLoadError && win instanceof RolloutLoadError);
    assert.deepEqual(win.issues.map((i) => [i.line, i.column, i.pointer]), full.issues.map((i) => [i.line, i.column, i.pointer]));
  });

  it('says a file is not for it (the caller loads it whole), and names the size limit that was hit', async () => {
    const dir = tmpDir();
    const notAtif = path.join(dir, 'a.json');
    fs.writeFileSync(notAtif, '{"steps": [1]}');
    await assert.rejects(openSteppedRollout(notAtif), NotIndexableError);
    const arr = path.join(dir, 'b.json');
    fs.writeFileSync(arr, '[1, 2]');
    await assert.rejects(openSteppedRollout(arr), NotIndexableError);
    const cut = path.join(dir, 'c.json');
    fs.writeFileSync(cut, '{"schema_version": "ATIF-v1.5", "steps": [{"step_id": 1');
    await assert.rejects(openSteppedRollout(cut), NotIndexableError);
    await assert.rejects(openSteppedRollout(sample(SAMPLES[0]), undefined, { maxBytes: 100 }), (e: unknown) => e instanceof RolloutLoadError && /at most 100 bytes/.test(e.message) && /found|bytes/.test(e.issues[0].found));
  });
});
