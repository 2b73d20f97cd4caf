/**
 * e2e: the Rollouts view shows a Harbor job folder as one collection (tasks → trials, pass counts,
 * mean rewards) and an RL rollout dump as its GRPO groups with their rewards; Filter Rollouts… and
 * Sort Rollouts By… change what it shows. The packaged .vsix in code-server, driven by Playwright.
 *
 * The workspace is built from the real samples:
 * - `jobs/2026-08-25__03-44-04/<trial>/agent/trajectory.json`: ATIF golden trajectories
 *   (atif/*.trajectory.json), and `<trial>/result.json`: the real Harbor TrialResult
 *   (harbor-trial-result/) with `task_name`, `trial_name` and `verifier_result.rewards.reward`
 *   rewritten per trial (rewards 1, 0 and 0.5), so the job has two tasks and varied rewards.
 * - `rl/rollouts_step_0040.jsonl`: the five real NeMo-Gym rows
 *   (openai-responses/nemo-gym_mini_swe_agent_2_example_rollouts.jsonl) with `_ng_task_index` (row
 *   i → i % 2), `_ng_rollout_index` (⌊i / 2⌋) and `reward` (1, 0, 0.5, 1, 0) rewritten, and the
 *   SWE-bench eval report's `resolved` made to agree (true only for reward 1): two groups.
 * - `jobs/2026-08-25__03-44-04/result.json`: the real Harbor job result of the census
 *   (format-census/harbor-job/…/result.json) with its reward_stats / exception_stats / pass_at_k /
 *   n_total_trials / n_retries rewritten to name the three trials above; it says
 *   configure-git-webserver__YfkUhxf got reward 0 with an AgentTimeoutError (its own result: 0.5, no
 *   exception), so the job result and that trial disagree.
 * - `jobs/2026-09-30__08-59-24/result.json`: the census job result as published, alone (its trial
 *   folder was not committed): a collection of the one trial it names.
 * The include globs get the `rl` folder's JSONL files (RL dumps have no fixed name; a user adds their folder).
 * Screenshots: .test-artifacts/e2e/collections.png (expanded), collections-filtered.png (Failed,
 * by reward).
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { Locator } from 'playwright-core';
import {
  ARTIFACTS, assertActivatedWithoutErrors, defaultRolloutIncludes, e2eSuite, harborTrialResultSample, pickInQuickInput, quickInput, rolloutsPane, runCommand, sample, SAMPLES_DIR, screenshot, UI_MS, waitUntil, widenSidebar, writeGroupedDump,
} from './harness';

const ATIF_TERMINUS = 'atif/harbor-golden_terminus2_invalid-json_ATIF-v1.5.trajectory.json';
const ATIF_OPENHANDS = 'atif/harbor-golden_openhands_hello-world_ATIF-v1.5.trajectory.json';
const JOB = '2026-08-25__03-44-04';
const TRIALS = [
  { trial: 'hello-world__Ab3dE9x', task: 'hello-world', reward: 1, atif: ATIF_TERMINUS },
  { trial: 'hello-world__Qr7sT2u', task: 'hello-world', reward: 0, atif: ATIF_OPENHANDS },
  { trial: 'configure-git-webserver__YfkUhxf', task: 'configure-git-webserver', reward: 0.5, atif: ATIF_TERMINUS },
];
const CENSUS_JOB = path.resolve(SAMPLES_DIR, '..', 'format-census', 'harbor-job', '2026-09-30__08-59-24', 'result.json');
const CENSUS_JOB_DIR = '2026-09-30__08-59-24';
const CENSUS_TRIAL = 'check-brickmake-rule-semantics-r__xwL2kAp';
const DUMP = 'rollouts_step_0040.jsonl';

/** Builds the workspace described above; returns the step count of each trial's trajectory. */
function buildWorkspace(workspace: string): Map<string, number> {
  const result = JSON.parse(fs.readFileSync(harborTrialResultSample(), 'utf8'));
  const steps = new Map<string, number>();
  for (const t of TRIALS) {
    const dir = path.join(workspace, 'jobs', JOB, t.trial);
    fs.mkdirSync(path.join(dir, 'agent'), { recursive: true });
    fs.copyFileSync(sample(t.atif), path.join(dir, 'agent', 'trajectory.json'));
    steps.set(t.trial, JSON.parse(fs.readFileSync(sample(t.atif), 'utf8')).steps.length);
    const r = structuredClone(result);
    r.task_name = `terminal-bench/${t.task}`;
    r.trial_name = t.trial;
    r.verifier_result = { rewards: { reward: t.reward } };
    fs.writeFileSync(path.join(dir, 'result.json'), JSON.stringify(r, null, 2));
  }
  // The job's own result.json: the census job result, rewritten to name these trials (see above).
  assert.ok(fs.existsSync(CENSUS_JOB), `census job result missing: ${CENSUS_JOB}`);
  const job = JSON.parse(fs.readFileSync(CENSUS_JOB, 'utf8'));
  const ev = job.stats.evals['claude-code__gpt-5.6__adhoc'];
  ev.reward_stats.reward = { '1.0': ['hello-world__Ab3dE9x'], '0.0': ['hello-world__Qr7sT2u', 'configure-git-webserver__YfkUhxf'] };
  ev.exception_stats = { AgentTimeoutError: ['configure-git-webserver__YfkUhxf'] };
  ev.pass_at_k = { '1': 0.3333333 };
  job.n_total_trials = 3;
  job.stats.n_retries = 1;
  fs.writeFileSync(path.join(workspace, 'jobs', JOB, 'result.json'), JSON.stringify(job, null, 4));
  fs.mkdirSync(path.join(workspace, 'jobs', CENSUS_JOB_DIR), { recursive: true });
  fs.copyFileSync(CENSUS_JOB, path.join(workspace, 'jobs', CENSUS_JOB_DIR, 'result.json'));
  writeGroupedDump(path.join(workspace, 'rl', DUMP));
  return steps;
}

describe('e2e: collections and GRPO groups in the Rollouts view', function () {
  this.timeout(300_000);

  let steps: Map<string, number>;
  const e2e = e2eSuite({
    name: 'coll',
    artifactPrefix: 'collections-',
    prepare: (workspace) => {
      steps = buildWorkspace(workspace);
    },
    // RL dumps have no fixed file name: the include globs get the dump's folder, as a user would add it.
    settings: { 'trajectoryInspector.rollouts.include': [...defaultRolloutIncludes(), '**/rl/*.jsonl'] },
    opened: async ({ page }) => {
      // Give the Rollouts view the room: its side bar, the other sections folded.
      await open({ alone: true });
      // A wider side bar, so the rows' descriptions show whole.
      await widenSidebar(page, 400);
    },
  });

  const { sidebar, pane, row, open } = rolloutsPane(() => e2e.page);
  const rows = async () => JSON.stringify((await pane().locator('.monaco-list-row').allInnerTexts()).map((t) => t.replace(/\s+/g, ' ')));
  const rowText = async (r: Locator) => (await r.innerText()).replace(/\s+/g, ' ').trim();

  /** Waits until the row holding `label` also shows `expected`; returns its text. */
  async function waitRow(label: string | RegExp, expected: RegExp, timeoutMs = 60_000): Promise<string> {
    return waitUntil(async () => {
      const r = row(label);
      if (!(await r.count())) return '';
      const t = await rowText(r);
      return expected.test(t) ? t : '';
    }, timeoutMs, async () => `no Rollouts row ${String(label)} showing ${expected}; rows: ${await rows()}`);
  }

  /** Expands a collapsed row (clicks its twistie: rows with a command would open instead). */
  async function expand(label: string | RegExp): Promise<void> {
    const r = row(label);
    await r.waitFor({ state: 'visible', timeout: UI_MS });
    if ((await r.getAttribute('aria-expanded')) === 'false') await r.locator('.monaco-tl-twistie').click();
    await waitUntil(async () => (await r.getAttribute('aria-expanded')) === 'true', UI_MS, async () => `row ${String(label)} did not expand; rows: ${await rows()}`);
  }

  /** Runs a command from the command palette, then picks `item` in the quick pick it opens. */
  async function runCommandAndPick(title: string, pickTitle: string, item: string): Promise<void> {
    await runCommand(e2e.page, title);
    await pickInQuickInput(e2e.page, pickTitle, item);
    await quickInput(e2e.page).waitFor({ state: 'hidden', timeout: UI_MS });
  }

  it('shows the Harbor job folder as one collection, its trials grouped by task with rewards', async () => {
    // 3 trials: rewards 1 (passed), 0 (failed), 0.5 (neither) → 1 passed, mean 0.5.
    await waitRow(JOB, /3 trials · 1 passed · mean reward 0\.5\b/);
    // No trial is listed on its own at the top level.
    for (const t of TRIALS) assert.equal(await row(t.trial).count(), 0, `${t.trial} shows before its collection is expanded; rows: ${await rows()}`);
    await expand(JOB);
    await waitRow('terminal-bench/hello-world', /1\/2 passed · mean reward 0\.5\b/);
    await waitRow('terminal-bench/configure-git-webserver', /0\/1 passed · mean reward 0\.5\b/);
    await expand('terminal-bench/hello-world');
    await expand('terminal-bench/configure-git-webserver');
    for (const t of TRIALS) {
      const outcome = t.reward === 1 ? 'resolved' : t.reward === 0 ? 'failed' : '—';
      await waitRow(t.trial, new RegExp(`${steps.get(t.trial)} steps · reward ${t.reward.toFixed(1)} · ${outcome}`));
    }
  });

  it('heads the Harbor job with its result.json: its stats, and where it and a trial disagree', async () => {
    // The job result's errored count, retries and pass@1; it disagrees with configure-git-webserver__YfkUhxf.
    await waitRow(JOB, /3 trials · 1 passed · mean reward 0\.5 · 1 errored · 1 retry · pass@1 0\.333 · job result differs/);
    await waitRow('result.json', /job result · 3 trials named/);
    await waitRow('configure-git-webserver__YfkUhxf', /reward 0\.5 · — · job result differs/);
    await waitRow('hello-world__Ab3dE9x', /reward 1\.0 · resolved/);
    // The census job result alone: the trial it names, with what the job says of it.
    await waitRow(CENSUS_JOB_DIR, /1 trial · 0 passed · mean reward 0\.0 · 1 errored/);
    await expand(CENSUS_JOB_DIR);
    await expand('check-brickmake-rule-semantics-r');
    await waitRow(CENSUS_TRIAL, /0 steps · reward 0\.0 · NonZeroAgentExitCodeError · folder not here/);
    await e2e.page.mouse.move(0, 0);
    await sidebar().screenshot({ path: path.join(ARTIFACTS, 'collections-harbor-job.png') });
  });

  it('shows the RL dump as its GRPO groups with their rewards', async () => {
    // Rows 0, 2, 4 → group ng-task-0 (rewards 1, 0.5, 0); rows 1, 3 → ng-task-1 (0, 1).
    await waitRow(DUMP, /5 rollouts · 2 groups · 2 resolved · mean reward 0\.5\b/);
    await expand(DUMP);
    await waitRow('group ng-task-0', /3 rollouts · rewards 1, 0\.5, 0 · mean 0\.5\b/);
    await waitRow('group ng-task-1', /2 rollouts · rewards 0, 1 · mean 0\.5\b/);
    await expand('group ng-task-0');
    await e2e.page.mouse.move(0, 0);
    await screenshot(e2e.page, 'collections');
    await sidebar().screenshot({ path: path.join(ARTIFACTS, 'collections-sidebar.png') });
  });

  it('filters to failed rollouts and sorts by reward, at every level', async () => {
    await runCommandAndPick('Trajectory Inspector: Filter Rollouts…', 'Filter Rollouts', 'Failed');
    // The passed trial goes; the failed one stays; the collection still counts all three.
    await waitUntil(async () => (await row('hello-world__Ab3dE9x').count()) === 0, UI_MS, async () => `the passed trial still shows under Failed; rows: ${await rows()}`);
    await waitRow('hello-world__Qr7sT2u', /reward 0\.0 · failed/);
    await waitRow(JOB, /3 trials · 1 passed/);
    assert.equal(await row('terminal-bench/configure-git-webserver').count(), 0, `a task with no failed trial still shows; rows: ${await rows()}`);
    // Group ng-task-0 keeps its rollouts with reward 0.5 and 0 (not resolved); its rewards line is unchanged.
    await waitRow('group ng-task-0', /rewards 1, 0\.5, 0/);
    const header = await sidebar().locator('.pane-header', { hasText: /^Rollouts/i }).first().innerText();
    assert.match(header.replace(/\s+/g, ' '), /failed/i, 'the view title does not say the filter');

    await runCommandAndPick('Trajectory Inspector: Sort Rollouts By…', 'Sort Rollouts By', 'Reward');
    await waitUntil(async () => /by reward/i.test(await sidebar().locator('.pane-header', { hasText: /^Rollouts/i }).first().innerText()), UI_MS,
      () => 'the view title does not say "by reward"');
    // Inside group ng-task-0 the kept rollouts go by reward, highest first: 0.5 before 0.
    const texts: string[] = JSON.parse(await rows());
    const i05 = texts.findIndex((t) => /reward 0\.5 · failed/.test(t));
    const i0 = texts.findIndex((t, i) => i > texts.findIndex((x) => x.startsWith('group ng-task-0')) && /reward 0\.0 · failed/.test(t));
    assert.ok(i05 >= 0 && i0 > i05, `expected the 0.5 rollout before the 0 one in group ng-task-0; rows: ${JSON.stringify(texts)}`);
    await e2e.page.mouse.move(0, 0);
    await screenshot(e2e.page, 'collections-filtered');

    // Back to everything.
    await runCommandAndPick('Trajectory Inspector: Filter Rollouts…', 'Filter Rollouts', 'All');
    await waitRow('hello-world__Ab3dE9x', /reward 1\.0 · resolved/);
  });

  it('the filter box takes the search syntax: reward>=0.5 (issue 21 item 9)', async () => {
    await runCommandAndPick('Trajectory Inspector: Filter Rollouts…', 'Filter Rollouts', 'reward>=0.5');
    await waitUntil(async () => (await row('hello-world__Qr7sT2u').count()) === 0, UI_MS, async () => `the reward-0 trial still shows under reward>=0.5; rows: ${await rows()}`);
    await waitRow('hello-world__Ab3dE9x', /reward 1\.0 · resolved/);
    const header = await sidebar().locator('.pane-header', { hasText: /^Rollouts/i }).first().innerText();
    assert.match(header.replace(/\s+/g, ' '), /reward ≥ 0\.5/, 'the view title does not say the reward filter');
    await e2e.page.mouse.move(0, 0);
    await screenshot(e2e.page, 'collections-reward-query');
    await runCommandAndPick('Trajectory Inspector: Filter Rollouts…', 'Filter Rollouts', 'Clear all filters');
    await waitRow('hello-world__Qr7sT2u', /reward 0\.0 · failed/);
  });

  it('logged no extension errors', async () => {
    assertActivatedWithoutErrors(e2e.server);
  });
});
