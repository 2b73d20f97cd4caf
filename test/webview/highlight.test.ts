/**
 * Webview tier: a search result opens its step with the matches marked (the host's `highlight`
 * message after the rollout): the step is expanded, each match is a <mark> in the theme's find-match
 * colour (in folded output lines, across ANSI colour changes, in commands and messages), the first
 * is scrolled into view; the marks go on Escape or when the selection moves.
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { loadFile, type LoadedFile } from '../../src/core/load';
import { rolloutMessage } from '../../src/host/rolloutMessage';
import { LoadedSource } from '../../src/host/rolloutSource';
import { isHostMessage } from '../../src/shared/protocol';
import { sample } from '../unit/samples';
import { ARTIFACTS, finishPage, launchChromium, postToWebview, startHarness, waitForReady, watchProblems, type Harness, type PageProblems } from './harness';

const SWE_AGENT = 'swe-agent/v0.7_default__marshmallow-code__marshmallow-1867.traj';
const CONFIG = { collapseOutputLines: 20 };

declare const document: any;

/** Texts of the marks in the card of step `index` (its own and its outputs' shadow roots). */
function markTexts(page: Page, index: number): Promise<string[]> {
  return page.evaluate((i) => {
    const card = document.querySelector('ti-app')?.shadowRoot?.querySelector(`.step-card[data-index="${i}"]`);
    if (!card?.shadowRoot) return [];
    const roots = [card.shadowRoot, ...[...card.shadowRoot.querySelectorAll('ti-output')].map((o: any) => o.shadowRoot)];
    return roots.flatMap((r: any) => [...r.querySelectorAll('mark.ti-match')].map((m: any) => m.textContent));
  }, index);
}

describe('webview: a search result opens its step with the matches marked', function () {
  this.timeout(60_000);
  let harness: Harness;
  let browser: Browser;
  let page: Page;
  let problems: PageProblems;
  let swe: LoadedFile;

  before(async () => {
    swe = await loadFile(sample(SWE_AGENT));
    harness = await startHarness();
    browser = await launchChromium();
    fs.mkdirSync(ARTIFACTS, { recursive: true });
  });
  after(async () => {
    await browser?.close();
    await harness?.close();
  });
  afterEach(async function () {
    await finishPage(this, page, problems, { dialogs: true });
  });

  it('expands the step, marks every match (folded lines, across ANSI colours, the command) in the find-match colour, scrolls to the first; Escape and moving on clear them', async () => {
    const file: LoadedFile = JSON.parse(JSON.stringify(swe));
    const r = file.rollouts[0];
    const idx = r.steps.findIndex((s, i) => i > 4 && s.role === 'agent' && s.actions.some((a) => a.command) && s.observations.length > 0);
    assert.ok(idx > 0);
    const step = r.steps[idx];
    // 60 lines: the match sits in line 40, folded away until the step is expanded; the second one is split by colour codes; a third in HTML-looking text stays text.
    const lines = Array.from({ length: 60 }, (_, i) => `line ${i}`);
    lines[40] = 'E   AssertionError: <b>needle</b> here';
    lines[50] = 'ne\x1b[31med\x1b[0m\x1b[1mle\x1b[0m in colours';
    step.observations[0].output = lines.join('\n');
    step.actions.find((a) => a.command)!.command = 'grep -n NEEDLE src/';
    page = await browser.newPage({ viewport: { width: 1100, height: 700 } });
    problems = watchProblems(page);
    await page.goto(harness.url);
    await waitForReady(page);
    await postToWebview(page, rolloutMessage(new LoadedSource(file), 0, idx, CONFIG));
    const hl = { type: 'highlight' as const, rolloutIndex: 0, index: idx, query: { pattern: 'needle', regex: false, caseSensitive: false } };
    assert.ok(isHostMessage(hl), 'the host message validates');
    assert.ok(!isHostMessage({ ...hl, query: { pattern: '', regex: false, caseSensitive: false } }), 'an empty query is refused');
    await postToWebview(page, hl);

    const card = page.locator(`.step-card[data-index="${idx}"]`);
    await page.waitForFunction((i) => document.querySelector('ti-app')?.shadowRoot?.querySelector(`.step-card[data-index="${i}"]`)?.expanded === true, idx);
    await page.waitForFunction((i) => {
      const c = document.querySelector('ti-app')?.shadowRoot?.querySelector(`.step-card[data-index="${i}"]`);
      return !!c?.shadowRoot && [...c.shadowRoot.querySelectorAll('ti-output')].some((o: any) => o.shadowRoot?.querySelector('mark.ti-match'));
    }, idx);
    assert.deepEqual(await markTexts(page, idx), ['NEEDLE', 'needle', 'ne', 'ed', 'le'], 'the command, the folded line (as text, not HTML), the coloured word split at its colour changes');
    const out = card.locator('pre.output').first();
    assert.equal(await out.locator('b').count(), 0, 'HTML in the output stays text');
    assert.equal(await out.locator('span.ansi-red mark.ti-match').textContent(), 'ed', 'the mark sits inside the colour span');
    const bg = await out.locator('mark.ti-match').first().evaluate((e) => getComputedStyle(e as any).backgroundColor);
    assert.equal(bg, 'rgba(234, 92, 0, 0.33)', "the editor's find-match highlight colour (its fallback: the harness theme does not set it)");
    await page.waitForFunction((i) => {
      const c = document.querySelector('ti-app')?.shadowRoot?.querySelector(`.step-card[data-index="${i}"]`);
      const m = c?.shadowRoot?.querySelector('mark.ti-match');
      if (!m) return false;
      const b = m.getBoundingClientRect();
      return b.top >= 0 && b.bottom <= window.innerHeight;
    }, idx);
    await card.screenshot({ path: path.join(ARTIFACTS, 'search-highlight.png') });

    await page.keyboard.press('Escape');
    await page.waitForFunction((i) => !document.querySelector('ti-app')?.shadowRoot?.querySelector(`.step-card[data-index="${i}"]`)?.expanded === true, idx);
    assert.deepEqual(await markTexts(page, idx), [], 'Escape clears the marks');

    await postToWebview(page, hl);
    await page.waitForFunction((i) => document.querySelector('ti-app')?.shadowRoot?.querySelector(`.step-card[data-index="${i}"]`)?.expanded === true, idx);
    assert.ok((await markTexts(page, idx)).length > 0);
    await page.keyboard.press('j');
    await page.waitForFunction((i) => !document.querySelector('ti-app')?.shadowRoot?.querySelector(`.step-card[data-index="${i}"]`)?.expanded === true, idx);
    assert.deepEqual(await markTexts(page, idx), [], 'the next selection clears them');
  });
});

declare const window: any;
declare function getComputedStyle(el: unknown): { backgroundColor: string };
