/**
 * e2e: files of 1 MiB and more open through the load worker (dist/loadWorker.js in the packaged
 * .vsix, host/loadWorker.ts) in code-server: a 10,000-step ATIF trajectory (made from the real
 * Terminus 2 sample, bench/genLarge.ts) opens with every step, the extension's log says a load
 * worker started, and a malformed 2,000-step trajectory shows the same located issue an in-thread
 * `loadFile` gives.
 *
 * Screenshots: .test-artifacts/e2e/offthread-timeline.png, offthread-error.png.
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { atifLong } from '../../bench/genLarge';
import { formatIssue, RolloutLoadError } from '../../src/core/errors';
import { loadFile } from '../../src/core/load';
import { e2eSuite, extensionHostLogs, openTimeline, quickOpen, screenshot, UI_MS, waitUntil } from './harness';

const LONG = 'long/trajectory.json';
const BAD = 'bad/bad-trajectory.json';

describe('e2e: large files load in a worker thread', function () {
  this.timeout(300_000);

  const e2e = e2eSuite({
    name: 'offthread',
    prepare: (workspace) => {
      atifLong(path.join(workspace, LONG), 10_000);
      const bad = path.join(workspace, BAD);
      atifLong(bad, 2000);
      const d = JSON.parse(fs.readFileSync(bad, 'utf8'));
      d.steps[1500].source = 'robot';
      fs.writeFileSync(bad, JSON.stringify(d, null, 2));
      assert.ok(fs.statSync(bad).size > 1024 * 1024, 'the malformed file must be large enough for the worker');
    },
  });

  it('opens a 10,000-step trajectory (9 MB) with every step, read by a load worker', async () => {
    const web = await openTimeline(e2e.page, LONG);
    const stepCount = web.locator('#step-count');
    await waitUntil(async () => /^10000\b/.test((await stepCount.innerText()).trim().replace(/,/g, '')), 60_000,
      async () => `#step-count shows "${await stepCount.innerText()}", the file has 10000 steps`);
    assert.ok((await web.locator('.step-card').count()) > 0, 'no step card rendered');
    await screenshot(e2e.page, 'offthread-timeline');
    // The extension's log (written by code-server) names the worker that read it.
    await waitUntil(async () => /load worker \d+ started/.test(extensionHostLogs(e2e.server.userDataDir)), UI_MS,
      () => `no "load worker … started" in the extension's log:\n${extensionHostLogs(e2e.server.userDataDir).slice(-3000)}`);
  });

  it('shows the located issue of a malformed 2 MB trajectory, as an in-thread load gives it', async () => {
    let expected = '';
    try {
      await loadFile(path.join(e2e.workspace, BAD));
    } catch (e) {
      assert.ok(e instanceof RolloutLoadError);
      const issue = e.issues.find((i) => i.pointer === '/steps/1500/source');
      assert.ok(issue, e.message);
      expected = formatIssue(issue);
    }
    assert.ok(expected, 'the malformed file loaded in-thread');
    await quickOpen(e2e.page, BAD);
    const web = e2e.web();
    const issues = web.locator('.load-error .issue-text');
    await waitUntil(async () => (await issues.allInnerTexts()).some((t) => t.trim() === expected), 120_000,
      async () => `the error view does not list "${expected}"; it lists ${JSON.stringify(await issues.allInnerTexts().catch(() => []))}`);
    await screenshot(e2e.page, 'offthread-error');
  });
});
