/**
 * e2e: the example folder `npm start` opens (a copy of examples/, its `.vscode/settings.json`
 * included): the Rollouts view lists the coding-agent session examples beside the other examples
 * (the folder's setting adds the session file names to the include globs), and a session opens in
 * the timeline from its row — the Claude Code session with its rejected calls and interruption, the
 * Codex session with its patches and the header's two warnings.
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { closeAllEditors, e2eSuite, rolloutsPane, screenshot, UI_MS, waitUntil, widenSidebar } from './harness';

const EXAMPLES = path.resolve(__dirname, '..', '..', 'examples');
const CLAUDE = '55604662-cf2a-4331-851a-ec234028f8ca.jsonl';
const CODEX = 'rollout-2025-09-19T09-02-12-01996135-afde-7911-97f0-d863511eca56.jsonl';
const GEMINI = 'session-2026-04-23T12-52-0ab84937.jsonl';

describe('e2e: the examples folder (npm start)', function () {
  this.timeout(300_000);

  const e2e = e2eSuite({
    name: 'examples',
    workspaceDir: 'examples',
    // A copy, so label journals and caches of the run stay out of the repository.
    prepare: (workspace) => fs.cpSync(EXAMPLES, workspace, { recursive: true, filter: (p) => !p.includes(`${path.sep}.trajectory-labels`) }),
  });
  const rollouts = rolloutsPane(() => e2e.page);

  it('lists the session examples in the Rollouts view with their step counts', async () => {
    await rollouts.open({ alone: true });
    await widenSidebar(e2e.page, 300);
    const steps: [string, number][] = [[CLAUDE, 5], [CODEX, 23], [GEMINI, 11]];
    for (const [name, n] of steps) {
      const row = rollouts.row(name);
      await row.waitFor({ state: 'visible', timeout: 60_000 }).catch(async () => {
        throw new Error(`the Rollouts view does not list ${name}; its rows: ${await rollouts.rowsText()}`);
      });
      await waitUntil(async () => new RegExp(`(^|\\D)${n} steps\\b`).test((await row.innerText()).replace(/\s+/g, ' ')), 60_000,
        async () => `the ${name} row never showed "${n} steps"; rows: ${await rollouts.rowsText()}`);
    }
    // The other examples are still there (the setting extends the defaults).
    for (const name of ['hello-world__golden', 'SWE-agent__test-repo-i1']) {
      await rollouts.row(name).waitFor({ state: 'visible', timeout: UI_MS }).catch(async () => {
        throw new Error(`the Rollouts view lost ${name}; its rows: ${await rollouts.rowsText()}`);
      });
    }
    await e2e.page.mouse.move(0, 0);
    await screenshot(e2e.page, 'examples-rollouts');
  });

  /** Opens a file's row in the timeline: a click (again, or Enter on the selected row, when a busy machine lost it) until its tab shows. */
  async function openRow(name: string): Promise<void> {
    const tab = e2e.page.locator('.tabs-container .tab', { hasText: name }).first();
    for (let attempt = 0; attempt < 3; attempt++) {
      if (attempt === 0) await rollouts.row(name).click();
      else await e2e.page.keyboard.press('Enter');
      if (await tab.waitFor({ state: 'visible', timeout: UI_MS / 2 }).then(() => true, () => false)) return;
    }
    throw new Error(`no editor tab for ${name}; tabs: ${JSON.stringify(await e2e.page.locator('.tabs-container .tab').allInnerTexts())}`);
  }

  it('opens the Claude Code session: the rejected Bash call, the interruption tag', async () => {
    await openRow(CLAUDE);
    const web = e2e.web();
    const cards = web.locator('.step-card');
    await waitUntil(async () => (await cards.count()) === 5, 90_000, async () => `expected 5 step cards, found ${await cards.count()}`);
    const commands = await web.locator('.action-command').allTextContents();
    assert.ok(commands.some((c) => c.includes('mix phx.server 2>&1 | head -80')), `commands shown: ${JSON.stringify(commands)}`);
    await waitUntil(async () => (await web.locator('.event.interrupted').count()) === 1, UI_MS,
      async () => `expected one interrupted tag, found ${await web.locator('.event.interrupted').count()}`);
    await screenshot(e2e.page, 'examples-claude-code');
  });

  it('opens the Codex session: its header lists the two warnings', async () => {
    // One timeline at a time, so the webview found is this session's.
    await closeAllEditors(e2e.page);
    await openRow(CODEX);
    const web = e2e.web();
    const issues = web.locator('.file-issues summary');
    await waitUntil(async () => /2 warnings/.test((await issues.first().innerText().catch(() => '')) ?? ''), 90_000,
      async () => `the header shows no "2 warnings": ${JSON.stringify(await issues.allInnerTexts().catch(() => []))}`);
    await screenshot(e2e.page, 'examples-codex');
  });
});
