/**
 * ProcessBench items (`QwenLM/ProcessBench`): `{id, generator, problem, steps[],
 * final_answer_correct, label}`, `label` = the index of the earliest wrong paragraph, −1 when none.
 *
 * One of the step-level label dataset loaders; what they share (record loading, the label sources,
 * the first-error mark) is in processLabelRecords.ts, whose module docs describe all four.
 *
 * This module never imports `vscode`.
 */
import { z } from 'zod';
import { RolloutLoadError } from '../errors';
import { makeStep, type Rollout, type Step } from '../model';
import { baseRollout, fallbackId, LABEL_SOURCE, loadRecords, recordConflict } from './processLabelRecords';
import { firstRow, type RowRef } from './rows';
import type { Detection, FormatLoader, LoadInput } from './types';
import { isObject } from './util';

const PB_LABEL = 'ProcessBench item';

/** A ProcessBench item. */
export const ProcessBenchItem = z.looseObject({
  id: z.union([z.string(), z.number()]).nullish(),
  generator: z.string().nullish(),
  problem: z.string(),
  steps: z.array(z.string()),
  final_answer_correct: z.boolean().nullish(),
  label: z.number().int(),
});

function pbRollout(input: LoadInput, ref: RowRef): Rollout {
  const { doc, at } = ref;
  const item = doc.validate(ProcessBenchItem, PB_LABEL, at);
  const n = item.steps.length;
  if (item.label < -1 || item.label >= n) {
    throw new RolloutLoadError(input.path, PB_LABEL, [
      doc.issue([...at, 'label'], `-1 (no wrong step) or the index of a step (0–${n - 1})`),
    ]);
  }
  const source = LABEL_SOURCE.processbench;
  const steps: Step[] = [makeStep(0, 'user', { message: item.problem, range: doc.rangeOf([...at, 'problem']), referenceLabel: null })];
  item.steps.forEach((text, j) => {
    const referenceLabel =
      item.label === -1 || j < item.label
        ? { value: 1 as const, source }
        : j === item.label
          ? { value: -1 as const, source, firstError: true }
          : null;
    steps.push(makeStep(steps.length, 'agent', { sourceId: j, message: text, range: doc.rangeOf([...at, 'steps', j]), referenceLabel }));
  });
  const id = item.id != null ? String(item.id) : null;
  const r = baseRollout(id ?? fallbackId(input, ref), 'processbench', input, ref);
  r.task = { id, instruction: item.problem };
  r.agent.model = item.generator ?? null;
  r.steps = steps;
  if (item.final_answer_correct != null) {
    r.outcome.resolved = item.final_answer_correct;
    r.outcome.source = 'final_answer_correct';
  }
  r.metadata = {
    label: item.label,
    firstErrorStep: item.label === -1 ? null : item.label + 1,
    finalAnswerCorrect: item.final_answer_correct ?? null,
    ...(item.generator ? { generator: item.generator } : {}),
  };
  if (item.final_answer_correct === false && item.label === -1) {
    recordConflict(r, input, doc, [...at, 'label'], 'a label consistent with final_answer_correct',
      'label conflict: final_answer_correct is false but label is −1 (no wrong step)');
  }
  return r;
}

function pbDetect(input: LoadInput): Detection {
  const { value: v, where } = firstRow(input);
  if (!isObject(v)) return { accept: false, reason: `${where} is not a JSON object` };
  if (typeof v.problem !== 'string' || !Array.isArray(v.steps) || typeof v.label !== 'number') {
    return { accept: false, reason: `${where} has no "problem" string, "steps" list and integer "label"` };
  }
  return { accept: true, confidence: typeof v.final_answer_correct === 'boolean' ? 1 : 0.8 };
}

/**
 * ProcessBench items (format id `processbench`).
 *
 * Mapping (one rollout per item): a user step with `problem`, then one agent step per `steps[]`
 * paragraph (`sourceId` = paragraph index). `label` is the 0-based index of the earliest wrong
 * paragraph (−1 = every paragraph correct, ProcessBench `code/run_eval.py`): paragraphs before it get
 * +1, the paragraph at `label` gets −1 with `firstError: true`, paragraphs after it get null —
 * ProcessBench only locates the first error and says nothing about later paragraphs; with −1 all are
 * +1. A `label` outside −1…n−1 makes the item invalid. `outcome.resolved` = `final_answer_correct`;
 * `agent.model` = `generator`; `id` = `task.id` = `id`. metadata: label, firstErrorStep (step index,
 * i.e. label + 1 for the user step), finalAnswerCorrect, generator.
 *
 * Detection: `problem` string + `steps` list + numeric `label` (0.8), with a boolean
 * `final_answer_correct` (1).
 */
export const processBenchLoader: FormatLoader = {
  id: 'processbench',
  label: 'ProcessBench items',
  detect: pbDetect,
  async load(input) {
    return loadRecords(input, PB_LABEL, (ref) => pbRollout(input, ref));
  },
};
