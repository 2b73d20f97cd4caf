/**
 * The labelling commands: the keys of the timeline as commands, the rollout verdict, Export Labels
 * and Show Label Agreement (ids in host/commands.ts `COMMANDS`).
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { annotatorAgreement } from '../core/labels/agreement';
import type { ExportFormat } from '../core/labels/export';
import { agreementText, type AgreementReport } from '../core/labels/report';
import { labelsFrom, REFERENCE, type NeutralMapping } from '../core/labels/select';
import type { LabelAction } from '../shared/protocol';
import { NEUTRAL_MAPPING_CHOICES } from '../shared/settings';
import type { CommandTable } from './commandTable';
import { LABEL_ACTION_COMMANDS } from '../shared/keymap';
import { COMMANDS, NOT_SHOWN_YET, activeOrExplain } from './commands';
import { readSettings, updateUserSetting } from './config';
import { FORMAT_ITEMS, defaultExportPath, exportFileLabels, labelSources, neutralCount, neutralItems } from './labelExport';
import { notifyInfo, notifyWarning } from './notify';
import type { TimelinePanel } from './timeline/timelinePanel';
import type { TimelineEditorProvider } from './timelineEditor';

/** The labelling commands that do what their key does in the timeline (derived from the timeline's key table). */
export { LABEL_ACTION_COMMANDS };

/** The active timeline's file and label session, or null (having told the user why). */
function activeLabels(timelines: TimelineEditorProvider): { file: NonNullable<TimelinePanel['loadedFile']>; session: NonNullable<TimelinePanel['labels']> } | null {
  const p = activeOrExplain(timelines);
  if (!p) return null;
  if (!p.loadedFile || !p.labels) {
    void notifyInfo('The labels of this timeline are not loaded yet.');
    return null;
  }
  return { file: p.loadedFile, session: p.labels };
}

/** Runs a labelling key's action in the active timeline (it acts on the selected step). */
function labelAction(timelines: TimelineEditorProvider, action: LabelAction): void {
  const p = activeOrExplain(timelines);
  if (!p) return;
  if (!p.labelAction(action)) void notifyInfo(NOT_SHOWN_YET);
}

const VERDICT_ITEMS: { value: 1 | 0 | -1 | null; label: string; description: string }[] = [
  { value: 1, label: '$(pass) Good', description: '+1: the rollout did the task well' },
  { value: 0, label: '$(circle-large-outline) Neutral', description: '0' },
  { value: -1, label: '$(error) Bad', description: '−1: the rollout failed or did harm' },
  { value: null, label: '$(clear-all) Clear the verdict', description: '' },
];

/**
 * Set Rollout Verdict…: a quick pick (the current verdict marked); a value given as the argument
 * (1, 0, -1 or null, e.g. from a keybinding's `args`) is set without asking.
 */
async function labelRollout(timelines: TimelineEditorProvider, arg?: unknown): Promise<void> {
  const p = activeOrExplain(timelines);
  if (!p?.rollout) return;
  let value: 1 | 0 | -1 | null;
  if (arg === 1 || arg === 0 || arg === -1 || arg === null) value = arg;
  else {
    const current = p.verdict;
    const items = VERDICT_ITEMS.map((i) => ({ ...i, detail: i.value === current && current !== null ? 'current verdict' : undefined }));
    const picked = await vscode.window.showQuickPick(items, { title: 'Rollout Verdict', placeHolder: `Your verdict on ${p.rollout.task.id ?? p.rollout.id}` });
    if (!picked) return;
    value = picked.value;
  }
  await p.setLabel(null, { value });
}

/**
 * The neutral mapping of an export: the setting when the user set it (or `opts.neutral`); else, when
 * the labels hold neutral ones and the format turns them into something else, a question, whose
 * answer is kept in the user settings so it is asked once. Undefined: the user cancelled.
 */
async function askNeutral(format: ExportFormat, neutrals: number, given: unknown): Promise<NeutralMapping | undefined> {
  if ((NEUTRAL_MAPPING_CHOICES as readonly unknown[]).includes(given)) return given as NeutralMapping;
  const { exportNeutralAs: current, exportNeutralAsChosen } = readSettings().labels;
  if (format === 'agentprocessbench' || neutrals === 0) return current;
  if (exportNeutralAsChosen) return current;
  const picked = await vscode.window.showQuickPick(neutralItems(format, current), {
    title: `Export Labels: ${neutrals} Neutral Label(s)`,
    placeHolder: `How to write a neutral (0) label in ${format === 'trl' ? 'TRL (booleans)' : 'ProcessBench (first error)'} — kept in your settings`,
  });
  if (!picked) return undefined;
  await updateUserSetting('labels.exportNeutralAs', picked.neutral);
  return picked.neutral;
}

/**
 * Export Labels…: the labels of the active timeline's file (every rollout in it) → a format (quick
 * pick) → whose labels, when the file has more than one source → a file (save dialog) → core export.
 * Arguments (for scripts and tests): `{ format, source, path, neutral }` skip the matching questions.
 */
async function exportLabels(timelines: TimelineEditorProvider, arg?: unknown): Promise<void> {
  const active = activeLabels(timelines);
  if (!active) return;
  const { file, session } = active;
  const opts = (typeof arg === 'object' && arg !== null ? arg : {}) as { format?: unknown; source?: unknown; path?: unknown; neutral?: unknown };
  let format = FORMAT_ITEMS.find((f) => f.format === opts.format)?.format;
  if (!format) {
    const picked = await vscode.window.showQuickPick(FORMAT_ITEMS, { title: 'Export Labels: Format', placeHolder: 'Format to export the step labels in' });
    if (!picked) return;
    format = picked.format;
  }
  if (session.unsavedCount && !(await session.retry())) {
    void notifyWarning(`${session.unsavedCount} label change(s) are not saved yet and are left out of the export.`);
  }
  const current = session.current();
  const sources = labelSources(file.rollouts, current, session.annotator);
  let source = typeof opts.source === 'string' && sources.includes(opts.source) ? opts.source : undefined;
  if (!source) {
    if (sources.length === 1) source = sources[0];
    else {
      const picked = await vscode.window.showQuickPick(
        sources.map((s) => ({ label: s === REFERENCE ? 'Reference labels' : s, description: s === session.annotator ? 'you' : s === REFERENCE ? 'the labels that came with the data' : 'annotator', source: s })),
        { title: 'Export Labels: Whose Labels', placeHolder: 'Labels to export' },
      );
      if (!picked) return;
      source = picked.source;
    }
  }
  const neutral = await askNeutral(format, neutralCount(file.rollouts.map((r) => labelsFrom(r, current, source))), opts.neutral);
  if (!neutral) return;
  let target: string | undefined = typeof opts.path === 'string' ? opts.path : undefined;
  if (!target) {
    const uri = await vscode.window.showSaveDialog({
      title: 'Export Labels',
      saveLabel: 'Export',
      defaultUri: vscode.Uri.file(defaultExportPath(file.path, format)),
      filters: format === 'processbench' ? { JSON: ['json'] } : { 'JSON Lines': ['jsonl'] },
    });
    if (!uri) return;
    target = uri.fsPath;
  }
  const out = exportFileLabels(file.rollouts, current, source, format, neutral);
  if (out.result.rows.length === 0) {
    void notifyWarning(`Nothing to export: ${out.summary}.`);
    return;
  }
  await fs.promises.mkdir(path.dirname(target), { recursive: true });
  await fs.promises.writeFile(target, out.result.text, 'utf8');
  timelines.output.info(`labels: exported ${out.summary} as ${format} to ${target}`);
  void notifyInfo(`Exported ${out.summary} to ${target}.`, 'Open').then((a) => {
    if (a === 'Open') void vscode.window.showTextDocument(vscode.Uri.file(target!));
  });
}

/**
 * Show Label Agreement: two label sources of the active timeline's file (annotators, the reference
 * labels) → Cohen's kappa, confusion and first-error agreement (core/labels/agreement.ts), shown as
 * a Markdown report beside the timeline — the same text `trajectory-inspector agreement` prints.
 * Arguments (for scripts and tests): `{ a, b }` skip the questions.
 */
async function showAgreement(timelines: TimelineEditorProvider, arg?: unknown): Promise<void> {
  const active = activeLabels(timelines);
  if (!active) return;
  const { file, session } = active;
  const current = session.current();
  const sources = labelSources(file.rollouts, current, session.annotator);
  if (sources.length < 2) {
    void notifyInfo(
      `Agreement needs two sets of labels on this file (found: ${sources.map((s) => (s === REFERENCE ? 'reference labels' : s)).join(', ') || 'none'}).`,
    );
    return;
  }
  const opts = (typeof arg === 'object' && arg !== null ? arg : {}) as { a?: unknown; b?: unknown };
  const pick = async (title: string, except: string | null): Promise<string | undefined> => {
    const items = sources.filter((s) => s !== except).map((s) => ({ label: s === REFERENCE ? 'Reference labels' : s, source: s }));
    if (items.length === 1) return items[0].source;
    return (await vscode.window.showQuickPick(items, { title }))?.source;
  };
  const a = typeof opts.a === 'string' && sources.includes(opts.a) ? opts.a : await pick('Label Agreement: First Labels', null);
  if (!a) return;
  const b = typeof opts.b === 'string' && sources.includes(opts.b) && opts.b !== a ? opts.b : await pick('Label Agreement: Compared With', a);
  if (!b) return;
  const items = file.rollouts.map((r) => ({ rollout: r, a: labelsFrom(r, current, a).steps, b: labelsFrom(r, current, b).steps }));
  const report: AgreementReport = { a, b, annotators: annotatorAgreement(items, { a, b }), scores: null };
  const content = [
    `# Label agreement: ${a} vs ${b}`,
    '',
    `File: \`${file.path}\` (${file.rollouts.length} rollout(s)). Neutral steps are left out; κ is Cohen's kappa over the steps both sides labelled.`,
    '',
    '```',
    agreementText(report).trimEnd(),
    '```',
    '',
  ].join('\n');
  const doc = await vscode.workspace.openTextDocument({ language: 'markdown', content });
  await vscode.window.showTextDocument(doc, { viewColumn: vscode.ViewColumn.Beside, preview: true });
}

/** The labelling commands. */
export function labelCommands(timelines: TimelineEditorProvider): CommandTable {
  return [
    ...LABEL_ACTION_COMMANDS.map(([id, action]) => ({ id, run: () => labelAction(timelines, action) })),
    {
      id: COMMANDS.undoLabel,
      run: async () => {
        const p = activeOrExplain(timelines);
        if (p) await p.undoLabel();
      },
    },
    {
      id: COMMANDS.redoLabel,
      run: async () => {
        const p = activeOrExplain(timelines);
        if (p) await p.redoLabel();
      },
    },
    { id: COMMANDS.labelRollout, run: (value?: unknown) => labelRollout(timelines, value) },
    { id: COMMANDS.exportLabels, run: (opts?: unknown) => exportLabels(timelines, opts) },
    { id: COMMANDS.showAgreement, run: (opts?: unknown) => showAgreement(timelines, opts) },
  ];
}
