/**
 * Webview tier: the compare / group page (dist/compare.js, `<ti-compare>`) in Chromium under the
 * extension's CSP (`compareHtml`), fed messages built by the host's own code (compareView.ts) from
 * real samples and copies of them with one inserted step and one changed command.
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { loadFile } from '../../src/core/load';
import type { Rollout } from '../../src/core/model';
import { compareHtml, compareMessage, groupMessage } from '../../src/host/compare/compareView';
import type { CompareHostMessage } from '../../src/shared/compareProtocol';
import { sample, sampleJson, tmpDir } from '../unit/samples';
import { ARTIFACTS, REPO_ROOT, launchChromium, startHarness, watchProblems, type Harness, type PageProblems } from './harness';

declare const window: any;
declare const document: any;

const BUNDLE = path.join(REPO_ROOT, 'dist', 'compare.js');
const SWE = 'swe-agent/v0.7_default__marshmallow-code__marshmallow-1867.traj';

async function copyOf(edit: (j: any) => void): Promise<{ file: string; rollout: Rollout }> {
  const j = sampleJson(SWE);
  edit(j);
  const file = path.join(tmpDir(), 'copy.traj');
  fs.writeFileSync(file, JSON.stringify(j, null, 1));
  return { file, rollout: (await loadFile(file)).rollouts[0] };
}

describe('webview: compare page', function () {
  this.timeout(120_000);
  let browser: Browser;
  let srv: Harness;
  let page: Page;
  let problems: PageProblems;

  before(async () => {
    // The compare page (its own bundle and shell, the real CSP), with the fake acquireVsCodeApi.
    srv = await startHarness({ bundle: BUNDLE, shell: compareHtml });
    browser = await launchChromium();
  });
  after(async () => {
    await browser?.close();
    await srv?.close();
  });
  beforeEach(async () => {
    page = await browser.newPage({ viewport: { width: 1300, height: 900 } });
    problems = watchProblems(page);
    await page.goto(srv.url);
    await page.waitForFunction(() => window.__sent.some((m: { type: string }) => m.type === 'ready'));
  });
  afterEach(async function () {
    if (this.currentTest?.state === 'failed') {
      fs.mkdirSync(ARTIFACTS, { recursive: true });
      await page.screenshot({ path: path.join(ARTIFACTS, `compare-failed-${Date.now()}.png`), fullPage: true }).catch(() => undefined);
    }
    assert.deepEqual(await page.evaluate(() => window.__csp), [], 'no CSP violations');
    assert.deepEqual(problems.errors, []);
    assert.deepEqual(problems.dialogs, []);
    await page.close();
  });

  const postMsg = (m: CompareHostMessage) => page.evaluate((x) => window.postMessage(x, '*'), m);
  const text = (sel: string): Promise<string[]> => page.evaluate((s) => Array.from(document.querySelector('ti-compare').shadowRoot.querySelectorAll(s)).map((e: any) => e.textContent.trim()), sel);

  it('shows two aligned rollouts: counts, the inserted step as "only right", the changed command as an inline diff; a step click opens it', async () => {
    const leftFile = sample(SWE);
    const left = (await loadFile(leftFile)).rollouts[0];
    const right = await copyOf((j) => {
      j.trajectory.splice(6, 0, structuredClone(j.trajectory[5])); // a retried `python reproduce.py`
      j.trajectory[0].action = 'ls -la\n';
      j.trajectory[3].observation = '<img src=x onerror=alert(1)> not HTML';
    });
    const msg = compareMessage({ file: leftFile, rolloutIndex: 0, rollout: left }, { file: right.file, rolloutIndex: 0, rollout: right.rollout });
    assert.deepEqual(msg.counts, { same: 14, changed: 2, 'only-left': 0, 'only-right': 1 });
    await postMsg(msg);
    await page.waitForFunction(() => document.querySelector('ti-compare').shadowRoot.querySelectorAll('.row').length > 0);
    assert.deepEqual(await text('[data-count]'), ['14 same', '2 changed', '0 only left', '1 only right']);
    assert.equal((await text('.row')).length, 17);
    assert.equal((await text('.row[data-status="only-right"]')).length, 1);
    assert.match((await text('.row[data-status="only-right"] .command'))[0], /^python reproduce\.py$/);
    assert.deepEqual(await text('.inline-diff[data-field="command"] del'), ['F']);
    assert.deepEqual(await text('.inline-diff[data-field="command"] ins'), ['la']);
    // Rollout text stays text.
    assert.ok((await text('.output')).some((t) => t.includes('<img src=x onerror=alert(1)> not HTML')));
    assert.match((await text('.first-divergence'))[0], /First divergence: row 3 \(changed; left step 3, right step 3\)/);
    // "Only differences" folds the same rows.
    await page.evaluate(() => document.querySelector('ti-compare').shadowRoot.querySelector('input[type=checkbox]').click());
    assert.equal((await text('.row')).length, 3);
    fs.mkdirSync(ARTIFACTS, { recursive: true });
    await page.screenshot({ path: path.join(ARTIFACTS, 'compare.png'), fullPage: false });
    // Clicking the right side's step number asks the host to open it.
    await page.evaluate(() => document.querySelector('ti-compare').shadowRoot.querySelector('.row[data-status="only-right"] .cell[data-side="right"] .open-step').click());
    const sentMsgs = await page.evaluate(() => window.__sent);
    assert.deepEqual(sentMsgs[sentMsgs.length - 1], { type: 'openStep', side: 'right', stepIndex: 8 });
    // Keys: d jumps to the first divergence, n to the next difference.
    await page.keyboard.press('d');
    assert.equal((await page.evaluate(() => document.querySelector('ti-compare').shadowRoot.querySelector('.row.current').dataset.row)), '2');
    await page.keyboard.press('n');
    assert.equal((await page.evaluate(() => document.querySelector('ti-compare').shadowRoot.querySelector('.row.current').dataset.row)), '5');
  });

  it('a branch compared with its parent opens at the fork row and marks it (Compare with Parent)', async () => {
    const leftFile = sample(SWE);
    const left = (await loadFile(leftFile)).rollouts[0];
    const right = await copyOf((j) => {
      j.trajectory[5].action = 'echo another model\n';
    });
    const msg = compareMessage({ file: leftFile, rolloutIndex: 0, rollout: left }, { file: right.file, rolloutIndex: 0, rollout: right.rollout }, {}, 5);
    assert.deepEqual(msg.fork, { row: 5, left: 5, right: 5 });
    await postMsg(msg);
    await page.waitForFunction(() => document.querySelector('ti-compare').shadowRoot.querySelector('.row.current'));
    assert.equal(await page.evaluate(() => document.querySelector('ti-compare').shadowRoot.querySelector('.row.current').dataset.row), '5');
    assert.equal(await page.evaluate(() => document.querySelector('ti-compare').shadowRoot.querySelector('.row.fork').dataset.row), '5');
    assert.match((await text('span.fork'))[0], /^Branched at row 6 \(parent step 6, branch step 6\)/);
    await page.screenshot({ path: path.join(ARTIFACTS, 'compare-fork.png') });
  });

  it('shows a group: the best first, where each other rollout first differs, and asks to compare with the best', async () => {
    const file = sample('openai-responses/nemo-gym_mini_swe_agent_2_example_rollouts.jsonl');
    const loaded = await loadFile(file);
    const msg = groupMessage('Group ng', path.basename(file), null, loaded.rollouts.map((rollout, index) => ({ file, rollout, index })));
    await postMsg(msg);
    await page.waitForFunction(() => document.querySelector('ti-compare').shadowRoot.querySelectorAll('tbody tr').length > 0);
    const rows = await page.evaluate(() => Array.from(document.querySelector('ti-compare').shadowRoot.querySelectorAll('tbody tr')).map((r: any) => Number(r.dataset.member)));
    assert.deepEqual(rows, msg.members.map((m) => m.member));
    assert.deepEqual(await text('h1'), ['Group ng']);
    assert.equal(msg.members[0].best, true);
    assert.match((await text('tr.best td'))[0], /best/);
    await page.screenshot({ path: path.join(ARTIFACTS, 'group.png') });
    await page.evaluate(() => (Array.from(document.querySelector('ti-compare').shadowRoot.querySelectorAll('tbody tr:nth-child(2) button')) as any[]).find((b: any) => b.textContent.includes('Compare with best'))?.click());
    const sentMsgs = await page.evaluate(() => window.__sent);
    assert.deepEqual(sentMsgs[sentMsgs.length - 1], { type: 'compareMember', member: msg.members[1].member });
  });

  it('shows a load error as text', async () => {
    await postMsg({ type: 'compareError', message: 'file.traj: expected <b>JSON</b>' });
    await page.waitForFunction(() => document.querySelector('ti-compare').shadowRoot.querySelector('.error'));
    assert.deepEqual(await text('.error'), ['file.traj: expected <b>JSON</b>']);
  });
});
