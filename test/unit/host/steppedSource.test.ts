/**
 * src/host/steppedSource.ts: a big ATIF read by windows of steps for the timeline gives the same
 * paged column, message and step answers as the same file loaded whole (core loadFile + StepSlices),
 * and keeps a bounded number of windows.
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { writeBigAtif } from '../../../bench/genHuge';
import { loadFile } from '../../../src/core/load';
import type { Rollout } from '../../../src/core/model';
import { rolloutMessage } from '../../../src/host/rolloutMessage';
import { LoadedSource } from '../../../src/host/rolloutSource';
import { KEPT_WINDOWS, SteppedSource } from '../../../src/host/steppedSource';
import { StepSlices } from '../../../src/host/stepSlices';
import { isHostMessage, MAX_SLICE_STEPS, type LoadStepsMessage } from '../../../src/shared/protocol';
import { answerStepSlice } from '../../../src/shared/stepHeads';

const N = 3_500;
const CONFIG = { collapseOutputLines: 20 };

describe('SteppedSource: a big ATIF for the timeline, read by windows', () => {
  let dir: string;
  let file: string;
  let whole: Rollout;
  let src: SteppedSource;

  before(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ti-stepped-'));
    file = path.join(dir, 'trajectory.json');
    writeBigAtif(file, N);
    whole = (await loadFile(file)).rollouts[0];
    src = await SteppedSource.open(file);
  });
  after(() => fs.rmSync(dir, { recursive: true, force: true }));

  const req = (from: number, to: number, seq = 1): LoadStepsMessage => ({ type: 'loadSteps', rolloutIndex: 0, rolloutId: whole.id, from, to, seq });

  it('gives the column, header and first steps of the message the whole load gives', async () => {
    assert.equal(src.count, N);
    assert.equal(whole.steps.length, N);
    const m = await src.message(null, CONFIG);
    const w = rolloutMessage(new LoadedSource({ path: file, format: whole.format, schemaVersion: whole.schemaVersion, rollouts: [whole] }), 0, null, CONFIG, { slices: new StepSlices(0) });
    assert.ok(w.sliced?.paged, 'the whole load pages a rollout of this many steps');
    assert.ok(isHostMessage(m));
    assert.equal(m.rollout.steps.length, 0);
    assert.deepEqual(m.sliced!.paged, w.sliced.paged, 'the same column, step for step');
    assert.equal(m.sliced!.fullChars, w.sliced.fullChars);
    assert.deepEqual(m.sliced!.initial, w.sliced.initial, 'the same full first chunk');
    assert.deepEqual(m.summaries, w.summaries);
    assert.deepEqual(m.file, w.file);
    const { steps: _a, ...head } = m.rollout;
    const { steps: _b, ...wholeHead } = w.rollout;
    assert.deepEqual(head, wholeHead, 'the rollout beside its steps');
    const far = await src.message(N - 3, CONFIG);
    assert.equal(far.revealStep, N - 3);
    assert.ok(far.sliced!.initial!.steps.some((s) => s.index === N - 3), 'the step to reveal comes full');
  });

  it('answers loadSteps with the steps the whole load has, across window borders, and refuses other rollouts', async () => {
    for (const [a, z] of [[0, 25], [MAX_SLICE_STEPS - 10, MAX_SLICE_STEPS + 15], [N - 7, N + 50]] as const) {
      const got = await src.answer(req(a, z));
      const want = answerStepSlice(req(a, z), 0, whole);
      assert.deepEqual(got, want, `steps ${a}…${z}`);
    }
    assert.equal(await src.answer({ ...req(0, 10), rolloutId: 'other' }), null);
    assert.equal(await src.answer(req(N, N + 5)), null);
    const cut = await src.answer(req(100, 150), 1);
    assert.equal(cut!.steps.length, 1, 'cut short after the size cap, at least one step');
  });

  it('keeps at most KEPT_WINDOWS windows of steps', async () => {
    for (let w = 0; w * MAX_SLICE_STEPS < N; w++) await src.answer(req(w * MAX_SLICE_STEPS, w * MAX_SLICE_STEPS + 5));
    assert.ok(N / MAX_SLICE_STEPS > KEPT_WINDOWS, 'the test reads more windows than are kept');
    assert.equal((src as unknown as { windows: Map<number, unknown> }).windows.size, KEPT_WINDOWS);
  });

  it('a file changed since it was indexed fails the read with a located error', async () => {
    const other = await SteppedSource.open(file);
    fs.appendFileSync(file, ' ');
    await assert.rejects(other.answer(req(3000, 3010)), /the file changed/);
  });
});
