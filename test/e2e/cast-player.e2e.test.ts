/**
 * e2e: the packaged .vsix inside code-server opens a real Terminal-Bench 1 trial folder
 * (results.json + commands.txt + sessions/agent.cast) in the timeline with "Open in Trajectory Inspector"
 * from the command palette; the terminal player shows the recording, playing it moves the
 * selected step, and selecting a step moves the player to the step's time in the recording.
 * Run through `npm run test:e2e` (scripts/e2e.mjs).
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { FrameLocator } from 'playwright-core';
import { loadFile } from '../../src/core/load';
import type { Rollout } from '../../src/core/model';
import { ARTIFACTS, assertNoCspOrHostErrors, e2eSuite, OPEN_MS, quickOpen, runCommand, sample, screenshot, UI_MS, waitUntil } from './harness';

/** A TB1 trial whose agent.cast has `i` (input) events, so its steps carry castTime. */
const TRIAL_SAMPLE = 'tb1/lcbpro-1983a_with-agent-logs';
const TRIAL = 'lcbpro-1983a';
const RESULTS_REL = `${TRIAL}/results.json`;

/** Copies a sample folder, leaving the copies writable (the samples are read-only; the temp dir must be removable). */
function copyTree(from: string, to: string): void {
  fs.mkdirSync(to, { recursive: true });
  for (const e of fs.readdirSync(from, { withFileTypes: true })) {
    const src = path.join(from, e.name);
    const dst = path.join(to, e.name);
    if (e.isDirectory()) copyTree(src, dst);
    else {
      fs.copyFileSync(src, dst);
      fs.chmodSync(dst, 0o644);
    }
  }
}

/** The `i` events of a v2 cast, read straight from the file. */
function inputEvents(cast: string): { time: number; data: string }[] {
  return fs.readFileSync(cast, 'utf8').split('\n').slice(1).filter((l) => l.trim()).map((l) => JSON.parse(l))
    .filter((e: [number, string, string]) => e[1] === 'i').map((e: [number, string, string]) => ({ time: e[0], data: e[2] }));
}

describe('e2e: terminal player for a Terminal-Bench 1 trial in code-server', function () {
  this.timeout(300_000);

  let web: FrameLocator;
  let rollout: Rollout;
  const e2e = e2eSuite({
    name: 'cast',
    prepare: async (workspace) => {
      copyTree(sample(TRIAL_SAMPLE), path.join(workspace, TRIAL));
      // What the extension will show, read by the same core loader from the copy (castTime per step).
      rollout = (await loadFile(path.join(workspace, RESULTS_REL))).rollouts[0];
      assert.ok(rollout.recording, 'the TB1 loader joins sessions/agent.cast as the recording');
    },
    opened: async (x) => {
      web = x.web();
    },
  });

  after(() => {
    if (e2e.consoleLog.length) fs.writeFileSync(path.join(ARTIFACTS, 'cast-browser-console.log'), e2e.consoleLog.join('\n'));
  });

  async function playerTime(): Promise<number> {
    return Number(await web.locator('ti-player').getAttribute('data-time'));
  }

  async function selectedIndex(): Promise<number> {
    return Number(await web.locator('.step-card.selected').getAttribute('data-index'));
  }

  it('opens results.json with "Open in Trajectory Inspector" from the command palette and shows the recording', async () => {
    await quickOpen(e2e.page, RESULTS_REL);
    // results.json opens as text (not a default timeline file); the command takes the active editor's file.
    await e2e.page.locator('.editor-group-container .tab.active', { hasText: 'results.json' }).waitFor({ state: 'visible', timeout: UI_MS });
    await runCommand(e2e.page, 'Open in Trajectory Inspector');

    const player = web.locator('ti-player');
    await web.locator('#step-count').waitFor({ state: 'visible', timeout: OPEN_MS }).catch(async () => {
      throw new Error(`the timeline did not open; tabs: ${JSON.stringify(await e2e.page.locator('.tab').allInnerTexts())}\n`
        + e2e.consoleLog.filter((l) => /error|fail|refused/i.test(l)).slice(-20).join('\n'));
    });
    assert.match(await web.locator('#step-count').innerText(), new RegExp(`^${rollout.steps.length} steps`));
    await web.locator('ti-player .xterm-rows').waitFor({ state: 'visible', timeout: UI_MS });
    const header = JSON.parse(fs.readFileSync(path.join(e2e.workspace, TRIAL, 'sessions', 'agent.cast'), 'utf8').split('\n')[0]);
    assert.equal(await web.locator('ti-player .size').innerText(), `${header.width}×${header.height}`);
    assert.equal(await web.locator('ti-player .mark').count(), rollout.steps.filter((s) => typeof s.castTime === 'number').length);
    assert.ok(await player.isVisible());
  });

  it('plays: the selected step advances with the recording', async () => {
    await web.locator('.step-card[data-index="0"]').click();
    await waitUntil(async () => (await selectedIndex()) === 0 && (await playerTime()) === Math.round((rollout.steps[0].castTime ?? 0) * 1000), UI_MS,
      async () => `step 0 selected at its castTime; selected ${await selectedIndex()}, time ${await playerTime()}`);
    await web.locator('ti-player select.speed').selectOption('4');
    await web.locator('ti-player button.play').click();
    assert.equal(await web.locator('ti-player').getAttribute('data-state'), 'playing');
    // The agent's command is typed at its `i` event; by then the agent step is selected.
    const agent = rollout.steps.find((s) => s.role === 'agent' && typeof s.castTime === 'number')!;
    const seen = new Set<number>();
    await waitUntil(async () => {
      seen.add(await selectedIndex());
      return seen.has(agent.index);
    }, UI_MS, async () => `the selection never reached the agent step #${agent.index + 1} while playing; saw ${[...seen]}, time ${await playerTime()}`);
    assert.ok((await playerTime()) >= Math.round(agent.castTime! * 1000), 'the player is past the agent step');
    await screenshot(e2e.page, 'cast-player-playing');
    // It stops at the end, on the last step placed on the recording.
    await waitUntil(async () => (await web.locator('ti-player').getAttribute('data-state')) === 'paused', UI_MS, () => 'playback never ended');
    const placed = rollout.steps.filter((s) => typeof s.castTime === 'number');
    assert.equal(await selectedIndex(), placed[placed.length - 1].index);
    await waitUntil(async () => /\bexit\b/.test(await web.locator('ti-player .xterm-rows').innerText()), UI_MS,
      async () => `"exit" never showed at the end: ${await web.locator('ti-player .xterm-rows').innerText()}`);
  });

  it('selecting a step moves the player to its time in the recording', async () => {
    const agent = rollout.steps.find((s) => s.role === 'agent' && typeof s.castTime === 'number')!;
    // The agent step starts when its keys were typed: the `i` event of its command in the cast itself.
    const typed = inputEvents(path.join(e2e.workspace, TRIAL, 'sessions', 'agent.cast')).find((e) => e.data.startsWith('echo '));
    assert.ok(typed, 'the cast has the typed echo command');
    assert.equal(agent.castTime, typed.time);
    await web.locator(`.step-card[data-index="${agent.index}"]`).click();
    await waitUntil(async () => (await playerTime()) === Math.round(typed.time * 1000), UI_MS,
      async () => `after selecting step #${agent.index + 1} the player shows ${await playerTime()} ms, not ${Math.round(typed.time * 1000)}`);
    assert.match(await web.locator('ti-player .clock .now').innerText(), /^0:06\.\d$/);
    // The keyboard: k from there selects the previous step and the player follows.
    await e2e.page.keyboard.press('k');
    const prev = rollout.steps[agent.index - 1];
    await waitUntil(async () => (await selectedIndex()) === prev.index && (await playerTime()) === Math.round(prev.castTime! * 1000), UI_MS,
      async () => `after k: selected ${await selectedIndex()}, player ${await playerTime()} ms`);
    await web.locator(`.step-card[data-index="${agent.index}"]`).click();
    await waitUntil(async () => (await playerTime()) === Math.round(typed.time * 1000), UI_MS, () => 'back at the agent step');
    await e2e.page.waitForTimeout(300);
    await screenshot(e2e.page, 'cast-player');
  });

  it('the webview broke no CSP rule and the extension host logged no errors', async () => {
    assertNoCspOrHostErrors(e2e.consoleLog, e2e.server);
  });
});
