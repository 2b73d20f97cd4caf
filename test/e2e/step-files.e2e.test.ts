/**
 * e2e (issue 17, item 4): steps ↔ workspace files, in code-server with the packaged extension. The
 * workspace holds the SWE-agent sample (6e44b9__sweagenttestrepo-1c2844.traj, recorded in
 * /SWE-agent__test-repo) and the file its step #5 edited, tests/missing_colon.py, as that step left
 * it (the text the session printed after the edit); the setting trajectoryInspector.files.pathMap
 * maps /SWE-agent__test-repo to the workspace folder. With the rollout open in the timeline:
 * - the Python file shows a gutter mark on line 4 (the `def division(…):` line the edit changed),
 *   and its hover names step #5 and links to the step's edit;
 * - the hover's *Show Step's Edit as Diff* opens a diff of the file before → after step #5, whose
 *   left side has the line without its colon;
 * - *Show Steps That Touched This File* lists the step that read it (#4, `open`) and the one that
 *   edited it (#5); picking #5 selects that step in the timeline, whose card has a chip of the
 *   file (workspace-relative) that opens it.
 *
 * Screenshots: .test-artifacts/e2e/step-files-gutter.png (the mark and its hover),
 * step-files-diff.png (the diff), step-files-pick.png (the quick pick), step-files-step.png (the
 * timeline at the picked step).
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { e2eSuite, openTimeline, quickInputRow, quickOpen, runCommand, sample, screenshot, UI_MS, waitForQuickInputTitle, waitUntil } from './harness';

const TRAJ = 'swe-agent/6e44b9__sweagenttestrepo-1c2844.traj';

/** The file as step #5 left it: the `[File: …]` listing of that step's observation, without its line numbers. */
function editedFile(): string {
  const traj = JSON.parse(fs.readFileSync(sample(TRAJ), 'utf8'));
  const out: string = traj.trajectory[2].observation;
  const listing = out.slice(out.indexOf('[File: '));
  // The listing's lines end in CRLF (the container's terminal); the file is written with LF.
  const lines = listing.split(/\r?\n/).slice(1).filter((l) => /^\d+:/.test(l)).map((l) => l.replace(/^\d+:/, ''));
  // Its last numbered line is the empty one after the final newline.
  return lines.join('\n');
}

describe('e2e: steps ↔ workspace files (SWE-agent sample mapped into the workspace)', function () {
  const e2e = e2eSuite({
    name: 'step-files',
    prepare: (workspace) => {
      fs.copyFileSync(sample(TRAJ), path.join(workspace, path.basename(TRAJ)));
      fs.mkdirSync(path.join(workspace, 'tests'), { recursive: true });
      const text = editedFile();
      assert.equal(text.split('\n')[3], 'def division(a: float, b: float) -> float:', 'the sample printed the edited line 4');
      fs.writeFileSync(path.join(workspace, 'tests', 'missing_colon.py'), text);
    },
    settings: {
      'trajectoryInspector.files.pathMap': { '/SWE-agent__test-repo': '${workspaceFolder}' },
      // Quick Open would otherwise replace the timeline (a preview editor) by the Python file, closing it.
      'workbench.editor.enablePreview': false,
    },
  });

  /** The editor's rendered line that holds `text` (its spaces matched as any white space: Monaco may render them as no-break spaces). */
  const viewLine = (text: string) => {
    const re = new RegExp(text.split(/\s+/).map((w) => w.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('\\s+'));
    return e2e.page.locator('.monaco-editor .view-lines .view-line', { hasText: re }).first();
  };

  it('marks the line step #5 changed in the workspace file; the hover names the step', async () => {
    await openTimeline(e2e.page, path.basename(TRAJ));
    await quickOpen(e2e.page, 'tests/missing_colon.py');
    const line = viewLine('def division(a: float, b: float) -> float:');
    await line.waitFor({ state: 'visible', timeout: UI_MS });
    // One gutter decoration (VS Code names decoration classes ced-…) in the margin, on the edited line's
    // row: a gutter icon is drawn in the glyph margin's widgets (.glyph-margin-widgets), not the overlays.
    const marks = e2e.page.locator('.monaco-editor .margin div[class*="ced-"]');
    await waitUntil(async () => (await marks.count()) > 0, UI_MS, async () => `no gutter mark in ${JSON.stringify(await e2e.page.locator('.monaco-editor .margin').first().innerHTML())}`);
    const lineBox = (await line.boundingBox())!;
    const markBoxes = await Promise.all((await marks.all()).map((m) => m.boundingBox()));
    assert.ok(markBoxes.some((b) => b && Math.abs(b.y - lineBox.y) < 4), `a mark sits on line 4's row (line at y=${lineBox.y}, marks at ${JSON.stringify(markBoxes.map((b) => b?.y))})`);
    assert.equal(markBoxes.length, 1, 'only line 4 changed');
    // On the line's text: the middle of a view line is past its end, where the decoration's range (the line's text) is not.
    await line.hover({ position: { x: 40, y: 8 } });
    const hover = e2e.page.locator('.monaco-hover', { hasText: 'Changed by step #5' }).first();
    await hover.waitFor({ state: 'visible', timeout: UI_MS });
    assert.match(await hover.innerText(), /6e44b9__sweagenttestrepo-1c2844\.traj\s\(edit\)/);
    await screenshot(e2e.page, 'step-files-gutter');
  });

  it("the hover's Show Step's Edit as Diff opens the file before → after step #5", async () => {
    const hover = e2e.page.locator('.monaco-hover', { hasText: 'Changed by step #5' }).first();
    if (!(await hover.isVisible().catch(() => false))) await viewLine('def division(a: float, b: float) -> float:').hover({ position: { x: 40, y: 8 } });
    await hover.locator('a', { hasText: 'Show Step’s Edit as Diff' }).click();
    const tab = e2e.page.locator('.tabs-container .tab', { hasText: 'missing_colon.py (before ↔ after step #5)' }).first();
    await tab.waitFor({ state: 'visible', timeout: UI_MS });
    const diff = e2e.page.locator('.monaco-diff-editor').first();
    await diff.waitFor({ state: 'visible', timeout: UI_MS });
    const original = diff.locator('.editor.original .view-lines');
    const modified = diff.locator('.editor.modified .view-lines');
    const linesOf = async (side: typeof original) => (await side.innerText()).split('\n').map((l) => l.replace(/\u00a0/g, ' ').trimEnd());
    await waitUntil(async () => (await linesOf(original)).includes('def division(a: float, b: float) -> float'), UI_MS, async () => `left side: ${JSON.stringify(await linesOf(original))}`);
    const left = await linesOf(original);
    const right = await linesOf(modified);
    assert.ok(left.includes('def division(a: float, b: float) -> float'), `before: ${JSON.stringify(left)}`);
    assert.ok(right.includes('def division(a: float, b: float) -> float:'), `after: ${JSON.stringify(right)}`);
    // The change is marked as one (VS Code's line-insert / line-delete decorations on each side).
    assert.ok((await diff.locator('.line-delete, .char-delete').count()) > 0 && (await diff.locator('.line-insert, .char-insert').count()) > 0);
    await screenshot(e2e.page, 'step-files-diff');
  });

  it('Show Steps That Touched This File lists the read and the edit; picking the edit selects step #5, whose file chip opens the file', async () => {
    // From the file's own editor: its tab (Quick Open of the file would reveal the diff of the test before, which shows it too).
    const fileTab = e2e.page.locator('.tabs-container .tab', { hasText: 'missing_colon.py' }).filter({ hasNotText: 'before' }).first();
    if (await fileTab.count()) await fileTab.click();
    else await quickOpen(e2e.page, 'tests/missing_colon.py');
    await viewLine('def division').waitFor({ state: 'visible', timeout: UI_MS });
    await runCommand(e2e.page, 'Trajectory Inspector: Show Steps That Touched This File');
    await waitForQuickInputTitle(e2e.page, 'Steps That Touched missing_colon.py (2)');
    // Each row's label (its first .label-name; the detail line "recorded as …" is one too).
    const rows = await e2e.page.locator('.quick-input-list .monaco-list-row').evaluateAll((els) => els.map((e) => e.querySelector('.label-name')?.textContent ?? ''));
    assert.deepEqual(rows.map((r) => r.trim()), ['step #4 read missing_colon.py', 'step #5 changed missing_colon.py']);
    await screenshot(e2e.page, 'step-files-pick');
    await quickInputRow(e2e.page, 'step #5 changed').click();
    const card = e2e.web().locator('.step-card[data-index="4"][aria-selected="true"]');
    await card.waitFor({ timeout: UI_MS });
    // The card's file chip names the workspace file (relative) and opens it.
    const chip = card.locator('.files button.file-chip[data-kind="edit"]');
    await chip.waitFor({ state: 'visible', timeout: UI_MS });
    assert.equal((await chip.innerText()).trim(), '✎ tests/missing_colon.py');
    await screenshot(e2e.page, 'step-files-step');
    await chip.click();
    await e2e.page.locator('.tabs-container .tab', { hasText: 'missing_colon.py' }).filter({ hasNotText: 'before' }).first().waitFor({ state: 'visible', timeout: UI_MS });
  });
});
