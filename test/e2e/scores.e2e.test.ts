/**
 * e2e (issue 4): in code-server, opening a real SWE-agent rollout scores it with the built-in
 * scorer: the heat strip in the timeline and the score tags on the cards hold the values the
 * rules give (computed here in-process from the same file); Show in Source opens the raw file with
 * the scores as CodeLens, gutter/end-of-line decorations and a hover. Then a scorer that crashes
 * mid-batch: the timeline says why and shows no score; Score Rollout restarts it and the scores come.
 * Screenshots: .test-artifacts/e2e/scores-timeline.png, scores-raw-file.png, scores-recovered.png.
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { loadFile } from '../../src/core/load';
import { toScoreRollout } from '../../src/core/scoring/input';
import { RULES_VERSION, scoreRollout } from '../../src/scorers/builtin/rules';
import { closeAllEditors, e2eSuite, openTimeline, quickInputRow, REPO_ROOT, runCommand, sample, screenshot, UI_MS, waitUntil } from './harness';

const SWE_AGENT = 'swe-agent/v0.7_default__marshmallow-code__marshmallow-1867.traj';
const REL = 'runs/marshmallow-1867.traj';
const MINI = 'mini-swe-agent/harbor-rfc_mini-swe-agent-trajectory.json';
const MINI_REL = 'runs/mini/trajectory.json';
const FAKE = path.join(REPO_ROOT, 'test', 'fixtures', 'scorers', 'fake-scorer.js');

describe('e2e: step scores in the timeline and on the raw file', function () {
  this.timeout(300_000);

  const e2e = e2eSuite({
    name: 'scores',
    prepare: (workspace) => {
      fs.mkdirSync(path.join(workspace, 'runs', 'mini'), { recursive: true });
      fs.copyFileSync(sample(SWE_AGENT), path.join(workspace, REL));
      fs.copyFileSync(sample(MINI), path.join(workspace, MINI_REL));
    },
  });

  it('opening a rollout shows the built-in scores in the heat strip and on the step cards', async () => {
    const f = await loadFile(sample(SWE_AGENT));
    const expected = scoreRollout(toScoreRollout(f.rollouts[0]));
    const scored = expected.filter((s) => s.value !== null);
    assert.ok(scored.some((s) => s.value! < 0.4), 'the sample has a low-scored step');

    const web = await openTimeline(e2e.page, REL);
    const cells = web.locator('ti-heatstrip .cell');
    await waitUntil(async () => (await web.locator('ti-heatstrip .cell[data-score]:not([data-score=""])').count()) === scored.length, 60_000,
      async () => `the heat strip never showed ${scored.length} scored cells; it says ${JSON.stringify(await web.locator('ti-heatstrip').innerText().catch(() => ''))}`);
    assert.equal(await cells.count(), f.rollouts[0].steps.length, 'one cell per step');
    for (const s of expected) {
      const cell = web.locator(`ti-heatstrip .cell[data-index="${s.index}"]`);
      assert.equal(await cell.getAttribute('data-score'), s.value === null ? '' : String(s.value), `step ${s.index}`);
    }
    const line = (await web.locator('ti-heatstrip .line').innerText()).replace(/\s+/g, ' ');
    assert.match(line, /step scores/i);
    assert.match(line, new RegExp(`builtin.*${scored.length} scored`));
    // The card of the lowest step carries its score and explanation; the outcome reward stays apart.
    const low = scored.reduce((a, b) => (b.value! < a.value! ? b : a));
    // Jump from the heat strip to the low step (the step list is virtualized: this renders its card).
    await web.locator(`ti-heatstrip .cell[data-index="${low.index}"]`).click();
    await web.locator(`.step-card.selected[data-index="${low.index}"]`).waitFor({ state: 'visible', timeout: UI_MS });
    const tag = web.locator(`.step-card[data-index="${low.index}"] .score-tag`);
    assert.equal((await tag.innerText()).replace(/\s+/g, ' ').trim(), `SCORE ${low.value!.toFixed(2)} ${low.label}`);
    assert.ok((await tag.getAttribute('title'))!.includes(low.explanation!), 'the tag explains the score');
    // A scrollbar mark for every low step.
    const lows = scored.filter((s) => s.value! < 0.4).length;
    await waitUntil(async () => (await web.locator('ti-scrollmarks .mark:not(.sel)').count()) === lows, UI_MS,
      async () => `expected ${lows} scrollbar marks, found ${await web.locator('ti-scrollmarks .mark').count()}`);
    await e2e.page.waitForTimeout(400);
    await screenshot(e2e.page, 'scores-timeline');
  });

  it('Show in Source opens the raw file with the score as CodeLens, decorations and a hover', async () => {
    const f = await loadFile(sample(SWE_AGENT));
    const expected = scoreRollout(toScoreRollout(f.rollouts[0]));
    const low = expected.filter((s) => s.value !== null).reduce((a, b) => (b.value! < a.value! ? b : a));
    const web = e2e.web();
    await web.locator(`.step-card.selected[data-index="${low.index}"]`).click();
    await e2e.page.keyboard.press('s');
    const editor = e2e.page.locator('.editor-instance .monaco-editor').first();
    await editor.waitFor({ state: 'visible', timeout: UI_MS });
    const lens = e2e.page.locator('.monaco-editor .codelens-decoration', { hasText: `score ${low.value!.toFixed(2)} (${low.label})` });
    await lens.first().waitFor({ state: 'visible', timeout: UI_MS }).catch(async () => {
      throw new Error(`no CodeLens "score ${low.value!.toFixed(2)}"; lenses: ${JSON.stringify(await e2e.page.locator('.codelens-decoration').allInnerTexts())}`);
    });
    assert.match(await lens.first().innerText(), /label/, 'the CodeLens offers to label the step');
    // Gutter marks (glyph margin) on the scored steps' lines.
    assert.ok((await e2e.page.locator('.monaco-editor .cgmr').count()) > 0, 'gutter decorations are drawn');
    // The hover over the step's first line (the line under the CodeLens) explains the score.
    const ref = editor.locator('.view-lines').first();
    const box = (await lens.first().boundingBox())!;
    await e2e.page.mouse.move(box.x + 4, box.y + box.height + 8);
    await e2e.page.mouse.move(box.x + 5, box.y + box.height + 9);
    const hover = e2e.page.locator('.monaco-hover', { hasText: `Step score ${low.value!.toFixed(2)}` });
    await hover.first().waitFor({ state: 'visible', timeout: UI_MS }).catch(async () => {
      throw new Error(`no hover with the step score; hovers: ${JSON.stringify(await e2e.page.locator('.monaco-hover').allInnerTexts())}`);
    });
    await waitUntil(async () => {
      const t = (await hover.first().innerText()).replace(/\s+/g, ' ');
      return t.includes(low.explanation!) && t.includes(`scorer builtin ${RULES_VERSION}`);
    }, UI_MS, async () => `the hover lacks the explanation ${JSON.stringify(low.explanation)} or the scorer: ${JSON.stringify(await hover.first().innerText())}`);
    assert.ok(await ref.isVisible());
    await screenshot(e2e.page, 'scores-raw-file');

    // The "label" CodeLens of the next scored step opens that step in the timeline.
    const next = expected.find((s) => s.index > low.index && s.value !== null)!;
    // The lens just below the low step's one (several steps may share a value).
    const candidates = e2e.page.locator('.monaco-editor .codelens-decoration:visible', { hasText: `score ${next.value!.toFixed(2)} (${next.label})` });
    let nextLens = candidates.first();
    let bestY = Infinity;
    for (let i = 0; i < (await candidates.count()); i++) {
      const b = await candidates.nth(i).boundingBox();
      if (b && b.y > box.y && b.y < bestY) {
        bestY = b.y;
        nextLens = candidates.nth(i);
      }
    }
    await e2e.page.mouse.move(0, 0);
    await nextLens.locator('a', { hasText: /^label$/ }).click();
    await web.locator(`.step-card.selected[data-index="${next.index}"]`).waitFor({ state: 'visible', timeout: UI_MS }).catch(async () => {
      throw new Error(`the label CodeLens did not select step ${next.index}; selected: ${JSON.stringify(await web.locator('.step-card.selected').getAttribute('data-index').catch(() => null))}`);
    });
  });

  it('a scorer that crashes mid-batch: the timeline says why and shows no score; Score Rollout restarts it and the scores come', async () => {
    const mark = path.join(e2e.tmp, 'crashed-once');
    // One timeline at a time, so the webview found below is this rollout's; it has built-in scores.
    await closeAllEditors(e2e.page);
    const web = await openTimeline(e2e.page, MINI_REL);
    await waitUntil(async () => (await web.locator('ti-heatstrip .cell[data-score]:not([data-score=""])').count()) > 0, 60_000, () => 'no built-in scores on the mini-swe-agent timeline');
    // Select Scorer… → Scorer command… → the command typed into the input box: the open timeline
    // is scored with it at once, and the scorer crashes.
    await runCommand(e2e.page, 'Trajectory Inspector: Select Scorer');
    await quickInputRow(e2e.page, 'Scorer command').waitFor({ state: 'visible', timeout: UI_MS });
    await e2e.page.keyboard.type('Scorer command');
    await e2e.page.keyboard.press('Enter');
    await e2e.page.locator('.quick-input-widget .quick-input-title', { hasText: 'Scorer command' }).waitFor({ state: 'visible', timeout: UI_MS });
    await e2e.page.keyboard.press('Control+A');
    await e2e.page.keyboard.type([process.execPath, FAKE, 'crash-once', mark].join(' '));
    await e2e.page.keyboard.press('Enter');
    // The status bar names the new scorer once the setting has changed.
    await e2e.page.locator('.statusbar-item', { hasText: 'fake-scorer.js' }).first().waitFor({ state: 'visible', timeout: UI_MS }).catch(async () => {
      throw new Error(`the status bar never named the new scorer: ${JSON.stringify(await e2e.page.locator('.statusbar-item').allInnerTexts())}`);
    });
    await web.locator('ti-heatstrip .error', { hasText: 'scoring failed' }).waitFor({ state: 'visible', timeout: 60_000 }).catch(async () => {
      throw new Error(`the timeline never said scoring failed; strip: ${JSON.stringify(await web.locator('ti-heatstrip').innerText().catch(() => ''))}`);
    });
    const err = await web.locator('ti-heatstrip .error').innerText();
    assert.match(err, /exit code 3/);
    assert.ok(fs.existsSync(mark), 'the fake scorer really crashed');
    assert.equal(await web.locator('.score-tag').count(), 0, 'no score shown after the crash');
    await e2e.page.locator('.notification-toast', { hasText: 'scoring failed' }).first().waitFor({ state: 'visible', timeout: UI_MS });

    await runCommand(e2e.page, 'Trajectory Inspector: Score Rollout');
    await waitUntil(async () => (await web.locator('.score-tag').count()) > 0, 60_000,
      async () => `no scores after Score Rollout; strip: ${JSON.stringify(await web.locator('ti-heatstrip').innerText().catch(() => ''))}`);
    const tags = await web.locator('.score-tag').allInnerTexts();
    assert.ok(tags.every((t) => /0\.50/.test(t)), `the restarted fake scorer's values: ${JSON.stringify(tags)}`);
    assert.match((await web.locator('ti-heatstrip .line').innerText()).replace(/\s+/g, ' '), /fake-crash-once · fake-model/);
    await e2e.page.locator('.notification-toast', { hasText: 'restarted' }).first().waitFor({ state: 'visible', timeout: UI_MS });
    await screenshot(e2e.page, 'scores-recovered');
  });
});
