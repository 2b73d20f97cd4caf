/**
 * e2e: a 40 MB single JSON file whose top level is an array of rollout rows (generated from the
 * real NeMo-Gym sample rows, pretty-printed as `json.dump(rows, indent=2)` writes them;
 * bench/genJsonArray.ts) in code-server: the Rollouts view lists it through the lazy array index
 * (core/scale/arrayIndex.ts: every item, its GRPO groups), the keyboard walks the tree to its last
 * rollout, which opens in the timeline with the step count the real loader gives that item; Show in
 * Source of one of its steps selects the step where a full load of the file places it; Find in Dump…
 * opens the rollout of the item a hit is in.
 *
 * Screenshots: .test-artifacts/e2e/scale-json-rollouts.png, scale-json-timeline.png, scale-json-source.png.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as assert from 'node:assert/strict';
import { baseOf, DUMP_SAMPLES, GROUP_SIZE } from '../../bench/genDump';
import { arrayBases, arrayItem, generateJsonArray } from '../../bench/genJsonArray';
import { loadFile } from '../../src/core/load';
import { e2eSuite, findInDump, focusLastRolloutOfLastGroup, OPEN_MS, rolloutsPane, sample, screenshot, UI_MS, waitUntil } from './harness';

const FILE = 'big_rollouts.json';
const BYTES = 40 * 1024 * 1024;

describe('e2e: a 40 MB JSON array of rollouts in code-server', function () {
  this.timeout(300_000);

  let items = 0;
  const sampleSteps: number[] = [];
  const e2e = e2eSuite({
    name: 'scale-json',
    artifactPrefix: '',
    prepare: async (workspace) => {
      for (const rel of DUMP_SAMPLES) for (const r of (await loadFile(sample(rel))).rollouts) sampleSteps.push(r.steps.length);
      items = generateJsonArray(path.join(workspace, 'rl', FILE), BYTES, 'nemo').items;
      fs.rmSync(path.join(workspace, 'rl', `${FILE}.items`));
    },
  });

  const { row, rowsText, open } = rolloutsPane(() => e2e.page);

  it('lists every item of the array, in its GRPO groups', async () => {
    await open({ alone: true });
    const groups = Math.ceil(items / GROUP_SIZE);
    await waitUntil(async () => {
      const d = (await row(FILE).locator('.label-description').first().innerText().catch(() => '')).trim();
      return d.startsWith(`${items} rollouts · ${groups} groups ·`) && !/indexing/.test(d);
    }, 120_000, async () => `the ${FILE} row never listed ${items} rollouts in ${groups} groups; rows: ${await rowsText()}`);
  });

  it('walks the tree to the last rollout and opens it in the timeline', async () => {
    const fileRow = row(FILE);
    if ((await fileRow.getAttribute('aria-expanded')) === 'false') await fileRow.locator('.monaco-tl-twistie').click();
    await row(new RegExp(`^group ng-task-0${GROUP_SIZE} rollouts`)).click();
    // As in scale.e2e.test.ts: End focuses the last group, → opens it, End its last rollout, Enter opens that.
    await focusLastRolloutOfLastGroup(e2e.page);
    const expected = arrayItem('nemo', arrayBases('nemo'), items - 1);
    const steps = sampleSteps[baseOf(items - 1, sampleSteps.length)];
    await e2e.page.mouse.move(0, 0);
    await screenshot(e2e.page, 'scale-json-rollouts');
    await e2e.page.keyboard.press('Enter');

    const web = e2e.web();
    const stepCount = web.locator('#step-count');
    await stepCount.waitFor({ state: 'visible', timeout: OPEN_MS });
    await waitUntil(async () => new RegExp(`^${steps}\\b`).test((await stepCount.innerText()).trim()), 60_000,
      async () => `#step-count shows "${await stepCount.innerText()}", the last rollout has ${steps} steps`);
    const picker = web.locator('.picker');
    await waitUntil(async () => (await picker.innerText()).includes(`of ${items}`), UI_MS, async () => `the rollout picker does not say "of ${items}": ${await picker.innerText()}`);
    assert.equal(await web.locator('.rollout-picker').evaluate((el: any) => el.value), String(items - 1));
    assert.equal((await web.locator('h1.title').innerText()).trim(), String(expected.instance_id));
    assert.ok((await web.locator('.step-card').count()) > 0, 'no step card rendered');
    await screenshot(e2e.page, 'scale-json-timeline');
  });

  it('Show in Source of a step of the last rollout selects that step in the 40 MB file (its line and column)', async () => {
    // Where a full load of the file puts step #2 of the last rollout (UTF-16 offsets, as the editor counts them).
    const file = path.join(e2e.workspace, 'rl', FILE);
    const text = fs.readFileSync(file, 'utf8');
    const step = (await loadFile(file)).rollouts[items - 1].steps[1];
    // The selection runs from the step's start to its end; the status bar shows its end (the cursor) and its length.
    const before = text.slice(0, step.range!.end).split('\n');
    const want = `Ln ${before.length}, Col ${before[before.length - 1].length + 1} (${step.range!.end - step.range!.start} selected)`;
    const web = e2e.web();
    await web.locator('.step-card[data-index="1"]').click({ position: { x: 12, y: 8 } });
    await e2e.page.keyboard.press('s');
    const selection = e2e.page.locator('.statusbar-item', { hasText: /Ln \d+, Col \d+/ }).first();
    await waitUntil(async () => (await selection.innerText().catch(() => '')).includes(want), 60_000,
      async () => `the status bar shows "${await selection.innerText().catch(() => '')}", step #2 is ${want}`);
    await screenshot(e2e.page, 'scale-json-source');
  });

  it('Find in Dump… finds a text in the array and opens the rollout of the item it is in', async () => {
    // The instance id of task 10 (items 41-44) also matches tasks 100-109: the first hit is in item 41.
    const query = String(arrayItem('nemo', arrayBases('nemo'), 40).instance_id);
    await findInDump(e2e.page, query);
    const first = e2e.page.locator('.quick-input-list .monaco-list-row').first();
    assert.match((await first.innerText()).replace(/\s+/g, ' '), /rollout 41 · (step #\d+ · )?line \d+/);
    await e2e.page.keyboard.press('Enter');
    const web = e2e.web();
    await waitUntil(async () => (await web.locator('.rollout-picker').evaluate((el: any) => el.value)) === '40', 60_000,
      async () => `the timeline did not switch to rollout 41: ${await web.locator('.picker').innerText().catch(() => '')}`);
    assert.equal((await web.locator('h1.title').innerText()).trim(), query);
  });
});
