/**
 * A Harbor job's own `result.json` (format id `harbor-job`): the job-level summary Harbor writes in
 * `<jobs_dir>/<job_name>/result.json` beside the trial folders `<job>/<trial>/`.
 *
 * Source definitions (harbor-framework/harbor, formerly laude-institute/harbor):
 * - `src/harbor/models/job/result.py`: `JobResult{id, started_at, updated_at, finished_at,
 *   n_total_trials, stats, trial_results}`, `JobStats{n_completed_trials, n_errored_trials,
 *   n_running_trials, n_pending_trials, n_cancelled_trials, n_retries, evals, n_input_tokens,
 *   n_cache_tokens, n_output_tokens, cost_usd}` with its legacy fields `n_trials` / `n_errors` (and a
 *   top-level `status` of counts, migrated by `_derive_progress_stats`), `AgentDatasetStats{n_trials,
 *   n_errors, metrics, pass_at_k, reward_stats: {reward name: {value: [trial names]}},
 *   exception_stats: {exception type: [trial names]}}`; eval keys are
 *   `JobStats.format_agent_evals_key` = `<agent>__<model>__<dataset>` (or `<agent>__<dataset>`);
 * - `src/harbor/job.py`: where the file is written (`job_dir / "result.json"`, `trial_results`
 *   usually excluded) and how retries are counted (`_remove_completed_attempt_for_retry`);
 * - older releases (the `sandboxes` package) wrote the reward and exception stats at the top of
 *   `stats` without `evals` (the first ones: `total_reward`, `positive_reward_trials`,
 *   `non_positive_reward_trials`): read as one eval with key null, the trials they name listed
 *   without a reward value (none is recorded).
 *
 * The job result is not a rollout: its stats go to `input.job` (→ `LoadedFile.job`). The rollouts the
 * loader returns are the trials the job result names whose folder is NOT beside it (`<job>/<trial>/`
 * missing): stepless rollouts carrying what the job result says of them (rewards, exception type as
 * `outcome.status`), so a job folder committed without its trials still lists them. Trials whose
 * folder is there are read from their own files (ATIF trajectory, trial result.json) and are not
 * repeated. Nothing is guessed: the task id of a trial is the job result's `task_name` where it has
 * `trial_results`, else null (a trial name `<task>__<id>` holds a shortened task name); `resolved`
 * stays null (Harbor records rewards only).
 */
import * as path from 'node:path';
import { z } from 'zod';
import type { JsonDoc, JsonPath } from '../json';
import { unknownOutcome, type HarborJob, type Rollout } from '../model';
import type { FileAccess, FormatLoader, LoadInput } from './types';
import { isObject, singleDoc } from './util';

const LABEL = 'Harbor job result';

const Count = z.number().int().nullish();
const TrialNames = z.array(z.string());
/** `reward_stats`: reward name → reward value (a JSON key, `"1.0"`) → trial names. */
const RewardStats = z.record(z.string(), z.record(z.string(), TrialNames));
/** `exception_stats`: exception type → trial names. */
const ExceptionStats = z.record(z.string(), TrialNames);

const EvalStatsSchema = z.looseObject({
  n_trials: Count,
  n_errors: Count,
  metrics: z.array(z.record(z.string(), z.unknown())).nullish(),
  pass_at_k: z.record(z.string(), z.number()).nullish(),
  reward_stats: RewardStats.nullish(),
  exception_stats: ExceptionStats.nullish(),
});
type EvalStats = z.infer<typeof EvalStatsSchema>;

const CountsShape = {
  n_completed_trials: Count,
  n_errored_trials: Count,
  n_running_trials: Count,
  n_pending_trials: Count,
  n_cancelled_trials: Count,
  n_retries: Count,
};

const StatsSchema = z.looseObject({
  ...CountsShape,
  n_trials: Count,
  n_errors: Count,
  evals: z.record(z.string(), EvalStatsSchema).nullish(),
  // the flat stats of older releases
  metrics: z.array(z.record(z.string(), z.unknown())).nullish(),
  pass_at_k: z.record(z.string(), z.number()).nullish(),
  reward_stats: RewardStats.nullish(),
  exception_stats: ExceptionStats.nullish(),
  // the first releases: trials by the sign of their reward, and the rewards' total
  positive_reward_trials: TrialNames.nullish(),
  non_positive_reward_trials: TrialNames.nullish(),
  total_reward: z.number().nullish(),
  n_input_tokens: z.number().nullish(),
  n_cache_tokens: z.number().nullish(),
  n_output_tokens: z.number().nullish(),
  cost_usd: z.number().nullish(),
});

/** The parts of a TrialResult inside `trial_results` that name the trial's task, rewards and exception. */
const TrialEntrySchema = z.looseObject({
  trial_name: z.string(),
  task_name: z.string().nullish(),
  verifier_result: z.looseObject({ rewards: z.record(z.string(), z.number()).nullish() }).nullish(),
  exception_info: z.looseObject({ exception_type: z.string() }).nullish(),
});

const JobResultSchema = z.looseObject({
  id: z.string().nullish(),
  started_at: z.string().nullish(),
  updated_at: z.string().nullish(),
  finished_at: z.string().nullish(),
  n_total_trials: z.number().int(),
  stats: StatsSchema,
  status: z.looseObject(CountsShape).nullish(),
  trial_results: z.array(TrialEntrySchema).nullish(),
});
type JobResult = z.infer<typeof JobResultSchema>;

/** A JSON key of `reward_stats` as the number it stands for (`"1.0"` → 1), or null. */
function rewardValue(key: string): number | null {
  const n = Number(key);
  return key.trim() !== '' && Number.isFinite(n) ? n : null;
}

/** True for a trial name that is a plain folder name (no separators, not `.`/`..`). */
function plainName(n: string): boolean {
  return n !== '' && n !== '.' && n !== '..' && !/[\\/]/.test(n);
}

/** Where the job result first names a trial (for Show in Source). */
type Mention = JsonPath;

interface TrialAcc {
  name: string;
  eval: string | null;
  taskName: string | null;
  rewards: Record<string, number> | null;
  exception: string | null;
  at: Mention;
}

/** The evals of the stats: `evals` by key, or the older flat stats as one eval with key null. */
function evalsOf(stats: JobResult['stats']): { key: string | null; s: EvalStats; at: JsonPath }[] {
  if (stats.evals) return Object.entries(stats.evals).map(([key, s]) => ({ key, s, at: ['stats', 'evals', key] }));
  if (stats.reward_stats || stats.exception_stats || stats.metrics || stats.pass_at_k || stats.total_reward != null) {
    const metrics = stats.metrics ?? (stats.total_reward != null ? [{ total_reward: stats.total_reward }] : null);
    return [{ key: null, s: { n_trials: stats.n_trials, n_errors: stats.n_errors, metrics, pass_at_k: stats.pass_at_k, reward_stats: stats.reward_stats, exception_stats: stats.exception_stats }, at: ['stats'] }];
  }
  return [];
}

/** Reads the job summary and the trials it names. */
async function readJob(doc: JsonDoc, files: FileAccess): Promise<{ job: HarborJob; mentions: Map<string, Mention> }> {
  const r = doc.validate(JobResultSchema, LABEL);
  const st = r.stats;
  const status = r.status ?? {};
  const count = (k: keyof typeof CountsShape, legacy?: 'n_trials' | 'n_errors'): number | null =>
    st[k] ?? (legacy ? st[legacy] : undefined) ?? status[k] ?? null;

  const trials = new Map<string, TrialAcc>();
  const touch = (name: string, evalKey: string | null, at: Mention): TrialAcc => {
    let t = trials.get(name);
    if (!t) trials.set(name, (t = { name, eval: evalKey, taskName: null, rewards: null, exception: null, at }));
    return t;
  };
  const evals: HarborJob['evals'] = [];
  for (const { key, s, at } of evalsOf(st)) {
    const rewards: HarborJob['evals'][number]['rewards'] = [];
    for (const [name, byValue] of Object.entries(s.reward_stats ?? {})) {
      for (const [vk, names] of Object.entries(byValue)) {
        const value = rewardValue(vk);
        if (value === null) continue;
        rewards.push({ name, value, trials: [...names] });
        for (const n of names) {
          const t = touch(n, key, [...at, 'reward_stats', name, vk]);
          (t.rewards ??= {})[name] = value;
        }
      }
    }
    const exceptions: HarborJob['evals'][number]['exceptions'] = [];
    for (const [type, names] of Object.entries(s.exception_stats ?? {})) {
      exceptions.push({ type, trials: [...names] });
      for (const n of names) touch(n, key, [...at, 'exception_stats', type]).exception = type;
    }
    const metrics = (s.metrics ?? []).map((m) => Object.fromEntries(Object.entries(m).filter((e): e is [string, number] => typeof e[1] === 'number' && Number.isFinite(e[1]))));
    const passAtK = Object.entries(s.pass_at_k ?? {})
      .map(([k, value]) => ({ k: Number(k), value }))
      .filter((p) => Number.isInteger(p.k) && p.k > 0)
      .sort((a, b) => a.k - b.k);
    evals.push({ key, nTrials: s.n_trials ?? null, nErrors: s.n_errors ?? null, metrics, passAtK, rewards, exceptions });
  }
  // The first releases named trials only by the sign of their reward (the value is not recorded).
  for (const k of ['positive_reward_trials', 'non_positive_reward_trials'] as const) {
    (st[k] ?? []).forEach((n, i) => touch(n, null, ['stats', k, i]));
  }
  // Full trial results, when the job result kept them: they name the task and give the rewards.
  (r.trial_results ?? []).forEach((tr, i) => {
    const t = touch(tr.trial_name, trials.get(tr.trial_name)?.eval ?? null, ['trial_results', i]);
    t.taskName = tr.task_name ?? t.taskName;
    if (tr.verifier_result?.rewards) t.rewards = { ...tr.verifier_result.rewards };
    if (tr.exception_info) t.exception = tr.exception_info.exception_type;
  });

  const dir = path.dirname(doc.file);
  const out: HarborJob['trials'] = [];
  const mentions = new Map<string, Mention>();
  for (const t of trials.values()) {
    const folder = plainName(t.name) && (await files.isDirectory(path.join(dir, t.name))) ? path.join(dir, t.name) : null;
    out.push({ name: t.name, eval: t.eval, taskName: t.taskName, rewards: t.rewards, exception: t.exception, folder });
    mentions.set(t.name, t.at);
  }
  const job: HarborJob = {
    path: doc.file,
    id: r.id ?? null,
    startedAt: r.started_at ?? null,
    updatedAt: r.updated_at ?? null,
    finishedAt: r.finished_at ?? null,
    nTotalTrials: r.n_total_trials,
    completed: count('n_completed_trials', 'n_trials'),
    errored: count('n_errored_trials', 'n_errors'),
    running: count('n_running_trials'),
    pending: count('n_pending_trials'),
    cancelled: count('n_cancelled_trials'),
    retries: count('n_retries'),
    tokens: { input: st.n_input_tokens ?? null, cache: st.n_cache_tokens ?? null, output: st.n_output_tokens ?? null },
    costUsd: st.cost_usd ?? null,
    evals,
    trials: out,
  };
  return { job, mentions };
}

/** The stepless rollout of a trial the job names whose folder is not beside the job result. */
function absentTrial(job: HarborJob, t: HarborJob['trials'][number], doc: JsonDoc, at: Mention): Rollout {
  const outcome = unknownOutcome();
  outcome.rewards = t.rewards && Object.keys(t.rewards).length ? { ...t.rewards } : null;
  outcome.reward = typeof t.rewards?.reward === 'number' ? t.rewards.reward : null;
  outcome.status = t.exception;
  outcome.source = `${doc.file} ${at[0] === 'trial_results' ? 'trial_results' : 'reward_stats / exception_stats'}`;
  return {
    id: t.name,
    format: 'harbor-job',
    schemaVersion: null,
    source: { path: doc.file, range: doc.rangeOf(at), line: null },
    task: { id: t.taskName, instruction: null },
    agent: { name: null, version: null, model: null },
    environment: { image: null, workdir: null },
    outcome,
    groupId: null,
    steps: [],
    metadata: {
      trialName: t.name,
      harborJob: { resultPath: job.path, jobId: job.id, eval: t.eval },
      note: `The job result names this trial, but its folder ${t.name}/ is not beside ${path.basename(job.path)}: only what the job result says of it is shown.`,
    },
  };
}

/** True for a JSON object shaped like a JobResult: numeric `n_total_trials`, object `stats`, no trial fields. */
function looksLikeJob(v: unknown): boolean {
  return isObject(v) && typeof v.n_total_trials === 'number' && isObject(v.stats) && !('task_name' in v) && !('trial_name' in v);
}

/**
 * Loader for a Harbor job's `result.json` (`JobResult`). Detects an object with a numeric
 * `n_total_trials` and a `stats` object (and no trial fields `task_name`/`trial_name`), confidence
 * 0.9. Puts the job's stats in `input.job` and returns a stepless rollout for each trial the job
 * names whose folder is missing beside the file (possibly none).
 * @throws RolloutLoadError (located) when the JobResult fields read have the wrong types
 */
export const harborJobLoader: FormatLoader = {
  id: 'harbor-job',
  label: LABEL,
  detect(input: LoadInput) {
    if (!input.doc) return { accept: false, reason: 'not a single JSON document' };
    if (!looksLikeJob(input.doc.value)) return { accept: false, reason: 'no numeric "n_total_trials" with a "stats" object' };
    return { accept: true, confidence: 0.9 };
  },
  async load(input) {
    const doc = singleDoc(input, LABEL);
    const { job, mentions } = await readJob(doc, input.files);
    input.job = job;
    return job.trials.filter((t) => t.folder === null).map((t) => absentTrial(job, t, doc, mentions.get(t.name) ?? []));
  },
};

// ---------------------------------------------------------------------------------------------
// Text (the CLI's `show` and the Rollouts view's tooltip share it)

/** A number as short as it reads (`1`, `0.5`, `0.333`). */
function short(x: number): string {
  return String(Math.round(x * 1000) / 1000);
}

/** `n things` with a plural. */
function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? '' : 's'}`;
}

/** The trial names of a list, the first few then `…`. */
function names(list: readonly string[], max = 3): string {
  return list.slice(0, max).join(', ') + (list.length > max ? `, … (${list.length - max} more)` : '');
}

/**
 * The job's counts in one line, as recorded: `1 trial: 1 completed, 1 errored, 0 retries` (counts the
 * file does not hold are left out).
 */
export function jobCountsText(job: HarborJob): string {
  const parts: string[] = [];
  const add = (n: number | null, word: string) => {
    if (n !== null) parts.push(`${n} ${word}`);
  };
  add(job.completed, 'completed');
  add(job.errored, 'errored');
  add(job.running, 'running');
  add(job.pending, 'pending');
  add(job.cancelled, 'cancelled');
  add(job.retries, job.retries === 1 ? 'retry' : 'retries');
  const head = job.nTotalTrials !== null ? plural(job.nTotalTrials, 'trial') : 'trials';
  return parts.length ? `${head}: ${parts.join(', ')}` : head;
}

/** One eval's metrics and pass@k in one line: `mean 0.25 · pass@1 0.25 · pass@5 0.6`, '' when none. */
export function evalMetricsText(e: HarborJob['evals'][number]): string {
  const parts: string[] = [];
  for (const m of e.metrics) for (const [k, v] of Object.entries(m)) parts.push(`${k} ${short(v)}`);
  for (const p of e.passAtK) parts.push(`pass@${p.k} ${short(p.value)}`);
  return parts.join(' · ');
}

/**
 * The job summary as plain text lines (no markup): when it ran, its counts, tokens and cost, then
 * per eval its metrics, pass@k, reward breakdown and exception breakdown (trial names shortened).
 */
export function describeJob(job: HarborJob): string[] {
  const lines: string[] = [];
  const when = [job.startedAt ? `started ${job.startedAt}` : '', job.finishedAt ? `finished ${job.finishedAt}` : job.updatedAt ? `updated ${job.updatedAt} (not finished)` : 'not finished'].filter(Boolean);
  lines.push(when.join(', '));
  lines.push(jobCountsText(job));
  const t = job.tokens;
  if (t.input !== null || t.output !== null || job.costUsd !== null) {
    lines.push(`tokens: input ${t.input ?? '—'}, cache ${t.cache ?? '—'}, output ${t.output ?? '—'}; cost ${job.costUsd !== null ? `$${job.costUsd}` : '—'}`);
  }
  for (const e of job.evals) {
    const head = [e.key ?? 'stats', e.nTrials !== null ? plural(e.nTrials, 'trial') : '', e.nErrors !== null ? plural(e.nErrors, 'error') : '', evalMetricsText(e)].filter(Boolean);
    lines.push(`eval ${head.join(' · ')}`);
    for (const r of e.rewards) lines.push(`  ${r.name} ${short(r.value)}: ${plural(r.trials.length, 'trial')} (${names(r.trials)})`);
    for (const x of e.exceptions) lines.push(`  ${x.type}: ${plural(x.trials.length, 'trial')} (${names(x.trials)})`);
  }
  return lines;
}
