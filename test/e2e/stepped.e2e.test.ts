/**
 * e2e, issue 18 item 3: an ATIF trajectory at or over the size from which the timeline reads it by
 * windows of steps (src/host/timeline/readSource.ts; the threshold set to 1 MiB here through
 * TRAJECTORY_INSPECTOR_STREAM_MIN_BYTES, as the CLI's streaming `show` reads it) opens paged: the
 * step count is the file's, the header warns that it is read by windows (scores, replay off), and
 * the keyboard walks to the last step, whose card then shows its full message and tool output
 * read from the file's last window.
 *
 * Written, not run by the session that wrote it (the lead runs the e2e tier).
 * Screenshot: .test-artifacts/e2e/stepped-last-step.png.
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { writeBigAtif } from '../../bench/genHuge';
import { e2eSuite, openTimeline, screenshot, waitUntil } from './harness';
import type { FrameLocator } from 'playwright-core';

const DIR = 'big-trial/agent';
const FILE = `${DIR}/trajectory.json`;
/** ~230 bytes a step (bench/genHuge.ts): about 4.6 MB, over the 1 MiB threshold set below. */
const STEPS = 20_000;
const THRESHOLD = 1024 * 1024;

describe('e2e: an ATIF over the size threshold opens read by windows of steps (issue 18)', function () {
  this.timeout(600_000);

  const e2e = e2eSuite({
    name: 'stepped',
    env: { TRAJECTORY_INSPECTOR_STREAM_MIN_BYTES: String(THRESHOLD) },
    prepare: async (workspace) => {
      fs.mkdirSync(path.join(workspace, DIR), { recursive: true });
      const bytes = writeBigAtif(path.join(workspace, FILE), STEPS);
      assert.ok(bytes > THRESHOLD, `the file (${bytes} bytes) is over the threshold`);
    },
  });

  /** A step card's text: a card renders into its shadow tree, which innerText of the card does not reach. */
  const cardText = (card: ReturnType<FrameLocator['locator']>) =>
    card.evaluate((el: any) => `${el.shadowRoot?.textContent ?? ''}${el.textContent ?? ''}`).catch(() => '');

  it('opens paged with the header warning and walks to the last step, read from the file', async () => {
    const web = await openTimeline(e2e.page, FILE);
    const stepCount = web.locator('#step-count');
    assert.match((await stepCount.innerText()).trim(), new RegExp(`^${STEPS} steps`));
    // The header says the rollout is read by windows and what is off for it (one warning: no continuation).
    const summary = web.locator('.file-issues summary');
    await waitUntil(async () => /1 warning/.test((await summary.first().innerText().catch(() => '')) ?? ''), 60_000,
      async () => `the header shows no "1 warning": ${JSON.stringify(await summary.allInnerTexts().catch(() => []))}`);
    await summary.first().click();
    await waitUntil(async () => /read from the file by windows.*scores/s.test(await web.locator('.file-issues').first().innerText().catch(() => '')), 30_000,
      async () => `the warning does not say the steps are read by windows: ${await web.locator('.file-issues').first().innerText().catch(() => '')}`);
    // The first step comes full.
    const first = web.locator('.step-card[data-index="0"]');
    await waitUntil(async () => (await cardText(first)).includes('Please run check number 0'), 60_000,
      async () => `step 1 never showed its message: ${await cardText(first)}`);

    // The keyboard walks to the last step (step index STEPS - 1: an agent step with a tool call, bench/genHuge.ts).
    await stepCount.click();
    await e2e.page.keyboard.press('End');
    const last = web.locator(`.step-card[data-index="${STEPS - 1}"]`);
    await waitUntil(async () => /\bselected\b/.test((await last.getAttribute('class').catch(() => '')) ?? ''), 60_000,
      async () => `the last step is not selected: ${await web.locator('.step-card.selected').getAttribute('data-index').catch(() => 'none')}`);
    await waitUntil(
      async () => {
        if (!(await last.count())) {
          await e2e.page.keyboard.press('End');
          return false;
        }
        const text = await cardText(last);
        return text.includes(`Running check ${STEPS - 1}.`) && (await last.locator('.slice-loading').count()) === 0;
      },
      60_000,
      async () => `the last step never showed its full content: ${await cardText(last)}`,
    );
    assert.ok((await last.locator('.action-command').innerText()).includes(`echo ${STEPS - 1}`));
    await screenshot(e2e.page, 'stepped-last-step');
  });
});
