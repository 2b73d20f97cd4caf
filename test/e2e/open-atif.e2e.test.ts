/**
 * e2e: the packaged .vsix inside code-server opens a real Harbor trial (ATIF trajectory + result.json)
 * in the timeline custom editor, and the Rollouts view (the extension's own side bar) lists the trial.
 * Run through `npm run test:e2e` (scripts/e2e.mjs), which installs code-server/Chromium when
 * missing and packages the extension first.
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { Locator } from 'playwright-core';
import { assertActivatedWithoutErrors, closeAllEditors, e2eSuite, harborTrialResultSample, OPEN_MS, quickInput, quickOpen, rolloutsPane, runCommand, sample, screenshot, UI_MS, waitUntil } from './harness';

const ATIF_SAMPLE = 'atif/harbor-golden_terminus2_invalid-json_ATIF-v1.5.trajectory.json';
const TRIAL = 'hello-world__abc';
const TRAJECTORY_REL = `${TRIAL}/agent/trajectory.json`;

/** A command the agent really ran, read from the sample: the first tool call with `keystrokes`. */
function firstCommand(trajectory: any): string {
  for (const step of trajectory.steps) {
    for (const call of step.tool_calls ?? []) {
      const k = call.arguments?.keystrokes;
      if (typeof k === 'string' && k.trim()) return k.trim();
    }
  }
  throw new Error('the sample has no tool call with keystrokes');
}

/** Text of an element including open shadow roots (the webview is built of custom elements). */
async function deepText(loc: Locator): Promise<string> {
  return loc.evaluate((root: any) => {
    const parts: string[] = [];
    const walk = (n: any) => {
      if (n.nodeType === 3) parts.push(n.textContent ?? '');
      const sr = n.shadowRoot;
      if (sr) sr.childNodes.forEach(walk);
      n.childNodes.forEach(walk);
    };
    walk(root);
    return parts.join(' ').replace(/\s+/g, ' ').trim();
  }).catch((e) => `(could not read: ${String(e)})`);
}

describe('e2e: open a Harbor ATIF trial in code-server', function () {
  this.timeout(300_000);

  const trajectory = JSON.parse(fs.readFileSync(sample(ATIF_SAMPLE), 'utf8'));
  const stepCount: number = trajectory.steps.length;
  const command = firstCommand(trajectory);
  const trialReward: number = JSON.parse(fs.readFileSync(harborTrialResultSample(), 'utf8')).verifier_result.rewards.reward;

  const e2e = e2eSuite({
    name: 'open-atif',
    artifactPrefix: '',
    prepare: (workspace) => {
      assert.ok(stepCount >= 3, 'the sample needs at least 3 steps for the j-j navigation check');
      fs.mkdirSync(path.join(workspace, TRIAL, 'agent'), { recursive: true });
      fs.copyFileSync(sample(ATIF_SAMPLE), path.join(workspace, TRAJECTORY_REL));
      fs.copyFileSync(harborTrialResultSample(), path.join(workspace, TRIAL, 'result.json'));
    },
  });

  it('lists the trial in the Rollouts view of the Trajectory Inspector side bar', async () => {
    const rollouts = rolloutsPane(() => e2e.page);
    await rollouts.open();
    const pane = rollouts.pane();
    const row = pane.locator('.monaco-list-row', { hasText: TRIAL }).first();
    const rows = async () => JSON.stringify(await pane.locator('.monaco-list-row').allInnerTexts());
    await row.waitFor({ state: 'visible', timeout: 60_000 }).catch(async () => {
      throw new Error(`the Rollouts view does not list ${TRIAL}; its rows: ${await rows()}`);
    });
    // Once the file is summarised the row shows the step count of the trajectory and the reward of
    // the trial's result.json (the Harbor join), both read from the samples here.
    const rowText = await waitUntil(async () => {
      const t = (await row.innerText()).replace(/\s+/g, ' ');
      return new RegExp(`(^|\\D)${stepCount} steps\\b`).test(t) ? t : '';
    }, 60_000, async () => `the ${TRIAL} row never showed "${stepCount} steps"; rows: ${await rows()}`);
    const shownReward = /reward (-?[\d.]+)/.exec(rowText);
    assert.ok(shownReward, `the ${TRIAL} row shows no reward (result.json has ${trialReward}): "${rowText}"`);
    assert.equal(Number(shownReward[1]), trialReward, `the ${TRIAL} row shows the wrong reward: "${rowText}"`);
    await screenshot(e2e.page, 'rollouts-view');
  });

  it('opens trajectory.json in the timeline editor with every step, and j moves the selection', async () => {
    await quickOpen(e2e.page, TRAJECTORY_REL);
    const web = e2e.web();
    const stepCountEl = web.locator('#step-count');
    await stepCountEl.waitFor({ state: 'visible', timeout: OPEN_MS }).catch(async () => {
      throw new Error(`the timeline webview did not show #step-count; tabs: ${JSON.stringify(await e2e.page.locator('.tab').allInnerTexts())}`
        + `; webviews: ${await e2e.page.locator('iframe.webview').count()}; webview text: ${JSON.stringify((await deepText(web.locator('body'))).slice(0, 300))}`
        + `\n--- browser errors ---\n${e2e.consoleLog.filter((l) => /error|fail|refused/i.test(l)).slice(-20).join('\n')}`);
    });

    const text = (await stepCountEl.innerText()).trim();
    assert.match(text, new RegExp(`^${stepCount}\\b`), `#step-count should start with ${stepCount} (steps in the file), got "${text}"`);

    const cards = web.locator('.step-card');
    await waitUntil(async () => (await cards.count()) === stepCount, UI_MS,
      async () => `expected ${stepCount} .step-card elements, found ${await cards.count()}`);

    const commands = await web.locator('.action-command').allTextContents();
    assert.ok(commands.some((c) => c.includes(command)),
      `no .action-command contains the sample's command ${JSON.stringify(command)}; found ${JSON.stringify(commands)}`);

    await screenshot(e2e.page, 'timeline-open');

    // Focus the webview without selecting a step, then walk down two steps.
    await stepCountEl.click();
    await e2e.page.keyboard.press('j');
    await e2e.page.keyboard.press('j');
    const selected = web.locator('.step-card.selected');
    await waitUntil(async () => (await selected.count()) === 1 && (await selected.getAttribute('data-index')) === '2', UI_MS,
      async () => `after j j expected one .step-card.selected with data-index 2, got ${await selected.count()} selected, `
        + `data-index ${await selected.first().getAttribute('data-index').catch(() => 'none')}`);
    await screenshot(e2e.page, 'timeline');
  });

  /** The text of the notification toasts showing now. */
  const toasts = async (): Promise<string> => (await e2e.page.locator('.notifications-toasts .notification-toast').allInnerTexts()).join(' | ');

  it('Copy Link to Step copies a link to the selected step; the link opened as a URL (the URI handler) selects that step', async () => {
    // The timeline of the last test is open with step index 2 selected.
    await runCommand(e2e.page, 'Trajectory Inspector: Copy Link to Step');
    await waitUntil(async () => /Copied a link to step #3 of rollout 1 of hello-world__abc\/agent\/trajectory\.json/.test(await toasts()), UI_MS,
      async () => `no "Copied a link" notification; toasts: ${await toasts()}`);
    await closeAllEditors(e2e.page);

    // Developer: Open URL hands the link to the extension's URI handler, as a vscode:// link clicked outside does.
    const link = `code-oss://trajectory-inspector.trajectory-inspector/open?file=${encodeURIComponent(TRAJECTORY_REL)}&rollout=1&step=2`;
    await runCommand(e2e.page, 'Developer: Open URL');
    await quickInput(e2e.page).fill(link);
    await e2e.page.keyboard.press('Enter');
    // VS Code may ask before it hands a URI to an extension.
    const allow = e2e.page.locator('.monaco-dialog-box .monaco-button', { hasText: /^Open$/ }).first();
    await allow.waitFor({ state: 'visible', timeout: 5_000 }).then(() => allow.click(), () => {});
    const web = e2e.web();
    const selected = web.locator('.step-card.selected');
    await waitUntil(async () => (await selected.getAttribute('data-index', { timeout: 1_000 }).catch(() => null)) === '1', OPEN_MS,
      async () => `the link did not open the timeline at step #2; toasts: ${await toasts()}`);
    await screenshot(e2e.page, 'step-link');
  });

  it('Open Link to Step… says which file a link names that is not in the workspace, and what is wrong with a bad link', async () => {
    await runCommand(e2e.page, 'Trajectory Inspector: Open Link to Step…');
    await quickInput(e2e.page).fill('vscode://trajectory-inspector.trajectory-inspector/open?file=other-trial/agent/trajectory.json&step=4');
    await e2e.page.keyboard.press('Enter');
    await waitUntil(async () => /the linked rollout file other-trial\/agent\/trajectory\.json is not in this workspace \(looked for .*other-trial/.test(await toasts()), UI_MS,
      async () => `no "not in this workspace" notification; toasts: ${await toasts()}`);
    await runCommand(e2e.page, 'Trajectory Inspector: Open Link to Step…');
    await quickInput(e2e.page).fill(`vscode://trajectory-inspector.trajectory-inspector/open?file=${TRAJECTORY_REL}&step=zero`);
    await e2e.page.keyboard.press('Enter');
    await waitUntil(async () => /step="zero" is not a step number/.test(await toasts()), UI_MS, async () => `no bad-link notification; toasts: ${await toasts()}`);
  });

  it('Export Rollout as Markdown… says what it redacts before it writes, and writes a redacted transcript', async () => {
    // The timeline of the link test is open (step #2 selected).
    await runCommand(e2e.page, 'Trajectory Inspector: Copy Step as Markdown');
    await waitUntil(async () => /Copied step #2 as Markdown \((nothing redacted|\d+ redacted)/.test(await toasts()), UI_MS, async () => `no "Copied step" notification; toasts: ${await toasts()}`);
    await runCommand(e2e.page, 'Trajectory Inspector: Export Rollout as Markdown…');
    const dialog = e2e.page.locator('.monaco-dialog-box');
    await dialog.waitFor({ state: 'visible', timeout: UI_MS });
    const said = await dialog.innerText();
    assert.match(said, /Export rollout 1 of trajectory\.json as Markdown\?/);
    assert.match(said, /redacted|Nothing to redact/);
    await screenshot(e2e.page, 'export-markdown-preview');
    await dialog.locator('.monaco-button', { hasText: /^Export$/ }).first().click();
    // The save dialog (a quick input in code-server) proposes trajectory.md beside the file.
    await quickInput(e2e.page).waitFor({ state: 'visible', timeout: UI_MS });
    await e2e.page.keyboard.press('Enter');
    const out = path.join(e2e.workspace, TRIAL, 'agent', 'trajectory.md');
    await waitUntil(async () => fs.existsSync(out), UI_MS, async () => `no ${out}; toasts: ${await toasts()}`);
    const md = fs.readFileSync(out, 'utf8');
    for (let i = 1; i <= stepCount; i++) assert.ok(md.includes(`### #${i} · `), `no section for step #${i}`);
    assert.ok(md.includes(command.split('\n')[0]), 'the first command is in the transcript');
    assert.match(md, /\*Exported by Trajectory Inspector; redacted: (nothing redacted|\d+ redacted)/);
  });

  it('activated the extension without errors in the extension host log', async () => {
    assertActivatedWithoutErrors(e2e.server);
  });
});
