/**
 * e2e: a 24 MB Inspect AI `.json` eval log (the real `inspect/log_read_sample.json` with its sample
 * repeated under new ids; bench/genInspectLog.ts) in code-server: the Rollouts view lists every
 * sample through the lazy index of Inspect logs (core/scale/inspectIndex.ts), and a sample opened
 * from the tree shows in the timeline with the step count the full load gives it, its sample read
 * on demand (the picker counts every sample of the log).
 *
 * Screenshots: .test-artifacts/e2e/scale-inspect-rollouts.png, scale-inspect-timeline.png.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as assert from 'node:assert/strict';
import { writeInspectLog } from '../../bench/genInspectLog';
import { loadFile } from '../../src/core/load';
import { defaultRolloutIncludes, e2eSuite, focusLastRolloutOfLastGroup, OPEN_MS, rolloutsPane, screenshot, UI_MS, waitUntil } from './harness';

const FILE = 'big-eval-log.json';

describe('e2e: a 24 MB Inspect AI .json log in code-server', function () {
  this.timeout(300_000);

  let samples = 0;
  let steps = 0;
  const e2e = e2eSuite({
    name: 'scale-inspect',
    artifactPrefix: '',
    // Inspect writes its logs to ./logs under names of its own: the user adds the folder to the view.
    settings: { 'trajectoryInspector.rollouts.include': [...defaultRolloutIncludes(), '**/logs/*.json'] },
    prepare: async (workspace) => {
      const file = path.join(workspace, 'logs', FILE);
      samples = writeInspectLog(file, 24).samples;
      fs.rmSync(`${file}.meta.json`); // the generator's note, not a rollout file
      // Every sample is the same one under a new id: each has the step count of the full load's first.
      const full = await loadFile(file);
      assert.equal(full.rollouts.length, samples);
      steps = full.rollouts[0].steps.length;
      assert.ok(full.rollouts.every((r) => r.steps.length === steps));
    },
  });

  const { row, rowsText, open } = rolloutsPane(() => e2e.page);

  it('lists every sample of the log (one group per sample id)', async () => {
    await open({ alone: true });
    await waitUntil(async () => {
      const d = (await row(FILE).locator('.label-description').first().innerText().catch(() => '')).trim();
      return d.startsWith(`${samples} rollouts · ${samples} groups`) && !/indexing/.test(d);
    }, 120_000, async () => `the ${FILE} row never listed ${samples} rollouts; rows: ${await rowsText()}`);
  });

  it('opens a sample from the tree in the timeline, read on demand', async () => {
    const fileRow = row(FILE);
    if ((await fileRow.getAttribute('aria-expanded')) === 'false') await fileRow.locator('.monaco-tl-twistie').click();
    await row(/^group /).first().click();
    await focusLastRolloutOfLastGroup(e2e.page);
    await e2e.page.mouse.move(0, 0);
    await screenshot(e2e.page, 'scale-inspect-rollouts');
    await e2e.page.keyboard.press('Enter');

    const web = e2e.web();
    const stepCount = web.locator('#step-count');
    await stepCount.waitFor({ state: 'visible', timeout: OPEN_MS });
    await waitUntil(async () => new RegExp(`^${steps}\\b`).test((await stepCount.innerText()).trim()), 60_000,
      async () => `#step-count shows "${await stepCount.innerText()}", every sample has ${steps} steps`);
    const picker = web.locator('.picker');
    await waitUntil(async () => (await picker.innerText()).includes(`of ${samples}`), UI_MS, async () => `the rollout picker does not say "of ${samples}": ${await picker.innerText()}`);
    assert.ok((await web.locator('.step-card').count()) > 0, 'no step card rendered');
    await screenshot(e2e.page, 'scale-inspect-timeline');
  });
});
