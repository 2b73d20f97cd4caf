/**
 * Webview tier, step scores (issue 4): the built timeline bundle in Chromium under the extension's
 * CSP, a real SWE-agent rollout, and the scores the built-in rules give it (computed here from the
 * same file) posted as the host posts them: the heat strip, the card tags and the scrollbar marks
 * show those values; a click on a mark or cell selects its step; an error shows the reason and no
 * score; scores of another rollout are dropped.
 */
import * as assert from 'node:assert/strict';
import * as path from 'node:path';
import type { Page } from 'playwright-core';
import { loadFile, type LoadedFile } from '../../src/core/load';
import { toScoreRollout } from '../../src/core/scoring/input';
import { rolloutMessage } from '../../src/host/rolloutMessage';
import { LoadedSource } from '../../src/host/rolloutSource';
import type { ScoresMessage } from '../../src/shared/scoresProtocol';
import { scoreRollout } from '../../src/scorers/builtin/rules';
import { sample } from '../unit/samples';
import { ARTIFACTS, postToWebview, sent, webviewSuite } from './harness';

const SWE_AGENT = 'swe-agent/v0.7_default__marshmallow-code__marshmallow-1867.traj';

declare const window: any;
declare const document: any;
declare function getComputedStyle(el: unknown): { backgroundColor: string };

describe('webview: step scores', function () {
  this.timeout(120_000);
  const wv = webviewSuite({ prefix: 'scores-' });

  let page: Page;
  let swe: LoadedFile;
  let scores: ScoresMessage;

  before(async () => {
    swe = await loadFile(sample(SWE_AGENT));
    const r = swe.rollouts[0];
    const steps = scoreRollout(toScoreRollout(r));
    scores = {
      type: 'scores',
      rolloutIndex: 0,
      rolloutId: r.id,
      state: 'done',
      scorer: { name: 'builtin', version: '1.0.0', model: null },
      range: [0, 1],
      steps: steps.filter((s) => s.value !== null).map((s) => ({ index: s.index, value: s.value!, label: s.label ?? null, explanation: s.explanation ?? null })),
      cached: false,
      error: null,
    };
  });

  async function open(): Promise<Page> {
    const p = await wv.open({ width: 1100, height: 900 });
    await postToWebview(p, rolloutMessage(new LoadedSource(swe), 0, null, { collapseOutputLines: 20 }));
    await p.locator('.step-card').first().waitFor();
    return p;
  }

  it('shows the values in the heat strip, on the cards and as scrollbar marks; clicks select steps', async () => {
    page = await open();
    await postToWebview(page, scores);
    const cells = page.locator('ti-heatstrip .cell');
    await cells.first().waitFor();
    assert.equal(await cells.count(), swe.rollouts[0].steps.length);
    for (const s of scores.steps) {
      const cell = page.locator(`ti-heatstrip .cell[data-index="${s.index}"]`);
      assert.equal(await cell.getAttribute('data-score'), String(s.value));
      assert.match((await cell.getAttribute('class'))!, new RegExp(`heat-${Math.min(9, Math.floor(s.value * 10))}\\b`));
      // The step list is virtualized: bring the card into view through its heat cell (selects it).
      await cell.click();
      const tag = page.locator(`.step-card[data-index="${s.index}"] .score-tag`);
      assert.equal((await tag.innerText()).replace(/\s+/g, ' ').trim(), `SCORE ${s.value.toFixed(2)} ${s.label}`);
    }
    // Non-agent steps: faint cells, no tag (on a card that is rendered).
    assert.match((await page.locator('ti-heatstrip .cell[data-index="0"]').getAttribute('class'))!, /unscored/);
    await page.locator('ti-heatstrip .cell[data-index="0"]').click();
    await page.locator('.step-card.selected[data-index="0"]').waitFor();
    assert.equal(await page.locator('.step-card[data-index="0"] .score-tag').count(), 0);
    // Colour comes from the heat class (no inline style attributes under the CSP).
    const low = scores.steps.reduce((a, b) => (b.value < a.value ? b : a));
    const bg = await page.locator(`ti-heatstrip .cell[data-index="${low.index}"]`).evaluate((el) => getComputedStyle(el).backgroundColor);
    const okBg = await page.locator(`ti-heatstrip .cell[data-index="${scores.steps.find((s) => s.value >= 0.6)!.index}"]`).evaluate((el) => getComputedStyle(el).backgroundColor);
    assert.notEqual(bg, okBg, 'a low and a good step differ in colour');
    // Scrollbar marks: one per low step, placed down the page in step order.
    const lows = scores.steps.filter((s) => s.value < 0.4);
    const marks = page.locator('ti-scrollmarks .mark:not(.sel)');
    await page.waitForFunction((n) => {
      const sm = document.querySelector('ti-app').shadowRoot.querySelector('ti-scrollmarks');
      return sm?.shadowRoot?.querySelectorAll('.mark:not(.sel)').length === n;
    }, lows.length);
    const tops = await marks.evaluateAll((els) => els.map((e) => parseFloat((e as any).style.top)));
    assert.ok(tops.every((t) => t > 0 && t < 100), `marks inside the page: ${tops}`);
    await marks.first().click();
    await page.waitForFunction((i) => window.__sent.some((m: any) => m.type === 'stepSelected' && m.stepIndex === i), lows[0].index);
    await page.locator(`.step-card.selected[data-index="${lows[0].index}"]`).waitFor();
    await page.locator(`ti-heatstrip .cell[data-index="3"]`).click();
    await page.locator('.step-card.selected[data-index="3"]').waitFor();
    assert.ok((await sent(page)).some((m) => m.type === 'stepSelected' && m.stepIndex === 3));
    const line = (await page.locator('ti-heatstrip .line').innerText()).replace(/\s+/g, ' ');
    assert.match(line, new RegExp(`STEP SCORES builtin ${scores.steps.length} scored · mean [0-9.]+ · ${lows.length} low`));
    await page.screenshot({ path: path.join(ARTIFACTS, 'scores.png') });
  });

  it('a 10,000-step rollout: the heat strip and the label strip draw at most 300 cells, each the worst of its steps, inside the panel', async () => {
    const r0 = swe.rollouts[0];
    const n = 10_000;
    const big = { ...r0, id: 'long', steps: Array.from({ length: n }, (_, i) => ({ ...r0.steps[i % r0.steps.length], index: i })) };
    const lowAt = 7_777;
    const many: ScoresMessage = {
      ...scores,
      rolloutId: 'long',
      steps: Array.from({ length: n }, (_, i) => ({ index: i, value: i === lowAt ? 0.05 : 0.9, label: null, explanation: null })),
    };
    page = await open();
    await postToWebview(page, rolloutMessage(new LoadedSource({ ...swe, rollouts: [big] }), 0, null, { collapseOutputLines: 20 }));
    await page.locator('.step-card').first().waitFor();
    await postToWebview(page, many);
    const cells = page.locator('ti-heatstrip .cell');
    await cells.first().waitFor();
    assert.equal(await cells.count(), 300);
    const label = (stepIndex: number, value: 1 | -1) => ({ rolloutId: 'long', stepIndex, value, firstError: false, note: null, annotator: 'me', time: '2026-11-30T00:00:00Z', origin: 'manual' as const, stale: false });
    await postToWebview(page, { type: 'labels', rolloutIndex: 0, rolloutId: 'long', annotator: 'me', labels: [label(5000, 1), label(5001, -1)], unsaved: [], journal: '/x/long.labels.jsonl', error: null, warnings: [], seq: null });
    const labelCells = page.locator('.label-strip .cell');
    await page.locator('.label-strip .cell.bad').waitFor();
    assert.equal(await labelCells.count(), 300);
    // Steps 5001 (bad) and 5000 (good) share a cell: it shows the worst, and points at that step.
    assert.equal(await page.locator('.label-strip .cell.bad').getAttribute('data-index'), '5001');
    assert.equal(await page.locator('.label-strip .cell.good').count(), 0);
    const width = async (sel: string) => page.locator(sel).evaluate((el) => Math.round(el.getBoundingClientRect().right));
    const panel = await page.evaluate(() => document.documentElement.clientWidth);
    assert.ok((await width('ti-heatstrip .strip')) <= panel, 'the heat strip stays inside the panel');
    assert.ok((await width('.label-strip')) <= panel, 'the label strip stays inside the panel');
    // The one low step colours its cell, and a click on that cell selects it.
    const low = page.locator(`ti-heatstrip .cell.bad`);
    assert.equal(await low.count(), 1);
    assert.equal(await low.getAttribute('data-index'), String(lowAt));
    assert.match((await low.getAttribute('title'))!, /^#7767–#7800 · lowest: #7778 /);
    await low.click();
    await page.locator(`.step-card.selected[data-index="${lowAt}"]`).waitFor();
    assert.match((await low.getAttribute('class'))!, /\bsel\b/);
  });

  it('a failed scoring shows the reason and no score; scores of another rollout are dropped', async () => {
    page = await open();
    await postToWebview(page, { ...scores, rolloutId: 'another-rollout' });
    await page.waitForTimeout(200);
    assert.equal(await page.locator('ti-heatstrip').count(), 0);
    assert.equal(await page.locator('.score-tag').count(), 0);
    await postToWebview(page, { ...scores, state: 'error', steps: [], error: 'wrong score result from the scorer: 1 step(s) not answered' });
    const err = page.locator('ti-heatstrip .error');
    await err.waitFor();
    assert.match(await err.innerText(), /scoring failed: wrong score result from the scorer: 1 step\(s\) not answered/);
    assert.equal(await page.locator('ti-heatstrip .cell').count(), 0);
    assert.equal(await page.locator('.score-tag').count(), 0);
    assert.equal(await page.locator('ti-scrollmarks .mark').count(), 0);
  });

  it('steps past the model context are marked with the reason, never blank; a rollout with nothing scorable says "not scorable"', async () => {
    page = await open();
    const cut = scores.steps.slice(0, 2);
    const rest = scores.steps.slice(2).map((s) => ({ index: s.index, reason: 'not scored: beyond model context (4096 tokens)' }));
    await postToWebview(page, { ...scores, steps: cut, unscored: rest, notScorable: null });
    await page.locator('ti-heatstrip .cell').first().waitFor();
    const line = (await page.locator('ti-heatstrip .line').innerText()).replace(/\s+/g, ' ');
    assert.match(line, new RegExp(`${cut.length} scored .*${rest.length} step\\(s\\) not scored: beyond model context`));
    assert.match((await page.locator(`ti-heatstrip .cell[data-index="${rest[0].index}"]`).getAttribute('title'))!, /not scored: beyond model context/);
    await postToWebview(page, { ...scores, steps: [], unscored: scores.steps.map((s) => ({ index: s.index, reason: 'not scored: beyond model context (4096 tokens)' })), notScorable: 'not scored: beyond model context (4096 tokens)' });
    await page.waitForFunction(() => /not scorable/.test(document.querySelector('ti-app').shadowRoot.querySelector('ti-heatstrip')?.shadowRoot?.textContent ?? ''));
    assert.match(await page.locator('ti-heatstrip .line').innerText(), /not scorable: beyond model context/);
  });
});
