/**
 * Pure logic of the Rollouts view's tree: which found files form a collection (a Harbor job folder,
 * a Terminal-Bench 1 run folder), how trials group by task, how rollouts of one file group by GRPO
 * `groupId`, and how every level sorts and filters. Nothing here imports `vscode` (unit-tested in
 * test/unit/host/rolloutTree.test.ts); src/host/rolloutsView.ts turns the nodes into tree items. The
 * input, option and node types are in src/host/rolloutTreeModel.ts (re-exported here).
 *
 * Collections are detected from the paths of the files found (and, once loaded, their format):
 * - Harbor job: `<job>/<task>__<id>/agent/trajectory.json` (or `<job>/<trial>/result.json` for a
 *   trial without trajectory; `<job>/<trial>/attempts/<NNN>/…` for a retried trial's final attempt)
 *   for at least two trial folders under the same `<job>`, or the job's own `result.json` (read as
 *   `harbor-job`, or not read yet but beside trial folders), which heads the collection: its stats
 *   (trials, errored, retries, pass@k, reward and exception breakdowns) and the trials it names
 *   without a folder here; where the job result and a trial's own files disagree, both are shown.
 * - Terminal-Bench 1 run: `<run>/<task>/<task>.<k>-of-<n>[.<run_id>]/results.json` for at least two
 *   trials, or a run-level `<run>/results.json` (read as `tb1-run`, or not read yet but beside
 *   trials), which alone makes a collection of the trials it lists.
 * - Other folders holding several trial folders (TB1 trial folders copied side by side).
 * Everything else is listed as a file, as before.
 */
import * as path from 'node:path';
import { evalMetricsText, jobCountsText } from '../core/formats/harborJob';
import { trialOfAttempt } from '../core/formats/harborLayout';
import type { FormatId, HarborJob } from '../core/model';
import { parseQueryWords } from '../core/search/queryText';
import { SearchError } from '../core/search/workspaceSearch';
import { formatReward } from '../shared/text';
import { fileLabel } from './fileLabel';
import { nestBranches } from './rolloutBranches';
import { statsOf } from './rolloutTreeModel';
import { compactCount, sumTotals, totalsParts } from '../shared/totals';
import type { CollectionNode, Disagreement, Entry, EntryState, FileLeaf, GroupNode, JobView, RolloutLeaf, Stats, TaskNode, TreeNode, TreeOptions, TreeRollout } from './rolloutTreeModel';
import { DEFAULT_OPTIONS, FILTER_LABELS, LABEL_FILTER_LABELS, passState, type OutcomeFilter, type RolloutRefine, type SortKey } from './rolloutTreeModel';

export * from './rolloutTreeModel';


// ---------------------------------------------------------------------------------------------
// Where a file sits

/** Harbor job, TB1 run, or any folder of trial folders. */
type Family = 'harbor' | 'tb1' | 'folder';

type Placement =
  | { kind: 'trial'; family: Family; dir: string; trial: string; taskKey: string; primary: boolean }
  | { kind: 'run'; family: 'tb1' | 'harbor'; dir: string; sure: boolean }
  | null;

/** `<task>.<k>-of-<n>` optionally followed by `.<run_id>`: a TB1 trial folder of task `<task>`. */
const TB1_TRIAL = /^(.+)\.\d+-of-\d+(?:\..+)?$/;

/** Task of a Harbor trial folder `<task>__<id>` (task names may hold `__` themselves: SWE-bench ids). */
export function harborTaskKey(trial: string): string {
  const i = trial.lastIndexOf('__');
  return i > 0 ? trial.slice(0, i) : trial;
}

function formatOf(s: EntryState): FormatId | null {
  return s.kind === 'loaded' ? s.format : null;
}

/** Where a file belongs: a trial of a collection folder, a TB1 run's own results.json, or nowhere. */
/** The trial folder of a Harbor trial's (or its final attempt's) folder: `<trial>` of `<trial>/attempts/<NNN>`, else the folder itself. */
function harborTrialDir(dir: string): string {
  return trialOfAttempt(dir) ?? dir;
}

export function placementOf(e: Entry): Placement {
  const base = path.basename(e.path);
  const dir = path.dirname(e.path);
  const format = formatOf(e.state);
  if (base === 'trajectory.json' && path.basename(dir) === 'agent') {
    if (format !== null && format !== 'atif') return null;
    const trialDir = harborTrialDir(path.dirname(dir));
    const trial = path.basename(trialDir);
    return { kind: 'trial', family: 'harbor', dir: path.dirname(trialDir), trial, taskKey: harborTaskKey(trial), primary: true };
  }
  if (base === 'result.json' || format === 'harbor-job') {
    if (format === 'harbor-job') return { kind: 'run', family: 'harbor', dir, sure: true };
    if (format !== null && format !== 'harbor-trial-result') return null;
    const trialDir = harborTrialDir(dir);
    const trial = path.basename(trialDir);
    return { kind: 'trial', family: 'harbor', dir: path.dirname(trialDir), trial, taskKey: harborTaskKey(trial), primary: false };
  }
  if (base === 'results.json' || format === 'tb1-trial' || format === 'tb1-run') {
    if (format === 'tb1-run') return { kind: 'run', family: 'tb1', dir, sure: true };
    if (format !== null && format !== 'tb1-trial') return null;
    const trial = path.basename(dir);
    const taskDir = path.dirname(dir);
    const task = path.basename(taskDir);
    const m = TB1_TRIAL.exec(trial);
    if (m && m[1] === task) return { kind: 'trial', family: 'tb1', dir: path.dirname(taskDir), trial, taskKey: task, primary: true };
    // A trial folder outside its run layout (copied side by side): group with its siblings.
    if (format === 'tb1-trial') return { kind: 'trial', family: 'folder', dir: taskDir, trial, taskKey: m ? m[1] : trial, primary: true };
    // Not read yet: a run's results.json if trials sit beside it (decided in buildTree).
    return { kind: 'run', family: 'tb1', dir, sure: false };
  }
  return null;
}

// ---------------------------------------------------------------------------------------------
// Building

interface Folder {
  family: Family;
  dir: string;
  /** trial folder → its primary entry */
  trials: Map<string, { entry: Entry; taskKey: string; primary: boolean }>;
  run: Entry | null;
  runSure: boolean;
}

function rolloutsOf(s: EntryState): TreeRollout[] {
  return s.kind === 'loaded' ? s.rollouts : [];
}

/** Compares two strings as people expect names to sort: case-insensitive, numbers by value. */
export function compareNames(a: string, b: string): number {
  return a.localeCompare(b, undefined, { numeric: true, sensitivity: 'base' }) || (a < b ? -1 : a > b ? 1 : 0);
}

/** Sort keys of a node: name, reward, steps, outcome rank (failed 0 … passed 1, null unknown). */
interface Keys {
  name: string;
  reward: number | null;
  steps: number | null;
  outcome: number | null;
  format?: string | null;
  task?: string | null;
  bad?: number | null;
  score?: number | null;
}

function keysOfRollout(r: TreeRollout, name: string): Keys {
  const p = passState(r);
  return {
    name,
    reward: r.reward,
    steps: r.steps,
    outcome: p === 'failed' ? 0 : p === 'passed' ? 1 : null,
    format: r.format ?? null,
    task: r.taskId,
    bad: r.labels ? r.labels.bad : null,
    score: r.scores ? r.scores.min : null,
  };
}

function keysOfStats(s: Stats, name: string): Keys {
  const judged = s.passed + s.failed;
  return { name, reward: s.meanReward, steps: s.meanSteps, outcome: judged ? s.passed / judged : null, format: null, task: name, bad: s.bad ?? null, score: s.minScore ?? null };
}

function stringsLast(a: string | null | undefined, b: string | null | undefined): number {
  if (!a && !b) return 0;
  if (!a) return 1;
  if (!b) return -1;
  return compareNames(a, b);
}

function nullsLast(a: number | null, b: number | null, desc: boolean): number {
  if (a === null && b === null) return 0;
  if (a === null) return 1;
  if (b === null) return -1;
  return desc ? b - a : a - b;
}

function compareKeys(a: Keys, b: Keys, sort: SortKey): number {
  let c = 0;
  if (sort === 'reward') c = nullsLast(a.reward, b.reward, true);
  else if (sort === 'steps') c = nullsLast(a.steps, b.steps, true);
  else if (sort === 'outcome') c = nullsLast(a.outcome, b.outcome, false);
  else if (sort === 'format') c = stringsLast(a.format, b.format);
  else if (sort === 'task') c = stringsLast(a.task, b.task);
  else if (sort === 'badSteps') c = nullsLast(a.bad ?? null, b.bad ?? null, true);
  else if (sort === 'score') c = nullsLast(a.score ?? null, b.score ?? null, false);
  return c || compareNames(a.name, b.name);
}

function sortBy<T>(items: T[], keys: (t: T) => Keys, sort: SortKey): T[] {
  const withKeys = items.map((t) => ({ t, k: keys(t) }));
  withKeys.sort((x, y) => compareKeys(x.k, y.k, sort));
  return withKeys.map((x) => x.t);
}

/** True when a rollout passes the outcome filter. */
export function rolloutMatches(r: TreeRollout, filter: OutcomeFilter): boolean {
  return filter === 'all' || passState(r) === filter;
}

/** True when no refinement is set. */
export function refineIsEmpty(f: RolloutRefine | undefined): boolean {
  if (!f) return true;
  return (
    (f.minReward ?? null) === null &&
    (f.maxReward ?? null) === null &&
    (f.minSteps ?? null) === null &&
    (f.maxSteps ?? null) === null &&
    !(f.formats && f.formats.length) &&
    !f.task &&
    !f.labels
  );
}

/** True when a rollout passes the refinement (see RolloutRefine). */
export function rolloutRefined(r: TreeRollout, f: RolloutRefine | undefined): boolean {
  if (!f) return true;
  if (f.minReward !== undefined && f.minReward !== null && (r.reward === null || r.reward < f.minReward)) return false;
  if (f.maxReward !== undefined && f.maxReward !== null && (r.reward === null || r.reward > f.maxReward)) return false;
  if (f.minSteps !== undefined && f.minSteps !== null && r.steps < f.minSteps) return false;
  if (f.maxSteps !== undefined && f.maxSteps !== null && r.steps > f.maxSteps) return false;
  if (f.formats && f.formats.length && (!r.format || !f.formats.includes(r.format))) return false;
  if (f.task) {
    const t = (r.taskId ?? r.id).toLowerCase();
    if (!t.includes(f.task.toLowerCase())) return false;
  }
  switch (f.labels) {
    case 'badStep':
      return !!r.labels && r.labels.bad > 0;
    case 'unlabelled':
      return !r.labels || r.labels.labelled === 0;
    case 'labelled':
      return !!r.labels && r.labels.labelled > 0;
    case 'lowScore':
      return !!r.scores && r.scores.min < (f.lowScore ?? 0.5);
    default:
      return true;
  }
}

/** True when a rollout passes the outcome filter and the refinement of `opts`. */
export function rolloutPasses(r: TreeRollout, opts: TreeOptions): boolean {
  return rolloutMatches(r, opts.filter) && rolloutRefined(r, opts.refine);
}

/** True when a file that holds no read rollouts (not read yet, unreadable) passes the filters. */
function unreadMatches(opts: TreeOptions): boolean {
  return (opts.filter === 'all' || opts.filter === 'unknown') && refineIsEmpty(opts.refine);
}

/** Default label of a rollout inside a file: its task id, else `line N`, else `#N`. */
export function rolloutName(r: Pick<TreeRollout, 'taskId' | 'line' | 'index'>): string {
  return r.taskId ?? (r.line !== null ? `line ${r.line}` : `#${r.index + 1}`);
}

/**
 * Label of the rollout at `position` (0-based, file order) of a GRPO group of `size`: `#3 of 48 ·
 * line 21` (the rollouts of a group share their task id, so that would not tell them apart; reward
 * and length are in the description).
 */
export function groupMemberLabel(position: number, size: number, r: Pick<TreeRollout, 'line'>): string {
  return `#${position + 1} of ${size}${r.line !== null ? ` · line ${r.line}` : ''}`;
}

/** Label of a file at the top level or in a collection (present.fileLabel, as the view shows it, for sorting). */
function fileName(e: Entry, label: string | null): string {
  if (label) return label;
  const rs = rolloutsOf(e.state);
  return fileLabel(e.path, rs.length === 1 ? rs[0].taskId : null);
}

/** The children of a multi-rollout file: its GRPO groups, then the rollouts without a group. */
function fileChildren(e: Entry, opts: TreeOptions): { children: TreeNode[]; groups: number } {
  const rs = rolloutsOf(e.state);
  if (rs.length <= 1) return { children: [], groups: 0 };
  const leaf = (r: TreeRollout): RolloutLeaf => ({ kind: 'rollout', id: `r:${e.path}#${r.index}`, path: e.path, rollout: r, label: null, children: [] });
  const leafKeys = (l: RolloutLeaf) => keysOfRollout(l.rollout, l.label ?? rolloutName(l.rollout));
  const byGroup = new Map<string, TreeRollout[]>();
  const loose: TreeRollout[] = [];
  for (const r of rs) {
    if (r.groupId === null) loose.push(r);
    else {
      const g = byGroup.get(r.groupId);
      if (g) g.push(r);
      else byGroup.set(r.groupId, [r]);
    }
  }
  const groups: GroupNode[] = [];
  for (const [groupId, members] of byGroup) {
    // Members of a group share their task id: each is named by its place in the group (groupMemberLabel).
    const kids = members.flatMap((r, k) => (rolloutPasses(r, opts) ? [{ ...leaf(r), label: groupMemberLabel(k, members.length, r) }] : []));
    if (kids.length === 0) continue;
    groups.push({
      kind: 'group',
      id: `g:${e.path}#${groupId}`,
      path: e.path,
      groupId,
      rewards: members.map((r) => r.reward),
      stats: statsOf(members.map((r) => ({ state: 'loaded', rollouts: [r] }))),
      ...groupTotals(members),
      children: sortBy(kids, leafKeys, opts.sort),
    });
  }
  const sortedGroups = sortBy(groups, (g) => keysOfStats(g.stats, g.groupId), opts.sort);
  const looseLeaves = sortBy(loose.filter((r) => rolloutPasses(r, opts)).map(leaf), leafKeys, opts.sort);
  return { children: [...sortedGroups, ...looseLeaves], groups: byGroup.size };
}

/** A file node, or null when the filter leaves nothing of it. */
function fileLeaf(e: Entry, role: FileLeaf['role'], label: string | null, opts: TreeOptions): FileLeaf | null {
  const rs = rolloutsOf(e.state);
  if (e.state.kind === 'loaded') {
    if (!rs.some((r) => rolloutPasses(r, opts))) return null;
  } else if (!unreadMatches(opts)) return null;
  const { children, groups } = fileChildren(e, opts);
  return { kind: 'file', id: `f:${e.path}`, path: e.path, role, label, state: e.state, groups, children };
}

/** Sort keys of a file: of its one rollout, or over its rollouts. */
function keysOfFile(f: FileLeaf, name: string): Keys {
  const rs = rolloutsOf(f.state);
  if (rs.length === 1) return keysOfRollout(rs[0], name);
  if (rs.length === 0) return { name, reward: null, steps: null, outcome: null };
  return { ...keysOfStats(statsOf([{ state: 'loaded', rollouts: rs }]), name), format: rs[0].format ?? null };
}

/** The label a task node shows: the task id its read trials agree on, else the folder-derived key. */
function taskLabel(key: string, rollouts: TreeRollout[]): string {
  const ids = new Set(rollouts.map((r) => r.taskId).filter((t): t is string => t !== null));
  return ids.size === 1 ? [...ids][0] : key;
}

/** `reward 1` / `no reward` of a reward that may be unknown. */
function rewardWords(x: number | null | undefined): string {
  return x === null || x === undefined ? 'no reward' : `reward ${shortReward(x)}`;
}

/**
 * Where a Harbor job result and the trials found say different things: per trial folder found, its
 * reward and exception against the job's `reward_stats` / `exception_stats`, a trial with a reward
 * or an exception that the job result does not name; and job-level counts (trials, errored) against
 * the trials known here (folders found plus trials the job names without a folder).
 */
function jobDisagreements(job: HarborJob, found: Map<string, TreeRollout | null>, absent: number): Disagreement[] {
  const out: Disagreement[] = [];
  const named = new Map(job.trials.map((t) => [t.name, t]));
  for (const [trial, r] of found) {
    if (!r) continue; // not read yet, or unreadable
    const jt = named.get(trial);
    if (!jt) {
      if (r.reward !== null || r.exception) out.push({ trial, what: 'not in job result', job: 'not named', found: [rewardWords(r.reward), r.exception ?? ''].filter(Boolean).join(' · ') });
      continue;
    }
    const jr = jt.rewards?.reward ?? null;
    // Only a reward the job result records can disagree (it names trials by reward only when verified).
    if (jt.rewards && jr !== r.reward) out.push({ trial, what: 'reward', job: rewardWords(jr), found: rewardWords(r.reward) });
    if ((jt.exception ?? null) !== (r.exception ?? null)) out.push({ trial, what: 'exception', job: jt.exception ?? 'no exception', found: r.exception ?? 'no exception' });
  }
  const known = found.size + absent;
  if (job.nTotalTrials !== null && job.nTotalTrials !== known) {
    out.push({ trial: null, what: 'trials', job: `${job.nTotalTrials} trials`, found: `${found.size} trial folders here${absent ? ` + ${absent} named without a folder` : ''}` });
  }
  if (job.errored !== null) {
    const withExc = [...found.values()].filter((r) => r?.exception).length + job.trials.filter((t) => t.folder === null && t.exception).length;
    const read = [...found.values()].every((r) => r !== null);
    if (read && withExc !== job.errored) out.push({ trial: null, what: 'exception', job: `${job.errored} errored`, found: `${withExc} with an exception` });
  }
  return out;
}

function collectionNode(f: Folder, opts: TreeOptions): CollectionNode | null {
  const trials = [...f.trials.entries()];
  const runState = f.run?.state;
  const job = f.family === 'harbor' && runState?.kind === 'loaded' ? (runState.job ?? null) : null;
  const base: Omit<CollectionNode, 'children' | 'stats'> = {
    kind: 'collection',
    id: `c:${f.family}:${f.dir}`,
    layout: f.family === 'tb1' ? 'tb1-run' : f.family === 'harbor' ? 'harbor-job' : 'trials',
    dir: f.dir,
    label: path.basename(f.dir) || f.dir,
    runFile: f.run?.path ?? null,
  };
  // Tasks, from the trial folders found and the trials the run's results.json lists without a folder here.
  type Member = { leaf: TreeNode; keys: Keys; stat: { state: EntryState['kind']; rollouts: TreeRollout[] } };
  const tasks = new Map<string, { members: Member[]; all: { state: EntryState['kind']; rollouts: TreeRollout[] }[] }>();
  const addTo = (key: string, m: Member | null, stat: Member['stat']) => {
    let t = tasks.get(key);
    if (!t) tasks.set(key, (t = { members: [], all: [] }));
    t.all.push(stat);
    if (m) t.members.push(m);
  };
  const collectionStats: Member['stat'][] = [];
  const found = new Map<string, TreeRollout | null>();
  for (const [trial] of trials) {
    const st = f.trials.get(trial)?.entry.state;
    found.set(trial, st?.kind === 'loaded' ? (st.rollouts[0] ?? null) : null);
  }
  let absent = 0;
  if (f.run) for (const r of rolloutsOf(f.run.state)) if (!(r.trialName && f.trials.has(r.trialName))) absent++;
  const disagreements = job ? jobDisagreements(job, found, absent) : [];
  for (const [trial, { entry, taskKey }] of trials) {
    const stat = { state: entry.state.kind, rollouts: rolloutsOf(entry.state) };
    collectionStats.push(stat);
    const leaf = fileLeaf(entry, 'trial', trial, opts);
    if (leaf) {
      const mine = disagreements.filter((d) => d.trial === trial);
      if (mine.length) leaf.disagreements = mine;
    }
    addTo(taskKey, leaf ? { leaf, keys: keysOfFile(leaf, trial), stat } : null, stat);
  }
  if (f.run) {
    // The trials the run's results.json (the job's result.json) lists that have no trial folder here (all of them, often).
    const runRollouts = rolloutsOf(f.run.state);
    const attempt = new Map<string, number>();
    for (const r of runRollouts) {
      if (r.trialName && f.trials.has(r.trialName)) continue;
      const stat = { state: 'loaded' as const, rollouts: [r] };
      collectionStats.push(stat);
      const key = r.taskId ?? (f.family === 'harbor' && r.trialName ? harborTaskKey(r.trialName) : rolloutName(r));
      const k = (attempt.get(key) ?? 0) + 1;
      attempt.set(key, k);
      const label = r.trialName ?? `${key} #${k}`;
      const leaf: RolloutLeaf | null = rolloutPasses(r, opts)
        ? { kind: 'rollout', id: `r:${f.run.path}#${r.index}`, path: f.run.path, rollout: r, label, children: [] }
        : null;
      addTo(key, leaf ? { leaf, keys: keysOfRollout(r, label), stat } : null, stat);
    }
  }
  const taskNodes: TaskNode[] = [];
  for (const [key, t] of tasks) {
    if (t.members.length === 0) continue;
    const stats = statsOf(t.all);
    taskNodes.push({
      kind: 'task',
      id: `t:${f.family}:${f.dir}\u0000${key}`,
      key,
      label: taskLabel(key, t.all.flatMap((a) => a.rollouts)),
      stats,
      children: sortBy(t.members, (m) => m.keys, opts.sort).map((m) => m.leaf),
    });
  }
  const children: TreeNode[] = sortBy(taskNodes, (t) => keysOfStats(t.stats, t.label), opts.sort);
  // The run's own results.json (a job's result.json) comes first: a TB1 run's opens as a picker of
  // every trial; a Harbor job's is the job's summary, shown even when it names no trial yet.
  const headFirst = f.run && (trials.length > 0 || f.family === 'harbor') && opts.filter === 'all' && refineIsEmpty(opts.refine);
  if (f.run && headFirst) {
    children.unshift({ kind: 'file', id: `f:${f.run.path}`, path: f.run.path, role: 'run', label: null, state: f.run.state, groups: 0, children: [] });
  }
  if (children.length === 0) return null;
  const node: CollectionNode = { ...base, stats: statsOf(collectionStats), children };
  if (job) node.job = { summary: job, trialsFound: trials.length, disagreements };
  return node;
}

/**
 * Builds the Rollouts view's tree from the files found: collections (Harbor jobs, TB1 runs) with
 * their tasks and trials, files with their GRPO groups and rollouts, branches under their parents
 * (rolloutBranches.ts); sorted and filtered by `opts` at every level. Files the filter leaves nothing of, and `ignored` files, are left out.
 */
export function buildTree(entries: readonly Entry[], opts: TreeOptions = DEFAULT_OPTIONS): TreeNode[] {
  const folders = new Map<string, Folder>();
  const folder = (family: Family, dir: string): Folder => {
    const k = `${family}\u0000${dir}`;
    let f = folders.get(k);
    if (!f) folders.set(k, (f = { family, dir, trials: new Map(), run: null, runSure: false }));
    return f;
  };
  const maybeRuns: Entry[] = [];
  const loose: Entry[] = [];
  const placed = entries.filter((e) => e.state.kind !== 'ignored').map((e) => ({ e, p: placementOf(e) }));
  // Folders that hold Harbor trial folders: a `result.json` of one of them, not read yet, is the job's.
  const harborParents = new Set(placed.flatMap(({ p }) => (p?.kind === 'trial' && p.family === 'harbor' ? [p.dir] : [])));
  for (const { e, p: placedAs } of placed) {
    let p = placedAs;
    if (p?.kind === 'trial' && p.family === 'harbor' && !p.primary && formatOf(e.state) === null && path.basename(e.path) === 'result.json' && harborParents.has(path.dirname(e.path))) {
      p = { kind: 'run', family: 'harbor', dir: path.dirname(e.path), sure: false };
    }
    if (p === null) loose.push(e);
    else if (p.kind === 'run') {
      if (p.sure || p.family === 'harbor') {
        const f = folder(p.family, p.dir);
        f.run = e;
        f.runSure = p.sure;
      } else maybeRuns.push(e);
    } else {
      const f = folder(p.family, p.dir);
      const had = f.trials.get(p.trial);
      // One entry per trial folder: its trajectory rather than its result.json.
      if (!had || (!had.primary && p.primary)) f.trials.set(p.trial, { entry: e, taskKey: p.taskKey, primary: p.primary });
    }
  }
  for (const e of maybeRuns) {
    const f = folders.get(`tb1\u0000${path.dirname(e.path)}`);
    if (f && f.trials.size > 0 && !f.run) f.run = e;
    else loose.push(e);
  }

  const roots: { node: TreeNode; keys: Keys; order: string }[] = [];
  for (const f of folders.values()) {
    const isCollection = f.trials.size >= 2 || (f.run !== null && (f.runSure || f.trials.size > 0));
    if (!isCollection) {
      for (const t of f.trials.values()) loose.push(t.entry);
      if (f.run) loose.push(f.run);
      continue;
    }
    const c = collectionNode(f, opts);
    if (c) roots.push({ node: c, keys: keysOfStats(c.stats, c.label), order: f.dir });
  }
  for (const e of loose) {
    const leaf = fileLeaf(e, 'file', null, opts);
    if (leaf) roots.push({ node: leaf, keys: keysOfFile(leaf, fileName(e, null)), order: e.path });
  }
  // By name, the top level keeps the paths' order (files of one folder stay together).
  roots.sort((a, b) => (opts.sort === 'name' ? compareNames(a.order, b.order) : compareKeys(a.keys, b.keys, opts.sort) || compareNames(a.order, b.order)));
  // Branches (Branch from Here…) go under their parents.
  return nestBranches(roots.map((r) => r.node));
}

/** Every node of a tree with its parent (for TreeDataProvider.getParent and lookups by id). */
export function indexTree(roots: readonly TreeNode[]): Map<string, { node: TreeNode; parent: TreeNode | null }> {
  const out = new Map<string, { node: TreeNode; parent: TreeNode | null }>();
  const walk = (n: TreeNode, parent: TreeNode | null) => {
    out.set(n.id, { node: n, parent });
    for (const c of n.children) walk(c, n);
  };
  roots.forEach((r) => walk(r, null));
  return out;
}

// ---------------------------------------------------------------------------------------------
// Text

/** A reward in a list: as short as it reads (`1`, `0`, `0.5`, `0.333`). */
export function shortReward(x: number): string {
  return String(Math.round(x * 1000) / 1000);
}

function meanText(s: Stats, word = 'mean reward'): string {
  return s.meanReward !== null ? `${word} ${formatReward(s.meanReward)}` : '';
}

/**
 * `N trials · M passed · mean reward x`, or `loading k/N · …` while trials are still being read; a
 * Harbor job adds what its result.json records: `(job result: T)` when it counts other trials than
 * the ones known here, errored, retries, pass@k, and `job result differs` when it disagrees with the
 * trials.
 */
export function collectionDescription(c: Pick<CollectionNode, 'stats'> & { job?: JobView | null }): string {
  const s = c.stats;
  const j = c.job?.summary ?? null;
  const head =
    s.pending > 0
      ? `loading ${s.total - s.pending}/${s.total}`
      : `${s.total} ${s.total === 1 ? 'trial' : 'trials'}${j && j.nTotalTrials !== null && j.nTotalTrials !== s.total ? ` (job result: ${j.nTotalTrials})` : ''}`;
  const parts = [head, `${s.passed} passed`, meanText(s)];
  if (j) {
    if (j.errored) parts.push(`${j.errored} errored`);
    if (j.retries) parts.push(`${j.retries} ${j.retries === 1 ? 'retry' : 'retries'}`);
    const pass = j.evals.flatMap((e) => e.passAtK.map((p) => `pass@${p.k} ${shortReward(p.value)}`));
    parts.push(...[...new Set(pass)].slice(0, 3));
    if (c.job?.disagreements.length) parts.push('job result differs');
  }
  return parts.filter(Boolean).join(' · ');
}

/**
 * The tooltip text of a Harbor job collection, as plain lines: the job's counts, per eval its
 * metrics and pass@k, its reward and exception breakdowns, then each disagreement with the trials
 * found (`trial X: job result says reward 0, its files say reward 1`).
 */
export function jobTooltipLines(v: JobView): string[] {
  const j = v.summary;
  const lines = [jobCountsText(j)];
  if (j.startedAt || j.finishedAt) lines.push(`${j.startedAt ?? '?'} → ${j.finishedAt ?? 'not finished'}`);
  for (const e of j.evals) {
    lines.push([e.key ?? 'stats', evalMetricsText(e)].filter(Boolean).join(': '));
    for (const r of e.rewards) lines.push(`  ${r.name} ${shortReward(r.value)}: ${r.trials.length} ${r.trials.length === 1 ? 'trial' : 'trials'}`);
    for (const x of e.exceptions) lines.push(`  ${x.type}: ${x.trials.length} ${x.trials.length === 1 ? 'trial' : 'trials'}`);
  }
  lines.push(`${v.trialsFound} trial ${v.trialsFound === 1 ? 'folder' : 'folders'} here`);
  for (const d of v.disagreements) lines.push(disagreementText(d));
  return lines;
}

/** `trial X: the job result says reward 0, its own files say reward 1` (or the job-level counts). */
export function disagreementText(d: Disagreement): string {
  const who = d.trial === null ? 'job' : `trial ${d.trial}`;
  return `${who}: the job result says ${d.job}, ${d.trial === null ? 'the folder has' : 'its own files say'} ${d.found}`;
}

/** `k/n passed · mean reward x`. */
export function taskDescription(t: Pick<TaskNode, 'stats'>): string {
  const s = t.stats;
  return [`${s.passed}/${s.total} passed`, meanText(s), s.pending ? `${s.pending} loading` : ''].filter(Boolean).join(' · ');
}

/** The `totals` of a group node: summed over the members that have totals; nothing when none has. */
function groupTotals(members: readonly TreeRollout[]): Pick<GroupNode, 'totals'> {
  const list = members.flatMap((r) => (r.totals ? [r.totals] : []));
  return list.length ? { totals: sumTotals(list) } : {};
}

/**
 * `n rollouts · rewards 1, 0, 0.5 · mean 0.5` (at most `maxRewards` rewards listed), then the
 * group's tokens and cost when its steps record them (`412k tokens · $1.23`).
 */
export function groupDescription(g: Pick<GroupNode, 'rewards' | 'stats' | 'totals'>, maxRewards = 8): string {
  const n = g.rewards.length;
  const shown = g.rewards.slice(0, maxRewards).map((r) => (r === null ? '—' : shortReward(r)));
  const list = g.rewards.some((r) => r !== null) ? `rewards ${shown.join(', ')}${n > maxRewards ? ', …' : ''}` : '';
  const money = g.totals ? totalsParts(g.totals).filter((p) => p.endsWith(' tokens') || p.startsWith('$')) : [];
  return [`${n} ${n === 1 ? 'rollout' : 'rollouts'}`, list, meanText(g.stats, 'mean'), ...money].filter(Boolean).join(' · ');
}

/**
 * The group's totals for its tooltip: `Totals: 412k tokens · $1.23 · 3 of 40 commands failed ·
 * 4.1 s/step · peak context 38k`, or '' when its steps record none of them.
 */
export function groupTotalsText(g: Pick<GroupNode, 'totals'>): string {
  if (!g.totals) return '';
  const parts = totalsParts(g.totals);
  if (g.totals.peakContext !== null) parts.push(`peak context ${compactCount(g.totals.peakContext)}`);
  return parts.length ? `Totals over ${g.totals.rollouts} ${g.totals.rollouts === 1 ? 'rollout' : 'rollouts'}: ${parts.join(' · ')}` : '';
}

/** `N rollouts · G groups · k resolved · mean reward x` of a multi-rollout file. */
export function multiFileDescription(rollouts: readonly TreeRollout[], groups: number): string {
  const s = statsOf([{ state: 'loaded', rollouts: [...rollouts] }]);
  const judged = s.passed + s.failed > 0;
  return [
    `${rollouts.length} rollouts`,
    groups ? `${groups} ${groups === 1 ? 'group' : 'groups'}` : '',
    judged ? `${s.passed} resolved` : '',
    meanText(s),
  ]
    .filter(Boolean)
    .join(' · ');
}

/** Short text of a refinement (`reward ≥ 0.5 · 10–40 steps · atif · task "git" · has a bad step`), '' when empty. */
export function refineDescription(f: RolloutRefine | undefined): string {
  if (!f) return '';
  const parts: string[] = [];
  const lo = f.minReward ?? null;
  const hi = f.maxReward ?? null;
  if (lo !== null && hi !== null) parts.push(`reward ${shortReward(lo)}–${shortReward(hi)}`);
  else if (lo !== null) parts.push(`reward ≥ ${shortReward(lo)}`);
  else if (hi !== null) parts.push(`reward ≤ ${shortReward(hi)}`);
  const sl = f.minSteps ?? null;
  const sh = f.maxSteps ?? null;
  if (sl !== null && sh !== null) parts.push(`${sl}–${sh} steps`);
  else if (sl !== null) parts.push(`≥ ${sl} steps`);
  else if (sh !== null) parts.push(`≤ ${sh} steps`);
  if (f.formats?.length) parts.push(f.formats.join(', '));
  if (f.task) parts.push(`task "${f.task}"`);
  if (f.labels) parts.push(LABEL_FILTER_LABELS[f.labels].label.toLowerCase());
  return parts.join(' · ');
}

/** The view's description: the filter and sort when not the defaults (`failed · by reward`). */
export function optionsDescription(o: TreeOptions): string | undefined {
  const parts = [o.filter !== 'all' ? FILTER_LABELS[o.filter].label.toLowerCase() : '', refineDescription(o.refine), o.sort !== 'name' ? `by ${o.sort}` : ''].filter(Boolean);
  return parts.length ? parts.join(' · ') : undefined;
}

/**
 * Parses a range typed in a filter box: `0.5` (at least), `0.5-1` / `0.5..1` (between), `<=0.5` /
 * `>=2` / `<3` / `>3` (bounds, `<`/`>` read as ≤/≥), `` (none). Null when the text does not parse.
 */
export function parseRange(text: string): { min: number | null; max: number | null } | null {
  const t = text.trim();
  if (t === '') return { min: null, max: null };
  const num = '(-?\\d+(?:\\.\\d+)?|-?\\.\\d+)';
  let m = new RegExp(`^${num}\\s*(?:-|\\.\\.|–)\\s*${num}$`).exec(t);
  if (m) {
    const a = Number(m[1]);
    const b = Number(m[2]);
    return { min: Math.min(a, b), max: Math.max(a, b) };
  }
  m = new RegExp(`^(<=?|>=?|≤|≥)\\s*${num}$`).exec(t);
  if (m) return m[1].startsWith('<') || m[1] === '≤' ? { min: null, max: Number(m[2]) } : { min: Number(m[2]), max: null };
  m = new RegExp(`^${num}$`).exec(t);
  if (m) return { min: Number(m[1]), max: null };
  return null;
}

/**
 * The Rollouts view's filter box, typed in the search syntax (core/search/queryText.ts: the same
 * parser as Search Rollouts…): `outcome:failed` → the outcome filter, `reward>=0.5` / `reward<0.2`
 * / `reward=1` → the reward range, other words → "task contains". Null for an empty line. Throws
 * SearchError (with the word) for a bad filter and for the step-level filters (`in:`, `role:`,
 * `/regex/`, `case:`), which only Search Rollouts… can apply.
 */
export function rolloutFilterFromText(text: string): { filter: OutcomeFilter | null; refine: RolloutRefine } | null {
  if (!text.trim()) return null;
  const q = parseQueryWords(text);
  if (q.fields?.length || q.roles?.length || q.regex || q.caseSensitive !== undefined) {
    throw new SearchError('in:, role:, case: and /regex/ filter steps: use Search Rollouts… for those');
  }
  const refine: RolloutRefine = {};
  if (q.minReward !== undefined) refine.minReward = q.minReward;
  if (q.maxReward !== undefined) refine.maxReward = q.maxReward;
  if (q.pattern) refine.task = q.pattern;
  return { filter: q.outcome ?? null, refine };
}
