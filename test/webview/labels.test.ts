/**
 * Webview tier, labelling (issue 6): the built timeline bundle in Chromium under the extension's
 * CSP, a real SWE-agent rollout, and as "host" the extension's own label session
 * (src/host/labelSession.ts over core's journal) on a journal in a temp folder: every label request
 * the webview posts is applied to the real journal and answered with the real `labels` message.
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { Page } from 'playwright-core';
import { loadFile, type LoadedFile } from '../../src/core/load';
import { LabelSession } from '../../src/host/labelSession';
import { rolloutMessage } from '../../src/host/rolloutMessage';
import { LoadedSource } from '../../src/host/rolloutSource';
import type { LabelsMessage, WebviewMessage } from '../../src/shared/protocol';
import { sample } from '../unit/samples';
import { ARTIFACTS, postToWebview, sent, webviewSuite } from './harness';

/** SWE-agent 0.7: system, user, then 14 agent steps. */
const SWE_AGENT = 'swe-agent/v0.7_default__marshmallow-code__marshmallow-1867.traj';
const CONFIG = { collapseOutputLines: 20 };
const ME = 'alice';

declare const window: any;
declare const document: any;
declare function getComputedStyle(el: unknown): { backgroundImage: string };

type LabelRequest = Extract<WebviewMessage, { type: 'setLabel' | 'markFirstError' | 'undoLabel' | 'redoLabel' }>;

describe('webview: labelling', function () {
  this.timeout(120_000);
  const wv = webviewSuite({
    prefix: 'labels-',
    dialogs: true,
    // The host loop stops before the page closes.
    beforeFinish: async () => {
      await stopHost?.();
      stopHost = null;
    },
  });

  let page: Page;
  let swe: LoadedFile;
  let tmp: string;
  let session: LabelSession;
  let stopHost: (() => Promise<void>) | null = null;

  before(async () => {
    swe = await loadFile(sample(SWE_AGENT));
  });

  beforeEach(async () => {
    tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'ti-webview-labels-'));
    session = await LabelSession.open(path.join(tmp, '.trajectory-labels', 'run.traj.labels.jsonl'), ME, swe.rollouts);
  });

  afterEach(() => {
    fs.rmSync(tmp, { recursive: true, force: true });
  });

  /** Opens the timeline on the SWE-agent rollout with the session's labels, and starts answering label requests. */
  /** A viewport tall enough for every card of the sample (the step list is virtualized). */
  const TALL = { width: 1100, height: 2600 };

  async function open(size = { width: 1100, height: 900 }): Promise<Page> {
    const p = await wv.open(size);
    await postToWebview(p, rolloutMessage(new LoadedSource(swe), 0, null, CONFIG));
    await p.locator('.step-card').first().waitFor();
    await postToWebview(p, session.message(0, swe.rollouts[0].id, null));
    await p.locator('#label-progress').waitFor();
    stopHost = runHost(p);
    return p;
  }

  /**
   * The host side: every label request the page posts goes to the real label session (in order),
   * and the page gets the session's `labels` answer, as TimelinePanel does.
   */
  function runHost(p: Page): () => Promise<void> {
    let seen = 0;
    let stopped = false;
    const r = swe.rollouts[0];
    const loop = (async () => {
      while (!stopped) {
        const msgs = await sent(p).catch(() => [] as WebviewMessage[]);
        for (const m of msgs.slice(seen)) {
          seen++;
          const req = m as LabelRequest;
          if (req.type === 'setLabel') {
            const change = { rolloutId: r.id, stepIndex: req.stepIndex, ...(req.value !== undefined ? { value: req.value } : {}), ...(req.note !== undefined ? { note: req.note } : {}) };
            await session.run({ kind: 'apply', changes: [change] });
          } else if (req.type === 'markFirstError') await session.run({ kind: 'firstError', rolloutId: r.id, stepIndex: req.stepIndex });
          else if (req.type === 'undoLabel') await session.undo();
          else if (req.type === 'redoLabel') await session.redo();
          else continue;
          await postToWebview(p, session.message(0, r.id, req.seq ?? null)).catch(() => undefined);
        }
        await new Promise((res) => setTimeout(res, 20));
      }
    })();
    return async () => {
      stopped = true;
      await loop;
    };
  }

  /** Scrolls the page until the card of step `i` is rendered (the step list is virtualized). */
  async function scrollToCard(p: Page, i: number): Promise<void> {
    await p.waitForFunction((i) => {
      if (document.querySelector('ti-app')?.shadowRoot?.querySelector(`.step-card[data-index="${i}"]`)) return true;
      window.scrollBy(0, 300);
      return false;
    }, i, { polling: 50 });
  }

  /** Label requests the page posted so far. */
  async function labelRequests(p: Page): Promise<LabelRequest[]> {
    return (await sent(p)).filter((m): m is LabelRequest => ['setLabel', 'markFirstError', 'undoLabel', 'redoLabel'].includes(m.type));
  }

  /** Waits until the card of step `i` shows the user's label `word` (or none). */
  async function waitForLabel(p: Page, i: number, word: 'good' | 'neutral' | 'bad' | null, origin: 'manual' | 'propagated' = 'manual'): Promise<void> {
    await scrollToCard(p, i);
    await p.waitForFunction(
      ([i, word, origin]) => {
        const card = document.querySelector('ti-app')?.shadowRoot?.querySelector(`.step-card[data-index="${i}"]`);
        const badge = card?.shadowRoot?.querySelector('.user-label');
        if (word === null) return card && !badge;
        return !!badge && badge.classList.contains(word) && badge.getAttribute('data-origin') === origin && !badge.classList.contains('sending');
      },
      [i, word, origin] as const,
      { timeout: 10_000 },
    );
  }

  /** Selects a step the way Go to Step does, and waits until the page shows it (messages arrive asynchronously). */
  async function selectStep(p: Page, i: number): Promise<void> {
    await postToWebview(p, { type: 'revealStep', index: i });
    await p.waitForFunction((i) => document.querySelector('ti-app')?.shadowRoot?.querySelector('.step-card.selected')?.getAttribute('data-index') === String(i), i);
  }

  /** Waits until the host has answered every label change the page sent. */
  async function settled(p: Page): Promise<void> {
    await p.waitForFunction(() => document.querySelector('ti-app')?.shadowRoot?.querySelector('#label-progress')?.getAttribute('data-sending') === '0');
  }

  async function selected(p: Page): Promise<number> {
    return Number(await p.locator('.step-card.selected').getAttribute('data-index'));
  }

  async function progressText(p: Page): Promise<string> {
    return (await p.locator('#label-progress').innerText()).replace(/\s+/g, ' ').trim();
  }

  /** The user's labels in the journal on disk, by step (the verdict under "verdict"). */
  async function journalLabels(): Promise<Record<string, number | null>> {
    await settled(page);
    const out: Record<string, number | null> = {};
    for (const l of session.current()) if (l.annotator === ME) out[l.stepIndex === null ? 'verdict' : String(l.stepIndex)] = l.value;
    // Cross-check with a fresh read of the file: what is on disk, not only in memory.
    const fresh = await LabelSession.open(session.journal, ME, swe.rollouts);
    assert.deepEqual(
      fresh.current().filter((l) => l.annotator === ME).map((l) => [l.stepIndex, l.value]),
      session.current().filter((l) => l.annotator === ME).map((l) => [l.stepIndex, l.value]),
      'the journal on disk holds what the session shows',
    );
    return out;
  }

  it('1/2/3 and +/0/- label the selected step: setLabel posted, written to the journal, YOU badge, heat mark, progress line', async () => {
    page = await open();
    await page.locator('#step-count').click();
    assert.equal(await selected(page), 0);
    assert.match(await progressText(page), /^YOU alice · 0\/14 agent steps labelled · verdict —/);

    await page.keyboard.press('1');
    await waitForLabel(page, 0, 'good');
    await page.keyboard.press('j');
    await page.keyboard.press('2');
    await waitForLabel(page, 1, 'neutral');
    await page.keyboard.press('j');
    await page.keyboard.press('3');
    await waitForLabel(page, 2, 'bad');
    await page.keyboard.press('j');
    await page.keyboard.press('+');
    await waitForLabel(page, 3, 'good');
    await page.keyboard.press('j');
    await page.keyboard.press('0');
    await waitForLabel(page, 4, 'neutral');
    await page.keyboard.press('j');
    await page.keyboard.press('-');
    await waitForLabel(page, 5, 'bad');

    const reqs = await labelRequests(page);
    assert.deepEqual(
      reqs.map((m) => m.type === 'setLabel' && [m.rolloutIndex, m.stepIndex, m.value]),
      [[0, 0, 1], [0, 1, 0], [0, 2, -1], [0, 3, 1], [0, 4, 0], [0, 5, -1]],
    );
    assert.deepEqual(await journalLabels(), { 0: 1, 1: 0, 2: -1, 3: 1, 4: 0, 5: -1 });
    // Steps 0 (system) and 1 (user) are labelled but only agent steps count: the row says both.
    assert.match(await progressText(page), /4\/14 agent steps labelled \(\+2 other steps, not counted\) · 2 bad · verdict —/);
    // The hint line says what Enter does as the keymap does it (on an unlabelled step it expands).
    assert.match((await page.locator('.hint').innerText()).replace(/\s+/g, ' '), /Enter on a labelled step: next unlabelled/);

    // The badge is the user's (YOU), beside — and unlike — a reference label; the card has the heat mark.
    const card = page.locator('.step-card[data-index="2"]');
    assert.equal((await card.locator('.user-label').innerText()).replace(/\s+/g, ' ').trim(), 'YOU −1 bad');
    assert.match(await card.locator('.user-label').getAttribute('title') ?? '', /Your label: −1 \(bad\)[\s\S]*annotator: alice · \d{4}-\d\d-\d\d \d\d:\d\d/);
    assert.equal(await card.locator('.card.lab-bad').count(), 1);
    // The strip in the header: one cell per step, coloured by label.
    const cells = await page.locator('.label-strip .cell').evaluateAll((els) => els.map((e) => ['good', 'neutral', 'bad'].find((w) => e.classList.contains(w)) ?? 'none'));
    assert.deepEqual(cells.slice(0, 7), ['good', 'neutral', 'bad', 'good', 'neutral', 'bad', 'none']);
    assert.equal(cells.length, 16);

    // x clears.
    await page.keyboard.press('x');
    await waitForLabel(page, 5, null);
    await settled(page);
    assert.deepEqual(await journalLabels(), { 0: 1, 1: 0, 2: -1, 3: 1, 4: 0 });
  });

  it('Enter after a label goes to the next unlabelled step; on an unlabelled step Enter expands; o expands too', async () => {
    page = await open();
    await page.locator('#step-count').click();
    // Label 1 and 2 first, so "next unlabelled" after 0 has to skip them.
    await selectStep(page, 1);
    await page.keyboard.press('1');
    await page.keyboard.press('j');
    await page.keyboard.press('1');
    await waitForLabel(page, 2, 'good');
    await page.keyboard.press('g');
    // Unlabelled step: Enter keeps its old meaning.
    await page.keyboard.press('Enter');
    await page.waitForFunction(() => document.querySelector('ti-app')?.shadowRoot?.querySelector('.step-card[data-index="0"]')?.classList.contains('expanded'));
    assert.equal(await selected(page), 0);
    await page.keyboard.press('o');
    await page.waitForFunction(() => !document.querySelector('ti-app')?.shadowRoot?.querySelector('.step-card[data-index="0"]')?.classList.contains('expanded'));
    // Label it, Enter: on to step 3 (1 and 2 are labelled already), even before the host answered.
    await page.keyboard.press('3');
    await page.keyboard.press('Enter');
    assert.equal(await selected(page), 3);
    await page.keyboard.press('2');
    await page.keyboard.press('Enter');
    assert.equal(await selected(page), 4);
    await waitForLabel(page, 3, 'neutral');
    assert.deepEqual(await journalLabels(), { 0: -1, 1: 1, 2: 1, 3: 0 });
    // Space expands as well.
    await page.keyboard.press(' ');
    await page.waitForFunction(() => document.querySelector('ti-app')?.shadowRoot?.querySelector('.step-card[data-index="4"]')?.classList.contains('expanded'));
  });

  it('f marks the first error; the propagated labels come from the host and show hatched, "← #k"; u undoes the batch, U redoes', async () => {
    page = await open(TALL); // every card rendered (the list is virtualized)
    await page.locator('#step-count').click();
    // A manual label after the first error stays as it is (AgentProcessBench's rule).
    await selectStep(page, 9);
    await page.keyboard.press('1');
    await waitForLabel(page, 9, 'good');
    await selectStep(page, 6);
    await page.keyboard.press('f');
    await waitForLabel(page, 7, 'bad', 'propagated');
    await waitForLabel(page, 6, 'bad');
    const reqs = await labelRequests(page);
    assert.deepEqual(reqs.at(-1), { type: 'markFirstError', rolloutIndex: 0, stepIndex: 6, seq: reqs.at(-1)!.seq });

    const first = page.locator('.step-card[data-index="6"] .user-label');
    assert.match((await first.innerText()).replace(/\s+/g, ' '), /YOU −1 bad ⚑ first error/);
    await scrollToCard(page, 12);
    const prop = page.locator('.step-card[data-index="12"] .user-label');
    assert.equal((await prop.innerText()).replace(/\s+/g, ' ').trim(), 'YOU −1 bad ← #7');
    assert.match((await prop.getAttribute('title')) ?? '', /propagated from the first error at #7/);
    // Hatched, not filled: its background is a gradient.
    assert.match(await prop.evaluate((el) => getComputedStyle(el).backgroundImage), /repeating-linear-gradient/);
    assert.equal(await page.locator('.step-card[data-index="12"] .card.lab-propagated').count(), 1);
    await waitForLabel(page, 9, 'good');
    const labels = await journalLabels();
    assert.deepEqual(labels, { 6: -1, 7: -1, 8: -1, 9: 1, 10: -1, 11: -1, 12: -1, 13: -1, 14: -1, 15: -1 });
    assert.match(await progressText(page), /10\/14 agent steps labelled · 9 bad \(8 propagated\) · first error #7/);
    await page.locator('.step-card[data-index="10"] .user-label').screenshot({ path: path.join(ARTIFACTS, 'label-propagated-badge.png'), scale: 'device' });
    await page.locator('.step-card[data-index="10"]').screenshot({ path: path.join(ARTIFACTS, 'label-propagated-card.png') });

    // u: the whole f batch goes; the manual label of step 9 stays.
    await page.keyboard.press('u');
    await waitForLabel(page, 12, null);
    await waitForLabel(page, 6, null);
    assert.deepEqual(await journalLabels(), { 9: 1 });
    // U (and Ctrl+Shift+Z) redo it.
    await page.keyboard.press('Shift+U');
    await waitForLabel(page, 12, 'bad', 'propagated');
    await page.keyboard.press('u');
    await waitForLabel(page, 12, null);
    await page.keyboard.press('Control+Shift+Z');
    await waitForLabel(page, 12, 'bad', 'propagated');
    assert.equal(Object.keys(await journalLabels()).length, 10);
    assert.deepEqual((await labelRequests(page)).slice(-4).map((m) => m.type), ['undoLabel', 'redoLabel', 'undoLabel', 'redoLabel']);
  });

  it('n opens a note editor in the card: Enter saves it, Esc cancels; the note shows under the head', async () => {
    page = await open();
    await page.locator('#step-count').click();
    await selectStep(page, 4);
    await page.keyboard.press('3');
    await page.keyboard.press('n');
    const input = page.locator('.step-card[data-index="4"] .note-input');
    await input.waitFor();
    // Keys typed into the note are text, not labels.
    await page.keyboard.type('pip install 1 - wrong version');
    await page.keyboard.press('Enter');
    await input.waitFor({ state: 'detached' });
    const note = page.locator('.step-card[data-index="4"] .label-note.mine');
    await note.waitFor();
    assert.equal((await note.innerText()).trim(), '✎ pip install 1 - wrong version');
    await waitForLabel(page, 4, 'bad');
    await page.waitForFunction(() => !document.querySelector('ti-app')?.shadowRoot?.querySelector('.step-card[data-index="4"]')?.shadowRoot?.querySelector('.user-label.sending'));
    for (let i = 0; i < 50 && session.current().find((l) => l.stepIndex === 4)?.note == null; i++) await new Promise((r) => setTimeout(r, 20));
    const mine = session.current().find((l) => l.stepIndex === 4)!;
    assert.equal(mine.value, -1, 'the label typed before the note stays');
    assert.equal(mine.note, 'pip install 1 - wrong version');
    // Esc leaves the note as it was; keys work again afterwards.
    await page.keyboard.press('n');
    await input.waitFor();
    await page.keyboard.type('scratch that');
    await page.keyboard.press('Escape');
    await input.waitFor({ state: 'detached' });
    assert.equal((await note.innerText()).trim(), '✎ pip install 1 - wrong version');
    await page.keyboard.press('j');
    assert.equal(await selected(page), 5);
    const notes = (await labelRequests(page)).filter((m) => m.type === 'setLabel' && m.note !== undefined);
    assert.equal(notes.length, 1);
  });

  it('v cycles the rollout verdict (good → neutral → bad → none), shown in the header', async () => {
    page = await open();
    await page.locator('#step-count').click();
    const verdict = page.locator('#label-progress .verdict');
    for (const [want, value] of [['verdict +1 good', 1], ['verdict 0 neutral', 0], ['verdict −1 bad', -1], ['verdict —', null]] as const) {
      await page.keyboard.press('v');
      await page.waitForFunction((w) => document.querySelector('ti-app')?.shadowRoot?.querySelector('#label-progress .verdict')?.textContent?.trim() === w, want);
      const stored = await (async () => {
        for (let i = 0; i < 50; i++) {
          const v = session.current().find((l) => l.stepIndex === null)?.value ?? null;
          if (v === value) return v;
          await new Promise((r) => setTimeout(r, 20));
        }
        return session.current().find((l) => l.stepIndex === null)?.value ?? null;
      })();
      assert.equal(stored, value);
    }
    assert.equal((await verdict.innerText()).trim(), 'verdict —');
  });

  it('? shows the key overlay, Esc hides it; a labelling command from the host acts like its key', async () => {
    page = await open();
    await page.locator('#step-count').click();
    await page.keyboard.press('?');
    const overlay = page.locator('.keys-overlay');
    await overlay.waitFor();
    const text = await overlay.innerText();
    for (const k of ['good (+1)', 'first error', 'next unlabelled', 'undo', 'redo', 'rollout verdict']) assert.ok(text.includes(k), `the overlay lists "${k}"`);
    await page.screenshot({ path: path.join(ARTIFACTS, 'labels-keys.png') });
    await page.keyboard.press('Escape');
    await overlay.waitFor({ state: 'detached' });
    // The commands (palette, user keybindings) reach the webview as labelAction.
    await postToWebview(page, { type: 'runLabelAction', action: 'showKeys' });
    await overlay.waitFor();
    await postToWebview(page, { type: 'runLabelAction', action: 'showKeys' });
    await overlay.waitFor({ state: 'detached' });
    await postToWebview(page, { type: 'runLabelAction', action: 'bad' });
    await waitForLabel(page, 0, 'bad');
    // Next unlabelled: the first agent step (#3); the system and user steps are not what a PRM label is for.
    await postToWebview(page, { type: 'runLabelAction', action: 'commitAndNext' });
    await page.waitForFunction(() => document.querySelector('ti-app')?.shadowRoot?.querySelector('.step-card.selected')?.getAttribute('data-index') === '2');
    await postToWebview(page, { type: 'runLabelAction', action: 'note' });
    await page.locator('.step-card[data-index="2"] .note-input').waitFor();
  });

  it('shows other annotators, stale labels, unsaved changes and a write error as the host reports them', async () => {
    page = await open(TALL); // every card rendered (the list is virtualized)
    const r = swe.rollouts[0];
    const now = new Date().toISOString();
    const base = { rolloutId: r.id, firstError: false, note: null, time: now, origin: 'manual' as const, stale: false };
    const msg: LabelsMessage = {
      ...session.message(0, r.id, null),
      labels: [
        { ...base, stepIndex: 2, value: 1, annotator: ME, stale: true },
        { ...base, stepIndex: 2, value: -1, annotator: 'bob', note: 'the test edit is wrong' },
        { ...base, stepIndex: 3, value: 0, annotator: 'bob' },
      ],
      unsaved: [{ stepIndex: 5, value: -1 }],
      error: 'ENOSPC: no space left on device, write',
    };
    await postToWebview(page, msg);
    const card = page.locator('.step-card[data-index="2"]');
    await card.locator('.stale').waitFor();
    assert.equal((await card.locator('.other-label').innerText()).trim(), 'bob −1');
    assert.match(await card.locator('.label-note.other').innerText(), /the test edit is wrong — bob/);
    await page.locator('.step-card[data-index="5"] .unsaved-tag').waitFor();
    assert.match(await page.locator('.label-alert.error').innerText(), /ENOSPC[\s\S]*kept in this window/);
    const row = await progressText(page);
    assert.match(row, /2\/14 agent steps labelled · 1 bad/);
    assert.match(row, /1 stale · 1 unsaved · also bob \(2\)/);
    await page.locator('.dock').screenshot({ path: path.join(ARTIFACTS, 'labels-error.png') });
  });

  it('puts the user\'s and another annotator\'s labels beside the reference labels of an AgentProcessBench row', async () => {
    const apb = await loadFile(sample('process-labels/agentprocessbench_hotpotqa_subset_lines_1-46-51-52-94-99.jsonl'));
    const r = apb.rollouts[0];
    const s = await LabelSession.open(path.join(tmp, 'apb.labels.jsonl'), ME, apb.rollouts);
    const agent = r.steps.filter((st) => st.role === 'agent').map((st) => st.index);
    // The user disagrees with the reference on the first agent step, agrees on the second; bob labels too.
    const ref0 = r.steps[agent[0]].referenceLabel!.value;
    await s.run({ kind: 'apply', changes: [{ rolloutId: r.id, stepIndex: agent[0], value: ref0 === 1 ? -1 : 1 }, { rolloutId: r.id, stepIndex: agent[1], value: r.steps[agent[1]].referenceLabel!.value }] });
    const bob = await LabelSession.open(path.join(tmp, 'apb.labels.jsonl'), 'bob', apb.rollouts);
    await bob.run({ kind: 'apply', changes: [{ rolloutId: r.id, stepIndex: agent[0], value: 0, note: 'the query is fine, the ranking is not' }] });
    await s.reload();
    page = await wv.open({ width: 1100, height: 700 });
    await postToWebview(page, rolloutMessage(new LoadedSource(apb), 0, null, CONFIG));
    await page.locator('.step-card').first().waitFor();
    await postToWebview(page, s.message(0, r.id, null));
    const card = page.locator(`.step-card[data-index="${agent[0]}"]`);
    await card.locator('.user-label').waitFor();
    // Three kinds side by side, each looking different: REF (outlined tab), YOU (filled), bob (dashed).
    assert.equal(await card.locator('.ref-label').count(), 1);
    assert.equal(await card.locator('.other-label').innerText(), 'bob 0');
    assert.notEqual(await card.locator('.ref-label').getAttribute('data-value'), await card.locator('.user-label').getAttribute('data-value'));
    await card.evaluate((el) => el.scrollIntoView({ block: 'start' }));
    await page.waitForTimeout(100);
    await page.screenshot({ path: path.join(ARTIFACTS, 'labels-with-reference.png') });
  });

  it('a labelled session, as a user sees it (screenshot)', async () => {
    page = await open({ width: 1100, height: 2200 });
    await page.locator('#step-count').click();
    await selectStep(page, 2);
    for (const k of ['1', 'Enter', '1', 'Enter', '2', 'Enter', '1', 'Enter']) await page.keyboard.press(k);
    // step 6: first error with a note
    await page.keyboard.press('f');
    await page.keyboard.press('n');
    await page.locator('.step-card[data-index="6"] .note-input').waitFor();
    await page.keyboard.type('edits the wrong file; everything after builds on it');
    await page.keyboard.press('Enter');
    await selectStep(page, 9);
    await page.keyboard.press('1');
    await waitForLabel(page, 9, 'good');
    await waitForLabel(page, 12, 'bad', 'propagated');
    await page.keyboard.press('v');
    // Another annotator's label beside the user's.
    const r = swe.rollouts[0];
    const other = await LabelSession.open(session.journal, 'bob', swe.rollouts);
    await other.run({ kind: 'apply', changes: [{ rolloutId: r.id, stepIndex: 6, value: 0 }, { rolloutId: r.id, stepIndex: 5, value: 1 }] });
    await session.reload();
    await postToWebview(page, session.message(0, r.id, null));
    await page.locator('.step-card[data-index="6"] .other-label').waitFor();
    await selectStep(page, 5);
    await page.waitForTimeout(200);
    await page.screenshot({ path: path.join(ARTIFACTS, 'labels.png') });
    assert.match(await progressText(page), /14\/14 agent steps labelled · 9 bad \(8 propagated\) · first error #7 · verdict \+1 good · also bob \(2\)/);
  });
});
