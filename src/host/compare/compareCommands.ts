/**
 * Compare, group and search commands (ids are a contract with package.json, the e2e tests and keybindings):
 * - Compare Rollouts…: the two rollouts selected in the Rollouts view (context menu, title bar or
 *   palette), else picked (from the view's rollouts, or files); argument
 *   `{ left: {path, index}, right: {path, index} }` skips the questions.
 * - Compare With…: the rollout it is run on, and one picked.
 * - Show Group: the rollouts of a GRPO group node, the trials of a task node of a job / run
 *   folder, or a rollout with its branches from one step (argument `{ path, groupId }` too).
 * - Search Rollouts…, Cancel Search, Clear Search Results, and the result click (internal).
 */
import * as path from 'node:path';
import * as vscode from 'vscode';
import { countedSteps } from '../../core/model';
import type { CommandTable } from '../commandTable';
import { notifyInfo } from '../notify';
import type { TreeNode } from '../rolloutTree';
import type { RolloutsView } from '../rolloutsView';
import { OPEN_SEARCH_RESULT_COMMAND, type SearchView } from '../search/searchView';
import type { ComparePanels, RolloutRef } from './comparePanel';

export const COMPARE_COMMANDS = {
  compareRollouts: 'trajectoryInspector.compareRollouts',
  compareWith: 'trajectoryInspector.compareWith',
  showGroup: 'trajectoryInspector.showGroup',
  searchRollouts: 'trajectoryInspector.searchRollouts',
  cancelSearch: 'trajectoryInspector.cancelSearch',
  clearSearch: 'trajectoryInspector.clearSearch',
  openSearchResult: OPEN_SEARCH_RESULT_COMMAND,
} as const;

function isNode(v: unknown): v is TreeNode {
  return typeof v === 'object' && v !== null && typeof (v as { kind?: unknown }).kind === 'string' && typeof (v as { id?: unknown }).id === 'string';
}

function isRef(v: unknown): v is RolloutRef {
  return typeof v === 'object' && v !== null && typeof (v as RolloutRef).path === 'string' && Number.isInteger((v as RolloutRef).index) && (v as RolloutRef).index >= 0;
}

/** The rollout a tree node stands for: a rollout leaf, or a file holding one rollout. */
function refOf(n: TreeNode): RolloutRef | null {
  if (n.kind === 'rollout') return { path: n.path, index: n.rollout.index };
  if (n.kind === 'file' && n.state.kind === 'loaded' && n.state.rollouts.length === 1) return { path: n.path, index: n.state.rollouts[0].index };
  return null;
}

type PickItem = vscode.QuickPickItem & { ref?: RolloutRef; files?: true };

/** Asks for one rollout: from the Rollouts view (same task first), or a file. */
async function pickRollout(panels: ComparePanels, rollouts: RolloutsView, title: string, except: RolloutRef | null): Promise<RolloutRef | null> {
  const all = rollouts.visibleRollouts();
  const first = except ? all.find((r) => r.path === except.path && r.index === except.index) : undefined;
  // Rollouts of the same task (or GRPO group) as the first one come first.
  const kin = (r: (typeof all)[number]): boolean => !!first && ((first.taskId !== null && r.taskId === first.taskId) || (first.groupId !== null && r.groupId === first.groupId));
  const visible = all.filter((r) => !(except && r.path === except.path && r.index === except.index));
  const ordered = [...visible.filter(kin), ...visible.filter((r) => !kin(r))];
  const items: PickItem[] = ordered.map((r) => ({
    label: `${path.basename(path.dirname(r.path))}/${path.basename(r.path)}${r.index > 0 ? ` #${r.index + 1}` : ''}`,
    description: [kin(r) ? 'same task' : '', r.taskId ?? '', r.groupId !== null ? `group ${r.groupId}` : ''].filter(Boolean).join(' · '),
    detail: r.id,
    ref: { path: r.path, index: r.index },
  }));
  items.push({ label: '$(folder-opened) Choose a file…', files: true });
  const picked = await vscode.window.showQuickPick(items, { title, placeHolder: 'Rollout to compare', matchOnDetail: true, matchOnDescription: true });
  if (!picked) return null;
  if (picked.ref) return picked.ref;
  const uris = await vscode.window.showOpenDialog({ canSelectMany: false, openLabel: 'Compare', filters: { Rollouts: ['json', 'jsonl', 'traj', 'eval'], 'All files': ['*'] } });
  const file = uris?.[0]?.fsPath;
  if (!file) return null;
  const loaded = await panels.files.loader.load(file);
  if (loaded.rollouts.length <= 1) return { path: file, index: 0 };
  const which = await vscode.window.showQuickPick(
    loaded.rollouts.map((r, i) => ({ label: `#${i + 1}${r.task.id ? ` ${r.task.id}` : ''}`, description: `${countedSteps(r)} steps · reward ${r.outcome.reward ?? '—'}`, detail: r.id, index: i })),
    { title: `${path.basename(file)}: which rollout?` },
  );
  return which ? { path: file, index: which.index } : null;
}

async function compareRollouts(panels: ComparePanels, rollouts: RolloutsView, arg?: unknown, selection?: unknown): Promise<void> {
  if (typeof arg === 'object' && arg !== null && isRef((arg as { left?: unknown }).left) && isRef((arg as { right?: unknown }).right)) {
    const a = arg as { left: RolloutRef; right: RolloutRef };
    await panels.openCompare(a.left, a.right);
    return;
  }
  // From the view's context menu: (clicked node, selected nodes); from the palette or the title
  // bar: the view's selection.
  let nodes = (Array.isArray(selection) ? selection : isNode(arg) ? [arg] : []).filter(isNode);
  if (nodes.length === 0) nodes = [...rollouts.selection];
  // Left and right in the view's order (selection order depends on how the user clicked).
  const order = new Map(rollouts.visibleRollouts().map((r, i) => [`${r.path}#${r.index}`, i]));
  const refs = nodes
    .map(refOf)
    .filter((r): r is RolloutRef => r !== null)
    .sort((a, b) => (order.get(`${a.path}#${a.index}`) ?? Infinity) - (order.get(`${b.path}#${b.index}`) ?? Infinity));
  let left: RolloutRef | null = refs[0] ?? null;
  let right: RolloutRef | null = refs[1] ?? null;
  left ??= await pickRollout(panels, rollouts, 'Compare Rollouts: First (left)', null);
  if (!left) return;
  right ??= await pickRollout(panels, rollouts, 'Compare Rollouts: Second (right)', left);
  if (!right) return;
  await panels.openCompare(left, right);
}

async function compareWith(panels: ComparePanels, rollouts: RolloutsView, arg?: unknown): Promise<void> {
  const left = isNode(arg) ? refOf(arg) : isRef(arg) ? arg : null;
  if (!left) return compareRollouts(panels, rollouts);
  const right = await pickRollout(panels, rollouts, 'Compare With…', left);
  if (right) await panels.openCompare(left, right);
}

/** The rollouts under a node (a task's trials), in the view's order. */
function refsUnder(n: TreeNode): RolloutRef[] {
  const out: RolloutRef[] = [];
  const walk = (x: TreeNode): void => {
    const r = x.kind === 'rollout' || x.kind === 'file' ? refOf(x) : null;
    if (r) out.push(r);
    else x.children.forEach(walk);
  };
  n.children.forEach(walk);
  return out;
}

async function showGroup(panels: ComparePanels, arg?: unknown): Promise<void> {
  if (isNode(arg) && arg.kind === 'group') {
    await panels.openGroup(arg.path, arg.groupId);
    return;
  }
  if (isNode(arg) && arg.kind === 'branches') {
    // The parent and its branches from one step, side by side with their outcomes.
    const refs = [{ path: arg.path, index: arg.parentIndex }, ...refsUnder(arg)];
    await panels.openGroupOf(`Branches from step ${arg.stepIndex !== null ? `#${arg.stepIndex + 1}` : '?'}`, `${path.basename(arg.path)} and ${refs.length - 1} branch(es)`, refs);
    return;
  }
  if (isNode(arg) && arg.kind === 'task') {
    const refs = refsUnder(arg);
    if (refs.length < 2) {
      void notifyInfo(`Task ${arg.label} has ${refs.length} read rollout(s) here: a group needs two.`);
      return;
    }
    await panels.openGroupOf(arg.label, `${refs.length} trials`, refs);
    return;
  }
  if (isNode(arg) && arg.kind === 'file') {
    await panels.openGroup(arg.path, null);
    return;
  }
  const a = arg as { path?: unknown; groupId?: unknown } | undefined;
  if (a && typeof a.path === 'string') {
    await panels.openGroup(a.path, typeof a.groupId === 'string' ? a.groupId : null);
    return;
  }
  void notifyInfo('Show Group works on a GRPO group or a task (its trials) in the Rollouts view.');
}

/** The compare and group commands. */
export function compareCommands(panels: ComparePanels, rollouts: RolloutsView): CommandTable {
  return [
    { id: COMPARE_COMMANDS.compareRollouts, run: (arg?: unknown, selection?: unknown) => compareRollouts(panels, rollouts, arg, selection) },
    { id: COMPARE_COMMANDS.compareWith, run: (arg?: unknown) => compareWith(panels, rollouts, arg) },
    { id: COMPARE_COMMANDS.showGroup, run: (arg?: unknown) => showGroup(panels, arg) },
  ];
}

/** The workspace search commands (the Search Rollouts view). */
export function searchCommands(search: SearchView): CommandTable {
  return [
    { id: COMPARE_COMMANDS.searchRollouts, run: (arg?: unknown) => search.search(arg) },
    { id: COMPARE_COMMANDS.cancelSearch, run: () => search.cancel() },
    { id: COMPARE_COMMANDS.clearSearch, run: () => search.clear() },
    { id: COMPARE_COMMANDS.openSearchResult, run: (file: unknown, rolloutIndex: unknown, stepIndex: unknown) => search.open(file, rolloutIndex, stepIndex) },
  ];
}
