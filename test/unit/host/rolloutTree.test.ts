/**
 * The Rollouts view's tree (src/host/rolloutTree.ts): collections (Harbor job folders, TB1 run
 * folders) detected from real layouts, tasks, GRPO groups, sorting and filtering at every level.
 *
 * Summaries come from the real samples: Harbor trials are the ATIF golden trajectories with the
 * real trial result.json beside them (rewards rewritten in the copies) read by core `loadFile`; the
 * TB1 run and the NeMo-Gym groups are built from the rows of the real run results.json and
 * NeMo-Gym JSONL (each row's task id / outcome / reward as the file says, group indices rewritten).
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { loadFile } from '../../../src/core/load';
import {
  buildTree,
  collectionDescription,
  groupDescription,
  harborTaskKey,
  indexTree,
  jobTooltipLines,
  LABEL_FILTERS,
  multiFileDescription,
  optionsDescription,
  passState,
  placementOf,
  scoresAffectTree,
  SORT_KEYS,
  taskDescription,
  treeRollout,
  type CollectionNode,
  type Entry,
  type FileLeaf,
  type GroupNode,
  type RolloutLeaf,
  type TaskNode,
  type TreeNode,
  type TreeOptions,
  type TreeRollout,
} from '../../../src/host/rolloutTree';
import { censusFile, sample, sampleJson, tmpDir } from '../samples';
import { branchesLabel } from '../../../src/host/rolloutBranches';

const ATIF_TERMINUS = 'atif/harbor-golden_terminus2_invalid-json_ATIF-v1.5.trajectory.json';
const ATIF_OPENHANDS = 'atif/harbor-golden_openhands_hello-world_ATIF-v1.5.trajectory.json';
const TRIAL_RESULT = 'harbor-trial-result/thinharness_configure-git-webserver__YfkUhxf_result.json';
const TB1_RUN = 'tb1/run-level_goose_claude-4-sonnet/2025-08-25__12-29-38__results.json';
const NEMO_SWE = 'openai-responses/nemo-gym_mini_swe_agent_2_example_rollouts.jsonl';

/** Labels of nodes, as the view shows them (trial folder, task, group id, rollout id). */
function labelOf(n: TreeNode): string {
  switch (n.kind) {
    case 'collection':
    case 'task':
      return n.label;
    case 'group':
      return `group ${n.groupId}`;
    case 'file':
      return n.label ?? path.basename(n.path);
    case 'rollout':
      return n.label ?? n.rollout.taskId ?? `#${n.rollout.index + 1}`;
    case 'branches':
      return branchesLabel(n);
  }
}
const labels = (ns: TreeNode[]) => ns.map(labelOf);
const only = <T extends TreeNode>(ns: TreeNode[], kind: T['kind']): T => {
  assert.equal(ns.length, 1, `expected one node, got ${JSON.stringify(labels(ns))}`);
  assert.equal(ns[0].kind, kind);
  return ns[0] as T;
};
const find = <T extends TreeNode>(ns: TreeNode[], label: string): T => {
  const n = ns.find((x) => labelOf(x) === label);
  assert.ok(n, `no node "${label}" among ${JSON.stringify(labels(ns))}`);
  return n as T;
};

/**
 * A Harbor job folder built from the samples: `<job>/<trial>/agent/trajectory.json` (an ATIF golden
 * trajectory) + `<trial>/result.json` (the real TrialResult with task_name, trial_name and
 * verifier_result.rewards.reward rewritten).
 */
function harborJob(root: string, job: string, trials: { trial: string; task: string; reward: number | null; atif: string }[]): string {
  const result = sampleJson(TRIAL_RESULT);
  const dir = path.join(root, job);
  for (const t of trials) {
    fs.mkdirSync(path.join(dir, t.trial, 'agent'), { recursive: true });
    fs.copyFileSync(sample(t.atif), path.join(dir, t.trial, 'agent', 'trajectory.json'));
    const r = structuredClone(result);
    r.task_name = `terminal-bench/${t.task}`;
    r.trial_name = t.trial;
    r.verifier_result = t.reward === null ? null : { rewards: { reward: t.reward } };
    fs.writeFileSync(path.join(dir, t.trial, 'result.json'), JSON.stringify(r, null, 2));
  }
  return dir;
}

async function loadedEntry(file: string): Promise<Entry> {
  const f = await loadFile(file);
  return { path: file, state: { kind: 'loaded', format: f.format, schemaVersion: f.schemaVersion, rollouts: f.rollouts.map(treeRollout), ...(f.job ? { job: f.job } : {}) } };
}

const HARBOR_TRIALS = [
  { trial: 'hello-world__Ab3dE9x', task: 'hello-world', reward: 1, atif: ATIF_TERMINUS },
  { trial: 'hello-world__Qr7sT2u', task: 'hello-world', reward: 0, atif: ATIF_OPENHANDS },
  { trial: 'configure-git-webserver__YfkUhxf', task: 'configure-git-webserver', reward: 0.5, atif: ATIF_TERMINUS },
];

/**
 * A NeMo-Gym row moved to another GRPO group: `_ng_task_index` / `_ng_rollout_index` and `reward`
 * rewritten, and the SWE-bench eval report's `resolved` made to agree (resolved only for reward 1).
 */
function regroupNemoRow(row: any, task: number, rollout: number, reward: number): any {
  const r = structuredClone(row);
  r._ng_task_index = task;
  r._ng_rollout_index = rollout;
  r.reward = reward;
  for (const rep of Object.values<any>(r.metadata?.eval_report ?? {})) rep.resolved = reward >= 1;
  return r;
}

/** One rollout summary, as a loader would give it. */
function roll(index: number, fields: Partial<TreeRollout> = {}): TreeRollout {
  return { index, id: `r${index}`, taskId: null, steps: 1, reward: null, resolved: null, line: index + 1, groupId: null, ...fields };
}

describe('host/rolloutTree', () => {
  describe('Harbor job folders', () => {
    let root: string;
    let files: string[];
    let loaded: Entry[];
    const terminusSteps = sampleJson(ATIF_TERMINUS).steps.length;
    const openhandsSteps = sampleJson(ATIF_OPENHANDS).steps.length;

    before(async () => {
      root = tmpDir('ti-tree-');
      const job = harborJob(path.join(root, 'jobs'), '2026-08-25__03-44-04', HARBOR_TRIALS);
      files = HARBOR_TRIALS.map((t) => path.join(job, t.trial, 'agent', 'trajectory.json'));
      loaded = await Promise.all(files.map(loadedEntry));
    });

    it('shows a job folder of three real trials as one collection, grouped by task', () => {
      const c = only<CollectionNode>(buildTree(loaded), 'collection');
      assert.equal(c.layout, 'harbor-job');
      assert.equal(c.label, '2026-08-25__03-44-04');
      assert.equal(c.dir, path.join(root, 'jobs', '2026-08-25__03-44-04'));
      assert.equal(collectionDescription(c), '3 trials · 1 passed · mean reward 0.5');
      // Tasks take the task id the trials' result.json give (`task_name`), sorted by name.
      assert.deepEqual(labels(c.children), ['terminal-bench/configure-git-webserver', 'terminal-bench/hello-world']);
      const hello = find<TaskNode>(c.children, 'terminal-bench/hello-world');
      assert.equal(taskDescription(hello), '1/2 passed · mean reward 0.5');
      assert.deepEqual(labels(hello.children), ['hello-world__Ab3dE9x', 'hello-world__Qr7sT2u']);
      const [pass, fail] = hello.children as FileLeaf[];
      assert.equal(pass.role, 'trial');
      assert.equal(pass.state.kind === 'loaded' && pass.state.rollouts[0].steps, terminusSteps);
      assert.equal(pass.state.kind === 'loaded' && passState(pass.state.rollouts[0]), 'passed');
      assert.equal(fail.state.kind === 'loaded' && fail.state.rollouts[0].steps, openhandsSteps);
      assert.equal(fail.state.kind === 'loaded' && passState(fail.state.rollouts[0]), 'failed');
      const git = find<TaskNode>(c.children, 'terminal-bench/configure-git-webserver');
      // Reward 0.5: neither passed nor failed.
      assert.equal(taskDescription(git), '0/1 passed · mean reward 0.5');
      assert.equal(git.stats.unknown, 1);
    });

    it('shows the collection as soon as the files are found, with loading k/N while they are read', () => {
      const pending: Entry[] = files.map((p) => ({ path: p, state: { kind: 'pending' } }));
      const c0 = only<CollectionNode>(buildTree(pending), 'collection');
      assert.equal(collectionDescription(c0), 'loading 0/3 · 0 passed');
      // Before reading, tasks come from the trial folder names (`<task>__<id>`).
      assert.deepEqual(labels(c0.children), ['configure-git-webserver', 'hello-world']);
      assert.equal(taskDescription(c0.children[1] as TaskNode), '0/2 passed · 2 loading');
      const c2 = only<CollectionNode>(buildTree([loaded[0], loaded[1], pending[2]]), 'collection');
      assert.equal(collectionDescription(c2), 'loading 2/3 · 1 passed · mean reward 0.5');
      // Ids stay the same while loading, so VS Code keeps what the user expanded.
      assert.equal(c0.id, c2.id);
      assert.equal(c0.children[1].id, find(c2.children, 'terminal-bench/hello-world').id);
    });

    it('lists a lone trial and files elsewhere as files, as before', () => {
      const lone = path.join(root, 'elsewhere', 'hello-world__abc', 'agent', 'trajectory.json');
      const traj = path.join(root, 'notes', 'run.traj');
      const roots = buildTree([...loaded, { path: lone, state: { kind: 'pending' } }, { path: traj, state: { kind: 'error', message: 'bad' } }]);
      assert.deepEqual(roots.map((n) => n.kind), ['file', 'collection', 'file']);
      assert.equal((roots[0] as FileLeaf).role, 'file');
      assert.equal((roots[0] as FileLeaf).path, lone);
    });

    it('counts a trial folder once when both its trajectory and its result.json are found', async () => {
      const results = files.map((f) => path.join(path.dirname(path.dirname(f)), 'result.json'));
      const resultEntries = await Promise.all(results.map(loadedEntry));
      assert.ok(resultEntries.every((e) => e.state.kind === 'loaded' && e.state.format === 'harbor-trial-result'));
      const c = only<CollectionNode>(buildTree([...resultEntries, ...loaded]), 'collection');
      assert.equal(c.stats.total, 3);
      const trials = c.children.flatMap((t) => t.children) as FileLeaf[];
      assert.deepEqual(trials.map((t) => path.basename(t.path)).sort(), ['trajectory.json', 'trajectory.json', 'trajectory.json']);
      // A job folder of trials without trajectories (result.json only) is a collection too.
      assert.equal(only<CollectionNode>(buildTree(resultEntries), 'collection').stats.passed, 1);
    });

    it('sorts tasks and trials by reward, steps and outcome', () => {
      const byReward = only<CollectionNode>(buildTree(loaded, { sort: 'reward', filter: 'all' }), 'collection');
      // Mean reward 0.5 = 0.5: ties go by name.
      assert.deepEqual(labels(byReward.children), ['terminal-bench/configure-git-webserver', 'terminal-bench/hello-world']);
      assert.deepEqual(labels(find(byReward.children, 'terminal-bench/hello-world').children), ['hello-world__Ab3dE9x', 'hello-world__Qr7sT2u']);
      const byOutcome = only<CollectionNode>(buildTree(loaded, { sort: 'outcome', filter: 'all' }), 'collection');
      // Failed first: hello-world has a failure (pass rate 1/2); configure-git-webserver none judged (last).
      assert.deepEqual(labels(byOutcome.children), ['terminal-bench/hello-world', 'terminal-bench/configure-git-webserver']);
      assert.deepEqual(labels(find(byOutcome.children, 'terminal-bench/hello-world').children), ['hello-world__Qr7sT2u', 'hello-world__Ab3dE9x']);
      const bySteps = only<CollectionNode>(buildTree(loaded, { sort: 'steps', filter: 'all' }), 'collection');
      const more = openhandsSteps > terminusSteps ? 'hello-world__Qr7sT2u' : 'hello-world__Ab3dE9x';
      assert.equal(labelOf(find(bySteps.children, 'terminal-bench/hello-world').children[0]), more);
    });

    it('filters trials by outcome; the counts stay those of the whole collection', () => {
      const failed = only<CollectionNode>(buildTree(loaded, { sort: 'name', filter: 'failed' }), 'collection');
      assert.deepEqual(labels(failed.children), ['terminal-bench/hello-world']);
      assert.deepEqual(labels(failed.children[0].children), ['hello-world__Qr7sT2u']);
      assert.equal(collectionDescription(failed), '3 trials · 1 passed · mean reward 0.5');
      const passed = only<CollectionNode>(buildTree(loaded, { sort: 'name', filter: 'passed' }), 'collection');
      assert.deepEqual(labels(passed.children[0].children), ['hello-world__Ab3dE9x']);
      const unknown = only<CollectionNode>(buildTree(loaded, { sort: 'name', filter: 'unknown' }), 'collection');
      assert.deepEqual(labels(unknown.children), ['terminal-bench/configure-git-webserver']);
      // Files not read yet count as unknown outcome.
      const pendingOnly = buildTree([{ path: files[0], state: { kind: 'pending' } }, loaded[1], loaded[2]], { sort: 'name', filter: 'unknown' });
      const c = only<CollectionNode>(pendingOnly, 'collection');
      assert.deepEqual(labels(c.children), ['terminal-bench/configure-git-webserver', 'terminal-bench/hello-world']);
      assert.deepEqual(labels(c.children[1].children), ['hello-world__Ab3dE9x']);
      // Nothing left: no collection.
      assert.deepEqual(buildTree(loaded.slice(0, 1), { sort: 'name', filter: 'failed' }), []);
    });

    it('indexes every node with its parent', () => {
      const roots = buildTree(loaded);
      const idx = indexTree(roots);
      const trial = (roots[0].children[1] as TaskNode).children[0];
      assert.equal(idx.get(trial.id)?.parent?.id, roots[0].children[1].id);
      assert.equal(idx.get(roots[0].id)?.parent, null);
      assert.equal(new Set([...idx.keys()]).size, 1 + 2 + 3);
    });
  });

  describe('Terminal-Bench 1 run folders', () => {
    const run = sampleJson(TB1_RUN);
    /** The run-level results.json's trials, as the tb1-run loader summarises them (from the file's rows). */
    const runRollouts: TreeRollout[] = run.results.map((r: any, i: number) =>
      roll(i, { id: r.id, taskId: r.task_id, steps: 0, resolved: r.is_resolved ?? null, line: null, groupId: r.task_id, trialName: r.trial_name }),
    );
    const runDir = '/home/user/runs/2025-08-25__12-29-38';

    it('shows a run-level results.json as a collection of the trials it lists, by task', () => {
      const entry: Entry = { path: `${runDir}/results.json`, state: { kind: 'loaded', format: 'tb1-run', schemaVersion: null, rollouts: runRollouts } };
      const c = only<CollectionNode>(buildTree([entry]), 'collection');
      assert.equal(c.layout, 'tb1-run');
      assert.equal(c.label, '2025-08-25__12-29-38');
      assert.equal(c.stats.total, run.results.length);
      assert.equal(c.stats.passed, run.n_resolved);
      assert.equal(collectionDescription(c), `${run.results.length} trials · ${run.n_resolved} passed`);
      const first = run.results[0];
      const task = find<TaskNode>(c.children, first.task_id);
      assert.equal(taskDescription(task), `${first.is_resolved ? 1 : 0}/1 passed`);
      const leaf = only<RolloutLeaf>(task.children, 'rollout');
      assert.equal(leaf.label, first.trial_name);
      assert.equal(leaf.path, entry.path);
      // Failed first: every failed task before every passed one, unknown (is_resolved null) last.
      const byOutcome = only<CollectionNode>(buildTree([entry], { sort: 'outcome', filter: 'all' }), 'collection');
      const ranks = byOutcome.children.map((t) => ((t as TaskNode).stats.failed ? 0 : (t as TaskNode).stats.passed ? 1 : 2));
      assert.deepEqual(ranks, [...ranks].sort());
      assert.equal(ranks.filter((r) => r === 2).length, run.results.filter((r: any) => r.is_resolved === null).length);
    });

    it('groups trial folders `<run>/<task>/<task>.k-of-n.<run_id>/results.json` under their run, run results first', () => {
      const trials = run.results.slice(0, 4).map((r: any) => `${runDir}/${r.task_id}/${r.trial_name}/results.json`);
      const entries: Entry[] = [...trials, `${runDir}/results.json`].map((p) => ({ path: p, state: { kind: 'pending' } }));
      assert.deepEqual(placementOf(entries[0]), {
        kind: 'trial', family: 'tb1', dir: runDir, trial: run.results[0].trial_name, taskKey: run.results[0].task_id, primary: true,
      });
      const c = only<CollectionNode>(buildTree(entries), 'collection');
      assert.equal(c.runFile, `${runDir}/results.json`);
      assert.equal(collectionDescription(c), 'loading 0/4 · 0 passed');
      assert.equal((c.children[0] as FileLeaf).role, 'run');
      assert.deepEqual(labels(c.children.slice(1)), run.results.slice(0, 4).map((r: any) => r.task_id).sort());
      // Attempts of one task (hello-world.1-of-5 … 2-of-5) sit under the task.
      const attempts = ['hello-world.1-of-5', 'hello-world.2-of-5'].map((t) => ({ path: `/runs/r1/hello-world/${t}/results.json`, state: { kind: 'pending' as const } }));
      const c2 = only<CollectionNode>(buildTree(attempts), 'collection');
      assert.deepEqual(labels(only<TaskNode>(c2.children, 'task').children), ['hello-world.1-of-5', 'hello-world.2-of-5']);
      // A results.json no loader reads (ignored) is left out; a lone one not read yet is listed.
      assert.deepEqual(buildTree([{ path: '/w/eval/results.json', state: { kind: 'ignored' } }]), []);
      assert.equal(only<FileLeaf>(buildTree([{ path: '/w/eval/results.json', state: { kind: 'pending' } }]), 'file').role, 'file');
    });
  });

  describe('GRPO groups', () => {
    /** The NeMo-Gym rows (rewards as in the file), `_ng_task_index` rewritten so that rows 0,2,4 and 1,3 share a prompt. */
    const rows = fs.readFileSync(sample(NEMO_SWE), 'utf8').trim().split('\n').map((l) => JSON.parse(l));
    const rollouts: TreeRollout[] = rows.map((r: any, i: number) =>
      roll(i, { id: `${i % 2}:${Math.floor(i / 2)}`, taskId: r.instance_id, reward: r.reward, resolved: r.reward === 1 ? true : r.reward === 0 ? false : null, groupId: String(i % 2) }),
    );
    const file = '/home/user/rl/dumps/step_0040.jsonl';

    it('expands a file of grouped rollouts to its groups with their rewards', () => {
      assert.equal(rows.length, 5);
      const entry: Entry = { path: file, state: { kind: 'loaded', format: 'openai-responses', schemaVersion: null, rollouts } };
      const f = only<FileLeaf>(buildTree([entry]), 'file');
      assert.equal(f.groups, 2);
      assert.equal(multiFileDescription(rollouts, f.groups), `5 rollouts · 2 groups · ${rows.filter((r: any) => r.reward === 1).length} resolved · mean reward ${rows.reduce((a: number, r: any) => a + r.reward, 0) / 5}`);
      assert.deepEqual(labels(f.children), ['group 0', 'group 1']);
      const g0 = f.children[0] as GroupNode;
      const want = [0, 2, 4].map((i) => rows[i].reward);
      assert.deepEqual(g0.rewards, want);
      const mean = want.reduce((a, b) => a + b, 0) / 3;
      assert.equal(groupDescription(g0), `3 rollouts · rewards ${want.join(', ')} · mean ${Math.round(mean * 1000) / 1000}`);
      // The rollouts of a group are named by their place in it (and line), not by the task id they share (issue 21 item 3).
      assert.deepEqual(labels(g0.children), [0, 2, 4].map((i, k) => `#${k + 1} of 3 · line ${i + 1}`));
      assert.equal(new Set(labels(g0.children)).size, 3);
    });

    it('sorts and filters inside groups; rollouts without a group are listed directly', () => {
      const mixed = [...rollouts.slice(0, 4), roll(4, { taskId: 'loose', reward: 0.25, groupId: null })];
      const entry: Entry = { path: file, state: { kind: 'loaded', format: 'openai-responses', schemaVersion: null, rollouts: mixed } };
      const f = only<FileLeaf>(buildTree([entry], { sort: 'reward', filter: 'all' }), 'file');
      assert.deepEqual(f.children.map((c) => c.kind), ['group', 'group', 'rollout']);
      for (const g of f.children.slice(0, 2)) {
        const rs = g.children.map((c) => (c as RolloutLeaf).rollout.reward!);
        assert.deepEqual(rs, [...rs].sort((a, b) => b - a));
      }
      const failed = only<FileLeaf>(buildTree([entry], { sort: 'name', filter: 'failed' }), 'file');
      const leaves = failed.children.flatMap((c) => (c.kind === 'group' ? c.children : [c])) as RolloutLeaf[];
      assert.ok(leaves.length > 0);
      assert.ok(leaves.every((l) => passState(l.rollout) === 'failed'));
      // The group still describes all its rollouts.
      assert.equal((failed.children[0] as GroupNode).rewards.length, 2);
    });

    it('looks the same with and without step scores unless the score sort or the low-score filter is on (scoresAffectTree)', () => {
      // Scores that order the rollouts against their names: the score sort and the low-score filter must show them.
      const scored = rollouts.map((r, i) => ({ ...r, scores: { min: (rollouts.length - i) / 10, mean: 0.9, scored: 3 } }));
      const entry = (rs: TreeRollout[]): Entry => ({ path: file, state: { kind: 'loaded', format: 'openai-responses', schemaVersion: null, rollouts: rs } });
      const shape = (ns: TreeNode[]): unknown => ns.map((n) => [n.kind, labelOf(n), n.kind === 'group' ? groupDescription(n) : null, shape(n.children)]);
      let affected = 0;
      for (const sort of SORT_KEYS) {
        for (const labels of [null, ...LABEL_FILTERS]) {
          const o: TreeOptions = { sort, filter: 'all', refine: { labels, lowScore: 0.3 } };
          const same = JSON.stringify(shape(buildTree([entry(rollouts)], o))) === JSON.stringify(shape(buildTree([entry(scored)], o)));
          if (scoresAffectTree(o)) {
            affected++;
            // (a label filter keeps none of these unlabelled rollouts: nothing left to differ)
            if (labels === null || labels === 'lowScore') assert.equal(same, false, `${sort}/${labels}: the scores should show`);
          } else {
            assert.equal(same, true, `${sort}/${labels}: the tree changed with scores although scoresAffectTree is false`);
          }
        }
      }
      assert.equal(affected, LABEL_FILTERS.length + 1 + SORT_KEYS.length - 1);
    });

    it('lists many rewards shortly', () => {
      const g = { rewards: [1, 0, 0.5, 0.33333, null, 1, 1, 1, 0, 0], stats: { meanReward: 0.5 } as GroupNode['stats'] };
      assert.equal(groupDescription(g, 4), '10 rollouts · rewards 1, 0, 0.5, 0.333, … · mean 0.5');
    });
  });

  describe('with the real Terminal-Bench 1 and NeMo-Gym loaders', () => {
    /** Copies a sample folder (files only; the samples are read-only, the copies are not). */
    function copyTree(src: string, dst: string): void {
      fs.mkdirSync(dst, { recursive: true });
      for (const e of fs.readdirSync(src, { withFileTypes: true })) {
        if (e.isDirectory()) copyTree(path.join(src, e.name), path.join(dst, e.name));
        else fs.writeFileSync(path.join(dst, e.name), fs.readFileSync(path.join(src, e.name)));
      }
    }

    it('reads a TB1 run folder: run results.json + a trial folder, merged by trial name', async () => {
      const run = sampleJson(TB1_RUN);
      const runDir = path.join(tmpDir('ti-tree-tb1-'), 'runs', '2025-08-25__12-29-38');
      fs.mkdirSync(runDir, { recursive: true });
      fs.copyFileSync(sample(TB1_RUN), path.join(runDir, 'results.json'));
      // The real orchestrator hello-world trial folder, placed as this run's hello-world trial
      // (trial_name rewritten to the one the run's results.json lists).
      const hello = run.results.find((r: any) => r.task_id === 'hello-world');
      const trialDir = path.join(runDir, 'hello-world', hello.trial_name);
      copyTree(sample('tb1/orchestrator_hello-world.1-of-5'), trialDir);
      const tr = JSON.parse(fs.readFileSync(path.join(trialDir, 'results.json'), 'utf8'));
      tr.trial_name = hello.trial_name;
      fs.writeFileSync(path.join(trialDir, 'results.json'), JSON.stringify(tr, null, 2));

      const runEntry = await loadedEntry(path.join(runDir, 'results.json'));
      const trialEntry = await loadedEntry(path.join(trialDir, 'results.json'));
      assert.equal(runEntry.state.kind === 'loaded' && runEntry.state.format, 'tb1-run');
      assert.equal(trialEntry.state.kind === 'loaded' && trialEntry.state.format, 'tb1-trial');

      // The run file alone: a collection of the 80 trials it lists.
      const alone = only<CollectionNode>(buildTree([runEntry]), 'collection');
      assert.equal(alone.layout, 'tb1-run');
      assert.equal(collectionDescription(alone), `${run.results.length} trials · ${run.n_resolved} passed`);
      assert.equal(labelOf(find<TaskNode>(alone.children, 'hello-world').children[0]), hello.trial_name);

      // With the trial folder: still 80 trials (the folder replaces the run's row), run results first.
      const both = only<CollectionNode>(buildTree([runEntry, trialEntry]), 'collection');
      assert.equal(both.stats.total, run.results.length);
      assert.equal(both.stats.passed, run.results.filter((r: any) => r.task_id !== 'hello-world' && r.is_resolved).length + (tr.is_resolved ? 1 : 0));
      assert.equal((both.children[0] as FileLeaf).role, 'run');
      const trial = only<FileLeaf>(find<TaskNode>(both.children, 'hello-world').children, 'file');
      assert.equal(trial.role, 'trial');
      assert.equal(trial.path, trialEntry.path);
      const steps = fs.readFileSync(path.join(trialDir, 'commands.txt'), 'utf8').trim().split('\n').length;
      assert.equal(trial.state.kind === 'loaded' && trial.state.rollouts[0].steps, steps);
    });

    it('reads a NeMo-Gym dump with several groups (task / rollout indices and rewards rewritten)', async () => {
      const rows = fs.readFileSync(sample(NEMO_SWE), 'utf8').trim().split('\n').map((l) => JSON.parse(l));
      const rewards = [1, 0, 0.5, 1, 0];
      const text = rows.map((r: any, i: number) => JSON.stringify(regroupNemoRow(r, i % 2, Math.floor(i / 2), rewards[i]))).join('\n');
      const file = path.join(tmpDir('ti-tree-rl-'), 'rollouts_step_0040.jsonl');
      fs.writeFileSync(file, `${text}\n`);
      const entry = await loadedEntry(file);
      assert.equal(entry.state.kind === 'loaded' && entry.state.format, 'openai-responses');
      const f = only<FileLeaf>(buildTree([entry]), 'file');
      assert.equal(f.groups, 2);
      const groups = f.children as GroupNode[];
      assert.deepEqual(groups.map((g) => g.kind), ['group', 'group']);
      assert.deepEqual(groups.map((g) => g.rewards), [[1, 0.5, 0], [0, 1]]);
      assert.deepEqual(groups.map((g) => groupDescription(g)), ['3 rollouts · rewards 1, 0.5, 0 · mean 0.5', '2 rollouts · rewards 0, 1 · mean 0.5']);
      // The SWE-bench eval report says resolved only for reward 1: filter "failed" keeps the others.
      const failed = only<FileLeaf>(buildTree([entry], { sort: 'name', filter: 'failed' }), 'file');
      const kept = failed.children.flatMap((g) => g.children) as RolloutLeaf[];
      assert.deepEqual(kept.map((l) => l.rollout.reward).sort(), [0, 0, 0.5]);
    });
  });

  describe('a Harbor job result heading its collection', () => {
    const CENSUS_JOB = 'harbor-job/2026-09-30__08-59-24/result.json';
    const NAMED = 'check-brickmake-rule-semantics-r__xwL2kAp';

    it('alone (no trial folder here): a collection of the trial it names, with the job\'s stats', async () => {
      const dir = path.join(tmpDir('ti-tree-job-'), '2026-09-30__08-59-24');
      fs.mkdirSync(dir);
      fs.copyFileSync(censusFile(CENSUS_JOB), path.join(dir, 'result.json'));
      const c = only<CollectionNode>(buildTree([await loadedEntry(path.join(dir, 'result.json'))]), 'collection');
      assert.equal(c.layout, 'harbor-job');
      assert.equal(c.runFile, path.join(dir, 'result.json'));
      assert.equal(collectionDescription(c), '1 trial · 0 passed · mean reward 0.0 · 1 errored');
      assert.deepEqual(c.job?.disagreements, []);
      // First the job result itself, then the task of the trial it names (from the trial name; task unknown).
      assert.deepEqual(labels(c.children), ['result.json', 'check-brickmake-rule-semantics-r']);
      const leaf = only<RolloutLeaf>(c.children[1].children, 'rollout');
      assert.equal(leaf.label, NAMED);
      assert.deepEqual([leaf.rollout.reward, leaf.rollout.exception, leaf.rollout.format, leaf.rollout.steps], [0, 'NonZeroAgentExitCodeError', 'harbor-job', 0]);
      assert.deepEqual(jobTooltipLines(c.job!), [
        '1 trial: 1 completed, 1 errored, 0 running, 0 pending, 0 cancelled, 0 retries',
        '2026-09-30T08:59:24.872242 → 2026-09-30T09:01:35.948886',
        'claude-code__gpt-5.6__adhoc: mean 0',
        '  reward 0: 1 trial',
        '  NonZeroAgentExitCodeError: 1 trial',
        '0 trial folders here',
      ]);
    });

    it('with trial folders: the job result first, trials found read from their folders, and what each says where they disagree', async () => {
      const root = tmpDir('ti-tree-job-');
      // Trials hello-world__Ab3dE9x (reward 1), hello-world__Qr7sT2u (0), configure-git-webserver__YfkUhxf (0.5).
      const dir = harborJob(root, 'job-x', HARBOR_TRIALS);
      // The census job result with its trial names and counts rewritten to name these trials: it
      // says configure-git-webserver__YfkUhxf got 0 (its own result says 0.5) and raised an exception.
      const job = JSON.parse(fs.readFileSync(censusFile(CENSUS_JOB), 'utf8'));
      const ev = job.stats.evals['claude-code__gpt-5.6__adhoc'];
      ev.reward_stats.reward = { '1.0': ['hello-world__Ab3dE9x'], '0.0': ['hello-world__Qr7sT2u', 'configure-git-webserver__YfkUhxf'] };
      ev.exception_stats = { AgentTimeoutError: ['configure-git-webserver__YfkUhxf'] };
      ev.pass_at_k = { '1': 0.3333333 };
      job.n_total_trials = 3;
      job.stats.n_retries = 1;
      fs.writeFileSync(path.join(dir, 'result.json'), JSON.stringify(job, null, 4));
      const entries: Entry[] = [];
      for (const t of HARBOR_TRIALS) entries.push(await loadedEntry(path.join(dir, t.trial, 'agent', 'trajectory.json')));
      // While the job result is not read yet it already heads the collection (it sits beside trial folders).
      const pending = only<CollectionNode>(buildTree([...entries, { path: path.join(dir, 'result.json'), state: { kind: 'pending' } }]), 'collection');
      assert.equal(labelOf(pending.children[0]), 'result.json');
      entries.push(await loadedEntry(path.join(dir, 'result.json')));
      const c = only<CollectionNode>(buildTree(entries), 'collection');
      assert.equal(collectionDescription(c), '3 trials · 1 passed · mean reward 0.5 · 1 errored · 1 retry · pass@1 0.333 · job result differs');
      assert.deepEqual(labels(c.children), ['result.json', 'terminal-bench/configure-git-webserver', 'terminal-bench/hello-world']);
      const trial = find<FileLeaf>(find<TaskNode>(c.children, 'terminal-bench/configure-git-webserver').children, 'configure-git-webserver__YfkUhxf');
      assert.deepEqual(trial.disagreements, [
        { trial: 'configure-git-webserver__YfkUhxf', what: 'reward', job: 'reward 0', found: 'reward 0.5' },
        { trial: 'configure-git-webserver__YfkUhxf', what: 'exception', job: 'AgentTimeoutError', found: 'no exception' },
      ]);
      // The other two agree with the job result.
      for (const t of ['hello-world__Ab3dE9x', 'hello-world__Qr7sT2u']) assert.equal(find<FileLeaf>(find<TaskNode>(c.children, 'terminal-bench/hello-world').children, t).disagreements, undefined);
      assert.deepEqual(c.job?.disagreements.map((d) => d.trial), ['configure-git-webserver__YfkUhxf', 'configure-git-webserver__YfkUhxf', null]);
      assert.equal(jobTooltipLines(c.job!).at(-1), 'job: the job result says 1 errored, the folder has 0 with an exception');
    });

    it('places a retried trial\'s final attempt (attempts/<NNN>/) under its trial', () => {
      const p = placementOf({ path: '/jobs/j/hello-world__AbC/attempts/001/agent/trajectory.json', state: { kind: 'pending' } });
      assert.deepEqual(p, { kind: 'trial', family: 'harbor', dir: '/jobs/j', trial: 'hello-world__AbC', taskKey: 'hello-world', primary: true });
    });
  });

  describe('outcome, names and options', () => {
    it('takes pass / fail from resolved, else from a reward of 1 or 0, else unknown', () => {
      assert.equal(passState({ resolved: true, reward: 0 }), 'passed');
      assert.equal(passState({ resolved: false, reward: 1 }), 'failed');
      assert.equal(passState({ resolved: null, reward: 1 }), 'passed');
      assert.equal(passState({ resolved: null, reward: 0 }), 'failed');
      assert.equal(passState({ resolved: null, reward: 0.5 }), 'unknown');
      assert.equal(passState({ resolved: null, reward: null }), 'unknown');
    });

    it('reads the task of a Harbor trial folder, SWE-bench ids included', () => {
      assert.equal(harborTaskKey('configure-git-webserver__YfkUhxf'), 'configure-git-webserver');
      assert.equal(harborTaskKey('django__django-10973__AbCdEfG'), 'django__django-10973');
      assert.equal(harborTaskKey('plain'), 'plain');
    });

    it('describes the options when they are not the defaults', () => {
      assert.equal(optionsDescription({ sort: 'name', filter: 'all' }), undefined);
      assert.equal(optionsDescription({ sort: 'reward', filter: 'failed' }), 'failed · by reward');
      assert.equal(optionsDescription({ sort: 'name', filter: 'unknown' }), 'unknown outcome');
    });

    it('builds a job of 2000 trials quickly', () => {
      const entries: Entry[] = [];
      for (let i = 0; i < 2000; i++) {
        const trial = `task-${i % 400}__${String(i).padStart(7, 'x')}`;
        const state: Entry['state'] = i % 3 === 0 ? { kind: 'pending' } : { kind: 'loaded', format: 'atif', schemaVersion: null, rollouts: [roll(0, { reward: i % 2, steps: i % 50 })] };
        entries.push({ path: `/jobs/big/${trial}/agent/trajectory.json`, state });
      }
      const t0 = Date.now();
      const c = only<CollectionNode>(buildTree(entries, { sort: 'reward', filter: 'all' }), 'collection');
      assert.ok(Date.now() - t0 < 1000, `took ${Date.now() - t0} ms`);
      assert.equal(c.children.length, 400);
      assert.match(collectionDescription(c), /^loading 1333\/2000 · /);
    });
  });
});
