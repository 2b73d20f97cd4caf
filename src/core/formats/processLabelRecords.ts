/**
 * What the step-level ("process") label dataset loaders share (agentProcessBench.ts,
 * processBench.ts, prm800k.ts, trlStepwise.ts): they read rollouts whose steps carry the dataset's
 * own label in `Step.referenceLabel` (`{value: +1|0|-1, source, firstError?}`; null on steps the
 * dataset does not label). Four formats:
 *
 * - **AgentProcessBench** (`RUCBM/AgentProcessBench`, `data/AgentProcessBench/*.jsonl`; label guide
 *   `annotation_platform/ANNOTATION_GUIDE_v1.md`, metric code `eval/compare.py`): one row per
 *   trajectory, `messages` (OpenAI chat with `tool_calls` / `role:"tool"`), `step_labels`
 *   (`{"<index into messages of an assistant message>": +1|0|-1}`), `final_label`.
 * - **ProcessBench** (`QwenLM/ProcessBench`, `dataset/<split>.json` before it moved to HF
 *   `Qwen/ProcessBench`; `code/run_eval*.py`): a JSON array of
 *   `{id, generator, problem, steps[], final_answer_correct, label}`, `label` = 0-based index of the
 *   earliest wrong paragraph, −1 when none.
 * - **PRM800K** (`openai/prm800k` `README.md` schema; `prm800k/data/phase{1,2}_{train,test}.jsonl`):
 *   one labelled solution per record, `question{problem, pre_generated_steps…}`,
 *   `label{steps[{completions[{text, rating, flagged}], human_completion, chosen_completion}],
 *   total_time, finish_reason}`. Published example files hold several pretty-printed records back
 *   to back (load.ts hands them over as `lines` with `linesKind: 'concatenated'`).
 * - **TRL stepwise supervision** (`huggingface/trl` `docs/source/dataset_formats.md`, trainer
 *   `trl/trainer/prm_trainer.py`; converters `examples/datasets/prm800k.py`, `math_shepherd.py`):
 *   rows `{prompt, completions[], labels[bool]}`.
 *
 * Every loader reads a JSONL file (one record per line), a concatenated-JSON file, a JSON array of
 * records, or a single record object. Records that do not conform are left out with located issues
 * (`input.issues` → `LoadedFile.issues`, and `metadata.warnings` of the other rollouts); when no
 * record conforms the file fails with all the issues (rows.ts `loadRows`). `firstError: true` marks the first step
 * labelled −1 in step order (AgentProcessBench's `first_neg1_idx` metric, ProcessBench's `label`,
 * PRM800K's "found_error" step, the first `false` of a TRL row).
 *
 * This module never imports `vscode`.
 */
import { z } from 'zod';
import { asWarning } from '../errors';
import type { JsonDoc, JsonPath } from '../json';
import { unknownOutcome, type FormatId, type Rollout, type Step } from '../model';
import { loadRows, rowRange, type RowRef } from './rows';
import type { LoadInput } from './types';

/** `Step.referenceLabel.source` of each dataset. */
export const LABEL_SOURCE = {
  agentprocessbench: 'AgentProcessBench',
  processbench: 'ProcessBench',
  prm800k: 'PRM800K',
  trlStepwise: 'TRL stepwise supervision',
} as const;

/** A step label of the datasets: +1 (good), 0 (neutral), −1 (bad); the type and its schema. */
export type LabelValue = 1 | 0 | -1;
export const LabelValue = z.union([z.literal(1), z.literal(0), z.literal(-1)]);

// ---------------------------------------------------------------------------------------------
// Shared: records of a file, loading them one by one

/** `Rollout.source` of a record: its range; its line only for a JSONL/concatenated record. */
function rolloutSource(input: LoadInput, ref: RowRef): Rollout['source'] {
  return { path: input.path, range: rowRange(ref), line: ref.line ? ref.line.line : null };
}

/** `<path>#<ordinal>` for records without an id of their own. */
export function fallbackId(input: LoadInput, ref: RowRef): string {
  return `${input.path}#${ref.index}`;
}

/**
 * Reads every record with `build` under the bad-row policy of rows.ts (see the module docs).
 * Repeated ids get `#<n>` appended (n = 2, 3, …), like the `<path>#<ordinal>` fallback ids.
 * @throws RolloutLoadError when no record is valid
 */
export function loadRecords(input: LoadInput, label: string, build: (ref: RowRef) => Rollout): Rollout[] {
  return loadRows(input, label, build, { rowName: `${label} record`, duplicateIds: 'ordinal' });
}

/** Marks the first step labelled −1 with `firstError: true`; returns its index or null. */
export function markFirstError(steps: Step[]): number | null {
  const first = steps.find((s) => s.referenceLabel?.value === -1);
  if (!first || !first.referenceLabel) return null;
  first.referenceLabel.firstError = true;
  return first.index;
}

/**
 * Records a conflict between a record's own labels (src/core/labels/conflicts.ts) on the rollout
 * (`metadata.labelConflict`) and as a located warning at `path` (the field that contradicts).
 */
export function recordConflict(r: Rollout, input: LoadInput, doc: JsonDoc, path: JsonPath, expected: string, reason: string): void {
  const issue = asWarning(doc.issue(path, expected, reason));
  r.metadata.labelConflict = { reason, pointer: issue.pointer };
  (input.issues ??= []).push(issue);
}

/** A rollout of record `ref` with id `id` and format `format`, its source located, everything else unknown or empty. */
export function baseRollout(id: string, format: FormatId, input: LoadInput, ref: RowRef): Rollout {
  return {
    id,
    format,
    schemaVersion: null,
    source: rolloutSource(input, ref),
    task: { id: null, instruction: null },
    agent: { name: null, version: null, model: null },
    environment: { image: null, workdir: null },
    outcome: unknownOutcome(),
    groupId: null,
    steps: [],
    metadata: {},
  };
}
