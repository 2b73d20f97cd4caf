/**
 * A big ATIF opened the way the timeline panel opens it (src/host/timeline/readSource.ts
 * readTimelineSource, a small `steppedMinBytes` so a generated file of a few thousand steps is
 * "big"): it is read by windows (SteppedRolloutSource), its message is paged with the header's
 * warnings, far steps come back as the whole load has them, the rollout says it is read by windows
 * (pagedRollout.ts: what scores, replay and Go to Step read), and a label can be set on a far step
 * through the label session the panel opens (only the labelled steps held).
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { writeBigAtif } from '../../../bench/genHuge';
import { stepHash } from '../../../src/core/labels/stepHash';
import { loadFile } from '../../../src/core/load';
import type { Rollout } from '../../../src/core/model';
import { LabelSession } from '../../../src/host/labelSession';
import { stepCount, stepsByWindows } from '../../../src/host/pagedRollout';
import { inThreadFiles } from '../../../src/host/rolloutFiles';
import { LoadedSource } from '../../../src/host/rolloutSource';
import { SteppedRolloutSource } from '../../../src/host/steppedSource';
import { openStepped, readTimelineSource, STEPPED_MIN_BYTES, steppedMinBytes } from '../../../src/host/timeline/readSource';
import { STREAM_MIN_BYTES } from '../../../src/cli/showStream';
import { isHostMessage, MAX_SLICE_STEPS } from '../../../src/shared/protocol';

const N = 3_000;
const CONFIG = { collapseOutputLines: 20 };

describe('timeline: a big ATIF opened by windows of steps (readTimelineSource)', () => {
  let dir: string;
  let file: string;
  let whole: Rollout;
  let source: SteppedRolloutSource;

  before(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ti-stepped-tl-'));
    file = path.join(dir, 'trajectory.json');
    writeBigAtif(file, N);
    whole = (await loadFile(file)).rollouts[0];
    const r = await readTimelineSource(file, { files: inThreadFiles(), show: 0, steppedMinBytes: 1024 });
    assert.equal(r.error, null);
    assert.ok(r.source instanceof SteppedRolloutSource, 'read by windows at or over the threshold');
    source = r.source;
  });
  after(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('uses the CLI streaming threshold by default, and reads a file under the threshold whole', async () => {
    assert.equal(STEPPED_MIN_BYTES, STREAM_MIN_BYTES);
    const before = process.env.TRAJECTORY_INSPECTOR_STREAM_MIN_BYTES;
    delete process.env.TRAJECTORY_INSPECTOR_STREAM_MIN_BYTES;
    try {
      assert.equal(steppedMinBytes(), STEPPED_MIN_BYTES);
      process.env.TRAJECTORY_INSPECTOR_STREAM_MIN_BYTES = '4096';
      assert.equal(steppedMinBytes(), 4096);
    } finally {
      if (before === undefined) delete process.env.TRAJECTORY_INSPECTOR_STREAM_MIN_BYTES;
      else process.env.TRAJECTORY_INSPECTOR_STREAM_MIN_BYTES = before;
    }
    const size = fs.statSync(file).size;
    assert.equal(await openStepped(file, size + 1), null, 'one byte under the threshold: not by windows');
    assert.ok(await openStepped(file, size), 'at the threshold: by windows');
    const small = await readTimelineSource(file, { files: inThreadFiles(), show: 0, steppedMinBytes: size + 1 });
    assert.ok(small.source instanceof LoadedSource);
    assert.equal(small.source.file.rollouts[0].steps.length, N);
    // Not an ATIF object (a JSON array here): read the usual way, which says what is wrong.
    const other = path.join(dir, 'rows.json');
    fs.writeFileSync(other, '[' + 'null,'.repeat(500) + 'null]');
    assert.equal(await openStepped(other, 1), null);
  });

  it('holds the rollout without steps, marked with its step count', () => {
    const r = source.file.rollouts[0];
    assert.equal(source.count, 1);
    assert.equal(r.steps.length, 0);
    assert.equal(stepsByWindows(r), N);
    assert.equal(stepCount(r), N);
    assert.equal(stepsByWindows(whole), null);
    assert.equal(stepCount(whole), N);
    assert.equal(source.summaries([0])[0].steps, N);
    assert.equal(source.readNow(0), r);
  });

  it('posts a paged message with the header warnings, the far step revealed full', async () => {
    const m = await source.message(N - 2, CONFIG);
    assert.ok(isHostMessage(m));
    assert.equal(m.rollout.steps.length, 0);
    assert.equal(m.sliced?.paged?.count, N);
    assert.equal(m.revealStep, N - 2);
    assert.deepEqual(m.sliced!.initial!.steps.find((s) => s.index === N - 2), whole.steps[N - 2]);
    assert.ok(m.fileIssues?.some((x) => x.severity === 'warning' && /read from the file by windows/.test(x.formatted) && /scores/.test(x.formatted)), 'the header says what is off');
    assert.equal(m.rollout.metadata['trajectoryInspector.stepsByWindows'], undefined, 'the marker is not sent to the webview');
  });

  it('gives steps back as the whole load has them (a far window, the last step)', async () => {
    assert.deepEqual(await source.step(N - 1), whole.steps[N - 1]);
    assert.deepEqual(await source.step(0), whole.steps[0]);
    assert.equal(await source.step(N), null);
    assert.equal(await source.step(-1), null);
    const a = await source.stepped.answer({ type: 'loadSteps', rolloutIndex: 0, rolloutId: whole.id, from: N - MAX_SLICE_STEPS, to: N, seq: 4 });
    assert.deepEqual(a?.steps, whole.steps.slice(a!.from, a!.from + a!.steps.length));
    assert.equal(a!.steps.at(-1)!.index, N - 1 - (MAX_SLICE_STEPS - a!.steps.length));
  });

  it('sets a label on a far step through the label session, holding only that step', async () => {
    const journal = path.join(dir, '.trajectory-labels', 'labels.jsonl');
    const s = await LabelSession.open(journal, 'tester', [source.labelRollout]);
    const far = N - 5;
    assert.equal(await source.keepForLabels([far]), true, 'the step is read for its hash');
    assert.equal(await source.keepForLabels([far]), false, 'read once');
    s.setRollouts([source.labelRollout]);
    await s.run({ kind: 'apply', changes: [{ rolloutId: whole.id, stepIndex: far, value: -1, note: 'wrong file' }] });
    assert.equal(s.error, null);
    const l = s.message(0, whole.id, null).labels.find((x) => x.stepIndex === far);
    assert.ok(l, 'the label is there');
    assert.equal(l.value, -1);
    assert.equal(l.stale, false);
    assert.equal(Object.keys(source.labelRollout.steps).length, 1, 'only the labelled step is in memory');
    // Written with the hash of the step as the file has it.
    const line = JSON.parse(fs.readFileSync(journal, 'utf8').trim().split('\n').at(-1)!) as { stepHash: string };
    assert.equal(line.stepHash, stepHash(whole.steps[far]));
    // A step past the end is refused; propagating a first error over steps not in memory is refused, not half done.
    await assert.rejects(s.run({ kind: 'apply', changes: [{ rolloutId: whole.id, stepIndex: N, value: 1 }] }), RangeError);
    await assert.rejects(s.run({ kind: 'firstError', rolloutId: whole.id, stepIndex: far }), /not all its steps in memory|does not hold all its steps/);

    // Opened again (another window): the journal's labelled step is read, and its label is not stale.
    const again = await readTimelineSource(file, { files: inThreadFiles(), show: 0, steppedMinBytes: 1024 });
    assert.ok(again.source instanceof SteppedRolloutSource);
    const s2 = await LabelSession.open(journal, 'tester', [again.source.labelRollout]);
    const labelled = s2.message(0, whole.id, null).labels.flatMap((x) => (x.stepIndex === null ? [] : [x.stepIndex]));
    assert.deepEqual(labelled, [far]);
    assert.equal(await again.source.keepForLabels(labelled), true);
    s2.setRollouts([again.source.labelRollout]);
    assert.equal(s2.message(0, whole.id, null).labels.find((x) => x.stepIndex === far)?.stale, false);
  });
});
