/**
 * Harbor job folders: the job's own result.json (core/formats/harborJob.ts, format `harbor-job`),
 * the folder scan of a job (core/load.ts findRolloutFiles with formats/harborLayout.ts), a trial's
 * raw agent session and its retried attempts linked from its rollout (atif.ts).
 *
 * Real files: the job result.json of Saud008/terminal-bench-2.1 `jobs/2026-09-30__08-59-24/`
 * (census harbor-job/), the ThinHarness trial result.json (samples/harbor-trial-result/), the
 * Harbor golden ATIF trajectories (samples/atif/) and a real Claude Code transcript
 * (census claude-code/). Folder layouts (job → trial → agent/, attempts/<NNN>/) are built in temp
 * folders from copies of them, as Harbor lays them out (`src/harbor/models/trial/paths.py`). Where a
 * field is rewritten in a copy (a trial name, a reward), the test says so.
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { harborJobLoader } from '../../../src/core/formats/harborJob';
import { attemptLinks, rawSessionLinks, trialAttempts } from '../../../src/core/formats/harborLayout';
import { findRolloutFiles, loadFile, loadPath } from '../../../src/core/load';
import { nodeFiles } from '../../../src/core/nodeFiles';
import { acceptedBy, censusFile, sample, sampleJson, tmpDir } from '../samples';

const JOB = 'harbor-job/2026-09-30__08-59-24/result.json';
const JOB_TRIAL = 'check-brickmake-rule-semantics-r__xwL2kAp';
const TRIAL_RESULT = 'harbor-trial-result/thinharness_configure-git-webserver__YfkUhxf_result.json';
const ATIF = 'atif/harbor-golden_terminus2_invalid-json_ATIF-v1.5.trajectory.json';
const ATIF_OH = 'atif/harbor-golden_openhands_hello-world_ATIF-v1.5.trajectory.json';
const CLAUDE = 'claude-code/258c7280-ae70-4798-800f-63464d01a85d.jsonl';
const CODEX = 'codex-cli/rollout-2026-02-23T12-40-23-019c8a4c-ed82-79a1-aa28-7738fc5ab61a.jsonl';

const jobJson = () => JSON.parse(fs.readFileSync(censusFile(JOB), 'utf8'));

/** A trial folder `<dir>/<trial>/` from the real trial result (trial_name, task_name and the reward/exception rewritten as given) and, optionally, an ATIF trajectory. */
function trialFolder(dir: string, trial: string, o: { task?: string; reward?: number | null; exception?: string | null; atif?: string | null; uri?: string } = {}): string {
  const t = path.join(dir, trial);
  fs.mkdirSync(path.join(t, 'agent'), { recursive: true });
  const r = sampleJson(TRIAL_RESULT);
  r.trial_name = trial;
  if (o.task) r.task_name = o.task;
  if (o.reward !== undefined) r.verifier_result = o.reward === null ? null : { rewards: { reward: o.reward } };
  if (o.exception) r.exception_info = { exception_type: o.exception, exception_message: `${o.exception}: see trial.log`, exception_traceback: 'Traceback (most recent call last): …', occurred_at: '2026-09-30T09:01:30' };
  if (o.uri) r.trial_uri = o.uri;
  fs.writeFileSync(path.join(t, 'result.json'), JSON.stringify(r, null, 4));
  fs.writeFileSync(path.join(t, 'config.json'), JSON.stringify(r.config, null, 4));
  if (o.atif !== null) fs.copyFileSync(sample(o.atif ?? ATIF), path.join(t, 'agent', 'trajectory.json'));
  return t;
}

/** The census job folder: its real result.json with config.json / lock.json / job.log beside it. */
function jobFolder(): string {
  const dir = path.join(tmpDir('ti-harbor-job-'), '2026-09-30__08-59-24');
  fs.mkdirSync(dir, { recursive: true });
  fs.copyFileSync(censusFile(JOB), path.join(dir, 'result.json'));
  fs.writeFileSync(path.join(dir, 'config.json'), JSON.stringify({ job_name: '2026-09-30__08-59-24', n_attempts: 1 }));
  fs.writeFileSync(path.join(dir, 'lock.json'), '{}');
  fs.writeFileSync(path.join(dir, 'job.log'), 'job log\n');
  return dir;
}

describe('Harbor job result.json (harbor-job)', () => {
  it('reads the census job result alone: its stats as recorded and the trial it names, without a folder, as a stepless rollout', async () => {
    const raw = jobJson();
    const f = await loadFile(censusFile(JOB));
    assert.equal(f.format, 'harbor-job');
    const job = f.job;
    assert.ok(job);
    assert.equal(job.id, raw.id);
    assert.equal(job.startedAt, '2026-09-30T08:59:24.872242');
    assert.equal(job.finishedAt, '2026-09-30T09:01:35.948886');
    assert.equal(job.nTotalTrials, 1);
    assert.deepEqual([job.completed, job.errored, job.running, job.pending, job.cancelled, job.retries], [1, 1, 0, 0, 0, 0]);
    assert.deepEqual(job.tokens, { input: 0, cache: 0, output: 0 });
    assert.equal(job.costUsd, 0);
    assert.equal(job.evals.length, 1);
    const e = job.evals[0];
    assert.equal(e.key, 'claude-code__gpt-5.6__adhoc');
    assert.deepEqual([e.nTrials, e.nErrors], [1, 1]);
    assert.deepEqual(e.metrics, [{ mean: 0 }]);
    assert.deepEqual(e.passAtK, []);
    assert.deepEqual(e.rewards, [{ name: 'reward', value: 0, trials: [JOB_TRIAL] }]);
    assert.deepEqual(e.exceptions, [{ type: 'NonZeroAgentExitCodeError', trials: [JOB_TRIAL] }]);
    assert.deepEqual(job.trials, [{ name: JOB_TRIAL, eval: 'claude-code__gpt-5.6__adhoc', taskName: null, rewards: { reward: 0 }, exception: 'NonZeroAgentExitCodeError', folder: null }]);

    assert.equal(f.rollouts.length, 1);
    const r = f.rollouts[0];
    assert.equal(r.id, JOB_TRIAL);
    assert.equal(r.format, 'harbor-job');
    assert.deepEqual(r.steps, []);
    // A trial name holds a shortened task name: the task stays unknown rather than guessed.
    assert.equal(r.task.id, null);
    assert.equal(r.derived, undefined);
    assert.deepEqual([r.outcome.reward, r.outcome.resolved, r.outcome.status], [0, null, 'NonZeroAgentExitCodeError']);
    assert.equal(r.metadata.trialName, JOB_TRIAL);
    // Show in Source: the reward_stats list that names the trial.
    const text = fs.readFileSync(censusFile(JOB), 'utf8');
    assert.ok(r.source.range);
    assert.deepEqual(JSON.parse(text.slice(r.source.range.start, r.source.range.end)), [JOB_TRIAL]);
  });

  it('is detected by content (not the trial result, not an unknown file); a trial result.json is not taken for a job', () => {
    assert.deepEqual(acceptedBy([harborJobLoader], 'x/result.json', fs.readFileSync(censusFile(JOB), 'utf8')), ['harbor-job']);
    assert.deepEqual(acceptedBy([harborJobLoader], 'x/result.json', fs.readFileSync(sample(TRIAL_RESULT), 'utf8')), []);
  });

  it('a job folder with its trial: the job names it, read from the trial folder (not repeated); raw session and agent log linked; companions not "skipped"', async () => {
    const dir = jobFolder();
    fs.writeFileSync(path.join(dir, 'check_report.json'), JSON.stringify({ report: 'not a rollout' }));
    const trial = trialFolder(dir, JOB_TRIAL, { task: 'check-brickmake-rule-semantics-repair', reward: 0, exception: 'NonZeroAgentExitCodeError' });
    // Claude Code in Harbor: CLAUDE_CONFIG_DIR=/logs/agent/sessions; its output tee'd to agent/claude-code.txt.
    const sessions = path.join(trial, 'agent', 'sessions');
    fs.mkdirSync(path.join(sessions, 'projects', '-app'), { recursive: true });
    fs.mkdirSync(path.join(sessions, 'backups'), { recursive: true });
    const session = path.join(sessions, 'projects', '-app', path.basename(CLAUDE));
    fs.copyFileSync(censusFile(CLAUDE), session);
    fs.writeFileSync(path.join(sessions, '.claude.json'), '{"numStartups":1}');
    fs.writeFileSync(path.join(sessions, 'backups', '.claude.json.backup.1790758889522'), '{}');
    fs.writeFileSync(path.join(trial, 'agent', 'claude-code.txt'), fs.readFileSync(censusFile(CLAUDE), 'utf8').split('\n')[0] + '\n');
    fs.writeFileSync(path.join(trial, 'lock.json'), '{}');
    fs.writeFileSync(path.join(trial, 'trial.log'), 'trial log\n');
    fs.mkdirSync(path.join(trial, 'verifier'));
    fs.writeFileSync(path.join(trial, 'verifier', 'ctrf.json'), '{"results":{}}');

    const found = (await findRolloutFiles(dir)).map((f) => path.relative(dir, f.path));
    assert.deepEqual(found.sort(), [`${JOB_TRIAL}/agent/trajectory.json`, 'check_report.json', 'result.json']);

    const res = await loadPath(dir);
    assert.deepEqual(res.failures, []);
    // check_report.json is the only file no format reads: config/lock/logs, verifier/ and agent/ internals are part of the layout.
    assert.deepEqual(res.skipped.map((p) => path.relative(dir, p)), ['check_report.json']);
    const jobFile = res.files.find((f) => f.format === 'harbor-job');
    assert.ok(jobFile?.job);
    assert.equal(jobFile.rollouts.length, 0, 'the trial is read from its own folder');
    assert.equal(jobFile.job.trials[0].folder, trial);
    const atif = res.files.find((f) => f.format === 'atif');
    assert.ok(atif);
    const r = atif.rollouts[0];
    assert.equal(r.task.id, 'check-brickmake-rule-semantics-repair');
    assert.deepEqual([r.outcome.reward, r.outcome.resolved, r.outcome.status], [0, false, 'NonZeroAgentExitCodeError']);
    // Harbor records rewards only: resolved is derived from reward 0.
    assert.deepEqual(r.derived, ['outcome.resolved']);
    const exc = (r.metadata.harbor as any).exception;
    assert.deepEqual([exc.type, exc.message, exc.traceback], ['NonZeroAgentExitCodeError', 'NonZeroAgentExitCodeError: see trial.log', 'Traceback (most recent call last): …']);
    assert.deepEqual(
      r.links?.map((l) => [l.relation, l.label, l.path]),
      [
        ['raw-session', `Claude Code session ${path.basename(CLAUDE)}`, session],
        ['raw-session', 'agent output claude-code.txt', path.join(trial, 'agent', 'claude-code.txt')],
      ],
    );
    // …and the raw session, opened on its own, links back to the trial's converted trajectory.
    const raw = (await loadFile(session)).rollouts[0];
    assert.equal(raw.format, 'claude-code');
    assert.deepEqual(raw.links?.filter((l) => l.relation === 'converted').map((l) => [l.label, l.path]), [
      [`Harbor ATIF trajectory of ${JOB_TRIAL}`, path.join(trial, 'agent', 'trajectory.json')],
    ]);
  });

  it('older job results: n_trials / n_errors and a top-level status read into the same counts (shape of Harbor\'s legacy migration, from the census file)', async () => {
    // No real legacy job result is in ../shared: the census file with its counts renamed the way
    // `JobResult._derive_progress_stats` migrates them (stats.n_trials/n_errors, status.n_retries).
    const raw = jobJson();
    const { n_completed_trials, n_errored_trials, n_retries, n_running_trials, n_pending_trials, n_cancelled_trials, ...rest } = raw.stats;
    raw.stats = { ...rest, n_trials: n_completed_trials, n_errors: n_errored_trials };
    raw.status = { n_retries: 2, n_running_trials, n_pending_trials, n_cancelled_trials };
    const dir = tmpDir('ti-harbor-legacy-');
    fs.writeFileSync(path.join(dir, 'result.json'), JSON.stringify(raw, null, 4));
    const f = await loadFile(path.join(dir, 'result.json'));
    assert.ok(f.job);
    assert.deepEqual([f.job.completed, f.job.errored, f.job.retries, f.job.pending], [1, 1, 2, 0]);
    assert.equal(f.job.evals[0].key, 'claude-code__gpt-5.6__adhoc');
  });

  it('the first releases\' flat stats (sandboxes JobStats: total_reward, positive / non-positive reward trials): trials listed without a reward value', async () => {
    // Shape of the `sandboxes` package's JobStats (no real file of it in ../shared): the census job's
    // trial and exception moved into it.
    const raw = jobJson();
    raw.stats = { n_trials: 1, n_errors: 1, total_reward: 0, positive_reward_trials: [], non_positive_reward_trials: [JOB_TRIAL], exception_stats: { NonZeroAgentExitCodeError: [JOB_TRIAL] } };
    const dir = tmpDir('ti-harbor-first-');
    fs.writeFileSync(path.join(dir, 'result.json'), JSON.stringify(raw, null, 4));
    const f = await loadFile(path.join(dir, 'result.json'));
    assert.ok(f.job);
    assert.deepEqual(f.job.evals, [{ key: null, nTrials: 1, nErrors: 1, metrics: [{ total_reward: 0 }], passAtK: [], rewards: [], exceptions: [{ type: 'NonZeroAgentExitCodeError', trials: [JOB_TRIAL] }] }]);
    assert.deepEqual(f.job.trials.map((t) => [t.name, t.rewards, t.exception]), [[JOB_TRIAL, null, 'NonZeroAgentExitCodeError']]);
    assert.deepEqual([f.rollouts[0].outcome.reward, f.rollouts[0].outcome.status], [null, 'NonZeroAgentExitCodeError']);
  });

  it('a malformed job result fails located at the field', async () => {
    const raw = jobJson();
    raw.stats.evals['claude-code__gpt-5.6__adhoc'].exception_stats.NonZeroAgentExitCodeError = 'not a list';
    const dir = tmpDir('ti-harbor-bad-');
    const file = path.join(dir, 'result.json');
    fs.writeFileSync(file, JSON.stringify(raw, null, 4));
    await assert.rejects(loadFile(file), (e: any) => {
      assert.equal(e.format, 'Harbor job result');
      assert.equal(e.issues[0].pointer, '/stats/evals/claude-code__gpt-5.6__adhoc/exception_stats/NonZeroAgentExitCodeError');
      const line = fs.readFileSync(file, 'utf8').split('\n').findIndex((l) => l.includes('"not a list"')) + 1;
      assert.equal(e.issues[0].line, line);
      return true;
    });
  });
});

describe('Harbor retried trials (attempts/<NNN>/)', () => {
  /** A trial with attempts 000 (AgentTimeoutError, reward 0, the Terminus golden) and 001 (reward 1, the OpenHands golden). */
  function retried(): { job: string; trial: string } {
    const job = jobFolder();
    const trial = path.join(job, 'hello-world__AbC3dEf');
    trialFolder(path.join(trial, 'attempts'), '000', { task: 'hello-world', reward: 0, exception: 'AgentTimeoutError', atif: ATIF });
    trialFolder(path.join(trial, 'attempts'), '001', { task: 'hello-world', reward: 1, atif: ATIF_OH });
    return { job, trial };
  }

  it('the folder scan reads the latest attempt only; its rollout links the other attempt with what that one\'s result says', async () => {
    const { job, trial } = retried();
    const found = (await findRolloutFiles(job)).map((f) => path.relative(job, f.path));
    assert.deepEqual(found.sort(), ['hello-world__AbC3dEf/attempts/001/agent/trajectory.json', 'result.json']);
    const f = await loadFile(path.join(trial, 'attempts', '001', 'agent', 'trajectory.json'));
    const r = f.rollouts[0];
    assert.equal(r.outcome.reward, 1);
    assert.equal(r.steps.length, sampleJson(ATIF_OH).steps.length);
    assert.deepEqual(r.links, [
      { relation: 'attempt', label: 'attempt 000 · reward 0 · AgentTimeoutError', path: path.join(trial, 'attempts', '000', 'agent', 'trajectory.json'), rolloutId: null, missing: null },
    ]);
    const back = (await loadFile(path.join(trial, 'attempts', '000', 'agent', 'trajectory.json'))).rollouts[0];
    assert.deepEqual(back.links?.map((l) => l.label), ['attempt 001 · final · reward 1']);
  });

  it('the attempt the trial\'s own result.json names in trial_uri is the final one, even when not the latest', async () => {
    const { trial } = retried();
    const r = sampleJson(TRIAL_RESULT);
    r.trial_name = 'hello-world__AbC3dEf';
    r.trial_uri = `file://${trial.split(path.sep).map(encodeURIComponent).join('/')}/attempts/000`;
    fs.writeFileSync(path.join(trial, 'result.json'), JSON.stringify(r));
    const ta = await trialAttempts(trial, nodeFiles);
    assert.equal(ta?.final.name, '000');
    // Opened from the trial's result.json: the final attempt's trajectory, its steps and links.
    const f = await loadFile(path.join(trial, 'result.json'));
    assert.equal(f.rollouts[0].steps.length, sampleJson(ATIF).steps.length);
    assert.deepEqual((await attemptLinks(path.join(trial, 'attempts', '000'), nodeFiles)).map((l) => l.label), ['attempt 001 · reward 1']);
  });

  it('a fork\'s layout (latest attempt at the trial\'s top, attempts/attempt-N moved aside): the top is final', async () => {
    const job = jobFolder();
    const trial = trialFolder(job, 'hello-world__Zz9', { task: 'hello-world', reward: 1, atif: ATIF_OH });
    trialFolder(path.join(trial, 'attempts'), 'attempt-1', { task: 'hello-world', reward: null, exception: 'EnvironmentStartTimeoutError', atif: null });
    const found = (await findRolloutFiles(job)).map((f) => path.relative(job, f.path));
    assert.deepEqual(found.sort(), ['hello-world__Zz9/agent/trajectory.json', 'result.json']);
    const r = (await loadFile(path.join(trial, 'agent', 'trajectory.json'))).rollouts[0];
    assert.deepEqual(r.links?.map((l) => [l.relation, l.label, path.relative(trial, l.path ?? '')]), [['attempt', 'attempt attempt-1 · EnvironmentStartTimeoutError', 'attempts/attempt-1/result.json']]);
  });
});

describe('Harbor trial without a trajectory', () => {
  it('its result.json stands for the trial and links the raw Codex session under agent/sessions/YYYY/MM/DD', async () => {
    const job = jobFolder();
    const trial = trialFolder(job, 'configure-git-webserver__YfkUhxf', { atif: null });
    // Codex in Harbor: CODEX_HOME=/logs/agent → agent/sessions/YYYY/MM/DD/rollout-*.jsonl; auth.json is a secret, never listed.
    const day = path.join(trial, 'agent', 'sessions', '2026', '08', '25');
    fs.mkdirSync(day, { recursive: true });
    const codex = censusFile(CODEX);
    fs.copyFileSync(codex, path.join(day, path.basename(codex)));
    fs.writeFileSync(path.join(trial, 'agent', 'auth.json'), '{"OPENAI_API_KEY":"not listed"}');
    const found = (await findRolloutFiles(job)).map((f) => path.relative(job, f.path));
    assert.deepEqual(found.sort(), ['configure-git-webserver__YfkUhxf/result.json', 'result.json']);
    const r = (await loadFile(path.join(trial, 'result.json'))).rollouts[0];
    assert.equal(r.format, 'harbor-trial-result');
    assert.deepEqual(r.links, [{ relation: 'raw-session', label: `Codex session ${path.basename(codex)}`, path: path.join(day, path.basename(codex)), rolloutId: null }]);
    assert.deepEqual(await rawSessionLinks(path.join(trial, 'agent'), nodeFiles), r.links);
  });
});
