/**
 * e2e (issue 8): compare two rollouts and open a search result, in code-server with the packaged
 * extension, driven by Playwright.
 *
 * Workspace, from the real SWE-agent sample (swe-agent/v0.7_default__marshmallow-code__marshmallow-1867.traj):
 * - `base/marshmallow.traj`: the sample as it is (16 steps);
 * - `retry/marshmallow.traj`: a copy with `python reproduce.py` run twice (trajectory[5] repeated)
 *   and the first command `ls -F` changed to `ls -la` (17 steps).
 * Compare Rollouts… (both picked in its quick pick) must show 15 same, 1 changed, 1 only right;
 * clicking the only-right step opens the copy in the timeline at that step. Search Rollouts… for
 * `python reproduce.py in:command` must list steps 8 and 14 of the sample and 8, 9 and 15 of the
 * copy; clicking step 9 of the copy opens it there.
 * Screenshots: .test-artifacts/e2e/compare.png, search.png, search-opened.png.
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { Browser, Frame, Page } from 'playwright-core';
import {
  ARTIFACTS, type CodeServer, EXTENSION_ID, extensionHostLogs, makeTempDir, REPO_ROOT, sample, waitUntil, openSession, saveFailureArtifacts, closeSession, rolloutsPane, viewPane,
} from './harness';

const SWE = 'swe-agent/v0.7_default__marshmallow-code__marshmallow-1867.traj';

const NEMO_SWE = 'openai-responses/nemo-gym_mini_swe_agent_2_example_rollouts.jsonl';
const DUMP_REWARDS = [1, 0, 0.5, 1, 0];

function buildWorkspace(workspace: string): void {
  // An RL dump with two GRPO groups: the five real NeMo-Gym rows regrouped (row i → group i % 2) with
  // rewards 1, 0, 0.5, 1, 0 (as in collections.e2e.test.ts): group ng-task-0 = rows 0, 2, 4.
  const rows = fs.readFileSync(sample(NEMO_SWE), 'utf8').trim().split('\n').map((l) => JSON.parse(l));
  const lines = rows.map((row: any, i: number) => {
    const r = structuredClone(row);
    r._ng_task_index = i % 2;
    r._ng_rollout_index = Math.floor(i / 2);
    r.reward = DUMP_REWARDS[i];
    for (const rep of Object.values<any>(r.metadata?.eval_report ?? {})) rep.resolved = DUMP_REWARDS[i] >= 1;
    return JSON.stringify(r);
  });
  fs.mkdirSync(path.join(workspace, 'rl'), { recursive: true });
  fs.writeFileSync(path.join(workspace, 'rl', 'rollouts_step_0040.jsonl'), `${lines.join('\n')}\n`);

  const text = fs.readFileSync(sample(SWE), 'utf8');
  fs.mkdirSync(path.join(workspace, 'base'), { recursive: true });
  fs.writeFileSync(path.join(workspace, 'base', 'marshmallow.traj'), text);
  const j = JSON.parse(text);
  assert.equal(j.trajectory[5].action, 'python reproduce.py\n');
  assert.equal(j.trajectory[0].action, 'ls -F\n');
  j.trajectory.splice(6, 0, structuredClone(j.trajectory[5]));
  j.trajectory[0].action = 'ls -la\n';
  fs.mkdirSync(path.join(workspace, 'retry'), { recursive: true });
  fs.writeFileSync(path.join(workspace, 'retry', 'marshmallow.traj'), JSON.stringify(j, null, 2));
}

describe('e2e: compare rollouts and search across them', function () {
  this.timeout(300_000);

  let tmp: string;
  let workspace: string;
  let server: CodeServer | undefined;
  let browser: Browser | undefined;
  let page: Page;
  const consoleLog: string[] = [];

  const sidebar = () => page.locator('[id="workbench.parts.sidebar"]');
  const input = () => page.locator('.quick-input-widget .quick-input-box input');

  /** The webview content frame holding `selector` (the compare page or the timeline). */
  async function frameWith(selector: string, timeoutMs = 60_000): Promise<Frame> {
    return waitUntil<Frame | null>(async () => {
      for (const f of page.frames()) {
        if (!f.url().includes(EXTENSION_ID) && !f.parentFrame()?.url().includes(EXTENSION_ID)) continue;
        if (await f.locator(selector).count().catch(() => 0)) return f;
      }
      return null;
    }, timeoutMs, () => `no webview frame shows ${selector}; frames: ${page.frames().map((f) => f.url().slice(0, 80)).join(', ')}`) as Promise<Frame>;
  }

  /** Runs a palette command; returns once its quick input shows. */
  async function runCommand(title: string): Promise<void> {
    await page.keyboard.press('F1');
    await input().waitFor({ state: 'visible', timeout: 30_000 });
    await input().fill(`>${title}`);
    await page.locator('.quick-input-list .monaco-list-row', { hasText: title }).first().waitFor({ state: 'visible', timeout: 30_000 });
    await page.keyboard.press('Enter');
  }

  /** Closes every editor (focus moved out of any webview first) and waits until no tab is left. */
  async function closeAllEditors(): Promise<void> {
    await sidebar().locator('.composite.title').first().click();
    await runCommand('View: Close All Editors');
    await waitUntil(async () => (await page.locator('.tabs-container .tab').count()) === 0, 15_000,
      async () => `editors still open: ${JSON.stringify(await page.locator('.tabs-container .tab').allInnerTexts())}`);
  }

  /** Picks the row holding `text` in the open quick pick titled `title`. */
  async function pick(title: string, text: string): Promise<void> {
    await page.locator('.quick-input-widget .quick-input-title', { hasText: title }).waitFor({ state: 'visible', timeout: 20_000 });
    await input().fill(text);
    await page.locator('.quick-input-list .monaco-list-row', { hasText: text }).first().waitFor({ state: 'visible', timeout: 30_000 });
    await page.keyboard.press('Enter');
  }

  before(async function () {
    fs.mkdirSync(ARTIFACTS, { recursive: true });
    tmp = makeTempDir('ti-e2e-cmp-');
    workspace = path.join(tmp, 'workspace');
    buildWorkspace(workspace);
    const pkg = JSON.parse(fs.readFileSync(path.join(REPO_ROOT, 'package.json'), 'utf8'));
    const include: string[] = pkg.contributes.configuration
      .find((c: any) => c.properties?.['trajectoryInspector.rollouts.include']).properties['trajectoryInspector.rollouts.include'].default;
    ({ server, browser, page } = await openSession(workspace, tmp, { consoleLog, settings: { 'trajectoryInspector.rollouts.include': [...include, '**/rl/*.jsonl'] } }));
    await rolloutsPane(() => page).open();
    // Both files summarised (the compare picker lists the Rollouts view's rollouts).
    await waitUntil(async () => (await sidebar().locator('.monaco-list-row', { hasText: /1[67] steps/ }).count()) >= 2, 60_000,
      async () => `the Rollouts view did not list both files: ${JSON.stringify(await sidebar().locator('.monaco-list-row').allInnerTexts())}`);
  });

  afterEach(async function () {
    await saveFailureArtifacts(this.currentTest, page, server, consoleLog, 'compare-search-');
  });

  after(async function () {
    await closeSession(browser, server, tmp);
  });

  it('compares two rollouts step by step and opens a step of one side in the timeline', async () => {
    await runCommand('Trajectory Inspector: Compare Rollouts…');
    await pick('Compare Rollouts: First', 'base/marshmallow.traj');
    await pick('Compare Rollouts: Second', 'retry/marshmallow.traj');
    const cmp = await frameWith('ti-compare .row');
    const counts = (await waitUntil(async () => {
      const t = await cmp.locator('[data-count]').allInnerTexts();
      return t.length === 4 ? t : null;
    }, 30_000, () => 'no counts on the compare page'))!;
    assert.deepEqual(counts.map((t) => t.trim()), ['15 same', '1 changed', '0 only left', '1 only right']);
    assert.equal(await cmp.locator('.row').count(), 17);
    assert.match(await cmp.locator('.first-divergence').innerText(), /First divergence: row 3 \(changed; left step 3, right step 3\)/);
    assert.equal((await cmp.locator('.inline-diff[data-field="command"] del').innerText()).trim(), 'F');
    assert.equal((await cmp.locator('.inline-diff[data-field="command"] ins').innerText()).trim(), 'la');
    const only = cmp.locator('.row[data-status="only-right"]');
    assert.equal((await only.locator('.command').innerText()).trim(), 'python reproduce.py');
    // Both sides carry the built-in scorer's step scores (the default scorer, auto-scoring on).
    const chips = await cmp.locator('.cell .chip', { hasText: /^score / }).allInnerTexts();
    assert.ok(chips.length >= 16, `score chips on the compare page: ${chips.length}`);
    await page.mouse.move(0, 0);
    await page.screenshot({ path: path.join(ARTIFACTS, 'compare.png') });

    // The only-right step is step 9 of the copy: clicking it opens the copy's timeline there.
    await only.locator('.cell[data-side="right"] .open-step').click();
    const timeline = await frameWith('ti-app .step-card');
    await waitUntil(async () => (await timeline.locator('.step-card.selected').getAttribute('data-index').catch(() => null)) === '8', 30_000,
      async () => `the timeline did not select step index 8 (got ${await timeline.locator('.step-card.selected').first().getAttribute('data-index').catch(() => 'none')})`);
    const tab = page.locator('.tabs-container .tab', { hasText: 'marshmallow.traj' });
    assert.ok((await tab.count()) >= 1, 'no timeline tab for the copy');
    await page.screenshot({ path: path.join(ARTIFACTS, 'compare-opened.png') });
  });

  it('compares the two rollouts selected in the Rollouts view without asking; the page comes back after being hidden', async () => {
    const pane = sidebar().locator('.pane', { has: page.locator('.pane-header', { hasText: /^Rollouts/i }) }).first();
    // Select both (the second with Ctrl held), then run the command from the view's context menu:
    // left and right go in the view's order (base, then retry), whatever the order of the clicks.
    await pane.locator('.monaco-list-row', { hasText: '17 steps' }).first().click();
    await pane.locator('.monaco-list-row', { hasText: '16 steps' }).first().click({ modifiers: ['Control'] });
    await waitUntil(async () => (await pane.locator('.monaco-list-row.selected').count()) === 2, 10_000, () => 'two rows are not selected');
    // (The first click opened that rollout's timeline: close it, so only the comparison is open.)
    await closeAllEditors();
    await pane.locator('.monaco-list-row', { hasText: '16 steps' }).first().click({ button: 'right' });
    const item = page.locator('.monaco-menu .action-item', { hasText: 'Compare Rollouts…' }).first();
    await item.waitFor({ state: 'visible', timeout: 30_000 });
    await item.hover();
    await page.keyboard.press('Enter');
    await item.waitFor({ state: 'hidden', timeout: 30_000 });
    const cmp = await frameWith('ti-compare .row');
    const counts = (await waitUntil(async () => {
      const t = await cmp.locator('[data-count]').allInnerTexts();
      return t.length === 4 ? t : null;
    }, 30_000, () => 'no counts on the compare page'))!;
    assert.deepEqual(counts.map((t) => t.trim()), ['15 same', '1 changed', '0 only left', '1 only right']);
    // Hidden behind another editor and shown again, the page (not kept while hidden) is rebuilt.
    await pane.locator('.monaco-list-row', { hasText: '16 steps' }).first().click(); // opens its timeline
    await waitUntil(async () => (await page.locator('.tabs-container .tab').count()) === 2, 15_000,
      async () => `the timeline tab did not open: ${JSON.stringify(await page.locator('.tabs-container .tab').allInnerTexts())}`);
    await page.locator('.tabs-container .tab', { hasText: /^Compare/ }).first().click();
    await waitUntil(async () => {
      for (const f of page.frames()) if ((await f.locator('ti-compare .row').count().catch(() => 0)) === 17) return true;
      return false;
    }, 30_000, () => 'the compare page did not come back with its 17 rows');
    await closeAllEditors();
  });

  it('shows a GRPO group: its rollouts best first, where each parts from the best', async () => {
    const pane = sidebar().locator('.pane', { has: page.locator('.pane-header', { hasText: /^Rollouts/i }) }).first();
    const file = pane.locator('.monaco-list-row', { hasText: 'rollouts_step_0040.jsonl' }).first();
    await file.waitFor({ state: 'visible', timeout: 60_000 });
    await waitUntil(async () => /2 groups/.test(await file.innerText()), 60_000, async () => `the dump was not read: ${await file.innerText()}`);
    if ((await file.getAttribute('aria-expanded')) === 'false') await file.locator('.monaco-tl-twistie').click();
    const group = pane.locator('.monaco-list-row', { hasText: 'group ng-task-0' }).first();
    await group.waitFor({ state: 'visible', timeout: 30_000 });
    await group.click({ button: 'right' });
    const item = page.locator('.monaco-menu .action-item', { hasText: 'Show Group' }).first();
    await item.waitFor({ state: 'visible', timeout: 30_000 });
    await item.hover();
    await page.keyboard.press('Enter');
    const g = await frameWith('ti-compare tbody tr');
    const rows = (await g.locator('tbody tr').allInnerTexts()).map((t) => t.replace(/\s+/g, ' ').trim());
    assert.equal(rows.length, 3, JSON.stringify(rows));
    // Rewards 1, 0.5, 0: the reward-1 rollout is the best, first; the others say where they part from it.
    // Named by their place in the group (issue 21 item 3).
    assert.match(rows[0], /^#1 of 3 · line 1 best 1\.0 resolved/);
    assert.match(rows[1], /^#2 of 3 · line 3 0\.5 /);
    assert.match(rows[2], /^#3 of 3 · line 5 0\.0 failed/);
    for (const r of rows.slice(1)) assert.match(r, /step \d+ \(best: step \d+\)/);
    assert.match(await g.locator('h1').innerText(), /Group ng-task-0/);
    await page.mouse.move(0, 0);
    await page.screenshot({ path: path.join(ARTIFACTS, 'group.png') });
    await closeAllEditors();
  });

  it('searches every rollout for a command and opens a result at its step', async () => {
    if (await page.locator('.tabs-container .tab').count()) await closeAllEditors();
    await runCommand('Trajectory Inspector: Search Rollouts…');
    await page.locator('.quick-input-widget .quick-input-title', { hasText: 'Search Rollouts' }).waitFor({ state: 'visible', timeout: 30_000 });
    await input().fill('python reproduce.py in:command');
    await page.keyboard.press('Enter');
    const search = viewPane(() => page, /^Search Rollouts/i);
    const pane = search.pane();
    // The results get a real share of the side bar at the default layout (issue 21 item 9: it was a sliver).
    await pane.locator('.monaco-list-row').first().waitFor({ state: 'visible', timeout: 60_000 });
    const share = await waitUntil(async () => {
      const [p, bar] = [await pane.boundingBox(), await search.sidebar().boundingBox()];
      return p && bar && p.height / bar.height >= 0.37 ? p.height / bar.height : null; // 41% with the initial sizes, 32% without
    }, 10_000, async () => `the Search Rollouts view holds ${JSON.stringify(await pane.boundingBox())} of the side bar ${JSON.stringify(await search.sidebar().boundingBox())}`);
    console.log(`      search view: ${Math.round(share! * 100)}% of the side bar`);
    await page.screenshot({ path: path.join(ARTIFACTS, 'search-default-layout.png') });
    // Room for every result row (the list renders only what fits): fold the other sections.
    await search.open({ alone: true });
    const resultRows = pane.locator('.monaco-list-row');
    const texts = (await waitUntil(async () => {
      const t = (await resultRows.allInnerTexts()).map((x) => x.replace(/\s+/g, ' ').trim());
      return t.filter((x) => /^#\d+ command:/.test(x)).length >= 5 ? t : null;
    }, 60_000, async () => `the search view did not list 5 steps: ${JSON.stringify(await resultRows.allInnerTexts())}`))!;
    const steps = texts.filter((x) => /^#\d+ command:/.test(x)).map((x) => Number(/^#(\d+)/.exec(x)![1]));
    // Sample: steps 8 and 14; the copy: 8, 9 (the retry) and 15.
    assert.deepEqual([...steps].sort((a, b) => a - b), [8, 8, 9, 14, 15], JSON.stringify(texts));
    assert.ok(texts.some((t) => /2 steps/.test(t)) && texts.some((t) => /3 steps/.test(t)), JSON.stringify(texts));
    assert.match(await pane.locator('.pane-header').innerText(), /python reproduce\.py/);
    await page.mouse.move(0, 0);
    await page.screenshot({ path: path.join(ARTIFACTS, 'search.png') });

    // Open step 9 of the copy from the results.
    await pane.locator('.monaco-list-row', { hasText: /^#9 command:/ }).first().click();
    const timeline = await frameWith('ti-app .step-card');
    // Known race (seen once in CI, 2026-12-02): a result opened while its timeline is still being
    // created can land on step 0 (the selection has several owners, see the house refactor); a
    // second click on the result, as a user would, selects it. Remove when the webview owns the selection.
    const selected8 = async () => (await timeline.locator('.step-card.selected').getAttribute('data-index').catch(() => null)) === '8';
    for (let t = 0; t < 30 && !(await selected8()); t++) await page.waitForTimeout(500);
    if (!(await selected8())) await pane.locator('.monaco-list-row', { hasText: /^#9 command:/ }).first().click();
    await waitUntil(async () => (await timeline.locator('.step-card.selected').getAttribute('data-index').catch(() => null)) === '8', 30_000,
      async () => `the timeline did not select step index 8 (got ${await timeline.locator('.step-card.selected').first().getAttribute('data-index').catch(() => 'none')})`);
    // …and shows it (scrolled into view).
    await waitUntil(
      () => timeline.locator('.step-card.selected').evaluate((el: any) => {
        const r = el.getBoundingClientRect();
        return r.top >= 0 && r.top < (el.ownerDocument.defaultView.innerHeight as number);
      }),
      15_000,
      () => 'the selected step is not scrolled into view',
    );
    // …with the match marked in its command (the step expanded, the mark in view).
    const mark = timeline.locator('.step-card.selected mark.ti-match').first();
    await mark.waitFor({ state: 'visible', timeout: 30_000 });
    assert.match((await mark.textContent()) ?? '', /^python reproduce\.py$/i);
    await waitUntil(
      () => mark.evaluate((el: any) => {
        const r = el.getBoundingClientRect();
        return r.top >= 0 && r.bottom <= (el.ownerDocument.defaultView.innerHeight as number);
      }),
      15_000,
      () => 'the first match is not scrolled into view',
    );
    await page.screenshot({ path: path.join(ARTIFACTS, 'search-opened.png') });
  });

  it('logged no extension errors', async () => {
    const logs = extensionHostLogs(server!.userDataDir);
    assert.match(logs, new RegExp(`_doActivateExtension ${EXTENSION_ID.replace(/\./g, '\\.')}`), 'the extension was never activated');
    assert.match(logs, /search: ripgrep \/.*rg/, 'the search did not find VS Code\'s ripgrep');
    const lines = logs.split('\n');
    const failures: string[] = [];
    lines.forEach((l, i) => {
      if (/trajectory-inspector/i.test(l) && /\[error\]|\bfailed\b/i.test(l)) failures.push(lines.slice(i, i + 6).join('\n'));
    });
    assert.equal(failures.join('\n---\n'), '', 'the extension host logged errors for the extension');
  });
});
