/**
 * The extension's commands (ids are a contract with package.json, the e2e tests and users'
 * keybindings: keep them stable).
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { annotatorAgreement } from '../core/labels/agreement';
import { agreementText, type AgreementReport } from '../core/labels/report';
import { labelsFrom, REFERENCE, type NeutralMapping } from '../core/labels/select';
import type { LabelAction } from '../shared/protocol';
import { DEFAULT_EXPORT_NEUTRAL, NEUTRAL_MAPPING_CHOICES } from '../shared/settings';
import { SECTION } from './config';
import type { ExportFormat } from '../core/labels/export';
import { FORMAT_ITEMS, defaultExportPath, exportFileLabels, labelSources, neutralCount, neutralItems } from './labelExport';
import { parseStepNumber, stepPickItems, type StepPickItem } from './present';
import { filterRolloutsPick } from './rolloutFilterPick';
import { SORT_KEYS, SORT_LABELS, isSortKey } from './rolloutTree';
import { OPEN_ROLLOUT_COMMAND, type RolloutsView } from './rolloutsView';
import { TIMELINE_VIEW_TYPE, type TimelineEditorProvider, type TimelinePanel } from './timelineEditor';

export const COMMANDS = {
  goToStep: 'trajectoryInspector.goToStep',
  showInSource: 'trajectoryInspector.showInSource',
  refresh: 'trajectoryInspector.refresh',
  openWithTimeline: 'trajectoryInspector.openWithTimeline',
  nextStep: 'trajectoryInspector.nextStep',
  toggleFollow: 'trajectoryInspector.toggleFollow',
  previousStep: 'trajectoryInspector.previousStep',
  openRollout: OPEN_ROLLOUT_COMMAND,
  sortRollouts: 'trajectoryInspector.sortRollouts',
  filterRollouts: 'trajectoryInspector.filterRollouts',
  labelGood: 'trajectoryInspector.labelGood',
  labelNeutral: 'trajectoryInspector.labelNeutral',
  labelBad: 'trajectoryInspector.labelBad',
  clearLabel: 'trajectoryInspector.clearLabel',
  markFirstError: 'trajectoryInspector.markFirstError',
  addNote: 'trajectoryInspector.addNote',
  commitAndNext: 'trajectoryInspector.commitAndNext',
  undoLabel: 'trajectoryInspector.undoLabel',
  redoLabel: 'trajectoryInspector.redoLabel',
  showLabelKeys: 'trajectoryInspector.showLabelKeys',
  labelRollout: 'trajectoryInspector.labelRollout',
  exportLabels: 'trajectoryInspector.exportLabels',
  showAgreement: 'trajectoryInspector.showAgreement',
} as const;

/** The labelling commands that do what their key does in the timeline. */
const LABEL_ACTION_COMMANDS: [string, LabelAction][] = [
  [COMMANDS.labelGood, 'good'],
  [COMMANDS.labelNeutral, 'neutral'],
  [COMMANDS.labelBad, 'bad'],
  [COMMANDS.clearLabel, 'clear'],
  [COMMANDS.markFirstError, 'firstError'],
  [COMMANDS.addNote, 'note'],
  [COMMANDS.commitAndNext, 'commitAndNext'],
  [COMMANDS.showLabelKeys, 'showKeys'],
];

function activeOrExplain(timelines: TimelineEditorProvider): TimelinePanel | null {
  const p = timelines.activePanel;
  if (!p) void vscode.window.showInformationMessage('Open a rollout in the Trajectory Inspector timeline first.');
  return p;
}

/** The active timeline's file and label session, or null (having told the user why). */
function activeLabels(timelines: TimelineEditorProvider): { file: NonNullable<TimelinePanel['loadedFile']>; session: NonNullable<TimelinePanel['labels']> } | null {
  const p = activeOrExplain(timelines);
  if (!p) return null;
  if (!p.loadedFile || !p.labels) {
    void vscode.window.showInformationMessage('The labels of this timeline are not loaded yet.');
    return null;
  }
  return { file: p.loadedFile, session: p.labels };
}

/** Go to Step: a quick pick of the steps; typing a number (as shown, 1-based) jumps to that step. */
async function goToStep(timelines: TimelineEditorProvider, index?: unknown): Promise<void> {
  const panel = activeOrExplain(timelines);
  if (!panel) return;
  const rollout = panel.rollout;
  if (!rollout || rollout.steps.length === 0) {
    void vscode.window.showInformationMessage('This timeline has no steps to go to.');
    return;
  }
  // Programmatic use: goToStep(<0-based index>).
  if (typeof index === 'number' && Number.isInteger(index) && index >= 0 && index < rollout.steps.length) {
    panel.revealStep(index);
    return;
  }
  const count = rollout.steps.length;
  const qp = vscode.window.createQuickPick<StepPickItem & vscode.QuickPickItem>();
  qp.title = 'Go to Step';
  qp.placeholder = `Step number (1–${count}) or text from the step`;
  qp.matchOnDescription = true;
  qp.items = stepPickItems(rollout);
  const current = panel.selectedStep;
  if (current !== null && qp.items[current]) qp.activeItems = [qp.items[current]];
  const picked = await new Promise<number | null>((resolve) => {
    qp.onDidAccept(() => {
      const typed = parseStepNumber(qp.value, count);
      resolve(typed ?? qp.selectedItems[0]?.index ?? qp.activeItems[0]?.index ?? null);
      qp.hide();
    });
    qp.onDidHide(() => resolve(null));
    qp.show();
  });
  qp.dispose();
  if (picked !== null && !panel.isDisposed) panel.revealStep(picked);
}

/** Opens a file with the timeline (explorer context menu, command palette on the active file). */
async function openWithTimeline(uri?: unknown): Promise<void> {
  let target = uri instanceof vscode.Uri ? uri : undefined;
  target ??= vscode.window.activeTextEditor?.document.uri;
  // Run as the command that activates the extension, the active editor may not be known to it yet:
  // the active tab is (a text tab, or a custom editor's).
  if (!target) {
    const input = vscode.window.tabGroups.activeTabGroup.activeTab?.input;
    if (input instanceof vscode.TabInputText || input instanceof vscode.TabInputCustom) target = input.uri;
  }
  if (!target) {
    const picked = await vscode.window.showOpenDialog({
      canSelectMany: false,
      openLabel: 'Open in Trajectory Inspector',
      filters: { Rollouts: ['json', 'jsonl', 'traj'], 'All files': ['*'] },
    });
    target = picked?.[0];
  }
  if (target) await vscode.commands.executeCommand('vscode.openWith', target, TIMELINE_VIEW_TYPE);
}

/**
 * Sort Rollouts By…: a quick pick of the sort keys (the current one marked); a key given as the
 * argument (`name`, `reward`, `steps`, `outcome`) is applied without asking.
 */
async function sortRollouts(rollouts: RolloutsView, key?: unknown): Promise<void> {
  if (isSortKey(key)) return rollouts.setSort(key);
  const current = rollouts.treeOptions.sort;
  const items = SORT_KEYS.map((k) => ({ key: k, label: SORT_LABELS[k].label, description: k === current ? 'current' : '', detail: SORT_LABELS[k].detail }));
  const picked = await vscode.window.showQuickPick(items, { title: 'Sort Rollouts By', placeHolder: 'Order of collections, tasks, groups and rollouts' });
  if (picked) await rollouts.setSort(picked.key);
}

/**
 * Filter Rollouts…: a quick pick of the outcome filters (the current one marked); a filter given as
 * the argument (`all`, `passed`, `failed`, `unknown`) is applied without asking.
 */
async function filterRollouts(rollouts: RolloutsView, filter?: unknown): Promise<void> {
  // Outcome filters plus reward / length / format / task / label refinements.
  return filterRolloutsPick(rollouts, filter);
}

/** Runs a labelling key's action in the active timeline (it acts on the selected step). */
function labelAction(timelines: TimelineEditorProvider, action: LabelAction): void {
  const p = activeOrExplain(timelines);
  if (!p) return;
  if (!p.labelAction(action)) void vscode.window.showInformationMessage('The timeline is not shown yet: bring it to the front and try again.');
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
  const current = readNeutral();
  if (format === 'agentprocessbench' || neutrals === 0) return current;
  const ins = vscode.workspace.getConfiguration(SECTION).inspect('labels.exportNeutralAs');
  if (ins && (ins.globalValue !== undefined || ins.workspaceValue !== undefined || ins.workspaceFolderValue !== undefined)) return current;
  const picked = await vscode.window.showQuickPick(neutralItems(format, current), {
    title: `Export Labels: ${neutrals} Neutral Label(s)`,
    placeHolder: `How to write a neutral (0) label in ${format === 'trl' ? 'TRL (booleans)' : 'ProcessBench (first error)'} — kept in your settings`,
  });
  if (!picked) return undefined;
  await vscode.workspace.getConfiguration(SECTION).update('labels.exportNeutralAs', picked.neutral, vscode.ConfigurationTarget.Global);
  return picked.neutral;
}

function readNeutral(): NeutralMapping {
  const v = vscode.workspace.getConfiguration(SECTION).get<unknown>('labels.exportNeutralAs');
  return (NEUTRAL_MAPPING_CHOICES as readonly unknown[]).includes(v) ? (v as NeutralMapping) : DEFAULT_EXPORT_NEUTRAL;
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
    void vscode.window.showWarningMessage(`${session.unsavedCount} label change(s) are not saved yet and are left out of the export.`);
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
    void vscode.window.showWarningMessage(`Nothing to export: ${out.summary}.`);
    return;
  }
  await fs.promises.mkdir(path.dirname(target), { recursive: true });
  await fs.promises.writeFile(target, out.result.text, 'utf8');
  timelines.output.info(`labels: exported ${out.summary} as ${format} to ${target}`);
  void vscode.window.showInformationMessage(`Exported ${out.summary} to ${target}.`, 'Open').then((a) => {
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
    void vscode.window.showInformationMessage(
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

export function registerCommands(timelines: TimelineEditorProvider, rollouts: RolloutsView): vscode.Disposable {
  const reg = vscode.commands.registerCommand;
  return vscode.Disposable.from(
    reg(COMMANDS.goToStep, (index?: unknown) => goToStep(timelines, index)),
    reg(COMMANDS.showInSource, async () => {
      const p = activeOrExplain(timelines);
      if (p) await p.showInSource();
    }),
    reg(COMMANDS.refresh, () => {
      rollouts.refresh();
      timelines.reloadAll();
    }),
    reg(COMMANDS.openWithTimeline, (uri?: unknown) => openWithTimeline(uri)),
    reg(COMMANDS.sortRollouts, (key?: unknown) => sortRollouts(rollouts, key)),
    reg(COMMANDS.filterRollouts, (filter?: unknown) => filterRollouts(rollouts, filter)),
    reg(COMMANDS.nextStep, () => activeOrExplain(timelines)?.moveSelection(1)),
    reg(COMMANDS.toggleFollow, (on?: unknown) => {
      const p = activeOrExplain(timelines);
      if (p && !p.followAction(typeof on === 'boolean' ? on : undefined)) void vscode.window.showInformationMessage('The timeline is not shown yet: bring it to the front and try again.');
    }),
    reg(COMMANDS.previousStep, () => activeOrExplain(timelines)?.moveSelection(-1)),
    ...LABEL_ACTION_COMMANDS.map(([id, action]) => reg(id, () => labelAction(timelines, action))),
    reg(COMMANDS.undoLabel, async () => {
      const p = activeOrExplain(timelines);
      if (p) await p.undoLabel();
    }),
    reg(COMMANDS.redoLabel, async () => {
      const p = activeOrExplain(timelines);
      if (p) await p.redoLabel();
    }),
    reg(COMMANDS.labelRollout, (value?: unknown) => labelRollout(timelines, value)),
    reg(COMMANDS.exportLabels, (opts?: unknown) => exportLabels(timelines, opts)),
    reg(COMMANDS.showAgreement, (opts?: unknown) => showAgreement(timelines, opts)),
    reg(COMMANDS.openRollout, async (uri: unknown, rollout?: unknown) => {
      if (!(uri instanceof vscode.Uri)) return;
      if (typeof rollout === 'number' && Number.isInteger(rollout) && rollout >= 0) await timelines.openRollout(uri, rollout);
      else await vscode.commands.executeCommand('vscode.openWith', uri, TIMELINE_VIEW_TYPE);
    }),
  );
}
