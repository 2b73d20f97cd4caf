/**
 * Webview tier, replay controls (issue 5): the built timeline bundle in Chromium under the
 * extension's CSP, a real SWE-agent rollout and replay states built from its real replay plan
 * (core/replay/plan): the bar says why replay is unavailable, offers Start / Step / Continue, posts
 * the controls; each step shows its verdict (text-escaped), "state may differ", Run to here and
 * Show diff.
 */
import * as assert from 'node:assert/strict';
import * as path from 'node:path';
import type { Page } from 'playwright-core';
import { loadFile, type LoadedFile } from '../../src/core/load';
import { buildPlan } from '../../src/core/replay/plan';
import { rolloutMessage } from '../../src/host/rolloutMessage';
import { LoadedSource } from '../../src/host/rolloutSource';
import type { ReplayStateMessage } from '../../src/shared/replayProtocol';
import { sample } from '../unit/samples';
import { ARTIFACTS, postToWebview, sent, webviewSuite } from './harness';

const SWE = 'swe-agent/6e44b9__sweagenttestrepo-1c2844.traj';
declare function getComputedStyle(el: unknown): { backgroundColor: string; opacity: string };

describe('webview: replay controls', function () {
  this.timeout(120_000);
  const wv = webviewSuite({ prefix: 'replay', perTest: false, dialogs: true });
  let page: Page;
  let swe: LoadedFile;
  let base: ReplayStateMessage;

  before(async () => {
    swe = await loadFile(sample(SWE));
    const r = swe.rollouts[0];
    const plan = buildPlan(r, {});
    base = {
      type: 'replayState', rolloutIndex: 0, rolloutId: r.id, available: true, reason: null, phase: 'idle', image: plan.image, mode: plan.mode, next: null,
      replayable: [...new Set(plan.steps.filter((s) => s.replayable).map((s) => s.stepIndex))], steps: [], firstDivergence: null, message: null, canStepBack: false,
    };
  });
  beforeEach(async () => {
    page = await wv.open();
    await postToWebview(page, rolloutMessage(new LoadedSource(swe), 0, null, { collapseOutputLines: 20 }));
    await page.locator('.step-card').first().waitFor();
  });

  it('unavailable (untrusted workspace): the bar says why and offers no control', async () => {
    await postToWebview(page, { ...base, available: false, reason: 'Replay runs commands in a container: it needs a trusted workspace.' });
    await page.locator('ti-replay-bar .reason').waitFor();
    assert.match(await page.locator('ti-replay-bar .reason').innerText(), /trusted workspace/);
    assert.equal(await page.locator('ti-replay-bar button').count(), 0);
    assert.equal(await page.locator('ti-replay-status').count(), 0);
  });

  it('idle: Start and Run to here post replay controls for the steps with commands', async () => {
    await postToWebview(page, base);
    await page.locator('ti-replay-bar button.replay-start').click();
    // The SWE-agent sample's commands are at steps #3, #4 and #6 (#5 is an editor tool).
    assert.deepEqual(base.replayable, [2, 3, 5]);
    assert.equal(await page.locator('.step-card[data-index="4"] ti-replay-status').count(), 0);
    await page.locator('.step-card[data-index="5"] ti-replay-status button.run-to').click();
    const replay = (await sent(page)).filter((m) => m.type === 'replay');
    assert.deepEqual(replay, [
      { type: 'replay', action: 'start', rolloutIndex: 0 },
      { type: 'replay', action: 'runTo', rolloutIndex: 0, stepIndex: 5 },
    ]);
  });

  it('after steps: verdicts (text, never HTML), state may differ, first divergence, Show diff, Step back', async () => {
    const evil = '<img src=x onerror="document.title=1">output differs (line 1)';
    await postToWebview(page, {
      ...base, phase: 'ready', next: 5, canStepBack: true, firstDivergence: 2,
      steps: [
        { stepIndex: 2, status: 'differs', summary: evil, stateMayDiffer: false, hasDiff: true },
        { stepIndex: 3, status: 'same', summary: 'same', stateMayDiffer: true, hasDiff: true },
        { stepIndex: 4, status: 'not-replayable', summary: 'editor tool edit is not a shell command', stateMayDiffer: true, hasDiff: false },
      ],
    });
    const st = (i: number) => page.locator(`.step-card[data-index="${i}"] ti-replay-status`);
    await st(2).locator('.replay-status').waitFor();
    assert.equal(await st(2).locator('.replay-status').innerText(), 'differs');
    assert.equal(await st(2).locator('.replay-status').getAttribute('title'), evil);
    assert.equal(await page.locator('img').count(), 0);
    assert.equal(await st(3).locator('.replay-status').innerText(), 'same');
    assert.equal(await st(3).locator('.state-may-differ').count(), 1);
    assert.equal(await st(4).locator('.replay-status').innerText(), 'not replayable');
    assert.match(await page.locator('ti-replay-bar .first-divergence').innerText(), /#3/);
    assert.match(await page.locator('ti-replay-bar .replay-info').innerText(), /next #6/);
    await page.screenshot({ path: path.join(ARTIFACTS, 'replay-statuses.png') });
    await st(2).locator('button.show-diff').click();
    await page.locator('ti-replay-bar button.replay-stepBack').click();
    await page.locator('ti-replay-bar button.replay-continue').click();
    const replay = (await sent(page)).filter((m) => m.type === 'replay');
    assert.deepEqual(replay, [
      { type: 'replay', action: 'showDiff', rolloutIndex: 0, stepIndex: 2 },
      { type: 'replay', action: 'stepBack', rolloutIndex: 0 },
      { type: 'replay', action: 'continue', rolloutIndex: 0 },
    ]);
  });

  it('a hovered Step button stays the primary, enabled colour (issue 21 item 8)', async () => {
    await postToWebview(page, { ...base, phase: 'ready', next: 2 });
    const step = page.locator('ti-replay-bar button.replay-step');
    const other = page.locator('ti-replay-bar button.replay-continue');
    await step.waitFor();
    const look = (l: typeof step) => l.evaluate((el) => ({ bg: getComputedStyle(el).backgroundColor, opacity: getComputedStyle(el).opacity }));
    const primary = await look(step);
    await other.hover();
    const secondaryHover = await look(other);
    await step.hover();
    const hovered = await look(step);
    await page.screenshot({ path: path.join(ARTIFACTS, 'replay-step-hover.png') });
    assert.equal(hovered.opacity, '1');
    assert.notEqual(hovered.bg, secondaryHover.bg, `the hovered Step button turns the secondary hover grey (${hovered.bg}), which reads as disabled`);
    assert.notEqual(primary.bg, secondaryHover.bg);
  });

  it('a state for another rollout is not shown', async () => {
    await postToWebview(page, { ...base, rolloutId: 'another' });
    await page.waitForTimeout(200);
    assert.equal(await page.locator('ti-replay-bar').count(), 0);
  });
});
