/**
 * Webview tier: what a coding-agent session carries, rendered — the real census Claude Code
 * session (2.1.39, with its subagent transcript laid out as Claude Code writes it) read by core
 * `loadFile` and posted the way the host posts it: an Edit as a line diff, a Write's content, the
 * compaction turn as what it is, exit codes read from text marked so, tool errors, the link to the
 * subagent (clicking it asks the host to open link 0 of that step), and the file's warnings in the
 * header when the subagent transcript is missing.
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { Page } from 'playwright-core';
import { loadFile, type LoadedFile } from '../../src/core/load';
import type { Step } from '../../src/core/model';
import { rolloutMessage } from '../../src/host/rolloutMessage';
import { LoadedSource } from '../../src/host/rolloutSource';
import { censusFile, tmpDir } from '../unit/samples';
import { postToWebview, sent, webviewSuite } from './harness';

const SID = '258c7280-ae70-4798-800f-63464d01a85d';
const CONFIG = { collapseOutputLines: 20 };

declare const window: any;
declare const document: any;

describe('webview: coding-agent sessions (real Claude Code session)', function () {
  this.timeout(120_000);
  const wv = webviewSuite({ prefix: 'sessions' });
  let page: Page;
  let withSub: LoadedFile;
  let alone: LoadedFile;

  before(async () => {
    const dir = tmpDir('ti-webview-claude-');
    const main = path.join(dir, `${SID}.jsonl`);
    fs.copyFileSync(censusFile(`claude-code/${SID}.jsonl`), main);
    fs.mkdirSync(path.join(dir, SID, 'subagents'), { recursive: true });
    fs.copyFileSync(censusFile('claude-code/258c7280_subagents_agent-a881341.jsonl'), path.join(dir, SID, 'subagents', 'agent-a881341.jsonl'));
    withSub = await loadFile(main);
    alone = await loadFile(censusFile(`claude-code/${SID}.jsonl`));
  });

  async function open(): Promise<Page> {
    const p = await wv.open({ width: 1100, height: 900 });
    return p;
  }

  /** Shows the file with `step` selected (scrolled into view) and returns its card. */
  async function showAt(p: Page, file: LoadedFile, step: Step) {
    await postToWebview(p, rolloutMessage(new LoadedSource(file), 0, step.index, CONFIG));
    const card = p.locator(`.step-card[data-index="${step.index}"]`);
    await card.waitFor();
    return card;
  }

  const steps = (): Step[] => withSub.rollouts[0].steps;

  it('an Edit shows as a line diff of its old and new text, a Write as its added lines', async () => {
    page = await open();
    const editStep = steps().find((s) => s.actions.some((a) => a.edit?.op === 'replace'))!;
    const e = editStep.actions.find((a) => a.edit?.op === 'replace')!.edit!;
    assert.ok(e.op === 'replace');
    const card = await showAt(page, withSub, editStep);
    // Expanded (o), the card shows the whole diff.
    await page.keyboard.press('o');
    await page.waitForFunction((i) => document.querySelector('ti-app')?.shadowRoot?.querySelector(`.step-card[data-index="${i}"]`)?.classList.contains('expanded'), editStep.index);
    assert.equal(await card.locator('.action-head .path').first().innerText(), e.path);
    const removed = (await card.locator('.edit .del').allTextContents()).map((t) => t.slice(1));
    const added = (await card.locator('.edit .ins').allTextContents()).map((t) => t.slice(1));
    // The first changed line of the real edit is among the removed / added lines .
    const oldLines = e.edits[0].oldText.split('\n');
    const newLines = e.edits[0].newText.split('\n');
    const firstRemoved = oldLines.find((l) => !newLines.includes(l));
    const firstAdded = newLines.find((l) => !oldLines.includes(l));
    if (firstRemoved !== undefined) assert.ok(removed.includes(firstRemoved), `removed lines include ${JSON.stringify(firstRemoved)}`);
    if (firstAdded !== undefined) assert.ok(added.includes(firstAdded), `added lines include ${JSON.stringify(firstAdded)}`);
    const writeStep = steps().find((s) => s.actions.some((a) => a.edit?.op === 'write'))!;
    const w = writeStep.actions.find((a) => a.edit?.op === 'write')!.edit!;
    assert.ok(w.op === 'write');
    const wcard = await showAt(page, withSub, writeStep);
    assert.equal((await wcard.locator('.edit .ins').first().innerText()).slice(1), w.content.split('\n')[0]);
    assert.match(await wcard.locator('.edit-note').first().innerText(), new RegExp(`^writes ${w.content.replace(/\n$/, '').split('\n').length} lines$`));
  });

  it('the compaction turn is tagged as what it is; exit codes read from text say so; a rejected call shows its error', async () => {
    page = await open();
    const compaction = steps().find((s) => s.event?.kind === 'compaction')!;
    const card = await showAt(page, withSub, compaction);
    assert.equal(await card.locator('.event.compaction').innerText(), compaction.event!.label.toUpperCase());
    const fromText = steps().find((s) => s.observations.some((o) => o.exitCodeFrom === 'text'))!;
    const code = fromText.observations.find((o) => o.exitCodeFrom === 'text')!.exitCode;
    const c2 = await showAt(page, withSub, fromText);
    assert.equal(await c2.locator('.exit-code.from-text').first().innerText(), `exit ${code} (from text)`);
    const rejected = steps().find((s) => s.observations.some((o) => o.isError && o.exitCode === null))!;
    const c3 = await showAt(page, withSub, rejected);
    assert.equal(await c3.locator('.badge.tool-error').first().innerText(), 'error');
  });

  it('the step that started the subagent links to it; a click asks the host to open that link', async () => {
    page = await open();
    const parent = steps().find((s) => s.links?.some((l) => l.relation === 'subagent'))!;
    const card = await showAt(page, withSub, parent);
    const button = card.locator('.links button.link[data-relation="subagent"]');
    assert.match(await button.innerText(), /^↳ subagent: /);
    await button.click();
    await page.waitForFunction(() => (window.__sent as { type: string }[]).some((m) => m.type === 'openLink'));
    const msg = (await sent(page)).find((m) => m.type === 'openLink');
    assert.deepEqual(msg, { type: 'openLink', rolloutIndex: 0, stepIndex: parent.index, link: 0 });
  });

  it('without its subagent transcript the file loads, the link says why it cannot open, the header lists the warning', async () => {
    page = await open();
    const parent = alone.rollouts[0].steps.find((s) => s.links?.some((l) => l.relation === 'subagent'))!;
    const card = await showAt(page, alone, parent);
    assert.match(await card.locator('.links .missing').innerText(), /\(no agent-a881341\.jsonl in .*subagents nor beside the session file\)$/);
    const summary = page.locator('header .file-issues summary');
    assert.equal((await summary.innerText()).trim(), '⚠ 1 warning in this file');
    await summary.click();
    await page.locator('header .file-issues li.warning button.link').click();
    await page.waitForFunction(() => (window.__sent as { type: string }[]).some((m) => m.type === 'openLocation'));
    const msg = (await sent(page)).find((m) => m.type === 'openLocation');
    assert.deepEqual(msg, { type: 'openLocation', file: censusFile(`claude-code/${SID}.jsonl`), line: 1474, column: 1 });
  });
});
