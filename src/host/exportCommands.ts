/**
 * *Export Rollout as HTML…*, *Export Rollout as Markdown…* and *Copy Step as Markdown*: the active
 * timeline's rollout (or its selected step) as a self-contained page (src/shared/exportHtml.ts) or
 * Markdown (core/export/markdown.ts), its texts redacted first (core/export/redact.ts
 * `redactRollout`) with the user's patterns and switches (`trajectoryInspector.export.*`). Before a
 * file is written, a modal says what will be redacted and how many; the exported document records
 * it. Labels of the timeline's journal go on the step lines (the latest label of each step, any
 * annotator).
 */
import { sha256Base64 } from '../core/export/sha256';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { rolloutMarkdown, stepMarkdownOf } from '../core/export/markdown';
import { describeRedaction, RedactPatternError, redactRollout, type RedactOptions } from '../core/export/redact';
import { rolloutHtml } from '../shared/exportHtml';
import type { Rollout } from '../core/model';
import type { CommandTable } from './commandTable';
import { activeOrExplain } from './commands';
import { readSettings } from './config';
import { askModal, notifyError, notifyInfo, reportError, type ErrorLog } from './notify';
import type { TimelinePanel } from './timeline/timelinePanel';
import type { TimelineEditorProvider } from './timelineEditor';
import { byWindowsNotice, stepsByWindows } from './pagedRollout';

/** Command ids (contributed in package.json). */
export const EXPORT_COMMANDS = {
  exportRolloutHtml: 'trajectoryInspector.exportRolloutHtml',
  exportRolloutMarkdown: 'trajectoryInspector.exportRolloutMarkdown',
  copyStepMarkdown: 'trajectoryInspector.copyStepMarkdown',
} as const;

function redactOptions(): RedactOptions {
  const s = readSettings().export;
  return { patterns: s.redactPatterns, emails: s.redactEmails, homeUsers: s.redactHomeUsers };
}

/** The latest label value of each step of `rollout` in the panel's journal. */
function labelsOf(p: TimelinePanel, rollout: Rollout): Map<number, 1 | 0 | -1> {
  const out = new Map<number, { value: 1 | 0 | -1; time: string }>();
  for (const l of p.labels?.current() ?? []) {
    if (l.rolloutId !== rollout.id || l.stepIndex === null || l.value === null) continue;
    const before = out.get(l.stepIndex);
    if (!before || before.time < l.time) out.set(l.stepIndex, { value: l.value, time: l.time });
  }
  return new Map([...out].map(([k, v]) => [k, v.value]));
}

/** A user pattern that does not compile is said plainly (it is the user's own setting). */
function patternError(e: unknown): boolean {
  if (!(e instanceof RedactPatternError)) return false;
  void notifyError(`Trajectory Inspector: ${e.message} (setting trajectoryInspector.export.redactPatterns).`, 'Open Settings').then((a) => {
    if (a) void vscode.commands.executeCommand('workbench.action.openSettings', 'trajectoryInspector.export.redactPatterns');
  });
  return true;
}

async function exportRollout(timelines: TimelineEditorProvider, output: ErrorLog, as: 'html' | 'md'): Promise<void> {
  const what = as === 'html' ? 'HTML' : 'Markdown';
  const p = activeOrExplain(timelines);
  const rollout = p?.rollout;
  if (!p || !rollout) return;
  const byWindows = stepsByWindows(rollout);
  if (byWindows !== null) {
    void notifyInfo(`Trajectory Inspector: ${byWindowsNotice(`Export Rollout as ${what}`, byWindows, 'an export writes every step into one document (Copy Step as Markdown works step by step)')}`);
    return;
  }
  try {
    const r = await redactRollout(rollout, redactOptions());
    const EXPORT = 'Export';
    const RAW = 'Export Without Redaction';
    const picked = await askModal(
      `Export rollout ${p.rolloutIndex + 1} of ${path.basename(p.uri.fsPath)} as ${what}?`,
      r.total
        ? `${describeRedaction(r)}. Each is replaced by [REDACTED:<kind>] (home-directory names by <user>); the file says so at its end.`
        : 'Nothing to redact was found (secretlint rules, service tokens, passwords, e-mails, home-directory names, your patterns).',
      EXPORT,
      RAW,
    );
    if (!picked) return;
    const redacted = picked === EXPORT;
    const shown = redacted ? r.rollout : rollout;
    const note = redacted ? `redacted: ${describeRedaction(r)}` : 'not redacted';
    const opts = { labels: labelsOf(p, rollout), sourceName: path.basename(p.uri.fsPath) };
    const body = as === 'html' ? rolloutHtml(shown, { ...opts, footer: note, sha256: sha256Base64 }) : `${rolloutMarkdown(shown, opts)}\n---\n\n*Exported by Trajectory Inspector; ${note}.*\n`;
    const base = path.basename(p.uri.fsPath).replace(/\.(jsonl?|traj|eval|cast)$/i, '');
    const target = await vscode.window.showSaveDialog({
      title: `Export Rollout as ${what}`,
      defaultUri: vscode.Uri.file(path.join(path.dirname(p.uri.fsPath), `${base}${p.rolloutIndex ? `.rollout-${p.rolloutIndex + 1}` : ''}.${as}`)),
      filters: as === 'html' ? { HTML: ['html'] } : { Markdown: ['md'] },
    });
    if (!target) return;
    await fs.promises.writeFile(target.fsPath, body);
    const OPEN = 'Open';
    if ((await notifyInfo(`Exported ${path.basename(target.fsPath)} (${redacted ? describeRedaction(r) : 'not redacted'}).`, OPEN)) === OPEN) {
      if (as === 'html') await vscode.env.openExternal(target);
      else await vscode.window.showTextDocument(target);
    }
  } catch (e) {
    if (!patternError(e)) void reportError(output, `Export Rollout as ${what}`, e);
  }
}

async function copyStepMarkdown(timelines: TimelineEditorProvider, output: ErrorLog): Promise<void> {
  const p = activeOrExplain(timelines);
  if (!p) return;
  let step;
  try {
    // Read from the file for a rollout read by windows.
    step = await p.selectedStepRead();
  } catch (e) {
    void reportError(output, 'Copy Step as Markdown', e);
    return;
  }
  const rollout = p.rollout;
  if (!step || !rollout) {
    void notifyInfo('Select a step in the timeline first.');
    return;
  }
  try {
    const r = await redactRollout({ ...rollout, steps: [step] }, redactOptions());
    await vscode.env.clipboard.writeText(stepMarkdownOf(r.rollout.steps[0], { labels: labelsOf(p, rollout) }));
    void notifyInfo(`Copied step #${step.index + 1} as Markdown (${describeRedaction(r)}).`);
  } catch (e) {
    if (!patternError(e)) void reportError(output, 'Copy Step as Markdown', e);
  }
}

/** The export commands of the timeline. */
export function exportCommands(timelines: TimelineEditorProvider, output: ErrorLog): CommandTable {
  return [
    { id: EXPORT_COMMANDS.exportRolloutHtml, run: () => exportRollout(timelines, output, 'html') },
    { id: EXPORT_COMMANDS.exportRolloutMarkdown, run: () => exportRollout(timelines, output, 'md') },
    { id: EXPORT_COMMANDS.copyStepMarkdown, run: () => copyStepMarkdown(timelines, output) },
  ];
}
