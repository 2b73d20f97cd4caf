/**
 * Filter Rollouts…: one quick pick with the outcome filters (as before) and the refinements of
 * issue 8 — reward range, step range, format, task text, label state (has a bad step, unlabelled,
 * labelled) and score state — plus "Clear all filters". Each choice applies at once; ranges and
 * task text are typed in an input box (`0.5`, `0.2-0.8`, `<=3`).
 *
 * Arguments (keybindings, scripts, tests): an outcome filter (`all`, `passed`, `failed`, `unknown`)
 * or `{ refine: { minReward, maxReward, minSteps, maxSteps, formats, task, labels } }` (null clears).
 */
import * as vscode from 'vscode';
import { FormatId } from '../core/model';
import {
  FILTER_LABELS,
  LABEL_FILTERS,
  LABEL_FILTER_LABELS,
  OUTCOME_FILTERS,
  isOutcomeFilter,
  parseRange,
  refineDescription,
  type LabelFilter,
  type OutcomeFilter,
  type RolloutRefine,
} from './rolloutTree';
import type { RolloutsView } from './rolloutsView';

type Choice =
  | { kind: 'outcome'; filter: OutcomeFilter }
  | { kind: 'reward' | 'steps' | 'format' | 'task' | 'clear' }
  | { kind: 'labels'; labels: LabelFilter | null };

type Item = vscode.QuickPickItem & { choice?: Choice };

function isRefineArg(v: unknown): v is { refine: RolloutRefine | null } {
  return typeof v === 'object' && v !== null && 'refine' in v;
}

/** Runs Filter Rollouts… (see the module comment). */
export async function filterRolloutsPick(rollouts: RolloutsView, arg?: unknown): Promise<void> {
  if (isOutcomeFilter(arg)) return rollouts.setFilter(arg);
  if (isRefineArg(arg)) return rollouts.setRefine(arg.refine ?? undefined);
  const current = rollouts.treeOptions;
  const refine: RolloutRefine = { ...(current.refine ?? {}) };
  const items: Item[] = [
    { label: 'Outcome', kind: vscode.QuickPickItemKind.Separator },
    ...OUTCOME_FILTERS.map((f) => ({ label: FILTER_LABELS[f].label, description: f === current.filter ? 'current' : '', detail: FILTER_LABELS[f].detail, choice: { kind: 'outcome', filter: f } as Choice })),
    { label: 'Reward, length, format, task', kind: vscode.QuickPickItemKind.Separator },
    { label: '$(graph-line) Reward range…', description: describeRange(refine.minReward, refine.maxReward), choice: { kind: 'reward' } },
    { label: '$(list-ordered) Step count range…', description: describeRange(refine.minSteps, refine.maxSteps), choice: { kind: 'steps' } },
    { label: '$(file-code) Format…', description: refine.formats?.join(', ') ?? '', choice: { kind: 'format' } },
    { label: '$(tasklist) Task contains…', description: refine.task ?? '', choice: { kind: 'task' } },
    { label: 'Labels and scores', kind: vscode.QuickPickItemKind.Separator },
    ...LABEL_FILTERS.map((l) => ({ label: LABEL_FILTER_LABELS[l].label, description: refine.labels === l ? 'current' : '', detail: LABEL_FILTER_LABELS[l].detail, choice: { kind: 'labels', labels: l } as Choice })),
    { label: 'Any label state', description: !refine.labels ? 'current' : '', choice: { kind: 'labels', labels: null } },
    { label: '', kind: vscode.QuickPickItemKind.Separator },
    { label: '$(clear-all) Clear all filters', description: refineDescription(current.refine), choice: { kind: 'clear' } },
  ];
  const picked = await vscode.window.showQuickPick(items, { title: 'Filter Rollouts', placeHolder: 'Show the rollouts that…', matchOnDetail: true });
  const c = picked?.choice;
  if (!c) return;
  switch (c.kind) {
    case 'outcome':
      return rollouts.setFilter(c.filter);
    case 'clear':
      await rollouts.setFilter('all');
      return rollouts.setRefine(undefined);
    case 'labels':
      return rollouts.setRefine({ ...refine, labels: c.labels });
    case 'reward':
    case 'steps': {
      const r = await askRange(c.kind === 'reward' ? 'Reward range' : 'Step count range', c.kind === 'reward' ? describeRange(refine.minReward, refine.maxReward) : describeRange(refine.minSteps, refine.maxSteps));
      if (!r) return;
      return rollouts.setRefine(c.kind === 'reward' ? { ...refine, minReward: r.min, maxReward: r.max } : { ...refine, minSteps: r.min, maxSteps: r.max });
    }
    case 'format': {
      const formats = FormatId.options.map((f) => ({ label: f, picked: refine.formats?.includes(f) ?? false }));
      const chosen = await vscode.window.showQuickPick(formats, { title: 'Formats to show (none = all)', canPickMany: true });
      if (!chosen) return;
      return rollouts.setRefine({ ...refine, formats: chosen.map((x) => x.label as FormatId) });
    }
    case 'task': {
      const t = await vscode.window.showInputBox({ title: 'Task contains', prompt: 'Text the task id must contain (case ignored); empty shows every task', value: refine.task ?? '' });
      if (t === undefined) return;
      return rollouts.setRefine({ ...refine, task: t.trim() || null });
    }
  }
}

function describeRange(min: number | null | undefined, max: number | null | undefined): string {
  const lo = min ?? null;
  const hi = max ?? null;
  if (lo !== null && hi !== null) return `${lo}-${hi}`;
  if (lo !== null) return `>=${lo}`;
  if (hi !== null) return `<=${hi}`;
  return '';
}

async function askRange(title: string, value: string): Promise<{ min: number | null; max: number | null } | null> {
  const text = await vscode.window.showInputBox({
    title,
    value,
    prompt: '`0.5` (at least), `0.2-0.8` (between), `<=3` (at most); empty for no bound',
    validateInput: (t) => (parseRange(t) ? null : 'Type a number, a range like 0.2-0.8, or <=3 / >=3'),
  });
  if (text === undefined) return null;
  return parseRange(text);
}
