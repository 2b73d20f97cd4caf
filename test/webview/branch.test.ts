/**
 * Webview tier, branch controls (issue 16): the built timeline bundle in Chromium under the
 * extension's CSP. A step with a command offers Branch from here beside Run to here (posted as a
 * `branch` message); a branch (an ATIF file written by the host's BranchFile from the real
 * mini-swe-agent sample) offers Compare with parent beside its parent link; a rollout whose
 * `parent` link is a subagent's (not a branch) does not.
 */
import * as assert from 'node:assert/strict';
import * as path from 'node:path';
import type { Page } from 'playwright-core';
import { loadFile, type LoadedFile } from '../../src/core/load';
import { buildPlan } from '../../src/core/replay/plan';
import { BranchFile } from '../../src/host/branch/branchParts';
import { rolloutMessage } from '../../src/host/rolloutMessage';
import { LoadedSource } from '../../src/host/rolloutSource';
import type { ReplayStateMessage } from '../../src/shared/replayProtocol';
import { sample, tmpDir } from '../unit/samples';
import { postToWebview, sent, webviewSuite } from './harness';

const MINI = 'mini-swe-agent/harbor-rfc_mini-swe-agent-trajectory.json';

describe('webview: branch controls', function () {
  this.timeout(120_000);
  const wv = webviewSuite({ prefix: 'branch', perTest: false });
  let page: Page;
  let parent: LoadedFile;
  let branch: LoadedFile;

  const stateFor = (f: LoadedFile): ReplayStateMessage => {
    const r = f.rollouts[0];
    const plan = buildPlan(r, { image: 'unset' });
    return {
      type: 'replayState', rolloutIndex: 0, rolloutId: r.id, available: true, reason: null, phase: 'idle', image: null, mode: plan.mode, next: null,
      replayable: [...new Set(plan.steps.filter((s) => s.replayable).map((s) => s.stepIndex))], steps: [], firstDivergence: null, message: null, canStepBack: false,
    };
  };

  before(async () => {
    parent = await loadFile(sample(MINI));
    const out = path.join(tmpDir(), 'mini.branch-2.trajectory.json');
    const p = parent.rollouts[0];
    await new BranchFile(out, p, 2, { parentFile: p.source.path, from: 2, model: 'fake-model', endpoint: 'http://127.0.0.1:1/v1', image: 'img', startedAt: '2026-01-01T00:00:00.000Z', limits: { maxSteps: 5 }, sessionId: 'wv' }).write();
    branch = await loadFile(out);
  });
  beforeEach(async () => {
    page = await wv.open();
  });

  it('a step with a command offers Branch from here; the click posts it with the step', async () => {
    await postToWebview(page, rolloutMessage(new LoadedSource(parent), 0, null, { collapseOutputLines: 20 }));
    await page.locator('.step-card').first().waitFor();
    await postToWebview(page, stateFor(parent));
    await page.locator('.step-card[data-index="2"] ti-replay-status button.branch-from').click();
    assert.equal(await page.locator('.step-card[data-index="1"] ti-replay-status').count(), 0, 'the task message has no command');
    assert.equal(await page.locator('button.compare-parent').count(), 0, 'the parent is not a branch');
    const msgs = (await sent(page)).filter((m) => m.type === 'branch');
    assert.deepEqual(msgs, [{ type: 'branch', action: 'fromHere', rolloutIndex: 0, stepIndex: 2 }]);
  });

  it('a branch offers Compare with parent beside its parent link; a subagent\'s parent link does not', async () => {
    await postToWebview(page, rolloutMessage(new LoadedSource(branch), 0, null, { collapseOutputLines: 20 }));
    await page.locator('button.compare-parent').click();
    assert.match(await page.locator('.rollout-links').innerText(), /branched from step #3 of harbor-rfc_mini-swe-agent-trajectory\.json with fake-model/);
    const msgs = (await sent(page)).filter((m) => m.type === 'branch');
    assert.deepEqual(msgs, [{ type: 'branch', action: 'compareParent', rolloutIndex: 0 }]);

    const sub = { ...parent, rollouts: [{ ...parent.rollouts[0], links: [{ relation: 'parent' as const, label: 'Parent session', path: '/x/main.jsonl', rolloutId: 'main', stepIndex: 1, callId: null, missing: null }] }] };
    await postToWebview(page, rolloutMessage(new LoadedSource(sub), 0, null, { collapseOutputLines: 20 }));
    await page.locator('.rollout-links button.link[data-relation="parent"]').waitFor();
    assert.equal(await page.locator('button.compare-parent').count(), 0);
  });
});
