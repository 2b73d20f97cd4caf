/**
 * Filter Rollouts…: one quick pick with the outcome filters (as before) and the refinements —
 * reward range, step range, format, task text, label state (has a bad step, unlabelled,
 * labelled) and score state — plus "Clear all filters". Each choice applies at once; ranges and
 * task text are typed in an input box (`0.5`, `0.2-0.8`, `<=3`). The pick's own box also takes a line
 * in the search syntax of Search Rollouts… (`reward>=0.5 outcome:failed task`), applied as one.
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
  rolloutFilterFromText,
  type LabelFilter,
  type OutcomeFilter,
  type RolloutRefine,
} from './rolloutTree';
import type { RolloutsView } from './rolloutsView';
import { SearchError } from '../core/search/workspaceSearch';

type Choice =
  | { kind: 'outcome'; filter: OutcomeFilter }
  | { kind: 'reward' | 'steps' | 'format' | 'task' | 'clear' }
  | { kind: 'labels'; labels: LabelFilter | null }
  | { kind: 'query'; filter: OutcomeFilter | null; refine: RolloutRefine };

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
  const picked = await pickWithQuery(items, refine);
  const c = picked?.choice;
  if (!c) return;
  switch (c.kind) {
    case 'query':
      if (c.filter) await rollouts.setFilter(c.filter);
      return rollouts.setRefine(c.refine);
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

/**
 * The pick of choices, whose box also takes a query in the search syntax (`reward>=0.5
 * outcome:failed django`, rolloutTree.ts rolloutFilterFromText): while the box holds one, an
 * "Apply" item heads the list (or the syntax error, which cannot be picked). Resolves to the item
 * accepted, or undefined when dismissed.
 */
function pickWithQuery(items: Item[], refine: RolloutRefine): Promise<Item | undefined> {
  return new Promise((resolve) => {
    const pick = vscode.window.createQuickPick<Item>();
    pick.title = 'Filter Rollouts';
    pick.placeholder = 'Pick a filter, or type one: reward>=0.5 outcome:failed task-text (the syntax of Search Rollouts…)';
    pick.matchOnDetail = true;
    pick.items = items;
    let done = false;
    const finish = (v: Item | undefined) => {
      if (done) return;
      done = true;
      resolve(v);
      pick.dispose();
    };
    pick.onDidChangeValue((text) => {
      let head: Item | null = null;
      try {
        const q = rolloutFilterFromText(text);
        // Labels, formats and step ranges set in the pick stay; the typed query replaces reward and task.
        if (q) {
          const merged: RolloutRefine = { ...refine, minReward: q.refine.minReward ?? null, maxReward: q.refine.maxReward ?? null, task: q.refine.task ?? null };
          const said = [q.filter && q.filter !== 'all' ? q.filter : '', refineDescription(q.refine)].filter(Boolean).join(' · ');
          head = { label: `$(filter) Apply: ${text.trim()}`, description: said, alwaysShow: true, choice: { kind: 'query', filter: q.filter, refine: merged } };
        }
      } catch (e) {
        if (!(e instanceof SearchError)) throw e;
        head = { label: `$(error) ${e.message}`, alwaysShow: true };
      }
      // A line with filter words leads (and is the default); plain text may be fuzzy-matching the choices, so it trails.
      const hasFilter = head?.choice?.kind !== 'query' || head.choice.filter !== null || head.choice.refine.minReward !== null || head.choice.refine.maxReward !== null;
      pick.items = !head ? items : hasFilter ? [head, ...items] : [...items, head];
      if (head && hasFilter) pick.activeItems = [head];
    });
    pick.onDidAccept(() => {
      const sel = pick.activeItems[0] ?? pick.selectedItems[0];
      if (sel && !sel.choice) return;
      finish(sel);
    });
    pick.onDidHide(() => finish(undefined));
    pick.show();
  });
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
