/**
 * Webview tier: the terminal player and reference labels in the built timeline bundle, in Chromium
 * under the extension's CSP. The rollouts are read from real files by core `loadFile` (a Terminal-
 * Bench 1 trial with `sessions/agent.cast`, an asciinema `.cast`, an AgentProcessBench row); the
 * recordings are read by `readCastMessage` (core `parseAsciicast`), exactly what the host posts on
 * `loadCast`. Expected terminal text comes from the cast file itself (its `o` events).
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { Page } from 'playwright-core';
import { loadFile, type LoadedFile } from '../../src/core/load';
import type { Rollout } from '../../src/core/model';
import { readCastMessage } from '../../src/host/castFile';
import { rolloutMessage } from '../../src/host/rolloutMessage';
import { LoadedSource } from '../../src/host/rolloutSource';
import type { WebviewMessage } from '../../src/shared/protocol';
import type { CastMessage } from '../../src/shared/castProtocol';
import { sample } from '../unit/samples';
import { ARTIFACTS, cspViolations, postToWebview, sent, webviewSuite } from './harness';

/** TB1 trial: commands.txt + sessions/agent.cast with `i` events (the steps' castTime). */
const TB1_TRIAL = 'tb1/lcbpro-1983a_with-agent-logs';
/** asciinema's demo recording: fish + vim, 24-bit colours (`ESC[38;2;…m`). */
const DEMO_CAST = 'asciicast/asciinema-tests_demo.cast';
/** The tests session of a TB1 trial: pytest output down to the bottom of the screen. */
const TESTS_CAST = 'tb1/orchestrator_hello-world.1-of-5/sessions/tests.cast';
/** AgentProcessBench rows with step_labels. */
const APB = 'process-labels/agentprocessbench_hotpotqa_subset_lines_1-46-51-52-94-99.jsonl';

const CONFIG = { collapseOutputLines: 20 };

declare const window: any;
declare const document: any;

/** One event line of a v2 cast, read straight from the file (independent of the parser under test). */
interface RawEvent {
  time: number;
  code: string;
  data: string;
}

function rawEvents(file: string): RawEvent[] {
  const lines = fs.readFileSync(file, 'utf8').split('\n').filter((l) => l.trim());
  assert.equal(JSON.parse(lines[0]).version, 2, `${file} should be an asciicast v2 file`);
  return lines.slice(1).map((l) => {
    const [time, code, data] = JSON.parse(l) as [number, string, string];
    return { time, code, data };
  });
}

/** Printable text of terminal output: escape sequences and control characters removed. */
function plain(data: string): string {
  return data
    .replace(/\x1b\][^\x07\x1b]*(\x07|\x1b\\)/g, '')
    .replace(/\x1b\[[0-9;?<>=$]*[ -/]*[@-~]/g, '')
    .replace(/\x1b[()][0-9A-Za-z]/g, '')
    .replace(/\x1b[=>]/g, '')
    .replace(/[\x00-\x1f\x7f]/g, '');
}

describe('webview: terminal player and reference labels', function () {
  this.timeout(120_000);
  const wv = webviewSuite();

  let page: Page;
  let tb1: LoadedFile;
  let tb1Rollout: Rollout;
  let castFile: string;
  let events: RawEvent[];

  before(async () => {
    tb1 = await loadFile(path.join(sample(TB1_TRIAL), 'results.json'));
    tb1Rollout = tb1.rollouts[0];
    castFile = path.join(sample(TB1_TRIAL), 'sessions', 'agent.cast');
    events = rawEvents(castFile);
  });

  async function open(size = { width: 1200, height: 950 }): Promise<Page> {
    const p = await wv.open(size);
    return p;
  }

  /** Waits for the webview to ask for the recording of rollout `index` (as the host would see it). */
  async function waitForLoadCast(p: Page, rolloutIndex: number): Promise<void> {
    await p.waitForFunction(
      (i) => (window.__sent as { type: string; rolloutIndex?: number }[]).some((m) => m.type === 'loadCast' && m.rolloutIndex === i),
      rolloutIndex,
    );
  }

  /** Shows `file`'s rollout and answers the webview's `loadCast` the way the host does. */
  async function showWithCast(p: Page, file: LoadedFile, rolloutIndex = 0, castMsg?: CastMessage, selectStep: number | null = null): Promise<CastMessage> {
    const r = file.rollouts[rolloutIndex];
    assert.ok(r.recording, `${r.id} has no recording`);
    await postToWebview(p, rolloutMessage(new LoadedSource(file), rolloutIndex, selectStep, CONFIG));
    await p.locator('.step-card').first().waitFor();
    await waitForLoadCast(p, rolloutIndex);
    const msg = castMsg ?? (await readCastMessage(rolloutIndex, r.id, r.recording.path));
    await postToWebview(p, msg);
    if (msg.cast) await p.locator('ti-player .xterm-rows').waitFor({ state: 'attached' });
    return msg;
  }

  /** The player's time in ms (its `data-time`). */
  async function playerTime(p: Page): Promise<number> {
    return Number(await p.locator('ti-player').getAttribute('data-time'));
  }

  /** Text of the terminal's rendered rows (the DOM the user sees), one string per row. */
  async function rows(p: Page): Promise<string[]> {
    return p.locator('ti-player .xterm-rows > div').allTextContents();
  }

  /** Waits until the player has rendered time `ms` and its rows satisfy `ok`. */
  async function waitForScreen(p: Page, ms: number, ok: (text: string) => boolean, what: string): Promise<string> {
    const end = Date.now() + 15_000;
    let last = '';
    for (;;) {
      const synced = await p.evaluate(() => document.querySelector('ti-app').shadowRoot.querySelector('ti-player').synced);
      last = (await rows(p)).join('\n');
      if (synced && (await playerTime(p)) === ms && ok(last)) return last;
      if (Date.now() > end) throw new Error(`${what}: at player time ${await playerTime(p)} ms (want ${ms}) the terminal shows:\n${last}`);
      await p.waitForTimeout(50);
    }
  }

  async function selected(p: Page): Promise<number | null> {
    const v = await p.locator('.step-card.selected').getAttribute('data-index');
    return v === null ? null : Number(v);
  }

  it('renders a real TB1 recording as the terminal showed it, at the time of the selected step', async () => {
    page = await open();
    const withTime = tb1Rollout.steps.filter((s) => typeof s.castTime === 'number');
    assert.ok(withTime.length >= 3, 'the TB1 trial should have steps placed on the recording');
    await showWithCast(page, tb1);

    // The header of the cast: 160×40.
    const header = JSON.parse(fs.readFileSync(castFile, 'utf8').split('\n')[0]);
    assert.equal(await page.locator('ti-player .size').innerText(), `${header.width}×${header.height}`);
    assert.equal(await page.locator('ti-player .xterm-rows > div').count(), header.height);
    // The terminal settles on one size (fitting the font must not feed back into itself).
    const heights: number[] = await page.evaluate(async () => {
      const player = document.querySelector('ti-app').shadowRoot.querySelector('ti-player');
      const out: number[] = [];
      for (let i = 0; i < 40; i++) {
        await new Promise((r) => window.requestAnimationFrame(r));
        out.push(player.shadowRoot.querySelector('.xterm-screen').offsetHeight);
      }
      return out;
    });
    assert.equal(new Set(heights.slice(10)).size, 1, `the terminal keeps resizing: ${heights.join(' ')}`);

    // The agent's command: the step whose action is the long `echo '…' | base64 -d` line.
    const agentStep = tb1Rollout.steps.find((s) => s.role === 'agent' && s.actions.some((a) => a.command?.startsWith('echo ')));
    assert.ok(agentStep && typeof agentStep.castTime === 'number', 'the agent step has a castTime');
    const echoOut = events.find((e) => e.code === 'o' && e.data.startsWith('echo '));
    assert.ok(echoOut, 'the cast has the echoed command in its output');
    const echoStart = plain(echoOut.data).slice(0, 120);
    const prompt = plain(events.find((e) => e.code === 'o' && e.data.includes('# '))!.data).trim();
    assert.match(prompt, /^root@\w+:\/app#$/);

    // Select the agent step (click): the player jumps to its castTime; the command was typed but not echoed yet.
    await page.locator(`.step-card[data-index="${agentStep.index}"]`).click();
    const tAgent = Math.round(agentStep.castTime * 1000);
    const atAgent = await waitForScreen(page, tAgent, (t) => t.includes(prompt), 'at the agent step');
    assert.ok(!atAgent.includes(echoStart.slice(0, 40)), 'the echo output comes after the step starts');

    // The last step placed on the recording (C-d): the echoed command is on screen, wrapped over 160 columns.
    const last = withTime[withTime.length - 1];
    await page.keyboard.press('G');
    const lastIdx = tb1Rollout.steps.length - 1;
    assert.equal(await selected(page), lastIdx);
    // The last step has no castTime of its own (the tests session): the player stays where it was.
    assert.equal(await playerTime(page), tAgent);
    await page.locator(`.step-card[data-index="${last.index}"]`).click();
    const tLast = Math.round(last.castTime! * 1000);
    const atEnd = await waitForScreen(page, tLast, (t) => t.replace(/\n/g, '').includes(echoStart), 'at the last step');
    assert.ok(atEnd.split('\n').some((l) => l.startsWith(prompt)), `the prompt is on screen:\n${atEnd}`);

    // Back to the first step: the terminal is rebuilt from the start (no echo on screen any more).
    await page.keyboard.press('g');
    assert.equal(await selected(page), 0);
    const t0 = Math.round((tb1Rollout.steps[0].castTime ?? 0) * 1000);
    await waitForScreen(page, t0, (t) => !t.includes('echo'), 'back at the first step');

    await page.locator(`.step-card[data-index="${agentStep.index}"]`).click();
    await waitForScreen(page, tAgent, (t) => t.includes(prompt), 'at the agent step again');
    // For the screenshot: the agent's command echoed on screen, the agent step selected.
    const echoTime = events.find((e) => e.code === 'o' && e.time > echoOut.time && plain(e.data).includes('#'))!.time;
    await page.evaluate((sec) => document.querySelector('ti-app').shadowRoot.querySelector('ti-player').seek(sec), echoTime);
    await waitForScreen(page, Math.round(echoTime * 1000), (t) => t.replace(/\n/g, '').includes(echoStart), 'after the echo');
    await page.evaluate(() => window.scrollTo(0, 0));
    await page.screenshot({ path: path.join(ARTIFACTS, 'cast-player.png') });
  });

  it('plays: the time advances and the selected step follows it, skipping steps not on the recording', async () => {
    page = await open();
    await showWithCast(page, tb1);
    assert.equal(await selected(page), 0);
    await page.locator('ti-player select.speed').selectOption('8');
    const before = (await sent(page)).length;
    await page.locator('ti-player button.play').click();
    assert.equal(await page.locator('ti-player').getAttribute('data-state'), 'playing');
    // 13.6 s at 8× is under two seconds; wait until it stops at the end.
    await page.waitForFunction(() => document.querySelector('ti-app').shadowRoot.querySelector('ti-player').getAttribute('data-state') === 'paused', null, { timeout: 60_000 });
    const duration = Math.round(events[events.length - 1].time * 1000);
    assert.equal(await playerTime(page), duration);
    const followed = (await sent(page)).slice(before).filter((m): m is Extract<WebviewMessage, { type: 'stepSelected' }> => m.type === 'stepSelected').map((m) => m.stepIndex);
    // Expected: every step with a castTime after step 0's, in time order (the loader placed them on the cast).
    const expected = tb1Rollout.steps
      .filter((s) => typeof s.castTime === 'number' && s.castTime > (tb1Rollout.steps[0].castTime ?? 0))
      .sort((a, b) => a.castTime! - b.castTime! || a.index - b.index)
      .map((s) => s.index);
    // Steps sharing a time are passed in one frame and only the last of them gets selected; on a
    // loaded machine a slow frame may also pass a short step. So: in time order, only steps on the
    // recording, the agent step (seconds long) among them, ending on the last one.
    const agent = tb1Rollout.steps.find((s) => s.role === 'agent' && typeof s.castTime === 'number')!;
    assert.ok(followed.length >= 2, `followed ${JSON.stringify(followed)}`);
    assert.ok(followed.every((idx) => expected.includes(idx)), `only steps on the recording: ${JSON.stringify(followed)} of ${JSON.stringify(expected)}`);
    assert.deepEqual(followed, [...followed].sort((a, b) => expected.indexOf(a) - expected.indexOf(b)), 'in time order');
    assert.ok(followed.includes(agent.index), `the agent step #${agent.index + 1} was selected while its command ran`);
    assert.equal(followed[followed.length - 1], expected[expected.length - 1]);
    assert.equal(await selected(page), expected[expected.length - 1]);
    // Output of the end of the session is on screen ("exit" after C-d), once the last write is drawn.
    await waitForScreen(page, duration, (t) => /^exit$/m.test(t), 'at the end');
  });

  it('seeks when a step mark on the seek bar is clicked, and the terminal keeps the timeline keys', async () => {
    page = await open();
    await showWithCast(page, tb1);
    const marks = page.locator('ti-player .mark');
    const placed = tb1Rollout.steps.filter((s) => typeof s.castTime === 'number');
    assert.equal(await marks.count(), placed.length, 'one mark per step with a castTime');
    const target = placed[2];
    await page.locator(`ti-player .mark[data-step="${target.index}"]`).click();
    assert.equal(await selected(page), target.index);
    assert.equal(await playerTime(page), Math.round(target.castTime! * 1000));

    // Focus the terminal (xterm's textarea) and type: nothing reaches the terminal or the host...
    await page.locator('ti-player .xterm-screen').click();
    const focused = await page.evaluate(() => {
      const player = document.querySelector('ti-app').shadowRoot.querySelector('ti-player');
      return player.shadowRoot.activeElement?.className ?? '';
    });
    assert.match(focused, /xterm-helper-textarea/);
    const count = (await sent(page)).length;
    const screen = (await rows(page)).join('\n');
    // (Letters only that are no timeline key: digits, f, n, s, p, … label or act, see below.)
    await page.keyboard.type('echo hi ; cd / ; whoami ; ^C');
    await page.waitForTimeout(300);
    assert.deepEqual((await sent(page)).slice(count), [], 'typing in the terminal posted messages');
    assert.equal((await rows(page)).join('\n'), screen, 'typing changed the terminal');
    assert.equal(await playerTime(page), Math.round(target.castTime! * 1000));
    // ...while the timeline's own keys keep working there.
    const sel = await selected(page);
    await page.keyboard.press('k');
    assert.equal(await selected(page), sel! - 1, 'k in the terminal moved the selection');
    await page.keyboard.press('p');
    assert.equal(await page.locator('ti-player').getAttribute('data-state'), 'playing');
    await page.keyboard.press('p');
    assert.equal(await page.locator('ti-player').getAttribute('data-state'), 'paused');
    // The label keys too: 3 labels the selected step bad.
    const before = (await sent(page)).length;
    await page.keyboard.press('3');
    assert.deepEqual((await sent(page)).slice(before).map((m) => m.type === 'setLabel' && [m.stepIndex, m.value]), [[sel! - 1, -1]]);
  });

  it('renders 24-bit colours of a real asciinema recording without breaking the CSP', async () => {
    page = await open();
    const demo = await loadFile(sample(DEMO_CAST));
    const r = demo.rollouts[0];
    assert.ok(r.recording, 'a .cast rollout is its own recording');
    await showWithCast(page, demo);
    // Just after fish drew "vim tests/vim.cast" in rgb(0,95,215) / rgb(85,85,85) (ESC[38;2;…m).
    const raw = rawEvents(sample(DEMO_CAST));
    const colour = raw.find((e) => e.code === 'o' && e.data.includes('\u001b[38;2;0;95;215m'));
    assert.ok(colour, 'the demo has a 24-bit colour');
    const t = raw.find((e) => e.time > colour.time + 0.1)!.time;
    await page.evaluate((sec) => document.querySelector('ti-app').shadowRoot.querySelector('ti-player').seek(sec), t - 0.001);
    await waitForScreen(page, Math.round((t - 0.001) * 1000), (s) => s.includes('vim tests/vim.cast'), 'after the colours');
    const colours = await page.locator('ti-player .xterm-rows span').evaluateAll((els) => els.map((e: any) => e.style.color).filter(Boolean));
    assert.ok(colours.includes('rgb(0, 95, 215)'), `a span is coloured rgb(0, 95, 215): ${JSON.stringify([...new Set(colours)])}`);
    assert.ok(colours.includes('rgb(85, 85, 85)'), 'a span is coloured rgb(85, 85, 85)');
    // The whole recording, vim's alternate screen included.
    await page.evaluate(() => document.querySelector('ti-app').shadowRoot.querySelector('ti-player').seek(1e9));
    await waitForScreen(page, Math.round(raw[raw.length - 1].time * 1000), () => true, 'at the end');
  });

  it('starts a recording that arrives after a step was selected at that step, and follows from there', async () => {
    page = await open();
    const agent = tb1Rollout.steps.find((s) => s.role === 'agent' && typeof s.castTime === 'number')!;
    // The host selects the agent step with the rollout (Go to Step, the tree); the cast comes later.
    await showWithCast(page, tb1, 0, undefined, agent.index);
    assert.equal(await selected(page), agent.index);
    const prompt = plain(events.find((e) => e.code === 'o' && e.data.includes('# '))!.data).trim();
    await waitForScreen(page, Math.round(agent.castTime! * 1000), (t) => t.includes(prompt), 'at the preselected step');
    const count = (await sent(page)).length;
    await page.locator('ti-player select.speed').selectOption('8');
    await page.keyboard.press('p');
    await page.waitForFunction(() => document.querySelector('ti-app').shadowRoot.querySelector('ti-player').getAttribute('data-state') === 'paused', null, { timeout: 60_000 });
    const followed = (await sent(page)).slice(count).filter((m) => m.type === 'stepSelected').map((m) => (m as { stepIndex: number }).stepIndex);
    const later = tb1Rollout.steps.filter((s) => typeof s.castTime === 'number' && s.castTime > agent.castTime!).map((s) => s.index);
    assert.deepEqual(followed, later, 'playing from the agent step selects only the steps after it');
  });

  it('fits the terminal to the width and follows the cursor; "fit screen" shows all of it', async () => {
    // A short window: the whole 160×40 terminal only fits in small type there.
    page = await open({ width: 1200, height: 700 });
    // The test run of a real TB1 trial: pytest output fills the 160×40 screen down to the prompt.
    const file = await loadFile(sample(TESTS_CAST));
    await showWithCast(page, file);
    const raw = rawEvents(sample(TESTS_CAST));
    const end = raw[raw.length - 1].time;
    await page.evaluate(() => document.querySelector('ti-app').shadowRoot.querySelector('ti-player').seek(1e9));
    await waitForScreen(page, Math.round(end * 1000), () => true, 'at the end');
    const rowHeight = (): Promise<number> => page.evaluate(() => {
      const sr = document.querySelector('ti-app').shadowRoot.querySelector('ti-player').shadowRoot;
      return sr.querySelector('.xterm-screen').offsetHeight / sr.querySelectorAll('.xterm-rows > div').length;
    });
    const box = page.locator('ti-player .screen');
    const promptRow = page.locator('ti-player .xterm-rows > div', { hasText: /root@\w+:\/app#/ }).last();
    // Default: the width decides the font; the box scrolls, with the prompt (the cursor) in view.
    await page.waitForFunction(() => {
      const el = document.querySelector('ti-app').shadowRoot.querySelector('ti-player').shadowRoot.querySelector('.screen');
      return el.scrollHeight > el.clientHeight && el.scrollTop > 0;
    });
    const [rowBox, boxBox] = [await promptRow.boundingBox(), await box.boundingBox()];
    assert.ok(rowBox && boxBox && rowBox.y >= boxBox.y - 1 && rowBox.y + rowBox.height <= boxBox.y + boxBox.height + 1,
      `the prompt row ${JSON.stringify(rowBox)} is inside the box ${JSON.stringify(boxBox)}`);
    const wide = await rowHeight();
    await page.screenshot({ path: path.join(ARTIFACTS, 'cast-player-fit-width.png') });

    // "fit screen": all 40 rows in the box, in smaller type.
    await page.locator('ti-player button.fit').click();
    await page.waitForFunction((h) => {
      const sr = document.querySelector('ti-app').shadowRoot.querySelector('ti-player').shadowRoot;
      const el = sr.querySelector('.screen');
      return sr.querySelector('.xterm-screen').offsetHeight / sr.querySelectorAll('.xterm-rows > div').length < h - 1 && el.scrollHeight <= el.clientHeight + 1;
    }, wide);
    assert.equal((await page.evaluate(() => window.__state)).playerFit, 'screen');
    await page.screenshot({ path: path.join(ARTIFACTS, 'cast-player-fit-screen.png') });
  });

  it('keeps the player hidden and its speed after the webview is re-created', async () => {
    page = await open();
    await showWithCast(page, tb1);
    await page.locator('ti-player select.speed').selectOption('2');
    await page.locator('ti-player button.collapse').click();
    assert.equal(await page.locator('ti-player .screen').isVisible(), false, 'the terminal is hidden');
    assert.ok(await page.locator('ti-player button.play').isVisible(), 'the controls stay');
    const state = await page.evaluate(() => window.__state);
    assert.equal(state.playerCollapsed, true);
    assert.equal(state.playerSpeed, 2);
    await page.close();
    wv.harness.setInitialState(state);
    try {
      page = await open();
    } finally {
      wv.harness.setInitialState(null);
    }
    await showWithCast(page, tb1);
    assert.equal(await page.locator('ti-player').getAttribute('collapsed'), '');
    assert.equal(await page.locator('ti-player select.speed').inputValue(), '2');
    await page.locator('ti-player button.collapse').click();
    await page.locator('ti-player .xterm-rows').waitFor({ state: 'visible' });
  });

  it('says when a recording is cut at the size limit, and when it cannot be read', async () => {
    page = await open();
    const r = tb1Rollout;
    const cut = await readCastMessage(0, r.id, r.recording!.path, { maxFileBytes: 1e9, maxChars: 400 });
    assert.ok(cut.cast && cut.cast.truncatedAt !== null && cut.note, 'cut at 400 characters');
    await showWithCast(page, tb1, 0, cut);
    assert.match(await page.locator('ti-player .note').innerText(), /first 400 B of terminal data/);
    assert.equal(await page.locator('ti-player .total').innerText(), ` / 0:0${Math.floor(cut.cast.duration)}.${Math.floor((cut.cast.duration * 10) % 10)}`);

    // A recording that is gone: the player says so, the timeline still works.
    const missing = await readCastMessage(0, r.id, path.join(path.dirname(r.recording!.path), 'missing.cast'));
    assert.equal(missing.cast, null);
    const page2 = await open();
    await showWithCast(page2, tb1, 0, missing);
    assert.match(await page2.locator('ti-player .error').innerText(), /does not exist/);
    await page2.keyboard.press('j');
    assert.equal(await selected(page2), 1);
    assert.deepEqual(await cspViolations(page2), []);
    await page2.close();
  });

  it('shows reference labels of a real AgentProcessBench row on its steps and in the header', async () => {
    page = await open({ width: 1200, height: 3000 }); // every card rendered (the step list is virtualized)
    const file = await loadFile(sample(APB));
    const row = JSON.parse(fs.readFileSync(sample(APB), 'utf8').split('\n')[0]);
    const labels = Object.values(row.step_labels as Record<string, number>);
    const good = labels.filter((v) => v === 1).length;
    const bad = labels.filter((v) => v === -1).length;
    const neutral = labels.filter((v) => v === 0).length;
    await postToWebview(page, rolloutMessage(new LoadedSource(file), 0, null, CONFIG));
    await page.locator('.step-card').first().waitFor();
    assert.equal(await page.locator('ti-player').count(), 0, 'no player without a recording');

    assert.equal(await page.locator('.step-card .ref-label.good').count(), good);
    assert.equal(await page.locator('.step-card .ref-label.bad').count(), bad);
    assert.equal(await page.locator('.step-card .ref-label.neutral').count(), neutral);
    const summary = (await page.locator('header .ref-summary').innerText()).replace(/\s+/g, ' ');
    const parts = [good ? `${good} good` : '', neutral ? `${neutral} neutral` : '', bad ? `${bad} bad` : ''].filter(Boolean).join(', ');
    assert.ok(summary.includes(`reference labels: ${parts}`), summary);

    // The first −1 is the first error: the final answer (message 8, "<answer> Adelaide </answer>").
    const firstBadKey = Object.keys(row.step_labels).map(Number).sort((a, b) => a - b).find((k) => row.step_labels[k] === -1)!;
    const answer = String(row.messages[firstBadKey].content);
    assert.match(answer, /Adelaide/);
    const errCard = page.locator('.step-card', { has: page.locator('.first-error') });
    assert.equal(await errCard.count(), 1);
    // Expanded (Enter on the selected card), it shows the whole answer.
    await errCard.click();
    await page.keyboard.press('Enter');
    await page.locator('.step-card.selected.expanded').waitFor();
    const answerLine = answer.trim().split('\n').pop()!;
    assert.ok((await errCard.locator('.message').innerText()).includes(answerLine), `the first-error badge is on the step with the wrong answer (${answerLine})`);
    assert.match(await errCard.locator('.ref-label').getAttribute('title') ?? '', /first error[\s\S]*source: AgentProcessBench/);
    assert.ok(summary.includes(`first error at #${Number(await errCard.getAttribute('data-index')) + 1}`), summary);
    await page.keyboard.press('Enter');
    await page.keyboard.press('g');
    await page.evaluate(() => window.scrollTo(0, 0));
    await page.screenshot({ path: path.join(ARTIFACTS, 'reference-labels.png') });
  });
});
