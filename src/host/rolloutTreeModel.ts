/**
 * The data of the Rollouts view's tree (src/host/rolloutTree.ts builds it): the files found and what
 * is known of them, the sort and filter options with their wording, the stats of a set of rollouts,
 * and the node types the tree is made of. Nothing here imports `vscode`.
 */
import type { FormatId, HarborJob, Rollout } from '../core/model';
import type { RolloutSummary } from '../shared/protocol';
import { rolloutTotals, type RolloutTotals } from '../shared/totals';
import { branchParentOf } from '../shared/branchProtocol';
import { summarize } from './rolloutSummary';

// ---------------------------------------------------------------------------------------------
// Input: the files found and what is known of them

/** A summary of one rollout as the tree keeps it (no steps), with its GRPO group. */
export interface TreeRollout extends RolloutSummary {
  /** Rollouts sharing a prompt in a GRPO batch share this id; null when the format has none. */
  groupId: string | null;
  /** The trial (folder) name, when the format records one (Harbor, Terminal-Bench 1 `metadata.trialName`). */
  trialName?: string | null;
  /** The rollout's format (for the format filter and sort). */
  format?: FormatId;
  /** Label state of the rollout's steps, when known (read from the label journal and the data's reference labels). */
  labels?: RolloutLabelState | null;
  /** Score state of the rollout's steps, when a scorer has scored it. */
  scores?: RolloutScoreState | null;
  /** The exception a Harbor trial ended with (`exception_info.exception_type`), for a visible mark; null/absent when none. */
  exception?: string | null;
  /** Fields the loader derived rather than read (core `Rollout.derived`), for a "derived" mark. */
  derived?: string[];
  /** Tokens, cost, step time and failed commands of the rollout's steps (src/shared/totals.ts). */
  totals?: RolloutTotals;
  /** A branch's parent (its `parent` link, formats/atif.ts) and how the branch ended, for listing it under the parent; absent for other rollouts. */
  parent?: BranchParent;
}

/** Where a branch came from (core `RolloutLink` of relation `parent`) and how it ended (`extra.branch.stop.reason`; null while it runs). */
export interface BranchParent {
  path: string;
  rolloutId: string | null;
  /** 0-based fork step, or null when the link has none. */
  stepIndex: number | null;
  stop: string | null;
}

/** How many steps of a rollout carry labels: bad (−1 from any annotator or the data), and labelled by a person. */
export interface RolloutLabelState {
  /** Steps with a −1 label (any annotator, or a reference label that came with the data). */
  bad: number;
  /** Steps with a label from an annotator (reference labels do not count). */
  labelled: number;
}

/** Per-step scores of a rollout, summarised: lowest and mean value (scorer's range), steps scored. */
export interface RolloutScoreState {
  min: number;
  mean: number;
  scored: number;
}

/**
 * The label state of a rollout from its current labels (core `CurrentLabel`s of any annotator, the
 * rollout-level verdicts with `stepIndex` null left out) and its steps' reference labels.
 */
export function labelState(
  r: { id: string; steps: readonly { index: number; referenceLabel?: { value: number } | null }[] },
  current: readonly { rolloutId: string; stepIndex: number | null; value: 1 | 0 | -1 | null }[],
): RolloutLabelState {
  const bad = new Set<number>();
  const labelled = new Set<number>();
  for (const s of r.steps) if (s.referenceLabel?.value === -1) bad.add(s.index);
  for (const l of current) {
    if (l.rolloutId !== r.id || l.stepIndex === null || l.value === null) continue;
    labelled.add(l.stepIndex);
    if (l.value === -1) bad.add(l.stepIndex);
  }
  return { bad: bad.size, labelled: labelled.size };
}

/** Summarises per-step scores (core `Score`s of one rollout), or null when there are none. */
export function scoreState(scores: readonly { value: number }[]): RolloutScoreState | null {
  if (!scores.length) return null;
  let min = Infinity;
  let sum = 0;
  for (const s of scores) {
    min = Math.min(min, s.value);
    sum += s.value;
  }
  return { min, mean: sum / scores.length, scored: scores.length };
}

/** The tree's summary of a loaded rollout. */
export function treeRollout(r: Rollout, index: number): TreeRollout {
  const trialName = typeof r.metadata.trialName === 'string' ? r.metadata.trialName : null;
  const t: TreeRollout = { ...summarize(r, index), groupId: r.groupId, trialName, format: r.format, labels: labelState(r, []), totals: rolloutTotals(r.steps) };
  // Harbor records the exception a trial ended with as its status.
  if (HARBOR_FORMATS.has(r.format) && r.outcome.status) t.exception = r.outcome.status;
  if (r.derived?.length) t.derived = [...r.derived];
  const up = branchParentOf(r);
  if (up?.path && !up.missing) {
    const b = (r.metadata.extra as { branch?: { stop?: { reason?: unknown } | null } } | undefined)?.branch;
    t.parent = { path: up.path, rolloutId: up.rolloutId ?? null, stepIndex: up.stepIndex ?? null, stop: typeof b?.stop?.reason === 'string' ? b.stop.reason : null };
  }
  return t;
}

const HARBOR_FORMATS: ReadonlySet<FormatId> = new Set(['atif', 'harbor-trial-result', 'harbor-job']);

/** What is known of a found file. `ignored`: a candidate name (`results.json`) no loader reads. */
export type EntryState =
  | { kind: 'pending' }
  | {
      kind: 'loaded';
      format: FormatId;
      schemaVersion: string | null;
      rollouts: TreeRollout[];
      indexing?: { bytes: number; size: number };
      /** A Harbor job result's stats (core `LoadedFile.job`). */
      job?: HarborJob;
      /**
       * The file's warnings (core `LoadedFile.issues` of severity warning, formatted: a trial
       * result.json not joined, a continuation not read), the first WARNINGS_SHOWN of them, and
       * how many there are; absent when none. The view marks the file with them.
       */
      warnings?: { count: number; first: string[] };
    }
  | { kind: 'error'; message: string }
  | { kind: 'large'; bytes: number }
  | { kind: 'ignored' };

/** A found file: its absolute path and state. */
export interface Entry {
  path: string;
  state: EntryState;
}

// ---------------------------------------------------------------------------------------------
// Options

export type SortKey = 'name' | 'reward' | 'steps' | 'outcome' | 'format' | 'task' | 'badSteps' | 'score';
export type OutcomeFilter = 'all' | 'passed' | 'failed' | 'unknown';
export const SORT_KEYS: readonly SortKey[] = ['name', 'reward', 'steps', 'outcome', 'format', 'task', 'badSteps', 'score'];
export const OUTCOME_FILTERS: readonly OutcomeFilter[] = ['all', 'passed', 'failed', 'unknown'];

/** Label / score state filters: steps labelled bad, no person's label yet, some label, a step scored below the threshold. */
export type LabelFilter = 'badStep' | 'unlabelled' | 'labelled' | 'lowScore';
export const LABEL_FILTERS: readonly LabelFilter[] = ['badStep', 'unlabelled', 'labelled', 'lowScore'];

/**
 * Filters beyond the outcome, all optional (absent = no filter). A rollout passes when it passes
 * every one given; a bound on a value the rollout does not have (reward unknown) fails it.
 */
export interface RolloutRefine {
  minReward?: number | null;
  maxReward?: number | null;
  minSteps?: number | null;
  maxSteps?: number | null;
  /** Formats to keep; empty = all. */
  formats?: FormatId[];
  /** Text the task id (or the rollout id, for rollouts without a task id) must contain, case ignored. */
  task?: string | null;
  labels?: LabelFilter | null;
  /** `lowScore`: a step scored below this (default 0.5). */
  lowScore?: number | null;
}

export interface TreeOptions {
  sort: SortKey;
  filter: OutcomeFilter;
  refine?: RolloutRefine;
}
export const DEFAULT_OPTIONS: TreeOptions = { sort: 'name', filter: 'all' };

/**
 * Whether step scores change what the tree shows under `o`: only the "lowest step score" sort and the
 * low-scored-step filter read them (no label, description or tooltip shows a score). The Rollouts view
 * redraws on a score update only then: each whole-tree redraw makes VS Code's extension host create
 * a tree node per visible element, and it keeps a DisposableStore of every node it ever created
 * (ExtHostTreeView registers one per node on the view itself), so a redraw per scored rollout of a
 * 27,498-rollout dump kept ~1 MB per rollout opened (bench/results/hostMemory.md).
 */
export function scoresAffectTree(o: TreeOptions): boolean {
  return o.sort === 'score' || o.refine?.labels === 'lowScore';
}

export function isSortKey(v: unknown): v is SortKey {
  return typeof v === 'string' && (SORT_KEYS as readonly string[]).includes(v);
}
export function isOutcomeFilter(v: unknown): v is OutcomeFilter {
  return typeof v === 'string' && (OUTCOME_FILTERS as readonly string[]).includes(v);
}

/** Quick-pick text of each sort key and filter. */
export const SORT_LABELS: Record<SortKey, { label: string; detail: string }> = {
  name: { label: 'Name', detail: 'Folder, task and trial names, A–Z (numbers in order)' },
  reward: { label: 'Reward', detail: 'Highest reward first (collections, tasks and groups by mean reward); unknown last' },
  steps: { label: 'Steps', detail: 'Most steps first; unknown last' },
  outcome: { label: 'Outcome', detail: 'Failed first, then passed, unknown last (collections, tasks and groups by pass rate)' },
  format: { label: 'Format', detail: 'Rollout format (ATIF, SWE-agent, …), then name' },
  task: { label: 'Task', detail: 'Task id, A–Z' },
  badSteps: { label: 'Bad steps', detail: 'Most steps labelled bad first (your labels, other annotators\' and reference labels)' },
  score: { label: 'Lowest step score', detail: 'Lowest per-step score first, when a scorer has scored the rollouts; unscored last' },
};
export const LABEL_FILTER_LABELS: Record<LabelFilter, { label: string; detail: string }> = {
  badStep: { label: 'Has a bad step', detail: 'A step labelled −1 by anyone, or by the data\'s reference labels' },
  unlabelled: { label: 'Unlabelled', detail: 'No step labelled by a person yet' },
  labelled: { label: 'Labelled', detail: 'At least one step labelled by a person' },
  lowScore: { label: 'Has a low-scored step', detail: 'A step a scorer scored below the threshold (default 0.5)' },
};
export const FILTER_LABELS: Record<OutcomeFilter, { label: string; detail: string }> = {
  all: { label: 'All', detail: 'Every rollout, and files not read yet or that could not be read' },
  passed: { label: 'Passed', detail: 'Resolved, or reward 1' },
  failed: { label: 'Failed', detail: 'Not resolved, or reward 0' },
  unknown: { label: 'Unknown outcome', detail: 'No outcome recorded, and files not read yet or that could not be read' },
};

// ---------------------------------------------------------------------------------------------
// Outcome

export type PassState = 'passed' | 'failed' | 'unknown';

/** Pass / fail of a rollout: `resolved` when the source says, else reward 1 → passed, 0 → failed, else unknown. */
export function passState(r: Pick<TreeRollout, 'resolved' | 'reward'>): PassState {
  if (r.resolved === true) return 'passed';
  if (r.resolved === false) return 'failed';
  if (r.reward === 1) return 'passed';
  if (r.reward === 0) return 'failed';
  return 'unknown';
}

/** Counts over a set of rollouts (the members of a collection, task or group, whatever the filter). */
export interface Stats {
  /** Members: trials (files) of a collection or task, rollouts of a group. */
  total: number;
  /** Members not read yet. */
  pending: number;
  /** Members that could not be read (errors, files too large to summarise). */
  unreadable: number;
  passed: number;
  failed: number;
  unknown: number;
  /** Mean of the known rewards, or null when none is known. */
  meanReward: number | null;
  /** Mean step count of the read rollouts, or null when none is read. */
  meanSteps: number | null;
  /** Steps labelled bad over the read rollouts whose labels are known, or null when none is known. */
  bad?: number | null;
  /** Lowest step score over the scored rollouts, or null when none is scored. */
  minScore?: number | null;
}

function emptyStats(): Stats {
  return { total: 0, pending: 0, unreadable: 0, passed: 0, failed: 0, unknown: 0, meanReward: null, meanSteps: null, bad: null, minScore: null };
}

/** Stats of members: each a list of rollouts (a trial file, one rollout of a group) or a non-loaded state. */
export function statsOf(members: { state: EntryState['kind']; rollouts: TreeRollout[] }[]): Stats {
  const s = emptyStats();
  let rewardSum = 0;
  let rewardN = 0;
  let stepSum = 0;
  let stepN = 0;
  for (const m of members) {
    s.total++;
    if (m.state === 'pending') s.pending++;
    else if (m.state === 'error' || m.state === 'large') s.unreadable++;
    for (const r of m.rollouts) {
      s[passState(r)]++;
      if (r.reward !== null) {
        rewardSum += r.reward;
        rewardN++;
      }
      stepSum += r.steps;
      stepN++;
      if (r.labels) s.bad = (s.bad ?? 0) + r.labels.bad;
      if (r.scores) s.minScore = Math.min(s.minScore ?? Infinity, r.scores.min);
    }
  }
  s.meanReward = rewardN ? rewardSum / rewardN : null;
  s.meanSteps = stepN ? stepSum / stepN : null;
  return s;
}

// ---------------------------------------------------------------------------------------------
// Output: the tree

interface NodeBase {
  /** Stable id (kept across refreshes, so VS Code keeps expansion state). */
  id: string;
  children: TreeNode[];
}

/** A Harbor job folder or a Terminal-Bench 1 run folder. */
export interface CollectionNode extends NodeBase {
  kind: 'collection';
  layout: 'harbor-job' | 'tb1-run' | 'trials';
  /** The folder. */
  dir: string;
  label: string;
  /** The run-level results.json of a TB1 run, or the job's own result.json of a Harbor job, when found. */
  runFile: string | null;
  /** Counted over trials: trial files, or the rollouts of the run file when no trial file was found. */
  stats: Stats;
  /** The Harbor job result heading the collection, when read: its stats and where it disagrees with the trials found. */
  job?: JobView | null;
}

/** What a Harbor job result says, beside what the trials found say. */
export interface JobView {
  summary: HarborJob;
  /** Trial folders found here (read on their own). */
  trialsFound: number;
  /** Each point where the job result and a trial's own files (or the folder) say different things. */
  disagreements: Disagreement[];
}

/** One difference between the job result and a trial: what each says, in words. */
export interface Disagreement {
  /** The trial (folder name); null for job-level counts. */
  trial: string | null;
  what: 'reward' | 'exception' | 'not in job result' | 'trials';
  job: string;
  found: string;
}

/** The trials of one task inside a collection. */
export interface TaskNode extends NodeBase {
  kind: 'task';
  key: string;
  label: string;
  stats: Stats;
}

/** A found file: a trial inside a collection (`trial`), a run's results.json (`run`), or any other (`file`). */
export interface FileLeaf extends NodeBase {
  kind: 'file';
  path: string;
  role: 'file' | 'trial' | 'run';
  /** Name to show instead of the file's own label (the trial folder), or null. */
  label: string | null;
  state: EntryState;
  /** Groups of a multi-rollout file (GRPO), when its rollouts carry group ids. */
  groups: number;
  /** A trial of a Harbor job: where the job result says something else of it than its own files. */
  disagreements?: Disagreement[];
}

/** The rollouts of one GRPO group inside a file. */
export interface GroupNode extends NodeBase {
  kind: 'group';
  path: string;
  groupId: string;
  /** Rewards of every rollout of the group, in file order. */
  rewards: (number | null)[];
  stats: Stats;
  /** Totals over the group's rollouts that have them (every member, whatever the filter); absent when none. */
  totals?: RolloutTotals & { rollouts: number };
}

/** One rollout of a multi-rollout file (or of a TB1 run's results.json). */
export interface RolloutLeaf extends NodeBase {
  kind: 'rollout';
  path: string;
  rollout: TreeRollout;
  /** Name to show, when the default (task id, else line / position) would repeat its parent. */
  label: string | null;
}

/**
 * The branches of one rollout from one step (rolloutBranches.ts): listed under their parent (its
 * file, or its rollout of a multi-rollout file), like a GRPO group, with their outcomes.
 */
export interface BranchesNode extends NodeBase {
  kind: 'branches';
  /** The parent's file and its rollout's index there. */
  path: string;
  parentIndex: number;
  /** 0-based fork step, or null when the branches' links name none. */
  stepIndex: number | null;
  stats: Stats;
  /** How each branch ended (`submitted`, `max-steps`, …; `running`), in the children's order. */
  stops: string[];
}

export type TreeNode = CollectionNode | TaskNode | FileLeaf | GroupNode | RolloutLeaf | BranchesNode;
