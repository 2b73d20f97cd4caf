/**
 * The Rollouts view's added filters and sorts (issue 8): reward / length ranges, format, task text,
 * label state (has a bad step, unlabelled, labelled) and score state, on summaries of real samples;
 * label state from the data's reference labels and from a real label journal.
 */
import * as assert from 'node:assert/strict';
import * as path from 'node:path';
import { openLabelStore } from '../../../src/core/labels/journal';
import { loadFile } from '../../../src/core/load';
import {
  buildTree,
  labelState,
  optionsDescription,
  parseRange,
  rolloutFilterFromText,
  rolloutRefined,
  scoreState,
  treeRollout,
  type Entry,
  type RolloutLeaf,
  type TreeNode,
  type TreeOptions,
} from '../../../src/host/rolloutTree';
import { parseSearchText } from '../../../src/core/search/queryText';
import { sample, tmpDir } from '../samples';

const FILES = [
  'swe-agent/v0.7_default__marshmallow-code__marshmallow-1867.traj',
  'mini-swe-agent/harbor-rfc_mini-swe-agent-trajectory.json',
  'atif/harbor-golden_openhands_hello-world_ATIF-v1.5.trajectory.json',
  'openai-responses/nemo-gym_mini_swe_agent_2_example_rollouts.jsonl',
  'process-labels/agentprocessbench_hotpotqa_subset_lines_1-46-51-52-94-99.jsonl',
];

async function entries(): Promise<Entry[]> {
  const out: Entry[] = [];
  for (const rel of FILES) {
    const f = await loadFile(sample(rel));
    out.push({ path: f.path, state: { kind: 'loaded', format: f.format, schemaVersion: f.schemaVersion, rollouts: f.rollouts.map(treeRollout) } });
  }
  return out;
}

/** Every rollout left in the tree: `file#index`. */
function kept(nodes: TreeNode[]): string[] {
  const out: string[] = [];
  const walk = (n: TreeNode): void => {
    if (n.kind === 'rollout') out.push(`${path.basename(n.path)}#${(n as RolloutLeaf).rollout.index}`);
    else if (n.kind === 'file' && n.children.length === 0 && n.state.kind === 'loaded') out.push(`${path.basename(n.path)}#${n.state.rollouts[0].index}`);
    n.children.forEach(walk);
  };
  nodes.forEach(walk);
  return out.sort();
}

const opts = (o: Partial<TreeOptions>): TreeOptions => ({ sort: 'name', filter: 'all', ...o });

describe('Rollouts view: filters and sorts on real samples', () => {
  it('filters by reward range, step count, format and task text', async () => {
    const es = await entries();
    const all = kept(buildTree(es));
    assert.equal(all.length, 1 + 1 + 1 + 5 + 6);
    const nemo = await loadFile(sample(FILES[3]));
    const rewarded = kept(buildTree(es, opts({ refine: { minReward: 1 } })));
    assert.deepEqual(rewarded, nemo.rollouts.map((r, i) => ({ r, i })).filter(({ r }) => (r.outcome.reward ?? -1) >= 1).map(({ i }) => `${path.basename(nemo.path)}#${i}`));
    const long = kept(buildTree(es, opts({ refine: { minSteps: 16 } })));
    for (const k of long) assert.ok(!k.startsWith('harbor-rfc_mini'), k);
    assert.ok(long.includes('v0.7_default__marshmallow-code__marshmallow-1867.traj#0'));
    assert.deepEqual(kept(buildTree(es, opts({ refine: { formats: ['swe-agent', 'mini-swe-agent'] } }))), [
      'harbor-rfc_mini-swe-agent-trajectory.json#0',
      'v0.7_default__marshmallow-code__marshmallow-1867.traj#0',
    ]);
    const marsh = kept(buildTree(es, opts({ refine: { task: 'MARSHMALLOW' } })));
    assert.deepEqual(marsh, ['v0.7_default__marshmallow-code__marshmallow-1867.traj#0']);
    // A file that is not read yet is hidden by any refinement.
    assert.equal(kept(buildTree([...es, { path: '/x/pending.traj', state: { kind: 'pending' } }], opts({ refine: { task: 'marshmallow' } }))).length, 1);
  });

  it('"has a bad step" keeps rollouts with a −1 reference label or a −1 from an annotator; "unlabelled" the rest', async () => {
    const apb = await loadFile(sample(FILES[4]));
    const withBadRef = apb.rollouts.filter((r) => r.steps.some((s) => s.referenceLabel?.value === -1)).map((r) => r.id);
    assert.ok(withBadRef.length > 0 && withBadRef.length < apb.rollouts.length, 'the sample mixes rollouts with and without bad steps');
    const es = await entries();
    const bad = buildTree(es, opts({ refine: { labels: 'badStep' } }));
    const badIds = new Set(kept(bad));
    assert.equal(badIds.size, withBadRef.length);

    // A person labels step 2 of the SWE-agent rollout −1 in a real journal: it joins "has a bad step" and leaves "unlabelled".
    const swe = await loadFile(sample(FILES[0]));
    const store = await openLabelStore(path.join(tmpDir(), 'swe.labels.jsonl'), { annotator: 'ann', rollouts: swe.rollouts });
    await store.apply([{ rolloutId: swe.rollouts[0].id, stepIndex: 2, value: -1 }]);
    const st = labelState(swe.rollouts[0], store.current());
    assert.deepEqual(st, { bad: 1, labelled: 1 });
    const es2 = es.map((e) => (e.path === swe.path && e.state.kind === 'loaded' ? { ...e, state: { ...e.state, rollouts: [{ ...e.state.rollouts[0], labels: st }] } } : e));
    assert.ok(kept(buildTree(es2, opts({ refine: { labels: 'badStep' } }))).includes('v0.7_default__marshmallow-code__marshmallow-1867.traj#0'));
    assert.ok(!kept(buildTree(es2, opts({ refine: { labels: 'unlabelled' } }))).includes('v0.7_default__marshmallow-code__marshmallow-1867.traj#0'));
    assert.deepEqual(kept(buildTree(es2, opts({ refine: { labels: 'labelled' } }))), ['v0.7_default__marshmallow-code__marshmallow-1867.traj#0']);
    // Sort by bad steps: the most bad steps first.
    const sorted = buildTree(es2, opts({ sort: 'badSteps' }));
    assert.equal(path.basename((sorted[0] as { path: string }).path), path.basename(FILES[4]));
  });

  it('score state: filter "has a low-scored step" and sort by lowest score, when scores are given', async () => {
    const es = await entries();
    const e0 = es[0];
    assert.ok(e0.state.kind === 'loaded');
    const scored = { ...e0.state.rollouts[0], scores: scoreState([{ value: 0.9 }, { value: 0.2 }]) };
    assert.deepEqual(scored.scores, { min: 0.2, mean: 0.55, scored: 2 });
    assert.equal(rolloutRefined(scored, { labels: 'lowScore' }), true);
    assert.equal(rolloutRefined(scored, { labels: 'lowScore', lowScore: 0.1 }), false);
    assert.equal(rolloutRefined(e0.state.rollouts[0], { labels: 'lowScore' }), false, 'unscored rollouts have no low score');
    const es2 = [{ ...e0, state: { ...e0.state, rollouts: [scored] } }, ...es.slice(1)];
    assert.equal((buildTree(es2, opts({ sort: 'score' }))[0] as { path: string }).path, e0.path);
  });

  it('sorts by format and task', async () => {
    const es = await entries();
    const byFormat = buildTree(es, opts({ sort: 'format' })).map((n) => (n.kind === 'file' && n.state.kind === 'loaded' ? n.state.format : '?'));
    assert.deepEqual(byFormat, [...byFormat].sort((a, b) => a.localeCompare(b)));
  });

  it('parses typed ranges and describes the options', () => {
    assert.deepEqual(parseRange('0.5'), { min: 0.5, max: null });
    assert.deepEqual(parseRange('0.2-0.8'), { min: 0.2, max: 0.8 });
    assert.deepEqual(parseRange('10..40'), { min: 10, max: 40 });
    assert.deepEqual(parseRange('<= 3'), { min: null, max: 3 });
    assert.deepEqual(parseRange('>2'), { min: 2, max: null });
    assert.deepEqual(parseRange(''), { min: null, max: null });
    assert.equal(parseRange('abc'), null);
    assert.equal(
      optionsDescription({ sort: 'steps', filter: 'failed', refine: { minReward: 0.5, minSteps: 10, maxSteps: 40, formats: ['atif'], task: 'git', labels: 'badStep' } }),
      'failed · reward ≥ 0.5 · 10–40 steps · atif · task "git" · has a bad step · by steps',
    );
  });
});

describe('Rollouts filter box: the search syntax (issue 21 item 9)', () => {
  it('reads reward>=0.5, outcome: and task words with the parser of Search Rollouts…', async () => {
    assert.deepEqual(rolloutFilterFromText('reward>=0.5'), { filter: null, refine: { minReward: 0.5 } });
    assert.deepEqual(rolloutFilterFromText('outcome:failed reward<0.2 django'), { filter: 'failed', refine: { maxReward: 0.2, task: 'django' } });
    assert.equal(rolloutFilterFromText('  '), null);
    // The same words mean the same in Search Rollouts….
    const q = parseSearchText('x outcome:failed reward<0.2');
    assert.equal(q.outcome, 'failed');
    assert.equal(q.maxReward, 0.2);
    assert.throws(() => rolloutFilterFromText('outcome:maybe'), /outcomes are passed, failed, unknown/);
    assert.throws(() => rolloutFilterFromText('in:command ls'), /Search Rollouts/);
  });

  it('a reward>=0.5 typed in the box keeps only the real rollouts rewarded at least 0.5', async () => {
    const f = sample('openai-responses/nemo-gym_mini_swe_agent_2_example_rollouts.jsonl');
    const rs = (await loadFile(f)).rollouts.map((r, i) => treeRollout(r, i));
    const withReward = rs.filter((r) => r.reward !== null);
    assert.ok(withReward.length > 0);
    const q = rolloutFilterFromText('reward>=0.5')!;
    const kept = rs.filter((r) => rolloutRefined(r, q.refine));
    assert.deepEqual(kept.map((r) => r.index), withReward.filter((r) => r.reward! >= 0.5).map((r) => r.index));
  });
});

describe('Search Rollouts view: its initial size (issue 21 item 9)', () => {
  it('the results pane gets as much of the side bar as the Rollouts view at the default layout', async () => {
    const pkg = JSON.parse(await (await import('node:fs/promises')).readFile(path.join(__dirname, '../../../package.json'), 'utf8'));
    const views: { id: string; initialSize?: number }[] = pkg.contributes.views.trajectoryInspector;
    const size = (id: string) => views.find((v) => v.id === id)?.initialSize;
    assert.ok(size('trajectoryInspector.search'), 'the search view declares an initial size');
    assert.ok(size('trajectoryInspector.search')! >= size('trajectoryInspector.rollouts')!);
    assert.ok(size('trajectoryInspector.sessions')! < size('trajectoryInspector.search')!);
  });
});
