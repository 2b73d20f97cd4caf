/**
 * e2e: a 200 MB JSONL rollout dump (generated from the real NeMo-Gym sample rows, bench/genDump.ts)
 * in code-server: the Rollouts view lists it through the lazy index (every row, its GRPO groups),
 * the keyboard walks the tree to its last rollout, which opens in the timeline with the step count
 * the real loader gives that row; rows appended to the file (a running job) show up.
 *
 * Screenshots: .test-artifacts/e2e/scale-rollouts.png (the tree at the last rollout),
 * scale-timeline.png (the last rollout open).
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { baseOf, DUMP_SAMPLES, dumpRow, generateDump, GROUP_SIZE, sampleRows } from '../../bench/genDump';
import { loadFile } from '../../src/core/load';
import { e2eSuite, findInDump, focusLastRolloutOfLastGroup, OPEN_MS, rolloutsPane, sample, screenshot, UI_MS, waitUntil } from './harness';

const DUMP = 'big_rollouts.jsonl';
const BYTES = 200 * 1024 * 1024;

describe('e2e: a 200 MB rollout dump in code-server', function () {
  this.timeout(600_000);

  let file: string;
  let rows = 0;
  /** Step count of each sample row as the real loader reads the sample files. */
  const sampleSteps: number[] = [];
  const e2e = e2eSuite({
    name: 'scale',
    artifactPrefix: '',
    prepare: async (workspace) => {
      for (const rel of DUMP_SAMPLES) for (const r of (await loadFile(sample(rel))).rollouts) sampleSteps.push(r.steps.length);
      file = path.join(workspace, 'rl', DUMP);
      rows = generateDump(file, BYTES).rows;
    },
  });

  const { row, rowsText, open } = rolloutsPane(() => e2e.page);
  /** A tree row's name and description (innerText runs them together). */
  const parts = async (r: ReturnType<typeof row>) => ({
    name: (await r.locator('.label-name').first().innerText()).trim(),
    description: (await r.locator('.label-description').first().innerText().catch(() => '')).trim(),
  });

  it('lists every row of the dump, in its GRPO groups', async () => {
    await open({ alone: true });
    const groups = Math.ceil(rows / GROUP_SIZE);
    await waitUntil(async () => {
      const d = (await parts(row(DUMP))).description;
      return d.startsWith(`${rows} rollouts · ${groups} groups ·`) && !/indexing/.test(d);
    }, 240_000, async () => `the ${DUMP} row never listed ${rows} rollouts in ${groups} groups; rows: ${await rowsText()}`);
  });

  it('walks the tree to the last rollout and opens it in the timeline', async () => {
    const fileRow = row(DUMP);
    if ((await fileRow.getAttribute('aria-expanded')) === 'false') await fileRow.locator('.monaco-tl-twistie').click();
    await row(new RegExp(`^group ng-task-0${GROUP_SIZE} rollouts`)).click();
    // The groups sort by name (numbers by value): End focuses the last task's group, → opens it, End
    // its last rollout, Enter opens that. (The tree's last rows can sit below the pane's visible part
    // in this window, so what opened is checked in the timeline.)
    await focusLastRolloutOfLastGroup(e2e.page);
    const expected = dumpRow(sampleRows(), rows - 1);
    const steps = sampleSteps[baseOf(rows - 1, sampleSteps.length)];
    const label = `${String(expected.instance_id)} (row ${rows})`;
    await e2e.page.mouse.move(0, 0);
    await screenshot(e2e.page, 'scale-rollouts');
    await e2e.page.keyboard.press('Enter');

    const web = e2e.web();
    const stepCount = web.locator('#step-count');
    await stepCount.waitFor({ state: 'visible', timeout: OPEN_MS });
    await waitUntil(async () => new RegExp(`^${steps}\\b`).test((await stepCount.innerText()).trim()), 60_000,
      async () => `#step-count shows "${await stepCount.innerText()}", the last rollout has ${steps} steps (row: ${label})`);
    const picker = web.locator('.picker');
    await waitUntil(async () => (await picker.innerText()).includes(`of ${rows}`), UI_MS, async () => `the rollout picker does not say "of ${rows}": ${await picker.innerText()}`);
    // The rollout shown is the file's last row.
    assert.equal(await web.locator('.rollout-picker').evaluate((el: any) => el.value), String(rows - 1));
    assert.equal((await web.locator('h1.title').innerText()).trim(), String(expected.instance_id));
    assert.ok((await web.locator('.step-card').count()) > 0, 'no step card rendered');
    await screenshot(e2e.page, 'scale-timeline');
  });

  it('Find in Dump… streams the hits of a text in the 200 MB file and opens the rollout of the one picked', async () => {
    // The instance id of task 10 (rows 41-44, from the first sample row) also matches tasks 100-109, 1000-1099:
    // the first hit is on line 41, rollout 41.
    const bases = sampleRows();
    const query = String(dumpRow(bases, 40).instance_id);
    await findInDump(e2e.page, query);
    const first = e2e.page.locator('.quick-input-list .monaco-list-row').first();
    // The hit names its rollout and (once looked up) its step (issue 21 item 2).
    await waitUntil(async () => /rollout 41 · step #\d+ · line 41/.test((await first.innerText()).replace(/\s+/g, ' ')), UI_MS,
      async () => `the first hit does not name its step: ${await first.innerText()}`);
    await screenshot(e2e.page, 'scale-find');
    await e2e.page.keyboard.press('Enter');
    const web = e2e.web();
    await waitUntil(async () => (await web.locator('.rollout-picker').evaluate((el: any) => el.value)) === '40', 60_000,
      async () => `the timeline did not switch to rollout 41: ${await web.locator('.picker').innerText().catch(() => '')}`);
    assert.equal((await web.locator('h1.title').innerText()).trim(), query);
  });

  it('lists rows appended to the dump while it is open (a running job)', async () => {
    const bases = sampleRows();
    const more = Array.from({ length: 2 * GROUP_SIZE }, (_, k) => JSON.stringify(dumpRow(bases, rows + k))).join('\n') + '\n';
    fs.appendFileSync(file, more);
    const total = rows + 2 * GROUP_SIZE;
    await waitUntil(async () => (await parts(row(DUMP))).description.startsWith(`${total} rollouts`), 120_000,
      async () => `the ${DUMP} row never showed ${total} rollouts after the append; rows: ${await rowsText()}`);
  });
});
