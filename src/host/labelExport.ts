/**
 * The Export Labels command's logic without VS Code: which label sources a file offers, the
 * default output name, and the export itself through core `exportRows` (tested in
 * test/unit/host/labelExport.test.ts).
 */
import * as path from 'node:path';
import type { CurrentLabel } from '../core/labels/api';
import { exportRows, type ExportFormat, type ExportResult } from '../core/labels/export';
import { REFERENCE, annotatorsOf, labelsFrom, type NeutralMapping, type RolloutLabels } from '../core/labels/select';
import type { Rollout } from '../core/model';

/** Quick-pick rows of the formats. */
export const FORMAT_ITEMS: { format: ExportFormat; label: string; detail: string }[] = [
  { format: 'trl', label: 'TRL stepwise supervision', detail: 'JSONL: prompt, completions (one per agent step), labels as booleans (PRMTrainer)' },
  { format: 'agentprocessbench', label: 'AgentProcessBench', detail: 'JSONL: messages (OpenAI chat), step_labels +1/0/−1 by assistant message, final_label' },
  { format: 'processbench', label: 'ProcessBench', detail: 'JSON array: problem, steps, label = index of the first error (−1: none)' },
];

/** The label sources of a file: every annotator with labels (the user first), then the reference labels when the data has some. */
export function labelSources(rollouts: readonly Rollout[], current: CurrentLabel[], me: string): string[] {
  const names = annotatorsOf(current).filter((a) => a !== me);
  const out = annotatorsOf(current).includes(me) ? [me, ...names] : names;
  if (rollouts.some((r) => r.steps.some((s) => s.referenceLabel))) out.push(REFERENCE);
  return out.length ? out : [me];
}

/** `<file name without its extensions>.<format>.jsonl` (`.json` for ProcessBench) next to the rollout file. */
export function defaultExportPath(rolloutFile: string, format: ExportFormat): string {
  const base = path.basename(rolloutFile).replace(/(\.traj)?(\.json|\.jsonl|\.traj|\.eval|\.cast)$/i, '') || 'labels';
  return path.join(path.dirname(rolloutFile), `${base}.${format}.${format === 'processbench' ? 'json' : 'jsonl'}`);
}

/** How a neutral (0) label is written in `format` under `neutral`, for the dialog and the summary; null where the format keeps 0 (AgentProcessBench). */
export function neutralMeaning(format: ExportFormat, neutral: NeutralMapping): string | null {
  if (format === 'agentprocessbench') return null;
  if (format === 'trl') return neutral === 'negative' ? '`false`' : neutral === 'positive' ? '`true`' : 'no label (text joins the next labelled step)';
  return neutral === 'negative' ? 'an error' : 'no error';
}

/** Quick-pick rows of the neutral mappings for `format`, the setting's value first ("ask the first time" in the Export Labels command). */
export function neutralItems(format: ExportFormat, current: NeutralMapping): { neutral: NeutralMapping; label: string; description: string }[] {
  const order: NeutralMapping[] = [current, ...(['negative', 'positive', 'drop'] as NeutralMapping[]).filter((n) => n !== current)];
  const names: Record<NeutralMapping, string> = { negative: 'as wrong', positive: 'as correct', drop: 'leave out' };
  return order.map((n) => ({ neutral: n, label: `Neutral → ${neutralMeaning(format, n) ?? '0'}`, description: `${names[n]} (trajectoryInspector.labels.exportNeutralAs: ${n})` }));
}

/** How many neutral (0) step labels the items hold. */
export function neutralCount(items: readonly RolloutLabels[]): number {
  let n = 0;
  for (const it of items) for (const v of it.steps.values()) if (v === 0) n++;
  return n;
}

export interface FileExport {
  result: ExportResult;
  /** Labels left out because their step changed since they were given. */
  staleLeftOut: number;
  /** One line for the notification. */
  summary: string;
}

/** Exports the labels of `source` (an annotator, or `reference`) for every rollout of a file; the summary says how neutral labels were written. */
export function exportFileLabels(rollouts: readonly Rollout[], current: CurrentLabel[], source: string, format: ExportFormat, neutral: NeutralMapping): FileExport {
  const items = rollouts.map((r) => labelsFrom(r, current, source));
  const result = exportRows(format, items, neutral);
  const staleLeftOut = items.reduce((n, it) => n + it.staleLeftOut, 0);
  const parts = [`${result.rows.length} ${result.rows.length === 1 ? 'row' : 'rows'} (${source === REFERENCE ? 'reference labels' : `labels of ${source}`})`];
  if (result.skipped.length) parts.push(`${result.skipped.length} rollout(s) left out: ${result.skipped.map((s) => s.reason).slice(0, 2).join('; ')}`);
  if (staleLeftOut) parts.push(`${staleLeftOut} stale label(s) left out`);
  if (result.conflicts.rolloutIds.length) parts.push(`${result.conflicts.rolloutIds.length} rollout(s) with conflicting dataset labels left out`);
  const neutrals = neutralCount(items);
  const meaning = neutralMeaning(format, neutral);
  if (neutrals && meaning) parts.push(`${neutrals} neutral label(s) written as ${meaning} (setting labels.exportNeutralAs: ${neutral})`);
  return { result, staleLeftOut, summary: parts.join(' · ') };
}
