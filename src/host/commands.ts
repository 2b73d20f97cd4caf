/**
 * The ids of the timeline's, the Rollouts view's and the labelling commands (a contract with
 * package.json, the e2e tests and users' keybindings: keep them stable), and the command tables of
 * the timeline and the Rollouts view (the labelling ones are in host/labelCommands.ts).
 */
import * as vscode from 'vscode';
import type { CommandTable } from './commandTable';
import { notifyInfo } from './notify';
import { stepsByWindows } from './pagedRollout';
import { parseStepNumber, stepPickItems, type StepPickItem } from './stepPick';
import { filterRolloutsPick } from './rolloutFilterPick';
import { SORT_KEYS, SORT_LABELS, isSortKey } from './rolloutTree';
import { OPEN_ROLLOUT_COMMAND, type RolloutsView } from './rolloutsView';
import type { TimelinePanel } from './timeline/timelinePanel';
import { TIMELINE_VIEW_TYPE, type TimelineEditorProvider } from './timelineEditor';

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

/** The timeline the step commands act on, or null (having told the user to open one). */
export function activeOrExplain(timelines: TimelineEditorProvider): TimelinePanel | null {
  const p = timelines.activePanel;
  if (!p) void notifyInfo('Open a rollout in the Trajectory Inspector timeline first.');
  return p;
}

/** Go to Step: a quick pick of the steps; typing a number (as shown, 1-based) jumps to that step. */
async function goToStep(timelines: TimelineEditorProvider, index?: unknown): Promise<void> {
  const panel = activeOrExplain(timelines);
  if (!panel) return;
  const rollout = panel.rollout;
  // A rollout read by windows (pagedRollout.ts) has its count, not its steps, in memory.
  const count = panel.stepCount;
  if (!rollout || count === 0) {
    void notifyInfo('This timeline has no steps to go to.');
    return;
  }
  // Programmatic use: goToStep(<0-based index>).
  if (typeof index === 'number' && Number.isInteger(index) && index >= 0 && index < count) {
    panel.revealStep(index);
    return;
  }
  const byWindows = stepsByWindows(rollout) !== null;
  const qp = vscode.window.createQuickPick<StepPickItem & vscode.QuickPickItem>();
  qp.title = 'Go to Step';
  // Read by windows: a step number only (a list of every step would hold them all); the webview reads the picked step's window.
  qp.placeholder = byWindows ? `Step number (1–${count}): this rollout's steps are read by windows, so they are not listed here` : `Step number (1–${count}) or text from the step`;
  qp.matchOnDescription = true;
  qp.items = byWindows ? [] : stepPickItems(rollout);
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

/** Acts on the active timeline, or says that the timeline is not shown yet when it cannot. */
function onShownTimeline(timelines: TimelineEditorProvider, act: (p: TimelinePanel) => boolean): void {
  const p = activeOrExplain(timelines);
  if (p && !act(p)) void notifyInfo(NOT_SHOWN_YET);
}

/** What a command on a timeline whose webview is not up yet says. */
export const NOT_SHOWN_YET = 'The timeline is not shown yet: bring it to the front and try again.';

/** The timeline's commands: steps, follow, the raw file, opening files and rollouts in it. */
export function timelineCommands(timelines: TimelineEditorProvider): CommandTable {
  return [
    { id: COMMANDS.goToStep, run: (index?: unknown) => goToStep(timelines, index) },
    {
      id: COMMANDS.showInSource,
      run: async () => {
        const p = activeOrExplain(timelines);
        if (p) await p.showInSource();
      },
    },
    { id: COMMANDS.openWithTimeline, run: (uri?: unknown) => openWithTimeline(uri) },
    { id: COMMANDS.nextStep, run: () => activeOrExplain(timelines)?.moveSelection(1) },
    { id: COMMANDS.previousStep, run: () => activeOrExplain(timelines)?.moveSelection(-1) },
    { id: COMMANDS.toggleFollow, run: (on?: unknown) => onShownTimeline(timelines, (p) => p.followAction(typeof on === 'boolean' ? on : undefined)) },
    {
      id: COMMANDS.openRollout,
      run: async (uri: unknown, rollout?: unknown) => {
        if (!(uri instanceof vscode.Uri)) return;
        if (typeof rollout === 'number' && Number.isInteger(rollout) && rollout >= 0) await timelines.openRollout(uri, rollout);
        else await vscode.commands.executeCommand('vscode.openWith', uri, TIMELINE_VIEW_TYPE);
      },
    },
  ];
}

/** The Rollouts view's commands (Refresh also reloads the open timelines). */
export function rolloutsCommands(rollouts: RolloutsView, timelines: TimelineEditorProvider): CommandTable {
  return [
    {
      id: COMMANDS.refresh,
      run: () => {
        rollouts.refresh();
        timelines.reloadAll();
      },
    },
    { id: COMMANDS.sortRollouts, run: (key?: unknown) => sortRollouts(rollouts, key) },
    { id: COMMANDS.filterRollouts, run: (filter?: unknown) => filterRollouts(rollouts, filter) },
  ];
}
