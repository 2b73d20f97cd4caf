/**
 * Webview tier: the built timeline bundle (dist/webview.js) in Chromium, under the extension's
 * CSP, fed real rollouts read by core `loadFile` from ../shared/samples and posted the way the host
 * posts them. Run with `npm run test:webview` (scripts/webview.mjs builds the bundle if needed).
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { Page } from 'playwright-core';
import { RolloutLoadError } from '../../src/core/errors';
import { loadFile, type LoadedFile } from '../../src/core/load';
import type { Rollout } from '../../src/core/model';
import { errorToMessage } from '../../src/host/loadErrors';
import { rolloutMessage } from '../../src/host/rolloutMessage';
import { LoadedSource } from '../../src/host/rolloutSource';
import type { RolloutMessage, WebviewMessage } from '../../src/shared/protocol';
import { sample } from '../unit/samples';
import { ARTIFACTS, postToWebview, sent, webviewSuite } from './harness';

/** SWE-agent 0.7 trajectory: 16 steps, shell commands and long outputs (pip install). */
const SWE_AGENT = 'swe-agent/v0.7_default__marshmallow-code__marshmallow-1867.traj';
/** mini-swe-agent: exit codes and token counts. */
const MINI = 'mini-swe-agent/harbor-rfc_mini-swe-agent-trajectory.json';
/** Harbor ATIF (keystrokes). */
const ATIF = 'atif/harbor-golden_terminus2_invalid-json_ATIF-v1.5.trajectory.json';

const CONFIG = { collapseOutputLines: 20 };

// Callbacks passed to page.evaluate run in Chromium; this program is type-checked without the DOM
// lib (it also covers the host code), so the page globals are declared loosely, for this file only.
declare const window: any;
declare const document: any;
declare function getComputedStyle(el: unknown): { color: string };

function firstCommand(r: Rollout): string {
  for (const s of r.steps) for (const a of s.actions) if (a.command && a.command.trim()) return a.command;
  throw new Error(`${r.id} has no action with a command`);
}

/** A deep copy of a loaded rollout whose step `index` gets `output` as its first observation. */
function withOutput(file: LoadedFile, index: number, output: string): LoadedFile {
  const copy: LoadedFile = JSON.parse(JSON.stringify(file));
  const step = copy.rollouts[0].steps[index];
  if (step.observations.length) step.observations[0].output = output;
  else step.observations.push({ callId: null, output, exitCode: 1, truncated: false });
  return copy;
}

describe('webview: timeline', function () {
  this.timeout(120_000);
  const wv = webviewSuite({ dialogs: true });

  let page: Page;
  let swe: LoadedFile;

  before(async () => {
    swe = await loadFile(sample(SWE_AGENT));
  });

  /** Opens a fresh harness page and waits for the ready handshake. */
  async function open(size = { width: 1100, height: 900 }): Promise<Page> {
    const p = await wv.open(size);
    return p;
  }

  async function show(p: Page, file: LoadedFile, rolloutIndex = 0): Promise<RolloutMessage> {
    const msg = rolloutMessage(new LoadedSource(file), rolloutIndex, null, CONFIG);
    await postToWebview(p, msg);
    await p.locator('.step-card').first().waitFor();
    return msg;
  }

  async function selectedIndex(p: Page): Promise<string[]> {
    const sel = p.locator('.step-card.selected');
    return Promise.all((await sel.all()).map((e) => e.getAttribute('data-index').then((v) => v ?? '')));
  }

  it('posts ready first, with no state on a first open', async () => {
    page = await open();
    const msgs = await sent(page);
    assert.equal(msgs[0]?.type, 'ready');
    assert.deepEqual(msgs[0], { type: 'ready', state: null });
  });

  it('shows one card per step of a real SWE-agent rollout, with its commands and header', async () => {
    page = await open();
    const r = swe.rollouts[0];
    assert.ok(r.steps.length >= 10, 'sample should have many steps');
    await show(page, swe);
    // The list is virtualized: the cards in the DOM are the first ones, in order, up to a screenful.
    const rendered = await page.locator('.step-card').count();
    assert.ok(rendered >= 2 && rendered <= r.steps.length, `${rendered} cards for ${r.steps.length} steps`);
    const indices = await page.locator('.step-card').evaluateAll((els) => els.map((e) => e.getAttribute('data-index')));
    assert.deepEqual(indices, r.steps.slice(0, rendered).map((s) => String(s.index)));
    const countText = (await page.locator('#step-count').innerText()).trim();
    assert.match(countText, new RegExp(`^${r.steps.length} steps`));
    const commands = await page.locator('.action-command').allTextContents();
    assert.ok(commands.includes(firstCommand(r)), `no .action-command holds ${JSON.stringify(firstCommand(r))}: ${JSON.stringify(commands.slice(0, 5))}`);
    assert.equal(await page.locator('h1.title').innerText(), r.task.id, 'a .traj is named by its task id');
    assert.match(await page.locator('header .format').innerText(), /SWE-agent/);
    // The first step is selected from the start and reported to the host.
    assert.deepEqual(await selectedIndex(page), ['0']);
    assert.ok((await sent(page)).some((m) => m.type === 'stepSelected' && m.stepIndex === 0));
    // Scrolled to the end, the last step's card is rendered.
    await page.evaluate(() => window.scrollTo(0, document.documentElement.scrollHeight));
    await page.locator(`.step-card[data-index="${r.steps.length - 1}"]`).waitFor();
  });

  it('moves the selection with j/k/g/G and arrows, reports it, and scrolls it into view', async () => {
    page = await open({ width: 1000, height: 600 });
    const last = swe.rollouts[0].steps.length - 1;
    await show(page, swe);
    await page.locator('#step-count').click();
    await page.keyboard.press('j');
    await page.keyboard.press('j');
    assert.deepEqual(await selectedIndex(page), ['2']);
    await page.keyboard.press('k');
    assert.deepEqual(await selectedIndex(page), ['1']);
    await page.keyboard.press('ArrowDown');
    assert.deepEqual(await selectedIndex(page), ['2']);
    await page.keyboard.press('ArrowUp');
    assert.deepEqual(await selectedIndex(page), ['1']);
    await page.keyboard.press('Shift+G');
    assert.deepEqual(await selectedIndex(page), [String(last)]);
    await page.keyboard.press('j'); // stays on the last step
    assert.deepEqual(await selectedIndex(page), [String(last)]);
    const lastCard = page.locator(`.step-card[data-index="${last}"]`);
    assert.ok(await lastCard.evaluate((el) => {
      const r = el.getBoundingClientRect();
      return r.top < window.innerHeight && r.bottom > 0;
    }), 'the last card should be scrolled into view');
    await page.keyboard.press('g');
    assert.deepEqual(await selectedIndex(page), ['0']);
    // Clicking a card selects it.
    await page.locator('.step-card[data-index="3"]').click({ position: { x: 40, y: 12 } });
    assert.deepEqual(await selectedIndex(page), ['3']);
    const selections = (await sent(page)).filter((m): m is Extract<WebviewMessage, { type: 'stepSelected' }> => m.type === 'stepSelected');
    assert.deepEqual(selections.map((m) => m.stepIndex), [0, 1, 2, 1, 2, 1, last, 0, 3]);
    // The host's Go to Step lands on the step.
    await postToWebview(page, { type: 'revealStep', index: 7 });
    await page.waitForFunction(() => document.querySelector('ti-app')?.shadowRoot?.querySelector('.step-card.selected')?.getAttribute('data-index') === '7');
  });

  it('Enter expands the selected card: long output shows every line', async () => {
    page = await open();
    const r = swe.rollouts[0];
    // The pip install step has the longest output in the sample.
    const long = r.steps.reduce((a, b) => (b.observations[0]?.output.length ?? 0) > (a.observations[0]?.output.length ?? 0) ? b : a);
    const lines = long.observations[0].output.replace(/\n$/, '').split('\n').length;
    assert.ok(lines > CONFIG.collapseOutputLines + 2, `the longest output has only ${lines} lines`);
    await show(page, swe);
    await postToWebview(page, { type: 'revealStep', index: long.index });
    const card = page.locator(`.step-card[data-index="${long.index}"]`);
    await page.waitForFunction((i) => document.querySelector('ti-app')?.shadowRoot?.querySelector('.step-card.selected')?.getAttribute('data-index') === String(i), long.index);
    assert.equal(await card.locator('.show-all').count(), 1, 'a long output is folded with a "show all" button');
    const shownLines = async () => (await card.locator('pre.output').allTextContents()).join('').replace(/\n$/, '').split('\n').length;
    assert.equal(await shownLines(), CONFIG.collapseOutputLines);
    await card.screenshot({ path: path.join(ARTIFACTS, 'folded-output.png') });

    await page.keyboard.press('Enter');
    await page.waitForFunction((i) => document.querySelector('ti-app')?.shadowRoot?.querySelector(`.step-card[data-index="${i}"]`)?.classList.contains('expanded'), long.index);
    assert.equal(await card.locator('.show-all').count(), 0);
    assert.equal(await shownLines(), lines);
    await page.keyboard.press('Enter');
    await page.waitForFunction((i) => !document.querySelector('ti-app')?.shadowRoot?.querySelector(`.step-card[data-index="${i}"]`)?.classList.contains('expanded'), long.index);
    // "Show all" unfolds one output without expanding the card.
    await card.locator('.show-all').click();
    assert.equal(await shownLines(), lines);
  });

  it('folds reasoning until the card is expanded, and shows it once when the message already holds it', async () => {
    page = await open();
    const atif = await loadFile(sample(ATIF));
    const step = atif.rollouts[0].steps.find((s) => s.reasoning && !s.message.includes(s.reasoning.trim()));
    assert.ok(step, 'the ATIF sample has reasoning kept apart from the message');
    await show(page, atif);
    const details = page.locator(`.step-card[data-index="${step.index}"] details.reasoning`);
    assert.equal(await details.evaluate((d) => (d as any).open), false);
    assert.equal((await details.locator('div').textContent())?.trim(), step.reasoning?.trim());
    await postToWebview(page, { type: 'revealStep', index: step.index });
    await page.waitForFunction((i) => document.querySelector('ti-app')?.shadowRoot?.querySelector('.step-card.selected')?.getAttribute('data-index') === String(i), step.index);
    await page.keyboard.press('Enter');
    await page.waitForFunction((i) => document.querySelector('ti-app')?.shadowRoot?.querySelector(`.step-card[data-index="${i}"]`)?.classList.contains('expanded'), step.index);
    assert.equal(await details.evaluate((d) => (d as any).open), true);
    // SWE-agent's THOUGHT is both the reasoning and the start of the message: no second copy.
    const r = swe.rollouts[0];
    const dup = r.steps.find((s) => s.reasoning && s.message.includes(s.reasoning.trim()));
    assert.ok(dup, 'the SWE-agent sample repeats its reasoning in the message');
    await show(page, swe);
    await page.locator('#step-count').getByText(`${r.steps.length} steps`).waitFor();
    assert.equal(await page.locator(`.step-card[data-index="${dup.index}"] details.reasoning`).count(), 0);
  });

  it('renders HTML and script in outputs and messages as text', async () => {
    page = await open();
    const evil = '<script>alert(1)</script><b>x</b><img src=x onerror=alert(2)>';
    const file = withOutput(swe, 2, `${evil}\nafter`);
    file.rollouts[0].steps[2].message = `message ${evil}`;
    file.rollouts[0].steps[2].actions[0].command = `echo '${evil}'`;
    await show(page, file);
    const card = page.locator('.step-card[data-index="2"]');
    assert.ok((await card.locator('pre.output').first().textContent())?.includes(evil), 'the output shows the markup as text');
    assert.ok((await card.locator('.message').textContent())?.includes(evil));
    assert.ok((await card.locator('.action-command').textContent())?.includes(evil));
    // (No named inner functions here: tsx would wrap them in a helper the page does not have.)
    const created = await page.evaluate(() => {
      const found: string[] = [];
      const roots: any[] = [document];
      while (roots.length) {
        const root = roots.pop();
        root.querySelectorAll('b, img, script:not([nonce])').forEach((e: any) => found.push(e.outerHTML));
        root.querySelectorAll('*').forEach((e: any) => e.shadowRoot && roots.push(e.shadowRoot));
      }
      return found;
    });
    assert.deepEqual(created, [], 'no element was created from file content');
    await page.waitForTimeout(200);
    assert.deepEqual(wv.problems.dialogs, []);
  });

  it('colours ANSI output: theme colours as classes, 256/RGB colours via CSSOM, escapes removed', async () => {
    page = await open();
    const ansi = 'plain \x1b[31mred text\x1b[0m and \x1b[1;32mbold green\x1b[0m\n\x1b[38;5;208morange\x1b[0m \x1b[38;2;10;20;30mrgb\x1b[0m\x1b]0;title\x07\x1b[2K done';
    await show(page, withOutput(swe, 3, ansi));
    const out = page.locator('.step-card[data-index="3"] pre.output').first();
    assert.equal(await out.locator('span.ansi-red').textContent(), 'red text');
    assert.equal(await out.locator('span.ansi-green.ansi-bold').textContent(), 'bold green');
    const red = await out.locator('span.ansi-red').evaluate((e) => getComputedStyle(e).color);
    assert.equal(red, 'rgb(205, 49, 49)', 'the red class takes the terminal red');
    const orange = out.locator('span', { hasText: 'orange' });
    assert.equal(await orange.evaluate((e) => (e as any).style.color), 'rgb(255, 135, 0)');
    assert.equal(await orange.getAttribute('style'), 'color: rgb(255, 135, 0);', 'set through CSSOM (allowed by the CSP)');
    assert.equal(await out.locator('span', { hasText: 'rgb' }).evaluate((e) => (e as any).style.color), 'rgb(10, 20, 30)');
    const text = (await out.textContent()) ?? '';
    assert.ok(text.startsWith('plain red text and bold green\norange rgb done'), JSON.stringify(text));
    assert.ok(!text.includes('\x1b'), 'no escape characters are left in the text');
    await page.locator('.step-card[data-index="3"]').screenshot({ path: path.join(ARTIFACTS, 'ansi.png') });
  });

  it('shows a mini-swe-agent command once: as the SHELL action, folded out of the reply it was parsed from', async () => {
    page = await open();
    const mini = await loadFile(sample(MINI));
    await show(page, mini);
    const step = mini.rollouts[0].steps.find((s) => s.role === 'agent' && s.actions.some((a) => a.kind === 'shell' && a.command));
    assert.ok(step && step.message.includes('```'), 'the sample reply holds the fenced command');
    const cmd = step.actions.find((a) => a.command)!.command!.trim();
    const card = page.locator(`.step-card[data-index="${step.index}"]`);
    await card.waitFor();
    const message = (await card.locator('.message').allTextContents()).join('\n');
    assert.ok(!message.includes(cmd), `the message no longer repeats "${cmd}": ${message}`);
    assert.ok(!message.includes('```'));
    assert.ok((await card.locator('.action-command').allTextContents()).some((t) => t.trim() === cmd), 'the command is on the card once, as its action');
  });

  it('shows a tool call\'s arguments as named fields, multi-line text as a block with real line breaks (no escaped JSON)', async () => {
    page = await open();
    const oh = await loadFile(sample('openhands/tests_runtime_trajs_basic.json'));
    await show(page, oh);
    const step = oh.rollouts[0].steps.find((s) => s.actions.some((a) => a.kind === 'finish' && a.arguments));
    assert.ok(step, 'the sample has a finish action with arguments');
    const thought = (step.actions.find((a) => a.kind === 'finish')!.arguments as { thought: string }).thought;
    assert.ok(thought.includes('\n'), 'its thought argument is multi-line');
    const card = page.locator(`.step-card[data-index="${step.index}"]`);
    await card.waitFor();
    await card.locator('.arg-field[data-arg="thought"]').waitFor();
    assert.equal(await card.locator('pre.args').count(), 0, 'no JSON dump of the arguments');
    assert.equal((await card.locator('.arg-field[data-arg="thought"] dt').innerText()).trim(), 'thought');
    const block = await card.locator('.arg-field[data-arg="thought"] pre.arg-block').innerText();
    assert.ok(!block.includes('\\n'), 'no escaped line breaks');
    assert.equal(block.split('\n')[0], thought.split('\n')[0], 'the text as written, line by line');
  });

  it('names every header value (format, tokens, image, …): no bare value in the meta row', async () => {
    page = await open();
    const mini = await loadFile(sample(MINI));
    await show(page, mini);
    await page.locator('header .meta-row').waitFor();
    assert.match((await page.locator('header .format').innerText()).trim(), /^format /);
    if (await page.locator('header .tokens').count()) assert.match((await page.locator('header .tokens').innerText()).trim(), /^tokens \S+ → \S+$/);
    // Every item of the row but the step count starts with its name, then its value.
    const items = await page.locator('header .meta-row > span:not(#step-count)').allInnerTexts();
    assert.ok(items.length >= 2, `items: ${JSON.stringify(items)}`);
    for (const t of items) assert.match(t.trim(), /^[a-z]+ \S/, `"${t}" has no name`);
  });

  it('shows exit-code badges (green 0, red non-zero, none when unknown) and the truncated marker', async () => {
    page = await open();
    const mini = await loadFile(sample(MINI));
    const r = mini.rollouts[0];
    const withCode = r.steps.find((s) => s.observations.some((o) => o.exitCode === 0));
    assert.ok(withCode, 'the mini-swe-agent sample records exit code 0');
    const copy: LoadedFile = JSON.parse(JSON.stringify(mini));
    const other = copy.rollouts[0].steps.find((s) => s.index !== withCode.index && s.observations.length);
    assert.ok(other);
    other.observations[0].exitCode = 2;
    other.observations[0].truncated = true;
    await show(page, copy);
    const ok = page.locator(`.step-card[data-index="${withCode.index}"] .exit-code`);
    assert.equal((await ok.textContent())?.trim(), 'exit 0');
    assert.match((await ok.getAttribute('class')) ?? '', /\bok\b/);
    const bad = page.locator(`.step-card[data-index="${other.index}"] .exit-code`);
    assert.equal((await bad.textContent())?.trim(), 'exit 2');
    assert.match((await bad.getAttribute('class')) ?? '', /\bfail\b/);
    assert.equal(await page.locator(`.step-card[data-index="${other.index}"] .truncated`).count(), 1);
    // ATIF records no exit codes: no badge at all.
    const atif = await loadFile(sample(ATIF));
    await show(page, atif);
    await page.locator('#step-count').getByText(`${atif.rollouts[0].steps.length} steps`).waitFor();
    assert.equal(await page.locator('.exit-code').count(), 0);
    assert.ok((await page.locator('.action-command').allTextContents()).some((c) => c.includes(firstCommand(atif.rollouts[0]).trim())));
  });

  it('shows a load error with its located issues, and links them to the file', async () => {
    page = await open();
    // A real sample cut in half: core reports where the JSON breaks.
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ti-webview-'));
    const broken = path.join(dir, 'broken.traj.json');
    const text = fs.readFileSync(sample(MINI), 'utf8');
    fs.writeFileSync(broken, text.slice(0, Math.floor(text.length / 2)));
    let err: unknown;
    try {
      await loadFile(broken);
    } catch (e) {
      err = e;
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
    assert.ok(err instanceof RolloutLoadError, `expected a RolloutLoadError, got ${String(err)}`);
    const issue = err.issues[0];
    assert.ok(issue.line !== null);
    const msg = errorToMessage(broken, err);
    await postToWebview(page, msg);
    const box = page.locator('.load-error');
    await box.waitFor();
    const shown = (await box.innerText()).replace(/\s+/g, ' ');
    assert.ok(shown.includes(`${broken}:${issue.line}:${issue.column}`), `file:line:col missing in ${shown}`);
    assert.ok(shown.includes(`expected ${issue.expected}`));
    assert.ok(shown.includes(`found ${issue.found}`));
    await page.screenshot({ path: path.join(ARTIFACTS, 'load-error.png') });
    await box.locator('.issue-text').first().click();
    const opened = (await sent(page)).find((m) => m.type === 'openLocation');
    assert.deepEqual(opened, { type: 'openLocation', file: broken, line: issue.line, column: issue.column });

    // A structural issue carries its JSON pointer.
    const pointerMsg = errorToMessage('/x/trajectory.json', new RolloutLoadError('/x/trajectory.json', 'atif', [
      { file: '/x/trajectory.json', line: 12, column: 7, pointer: '/steps/3/source', expected: 'one of "system" | "user" | "agent"', found: 'string "robot"' },
    ]));
    await postToWebview(page, pointerMsg);
    await page.locator('.load-error', { hasText: '/steps/3/source' }).waitFor();
    assert.match(await page.locator('.load-error').innerText(), /\/x\/trajectory\.json:12:7 at \/steps\/3\/source: expected one of "system" \| "user" \| "agent", found string "robot"/);
  });

  it('offers a rollout picker for files with several rollouts', async () => {
    page = await open();
    const two: LoadedFile = JSON.parse(JSON.stringify(swe));
    const second: Rollout = JSON.parse(JSON.stringify((await loadFile(sample(MINI))).rollouts[0]));
    two.rollouts.push(second);
    await show(page, two, 1);
    assert.equal(await page.locator('.step-card').count(), second.steps.length);
    assert.equal(await page.locator('.rollout-picker vscode-option').count(), 2);
  });

  it('a file of thousands of rollouts: the picker offers the window the host sent and says how many there are', async () => {
    page = await open();
    const many: LoadedFile = { ...swe, rollouts: Array.from({ length: 3000 }, (_, i) => ({ ...swe.rollouts[0], id: `r${i}` })) };
    const msg = await show(page, many, 1500);
    assert.equal(msg.rolloutCount, 3000);
    assert.equal(await page.locator('.rollout-picker vscode-option').count(), 503);
    assert.match(await page.locator('.picker').innerText(), /of 3000/);
    assert.equal(await page.locator('.rollout-picker').evaluate((el: any) => el.value), '1500');
    // Picking the last rollout asks the host for it by its index in the file.
    await page.locator('.rollout-picker').evaluate((el: any) => {
      el.value = '2999';
      el.dispatchEvent(new Event('change'));
    });
    await page.waitForFunction(() => (window as any).__sent.some((m: any) => m.type === 'rolloutSelected' && m.rolloutIndex === 2999));
  });

  it('restores the selection and expanded cards after the webview is re-created', async () => {
    page = await open();
    await show(page, swe);
    await postToWebview(page, { type: 'revealStep', index: 5 });
    // The message event comes asynchronously: the key must wait for the selection.
    await page.waitForFunction(() => document.querySelector('ti-app')?.shadowRoot?.querySelector('.step-card.selected')?.getAttribute('data-index') === '5');
    await page.keyboard.press('Enter');
    await page.waitForFunction(() => document.querySelector('ti-app')?.shadowRoot?.querySelector('.step-card.expanded')?.getAttribute('data-index') === '5');
    const state = await page.evaluate(() => window.__state);
    // The scroll position is kept too (the virtualized list is rebuilt from it).
    const { scrollY, ...rest } = state as { scrollY?: number };
    assert.deepEqual(rest, { rolloutIndex: 0, rolloutId: swe.rollouts[0].id, selectedStep: 5, expanded: [5] });
    assert.ok(typeof scrollY === 'number' && scrollY > 0, `scrollY kept: ${scrollY}`);
    await page.close();

    wv.harness.setInitialState(state);
    try {
      page = await open();
    } finally {
      wv.harness.setInitialState(null);
    }
    assert.deepEqual((await sent(page))[0], { type: 'ready', state });
    await show(page, swe);
    await page.locator('.step-card.selected').waitFor(); // rendered once the virtualizer has laid out the list
    assert.deepEqual(await selectedIndex(page), ['5']);
    assert.match((await page.locator('.step-card[data-index="5"]').getAttribute('class')) ?? '', /\bexpanded\b/);
    // Within a card's margin: the virtualizer re-measures the cards it renders and may shift the page a little.
    await page.waitForFunction((y) => Math.abs(window.scrollY - y) <= 120, scrollY, { timeout: 5000 }).catch(async (e) => {
      throw new Error(`scroll not restored to ${scrollY}: at ${await page.evaluate(() => `${window.scrollY} of ${document.documentElement.scrollHeight} (viewport ${window.innerHeight})`)}: ${String(e)}`);
    });
  });

  it('screenshot: a real SWE-agent rollout in the dark theme', async () => {
    page = await open({ width: 1100, height: 1300 });
    await show(page, swe);
    await page.locator('#step-count').click();
    await page.keyboard.press('j');
    await page.keyboard.press('j');
    await page.evaluate(() => window.scrollTo(0, 0));
    await page.screenshot({ path: path.join(ARTIFACTS, 'timeline.png') });
    const mini = await loadFile(sample(MINI));
    await show(page, mini);
    await page.locator('#step-count').getByText(`${mini.rollouts[0].steps.length} steps`).waitFor();
    await page.screenshot({ path: path.join(ARTIFACTS, 'timeline-mini-swe-agent.png'), fullPage: true });
  });

  it('the header charts each step\'s context (prompt tokens) and names time per step and failed commands', async () => {
    page = await open();
    const atif = await loadFile(sample(ATIF));
    await show(page, atif);
    const chart = page.locator('header .context-chart svg.spark');
    await chart.waitFor();
    // One polyline per stretch of steps with tokens; its points rise to the top (y 0) at the peak step.
    const lines = await chart.locator('polyline.ctx').evaluateAll((els: any[]) => els.map((e) => e.getAttribute('points')));
    const steps = atif.rollouts[0].steps.map((st) => st.tokens?.prompt ?? null);
    assert.equal(lines.length, 1, JSON.stringify(lines));
    assert.equal(lines[0].split(' ').length, steps.filter((v) => v !== null).length);
    assert.ok(lines[0].split(' ').some((pt: string) => pt.endsWith(',0')), 'the peak reaches the top');
    assert.match((await page.locator('header .context-chart').innerText()).trim(), /^context peak \d+/);
    assert.match((await page.locator('header .failed-commands').innerText()).trim(), /^failed commands \d+ of \d+$/);
    await page.locator('header').screenshot({ path: path.join(ARTIFACTS, 'timeline-header-totals.png') });
  });

  it('a step card shows the files the host says it touched; a chip click asks the host to open that file', async () => {
    page = await open();
    const msg = await show(page, swe);
    const step = 5;
    await postToWebview(page, {
      type: 'stepFiles',
      rolloutId: msg.rollout.id,
      steps: [{ index: step, files: [
        { label: 'reproduce.py', recorded: '/marshmallow-code__marshmallow/reproduce.py', kind: 'edit', local: true, failed: false },
        { label: '/etc/<b>hosts</b>', recorded: '/etc/<b>hosts</b>', kind: 'read', local: false, failed: false },
      ] }],
    });
    // The list renders only the cards in view: bring the step's card there.
    await postToWebview(page, { type: 'revealStep', index: step });
    const card = page.locator(`.step-card[data-index="${step}"]`);
    await card.waitFor();
    const chips = card.locator('.files button.file-chip');
    await chips.first().waitFor();
    assert.deepEqual((await chips.allInnerTexts()).map((t) => t.trim()), ['✎ reproduce.py', '○ /etc/<b>hosts</b>'], 'rendered as text');
    assert.match((await chips.nth(1).getAttribute('class')) ?? '', /\belsewhere\b/);
    await chips.nth(1).click();
    const out = await sent(page);
    assert.deepEqual(out.filter((m) => m.type === 'openStepFile'), [{ type: 'openStepFile', rolloutIndex: 0, stepIndex: step, file: 1 }]);
  });
});

