/**
 * e2e (issue 6): in code-server, open a real SWE-agent trajectory, label five steps with the
 * keyboard only (one click focuses the webview), check the journal on disk holds the five labels,
 * then export them through the command palette (Export Labels → TRL → the save dialog, which is a
 * quick input in code-server) and check the exported row's labels. Screenshot: .test-artifacts/e2e/labels.png.
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import {
  assertNoCspOrHostErrors, e2eSuite, openTimeline, pickInQuickInput, quickInput, quickInputRow, runCommand, sample, screenshot, typeIntoQuickInput, UI_MS, waitForQuickInputTitle, waitUntil,
} from './harness';

/** SWE-agent 0.7: system, user, then 14 agent steps (indices 2–15). */
const SWE_AGENT = 'swe-agent/v0.7_default__marshmallow-code__marshmallow-1867.traj';
const REL = 'runs/marshmallow-1867.traj';
const ANNOTATOR = 'e2e-annotator';
/** What the keys give steps 2–6: 1 good, 3 bad, 2 neutral, + good, - bad. */
const KEYS = ['1', '3', '2', '+', '-'];
const EXPECTED: Record<number, 1 | 0 | -1> = { 2: 1, 3: -1, 4: 0, 5: 1, 6: -1 };

interface JournalLine {
  v: number;
  id: string;
  batch: string;
  rolloutId: string;
  stepIndex: number | null;
  stepHash: string | null;
  value: 1 | 0 | -1 | null;
  firstError: boolean;
  note: string | null;
  annotator: string;
  time: string;
  origin: string;
}

describe('e2e: label five steps with the keyboard and export them', function () {
  this.timeout(300_000);

  const trajectory = JSON.parse(fs.readFileSync(sample(SWE_AGENT), 'utf8'));
  const e2e = e2eSuite({
    name: 'labels',
    prepare: (workspace) => {
      fs.mkdirSync(path.join(workspace, 'runs'), { recursive: true });
      fs.copyFileSync(sample(SWE_AGENT), path.join(workspace, REL));
    },
    settings: { 'trajectoryInspector.labels.annotator': ANNOTATOR },
  });

  const journalPath = () => path.join(e2e.workspace, '.trajectory-labels', `${REL}.labels.jsonl`);

  /** The journal's lines, parsed (every line must be a whole JSON entry). */
  function journal(): JournalLine[] {
    if (!fs.existsSync(journalPath())) return [];
    const text = fs.readFileSync(journalPath(), 'utf8');
    assert.ok(text === '' || text.endsWith('\n'), 'the journal ends with a whole line');
    return text.split('\n').filter((l) => l.trim()).map((l) => JSON.parse(l) as JournalLine);
  }

  /** The latest value per step of the annotator (the journal's merge rule: latest time, then id). */
  function currentValues(lines: JournalLine[]): Record<number, number | null> {
    const latest = new Map<number, JournalLine>();
    for (const e of lines) {
      if (e.annotator !== ANNOTATOR || e.stepIndex === null) continue;
      const cur = latest.get(e.stepIndex);
      if (!cur || e.time > cur.time || (e.time === cur.time && e.id > cur.id)) latest.set(e.stepIndex, e);
    }
    const out: Record<number, number | null> = {};
    for (const [k, e] of latest) if (e.value !== null) out[k] = e.value;
    return out;
  }

  it('labels five steps with 1/2/3/+/- and Enter; the journal on disk holds the five labels', async () => {
    const web = await openTimeline(e2e.page, REL);
    // The step list is virtualized: the header counts every step, the DOM holds the cards near the viewport.
    const steps = trajectory.trajectory.length + 2;
    await waitUntil(async () => new RegExp(`^${steps}\\b`).test((await web.locator('#step-count').innerText()).trim()) && (await web.locator('.step-card[data-index="0"]').count()) === 1, UI_MS,
      async () => `expected "${steps} steps" and the first card, found "${await web.locator('#step-count').innerText()}" and ${await web.locator('.step-card').count()} cards`);
    // The labels of the file arrived (annotator from the setting, nothing labelled yet).
    const progress = web.locator('#label-progress');
    await waitUntil(async () => /e2e-annotator · 0\/14 agent steps labelled/.test((await progress.innerText()).replace(/\s+/g, ' ')), UI_MS,
      async () => `the label row never showed the annotator and 0/14: ${JSON.stringify(await progress.innerText().catch(() => ''))}`);

    // One click to give the webview focus; everything after is keys.
    await web.locator('#step-count').click();
    await e2e.page.keyboard.press('j');
    await e2e.page.keyboard.press('j');
    for (const k of KEYS) {
      await e2e.page.keyboard.press(k);
      await e2e.page.keyboard.press('Enter'); // labelled → the next unlabelled step
    }
    // A note on the last one: n, type, Enter.
    await e2e.page.keyboard.press('k');
    await e2e.page.keyboard.press('n');
    await web.locator('.step-card[data-index="6"] .note-input').waitFor({ state: 'visible', timeout: UI_MS });
    await e2e.page.keyboard.type('reads the wrong file');
    await e2e.page.keyboard.press('Enter');

    await waitUntil(async () => (await progress.getAttribute('data-sending')) === '0' && /5\/14 agent steps labelled · 2 bad/.test((await progress.innerText()).replace(/\s+/g, ' ')), UI_MS,
      async () => `the label row never showed 5/14 agent steps labelled · 2 bad: ${JSON.stringify(await progress.innerText())}`);
    const lines = (await waitUntil(async () => {
      const l = journal();
      return l.some((e) => e.note === 'reads the wrong file') ? l : undefined;
    }, UI_MS, () => `the journal ${journalPath()} does not hold the note; it has ${JSON.stringify(journal())}`))!;

    assert.deepEqual(currentValues(lines), EXPECTED, 'the five labels, as typed');
    for (const e of lines) {
      assert.equal(e.v, 1);
      assert.equal(e.annotator, ANNOTATOR);
      assert.equal(e.rolloutId, path.basename(REL, '.traj'), 'a SWE-agent rollout is named by its file');
      assert.equal(e.origin, 'manual');
      assert.match(e.stepHash ?? '', /^[0-9a-f]{64}$/, 'a step label carries the step content hash');
      assert.ok(!Number.isNaN(Date.parse(e.time)), `time ${e.time} is ISO-8601`);
    }
    assert.equal(lines.find((e) => e.note)?.stepIndex, 6);
    // The rollout file itself is untouched.
    assert.equal(fs.readFileSync(path.join(e2e.workspace, REL), 'utf8'), fs.readFileSync(sample(SWE_AGENT), 'utf8'));

    // What the user sees: YOU badges on the five cards, the heat marks, the progress line.
    // (The list is virtualized: scroll from the top until each card is rendered.)
    await web.locator('body').evaluate((b: any) => b.ownerDocument.defaultView.scrollTo(0, 0));
    for (const [i, v] of Object.entries(EXPECTED)) {
      const word = v === 1 ? 'good' : v === -1 ? 'bad' : 'neutral';
      const card = web.locator(`.step-card[data-index="${i}"]`);
      for (let tries = 0; tries < 40 && (await card.count()) === 0; tries++) {
        await web.locator('body').evaluate((b: any) => b.ownerDocument.defaultView.scrollBy(0, 300));
        await waitUntil(async () => (await card.count()) > 0, 2000).catch(() => undefined); // or scroll on
      }
      assert.equal(await web.locator(`.step-card[data-index="${i}"] .user-label.${word}`).count(), 1, `step ${i} shows a ${word} label`);
    }
    // #6 (good) and #7 (bad, with its note) at the top, under the sticky label row.
    await web.locator('.step-card[data-index="5"]').evaluate((el: any) => el.scrollIntoView({ block: 'start' }));
    await e2e.page.waitForTimeout(300);
    await screenshot(e2e.page, 'labels');
  });

  it('exports them from the command palette: Export Labels → TRL → a path typed into the save dialog', async () => {
    const out = path.join(e2e.workspace, 'export', 'marshmallow.trl.jsonl');
    fs.mkdirSync(path.dirname(out), { recursive: true });
    await runCommand(e2e.page, 'Trajectory Inspector: Export Labels');
    await waitForQuickInputTitle(e2e.page, 'Export Labels: Format');
    await typeIntoQuickInput(e2e.page, 'TRL');
    await quickInputRow(e2e.page, 'TRL stepwise supervision').waitFor({ state: 'visible', timeout: UI_MS });
    await e2e.page.keyboard.press('Enter');
    // The labels hold a neutral one and the setting is unset: the export asks, once, what it becomes.
    await waitForQuickInputTitle(e2e.page, 'Neutral Label');
    await quickInputRow(e2e.page, 'Neutral → `false`').waitFor({ state: 'visible', timeout: UI_MS });
    await screenshot(e2e.page, 'labels-export-neutral');
    await e2e.page.keyboard.press('Enter');
    // The save dialog: code-server's quick-input file dialog, prefilled with the suggested path.
    const input = quickInput(e2e.page);
    await waitUntil(async () => /marshmallow-1867\.trl\.jsonl$/.test(await input.inputValue()), UI_MS,
      async () => `the save dialog did not suggest <file>.trl.jsonl: ${JSON.stringify(await input.inputValue().catch(() => ''))}`);
    await screenshot(e2e.page, 'labels-export-dialog');
    await typeIntoQuickInput(e2e.page, out);
    // code-server's file dialog updates its list as the path is typed and can swallow an Enter
    // pressed meanwhile (seen in CI): accept, then, while the dialog is still open and no export
    // has come, type the path again if the list rewrote it and accept again.
    const dialog = e2e.page.locator('.quick-input-widget .quick-input-title', { hasText: 'Export Labels' });
    await waitUntil(async () => {
      if (!(await dialog.isVisible().catch(() => false)) || fs.existsSync(out)) return true;
      await waitUntil(async () => (await input.inputValue().catch(() => '')) === out, 5000).catch(() => typeIntoQuickInput(e2e.page, out));
      await e2e.page.keyboard.press('Enter');
      // The dialog closes on an Enter it took: give it a moment before pressing again.
      return waitUntil(async () => !(await dialog.isVisible().catch(() => false)), 5000).catch(() => false);
    }, UI_MS, async () => `the save dialog did not take ${out}: ${JSON.stringify(await input.inputValue().catch(() => ''))}`);

    const text = await waitUntil(async () => (fs.existsSync(out) ? fs.readFileSync(out, 'utf8') : ''), UI_MS,
      async () => `no export at ${out}; notifications: ${JSON.stringify(await e2e.page.locator('.notification-toast').allInnerTexts())}`);
    const rows = text.trim().split('\n').map((l) => JSON.parse(l));
    assert.equal(rows.length, 1, 'one rollout, one row');
    const row = rows[0];
    assert.deepEqual(Object.keys(row).sort(), ['completions', 'labels', 'prompt']);
    // TRL: one completion per agent step up to the last labelled one; neutral → false (the default mapping).
    assert.deepEqual(row.labels, [true, false, false, true, false]);
    assert.equal(row.completions.length, 5);
    assert.ok(row.completions.every((c: unknown) => typeof c === 'string' && c.length > 0));
    assert.match(row.completions[0], /ls -F/, 'the first agent step is the ls -F of the sample');
    assert.match(row.prompt, /TimeDelta serialization precision/, 'the prompt holds the issue text');
    await e2e.page.locator('.notification-toast', { hasText: 'Exported 1 row' }).first().waitFor({ state: 'visible', timeout: UI_MS });
    await screenshot(e2e.page, 'labels-exported');
  });

  it('shows labels another window appends to the journal (file watcher, or the re-read every 2 s), and u / U undo and redo through the journal', async () => {
    const web = e2e.web();
    // Another window (annotator bob) appends an entry, as core's journal writes it.
    const rolloutId = path.basename(REL, '.traj');
    const entry = {
      v: 1, id: 'e2e-bob-1', batch: 'e2e-bob', rolloutId, stepIndex: 3, stepHash: null, value: 1, firstError: false,
      note: 'fine by me', annotator: 'bob', time: new Date(Date.now() + 1000).toISOString(), origin: 'manual',
    };
    fs.appendFileSync(journalPath(), `${JSON.stringify(entry)}\n`);
    const other = web.locator('.step-card[data-index="3"] .other-label');
    await other.waitFor({ state: 'visible', timeout: UI_MS }).catch(async () => {
      throw new Error(`bob's label never showed on step 3; label row: ${JSON.stringify(await web.locator('#label-progress').innerText())}`);
    });
    assert.equal((await other.innerText()).trim(), 'bob +1');
    assert.match((await web.locator('#label-progress').innerText()).replace(/\s+/g, ' '), /also bob \(1\)/);

    // Undo the note (the last change) and redo it, from the keyboard (focus back in the webview:
    // one click on the label row, which stays in view).
    await web.locator('#label-progress .annotator').click();
    const before = journal().length;
    await e2e.page.keyboard.press('u');
    await waitUntil(async () => journal().length === before + 1 && (await web.locator('.step-card[data-index="6"] .label-note.mine').count()) === 0, UI_MS,
      async () => `u did not take the note back; journal: ${JSON.stringify(journal().slice(before))}; label row: ${JSON.stringify(await web.locator('#label-progress').innerText().catch(() => ''))}`);
    assert.deepEqual(journal().slice(before).map((e) => [e.stepIndex, e.value, e.note]), [[6, -1, null]]);
    await e2e.page.keyboard.press('Shift+U');
    await web.locator('.step-card[data-index="6"] .label-note.mine').waitFor({ state: 'visible', timeout: UI_MS });
    assert.deepEqual(journal().slice(before + 1).map((e) => [e.stepIndex, e.value, e.note]), [[6, -1, 'reads the wrong file']]);
    assert.deepEqual(currentValues(journal()), EXPECTED, 'the five labels are still there');
  });

  it('shows the agreement of the two annotators (you and bob) as a report beside the timeline', async () => {
    await runCommand(e2e.page, 'Trajectory Inspector: Show Label Agreement');
    // First question: whose labels first (you or bob); the second has one answer left and is skipped.
    await pickInQuickInput(e2e.page, 'Label Agreement: First Labels', 'bob');
    const report = e2e.page.locator('.editor-instance .view-lines', { hasText: 'Label agreement: bob vs' });
    await report.first().waitFor({ state: 'visible', timeout: UI_MS }).catch(async () => {
      throw new Error(`no agreement report opened; editors: ${JSON.stringify(await e2e.page.locator('.editor-instance .view-lines').allInnerTexts())}`);
    });
    const text = (await report.first().innerText()).replace(/\u00a0/g, ' ');
    assert.match(text, /Label agreement: bob vs e2e-annotator/);
    assert.match(text, /Cohen's kappa/);
    assert.match(text, /confusion \(rows bob, columns e2e-annotator\)/);
    await screenshot(e2e.page, 'labels-agreement');
  });

  it('the webview broke no CSP rule and the extension host logged no errors', async () => {
    assertNoCspOrHostErrors(e2e.consoleLog, e2e.server);
  });
});
