import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { alignRollouts, stepKey, textDiff } from '../../../src/core/compare/align';
import { summarizeGroup } from '../../../src/core/compare/group';
import { loadFile } from '../../../src/core/load';
import type { Rollout } from '../../../src/core/model';
import { sample, sampleJson, tmpDir } from '../samples';

const SWE = 'swe-agent/v0.7_default__marshmallow-code__marshmallow-1867.traj';

async function load(file: string, i = 0): Promise<Rollout> {
  return (await loadFile(file)).rollouts[i];
}

/** Writes a modified copy of a JSON sample and loads it. */
async function loadCopy(rel: string, edit: (json: any) => void): Promise<Rollout> {
  const json = sampleJson(rel);
  edit(json);
  const f = path.join(tmpDir(), path.basename(rel));
  fs.writeFileSync(f, JSON.stringify(json, null, 2));
  return load(f);
}

describe('compare: alignRollouts on real samples', () => {
  const selfCases = [
    SWE,
    'swe-agent/6e44b9__sweagenttestrepo-1c2844.traj',
    'mini-swe-agent/harbor-rfc_mini-swe-agent-trajectory.json',
    'atif/harbor-golden_openhands_hello-world_ATIF-v1.5.trajectory.json',
    'openhands/harbor-rfc_openhands_trajectory.json',
  ];
  for (const rel of selfCases) {
    it(`a rollout aligned with itself is all "same" (${rel})`, async () => {
      const r = await load(sample(rel));
      assert.ok(r.steps.length > 2);
      const a = alignRollouts(r, r);
      assert.equal(a.rows.length, r.steps.length);
      assert.deepEqual(a.counts, { same: r.steps.length, changed: 0, 'only-left': 0, 'only-right': 0 });
      a.rows.forEach((row, k) => assert.deepEqual([row.left, row.right, row.status], [k, k, 'same']));
      assert.equal(a.firstDivergence, null);
      assert.equal(a.firstActionDivergence, null);
    });
  }

  it('a copy with one inserted step (a retried command) gives exactly one "only right", the rest "same"', async () => {
    const left = await load(sample(SWE));
    // Insert a second `python reproduce.py` after the first one (trajectory[5]).
    const right = await loadCopy(SWE, (j) => j.trajectory.splice(6, 0, structuredClone(j.trajectory[5])));
    assert.equal(right.steps.length, left.steps.length + 1);
    const a = alignRollouts(left, right);
    assert.deepEqual(a.counts, { same: left.steps.length, changed: 0, 'only-left': 0, 'only-right': 1 });
    const only = a.rows.filter((r) => r.status === 'only-right');
    assert.equal(only.length, 1);
    const inserted = right.steps[only[0].right!];
    assert.equal(inserted.actions[0].command?.trim(), 'python reproduce.py');
    // Everything after the insertion stays paired with its original (no shift).
    const last = a.rows[a.rows.length - 1];
    assert.deepEqual([last.left, last.right], [left.steps.length - 1, right.steps.length - 1]);
    assert.equal(a.firstDivergence?.status, 'only-right');
    assert.equal(a.firstDivergence?.right, only[0].right);
    assert.deepEqual(a.firstActionDivergence, a.firstDivergence);
  });

  it('a copy with one changed command gives exactly one "changed" row with a word diff', async () => {
    const left = await load(sample(SWE));
    const orig = sampleJson(SWE).trajectory[0].action as string;
    assert.equal(orig, 'ls -F\n');
    const right = await loadCopy(SWE, (j) => {
      j.trajectory[0].action = 'ls -la\n';
    });
    const a = alignRollouts(left, right);
    assert.deepEqual(a.counts, { same: left.steps.length - 1, changed: 1, 'only-left': 0, 'only-right': 0 });
    const ch = a.rows.find((r) => r.status === 'changed')!;
    assert.equal(ch.left, ch.right);
    assert.ok(ch.differs.includes('actions'), ch.differs.join());
    assert.equal(left.steps[ch.left!].actions[0].command, 'ls -F\n');
    const segs = ch.diffs!.command!.segments!;
    assert.ok(segs.some((s) => s.kind === 'del' && s.text.includes('F')), JSON.stringify(segs));
    assert.ok(segs.some((s) => s.kind === 'add' && s.text.includes('la')), JSON.stringify(segs));
    assert.equal(a.firstDivergence?.left, ch.left);
  });

  it('a changed output with the same command pairs as "changed" (output), not as a removed+added pair', async () => {
    const left = await load(sample(SWE));
    const right = await loadCopy(SWE, (j) => {
      j.trajectory[5].observation = 'Traceback (most recent call last):\nSomethingElse\n';
    });
    const a = alignRollouts(left, right);
    assert.equal(a.counts.changed, 1);
    assert.equal(a.counts['only-left'] + a.counts['only-right'], 0);
    const ch = a.rows.find((r) => r.status === 'changed')!;
    assert.deepEqual(ch.differs, ['output']);
    assert.ok(ch.diffs?.output?.segments?.some((s) => s.kind === 'add' && s.text.includes('SomethingElse')));
    assert.equal(a.firstActionDivergence, null, 'the actions agree throughout');
  });

  it('a deleted step shows as one "only left"', async () => {
    const left = await load(sample(SWE));
    const right = await loadCopy(SWE, (j) => j.trajectory.splice(12, 1)); // `rm reproduce.py`
    const a = alignRollouts(left, right);
    assert.deepEqual(a.counts, { same: left.steps.length - 1, changed: 0, 'only-left': 1, 'only-right': 0 });
    const row = a.rows.find((r) => r.status === 'only-left')!;
    assert.equal(left.steps[row.left!].actions[0].command?.trim(), 'rm reproduce.py');
  });

  it('two different rollouts of different tasks align without throwing, every step accounted once', async () => {
    const a = await load(sample(SWE));
    const b = await load(sample('mini-swe-agent/harbor-rfc_mini-swe-agent-trajectory.json'));
    const al = alignRollouts(a, b);
    const lefts = al.rows.map((r) => r.left).filter((x) => x !== null);
    const rights = al.rows.map((r) => r.right).filter((x) => x !== null);
    assert.deepEqual(lefts, a.steps.map((s) => s.index));
    assert.deepEqual(rights, b.steps.map((s) => s.index));
    assert.notEqual(al.firstDivergence, null);
  });

  it('stepKey ignores whitespace differences in commands', async () => {
    const r = await load(sample(SWE));
    const s = r.steps.find((x) => x.actions.length > 0)!;
    const t = { ...s, actions: s.actions.map((a) => ({ ...a, command: `  ${a.command}  \n` })) };
    assert.equal(stepKey(s), stepKey(t));
  });

  it('textDiff does not diff texts over the limit', () => {
    const d = textDiff('a'.repeat(50), 'b'.repeat(50), 10);
    assert.equal(d.segments, null);
    assert.equal(d.left.length, 10);
  });
});

describe('compare: summarizeGroup', () => {
  it('ranks a real file of rollouts by reward and reports where each first parts from the best', async () => {
    const file = await loadFile(sample('openai-responses/nemo-gym_mini_swe_agent_2_example_rollouts.jsonl'));
    const members = file.rollouts.map((rollout, index) => ({ rollout, index }));
    const g = summarizeGroup('all', members);
    assert.equal(g.members.length, file.rollouts.length);
    const best = g.members[0];
    assert.equal(best.best, true);
    const maxReward = Math.max(...file.rollouts.map((r) => r.outcome.reward ?? -Infinity));
    assert.equal(best.reward, maxReward);
    for (const m of g.members.slice(1)) {
      assert.equal(m.best, false);
      assert.ok(m.divergence, `rollout ${m.index} differs from the best`);
      assert.equal(m.same + m.changed + m.onlyHere, m.steps);
      assert.equal(m.same + m.changed + m.onlyBest, best.steps);
    }
  });

  it('a group of a rollout and its copy with one inserted step: the copy diverges at the inserted step', async () => {
    const a = await load(sample(SWE));
    const json = sampleJson(SWE);
    json.trajectory.splice(6, 0, structuredClone(json.trajectory[5]));
    const f = path.join(tmpDir(), 'copy.traj');
    fs.writeFileSync(f, JSON.stringify(json));
    const b = await load(f);
    const g = summarizeGroup('g', [
      { rollout: b, index: 1 },
      { rollout: a, index: 0 },
    ]);
    // Same (unknown) reward: fewer steps is best.
    assert.equal(g.members[0].index, 0);
    assert.equal(g.members[1].onlyHere, 1);
    assert.equal(g.members[1].divergence?.status, 'only-right');
    assert.equal(b.steps[g.members[1].divergence!.right!].actions[0].command?.trim(), 'python reproduce.py');
  });
});
