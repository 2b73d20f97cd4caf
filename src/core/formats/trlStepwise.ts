/**
 * TRL stepwise-supervision rows (`huggingface/trl` `docs/source/dataset_formats.md`):
 * `{prompt, completions[], labels[bool]}`.
 *
 * One of the step-level label dataset loaders; what they share (record loading, the label sources,
 * the first-error mark) is in processLabelRecords.ts, whose module docs describe all four.
 *
 * This module never imports `vscode`.
 */
import { z } from 'zod';
import { RolloutLoadError } from '../errors';
import { makeStep, type Rollout, type Step } from '../model';
import { baseRollout, fallbackId, LABEL_SOURCE, loadRecords, markFirstError } from './processLabelRecords';
import { firstRow, type RowRef } from './rows';
import type { Detection, FormatLoader, LoadInput } from './types';
import { isObject } from './util';

const TRL_LABEL = 'TRL stepwise-supervision row';

/** A TRL stepwise-supervision row (standard format; the docs give no conversational variant). */
export const TrlStepwiseRow = z.looseObject({
  prompt: z.string(),
  completions: z.array(z.string()),
  labels: z.array(z.boolean()),
});

function trlRollout(input: LoadInput, ref: RowRef): Rollout {
  const { doc, at } = ref;
  const row = doc.validate(TrlStepwiseRow, TRL_LABEL, at);
  if (row.labels.length !== row.completions.length) {
    throw new RolloutLoadError(input.path, TRL_LABEL, [
      doc.issue([...at, 'labels'], `one label per completion (${row.completions.length})`, `array(${row.labels.length})`),
    ]);
  }
  const source = LABEL_SOURCE.trlStepwise;
  const steps: Step[] = [makeStep(0, 'user', { message: row.prompt, range: doc.rangeOf([...at, 'prompt']), referenceLabel: null })];
  row.completions.forEach((text, j) => {
    steps.push(
      makeStep(steps.length, 'agent', {
        sourceId: j,
        message: text,
        range: doc.rangeOf([...at, 'completions', j]),
        referenceLabel: { value: row.labels[j] ? 1 : -1, source },
      }),
    );
  });
  const firstErrorStep = markFirstError(steps);
  const r = baseRollout(fallbackId(input, ref), 'trl-stepwise', input, ref);
  r.task = { id: null, instruction: row.prompt };
  r.steps = steps;
  const meta: Record<string, unknown> = { firstErrorStep };
  // Scalar extra columns (e.g. `index` in converted datasets) are kept.
  for (const [k, v] of Object.entries(row)) {
    if (k === 'prompt' || k === 'completions' || k === 'labels') continue;
    if (v === null || typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean') meta[k] = v;
  }
  r.metadata = meta;
  return r;
}

function trlDetect(input: LoadInput): Detection {
  const { value: v, where } = firstRow(input);
  if (!isObject(v)) return { accept: false, reason: `${where} is not a JSON object` };
  if (typeof v.prompt !== 'string' || !Array.isArray(v.completions) || !Array.isArray(v.labels)) {
    return { accept: false, reason: `${where} has no "prompt" string with "completions" and "labels" lists` };
  }
  if (!v.labels.slice(0, 50).every((l) => typeof l === 'boolean')) return { accept: false, reason: `${where} has "labels" that are not booleans` };
  return { accept: true, confidence: 0.9 };
}

/**
 * TRL stepwise-supervision rows (format id `trl-stepwise`), the dataset type of TRL's PRMTrainer.
 *
 * Mapping (one rollout per row): a user step with `prompt`, then one agent step per `completions[j]`
 * (`sourceId` = j) with `referenceLabel` +1 for `labels[j] === true`, −1 for false
 * (`source: "TRL stepwise supervision"`); the first −1 gets `firstError`. `labels` must have one entry
 * per completion. No outcome, model or id in the data: `id` = `<path>#<ordinal>`; scalar extra
 * columns go to metadata, with firstErrorStep.
 *
 * Detection: `prompt` string + `completions` list + `labels` list of booleans (confidence 0.9).
 */
export const trlStepwiseLoader: FormatLoader = {
  id: 'trl-stepwise',
  label: 'TRL stepwise supervision rows',
  detect: trlDetect,
  async load(input) {
    return loadRecords(input, TRL_LABEL, (ref) => trlRollout(input, ref));
  },
};
