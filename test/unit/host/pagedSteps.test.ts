/**
 * Paged rollouts (issue 15 goal 5, issue 18 item 3): src/shared/pagedSteps.ts (the compact column
 * and its placeholder steps), StepSlices going paged for a rollout of many steps (src/host/stepSlices.ts),
 * webview/stepStore.ts loading every step of a paged rollout, and applyHostMessage expanding the
 * column (webview/timeline/hostMessages.ts), over the real SWE-agent sample repeated to 10,000 steps.
 */
import * as assert from 'node:assert/strict';
import { loadFile, type LoadedFile } from '../../../src/core/load';
import { makeStep, type Rollout } from '../../../src/core/model';
import { rolloutMessage } from '../../../src/host/rolloutMessage';
import { LoadedSource } from '../../../src/host/rolloutSource';
import { StepSlices } from '../../../src/host/stepSlices';
import { estimateBodyHeight } from '../../../src/shared/cardHeight';
import { expandPaged, HEIGHT_UNIT, PAGED_MIN_STEPS, pagedColumn, pagedHeight, pagedRole, stepTotals } from '../../../src/shared/pagedSteps';
import { isHostMessage, type LoadStepsMessage, type RolloutMessage } from '../../../src/shared/protocol';
import { answerStepSlice } from '../../../src/shared/stepHeads';
import { CHUNK_STEPS, StepStore } from '../../../webview/stepStore';
import { applyHostMessage } from '../../../webview/timeline/hostMessages';
import { createState, rolloutMsg } from '../../../webview/timeline/state';
import { sample } from '../samples';

const SWE_AGENT = 'swe-agent/v0.7_default__marshmallow-code__marshmallow-1867.traj';
const CONFIG = { collapseOutputLines: 20 };

function longRollout(r: Rollout, n: number): Rollout {
  const steps = Array.from({ length: n }, (_, i) => ({ ...r.steps[i % r.steps.length], index: i }));
  return { ...r, id: `${r.id}-x${n}`, steps };
}

describe('paged rollouts: the compact step column', () => {
  let swe: LoadedFile;
  let big: Rollout;
  let msg: RolloutMessage;

  before(async () => {
    swe = await loadFile(sample(SWE_AGENT));
    big = longRollout(swe.rollouts[0], 10_000);
    msg = rolloutMessage(new LoadedSource({ ...swe, rollouts: [big] }), 0, null, CONFIG, { slices: new StepSlices() });
  });

  it('carries every step in one character of role and one of row height, the sparse fields by index, and round-trips through expandPaged', () => {
    const steps = [
      makeStep(0, 'system', { message: 'sys' }),
      makeStep(1, 'user', { message: 'a\nb\nc', copiedContext: true }),
      makeStep(2, 'agent', { castTime: 4.5, referenceLabel: { value: -1, source: 'prm', firstError: true }, tokens: { prompt: 10, completion: 5, cached: null }, costUsd: 0.5, timestamp: '2026-01-01T00:00:10Z' }),
      makeStep(3, 'environment', { observations: [{ callId: null, output: 'x\n'.repeat(50), exitCode: 1, truncated: false }], timestamp: '2026-01-01T00:00:00Z' }),
    ];
    const r: Rollout = { ...big, steps };
    const p = pagedColumn(r, 20);
    assert.equal(p.count, 4);
    assert.equal(p.kinds.length, 4);
    assert.equal(p.heights.length, 4);
    assert.deepEqual([0, 1, 2, 3].map((i) => pagedRole(p, i)), ['system', 'user', 'agent', 'environment']);
    assert.deepEqual(p.castTimes, [[2, 4.5]]);
    assert.deepEqual(p.refs, [[2, { value: -1, source: 'prm', firstError: true }]]);
    for (const s of steps) assert.ok(Math.abs(pagedHeight(p, s.index) - estimateBodyHeight(s, [], false, 20)) <= HEIGHT_UNIT / 2, `height of step ${s.index}`);
    assert.ok(pagedHeight(p, 3) > pagedHeight(p, 0), 'a long output makes a taller row');
    assert.deepEqual(p.totals, stepTotals(steps).totals);
    assert.deepEqual(p.totals, { prompt: 10, completion: 5, cost: 0.5, hasTokens: true, hasCost: true, durationSec: 10 });
    assert.equal(p.startMs, Date.parse('2026-01-01T00:00:00Z'));
    const ph = expandPaged(p);
    assert.deepEqual(ph.map((s) => [s.index, s.role, s.copiedContext ?? false, s.castTime ?? null, s.referenceLabel?.value ?? null]), [
      [0, 'system', false, null, null],
      [1, 'user', true, null, null],
      [2, 'agent', false, 4.5, -1],
      [3, 'environment', false, null, null],
    ]);
    assert.ok(ph.every((s) => s.message === '' && s.actions.length === 0 && s.observations.length === 0), 'placeholders carry no texts');
  });

  it('a rollout of more than PAGED_MIN_STEPS steps goes without heads: a message of tens of KB that passes the guard', () => {
    assert.ok(big.steps.length > PAGED_MIN_STEPS);
    const p = msg.sliced?.paged;
    assert.ok(p, 'the 10,000-step rollout is paged');
    assert.equal(msg.rollout.steps.length, 0, 'no step heads on the wire');
    assert.equal(p.count, 10_000);
    assert.equal(msg.sliced!.cuts.length, 0);
    assert.ok(isHostMessage(msg), 'the paged message passes the webview guard');
    const chars = JSON.stringify(msg).length;
    const initial = JSON.stringify(msg.sliced!.initial).length;
    assert.ok(chars - initial < 100_000, `the message without its first full steps is ${chars - initial} characters`);
    assert.equal(msg.sliced!.initial!.steps[0].message, big.steps[0].message, 'the first chunk comes full');
    assert.equal(big.steps.length, 10_000, 'the rollout in memory is not changed');
    // The host still answers from the rollout in memory.
    const a = answerStepSlice({ type: 'loadSteps', rolloutIndex: 0, rolloutId: big.id, from: 9000, to: 9025, seq: 1 }, 0, big);
    assert.equal(a?.steps[0].index, 9000);
  });

  it('a rollout of fewer steps keeps its heads, a small one goes whole; the column follows the collapse setting', () => {
    const mid = longRollout(swe.rollouts[0], PAGED_MIN_STEPS);
    const m = rolloutMessage(new LoadedSource({ ...swe, rollouts: [mid] }), 0, null, CONFIG, { slices: new StepSlices() });
    assert.ok(m.sliced && !m.sliced.paged, 'sliced, with heads');
    assert.equal(m.rollout.steps.length, PAGED_MIN_STEPS);
    assert.equal(new StepSlices().heads(swe.rollouts[0], null, 20), null);
    const s = new StepSlices();
    const a = s.heads(big, null, 20)!.sliced.paged!;
    const b = s.heads(big, null, 3)!.sliced.paged!;
    assert.notEqual(a.heights, b.heights, 'heights of cards collapsed to 3 lines differ from 20');
    assert.equal(s.heads(big, null, 3)!.sliced.paged, b, 'cached per rollout and setting');
  });

  it('the webview expands the column and loads the full steps of the chunks it wants, every step of them', () => {
    const sent: LoadStepsMessage[] = [];
    const s = createState(null, new StepStore({ post: (m) => sent.push(m) }));
    applyHostMessage(s, msg);
    const shown = rolloutMsg(s)!;
    assert.equal(shown.rollout.steps.length, 10_000, 'placeholder steps for the views');
    assert.deepEqual(shown.rollout.steps.slice(0, 3).map((x) => x.role), big.steps.slice(0, 3).map((x) => x.role));
    const store = s.stepStore;
    assert.ok(store.sliced);
    assert.equal(store.full(0, shown.rollout.steps[0])?.message, big.steps[0].message, 'the first chunk came with the message');
    assert.equal(store.full(9000, shown.rollout.steps[9000]), null, 'a far step is still to come');
    assert.deepEqual(store.cutOf(9000), [], 'it came without a head: nothing to describe');
    assert.equal(store.heightOf(9000), pagedHeight(msg.sliced!.paged!, 9000));
    assert.equal(store.want(9000, 9010), 1);
    assert.deepEqual([sent[0].from, sent[0].to], [9000, 9000 + CHUNK_STEPS], 'every step of the chunk is asked for');
    const answer = answerStepSlice(sent[0], 0, big)!;
    applyHostMessage(s, answer);
    assert.equal(store.full(9005, shown.rollout.steps[9005])?.message, big.steps[9005].message);
    assert.equal(store.want(9000, 9010), 0, 'kept: not asked for again');
  });

  it('a live update keeps the steps before it paged and takes the update heads as they come', () => {
    const s = createState(null, new StepStore({ post: () => {} }));
    applyHostMessage(s, msg);
    const head = { ...makeStep(10_000, 'agent', { message: 'new' }) };
    const { steps: _s, ...rest } = big;
    applyHostMessage(s, { type: 'rolloutUpdate', rolloutIndex: 0, rolloutId: big.id, from: 10_000, steps: [head], rollout: rest, summaries: msg.summaries, sliced: { fullChars: 1, headChars: 1, cuts: [] }, live: { mode: 'stream', state: 'live', bytes: 1, size: 1 } });
    const shown = rolloutMsg(s)!;
    assert.equal(shown.rollout.steps.length, 10_001);
    assert.equal(shown.sliced?.paged?.count, 10_000, 'the column still stands for the steps before the update');
    assert.equal(s.stepStore.full(10_000, head), head, 'a whole head needs no request');
    assert.equal(s.stepStore.full(9999, shown.rollout.steps[9999]), null, 'a paged step still loads');
  });
});
