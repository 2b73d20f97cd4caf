/**
 * PRM800K records (`openai/prm800k`): one labelled solution per record, completions rated per step.
 *
 * One of the step-level label dataset loaders; what they share (record loading, the label sources,
 * the first-error mark) is in processLabelRecords.ts, whose module docs describe all four.
 *
 * This module never imports `vscode`.
 */
import { z } from 'zod';
import { RolloutLoadError, type LocatedIssue } from '../errors';
import { makeStep, type Rollout, type Step } from '../model';
import { baseRollout, fallbackId, LABEL_SOURCE, LabelValue, loadRecords, markFirstError } from './processLabelRecords';
import { firstRow, type RowRef } from './rows';
import type { Detection, FormatLoader, LoadInput } from './types';
import { isObject } from './util';

const PRM_LABEL = 'PRM800K record';

const PrmCompletion = z.looseObject({
  text: z.string(),
  rating: LabelValue.nullish(),
  flagged: z.boolean().nullish(),
  source: z.string().nullish(),
});
type PrmCompletion = z.infer<typeof PrmCompletion>;

const PrmStep = z.looseObject({
  completions: z.array(PrmCompletion).nullish(),
  /** An object `{text, rating: null, source: "human", flagged}` in phase 1; a bare string is read as its text. */
  human_completion: z.union([PrmCompletion, z.string()]).nullish(),
  chosen_completion: z.number().int().nonnegative().nullish(),
});

/** A PRM800K record (`openai/prm800k` README). */
export const Prm800kRecord = z.looseObject({
  labeler: z.string().nullish(),
  timestamp: z.string().nullish(),
  generation: z.number().int().nullish(),
  is_quality_control_question: z.boolean().nullish(),
  is_initial_screening_question: z.boolean().nullish(),
  question: z.looseObject({
    problem: z.string(),
    ground_truth_solution: z.string().nullish(),
    ground_truth_answer: z.string().nullish(),
    pre_generated_steps: z.array(z.string()).nullish(),
    pre_generated_answer: z.string().nullish(),
    pre_generated_verifier_score: z.number().nullish(),
  }),
  label: z.looseObject({
    steps: z.array(PrmStep),
    total_time: z.number().nullish(),
    finish_reason: z.string().nullish(),
  }),
});

type PrmPick = 'chosen' | 'human' | 'first';

function prmRollout(input: LoadInput, ref: RowRef): Rollout {
  const { doc, at } = ref;
  const rec = doc.validate(Prm800kRecord, PRM_LABEL, at);
  const source = LABEL_SOURCE.prm800k;
  const steps: Step[] = [makeStep(0, 'user', { message: rec.question.problem, range: doc.rangeOf([...at, 'question', 'problem']), referenceLabel: null })];
  const alternatives: Record<string, unknown>[] = [];
  const picks: PrmPick[] = [];
  let stoppedAt: number | null = null;
  const issues: LocatedIssue[] = [];
  rec.label.steps.forEach((s, k) => {
    if (stoppedAt !== null) return;
    const completions = s.completions ?? [];
    let picked: PrmCompletion | null = null;
    let pick: PrmPick;
    if (s.chosen_completion != null) {
      picked = completions[s.chosen_completion] ?? null;
      pick = 'chosen';
      if (!picked) {
        issues.push(doc.issue([...at, 'label', 'steps', k, 'chosen_completion'], `an index into completions (0–${completions.length - 1})`));
        return;
      }
    } else if (s.human_completion != null) {
      const h = s.human_completion;
      // README: "if all completions were rated -1, we allowed labelers to write their own +1 step".
      picked = typeof h === 'string' ? { text: h, rating: 1 } : { ...h, rating: h.rating ?? 1 };
      pick = 'human';
    } else {
      picked = completions[0] ?? null;
      pick = 'first';
    }
    if (!picked) {
      stoppedAt = k; // a step with no completion at all (TRL's converter stops there too)
      return;
    }
    picks.push(pick);
    const rating = picked.rating ?? null;
    const step = makeStep(steps.length, 'agent', {
      sourceId: k,
      message: picked.text,
      range: doc.rangeOf([...at, 'label', 'steps', k]),
      referenceLabel: rating === null ? null : { value: rating, source },
    });
    steps.push(step);
    if (completions.length > 1 || pick !== 'chosen') {
      alternatives.push({
        step: step.index,
        pick,
        chosen: s.chosen_completion ?? null,
        completions: completions.map((c) => ({ text: c.text, rating: c.rating ?? null, flagged: c.flagged ?? null })),
        ...(s.human_completion != null ? { humanCompletion: typeof s.human_completion === 'string' ? s.human_completion : s.human_completion.text } : {}),
      });
    }
  });
  if (issues.length) throw new RolloutLoadError(input.path, PRM_LABEL, issues);
  const labelledSteps = steps.length - 1;

  // Phase 2: the labelled steps are a prefix of the pre-generated solution; show the rest unlabelled.
  const pre = rec.question.pre_generated_steps ?? null;
  let preGenerated: 'appended' | 'prefix differs' | null = null;
  if (pre && stoppedAt === null) {
    const prefixMatches = labelledSteps <= pre.length && steps.slice(1).every((s, i) => s.message === pre[i]);
    if (prefixMatches) {
      for (let j = labelledSteps; j < pre.length; j++) {
        steps.push(makeStep(steps.length, 'agent', { sourceId: `pre_generated_steps/${j}`, message: pre[j], range: doc.rangeOf([...at, 'question', 'pre_generated_steps', j]), referenceLabel: null }));
      }
      preGenerated = 'appended';
    } else {
      preGenerated = 'prefix differs';
    }
  }
  const firstErrorStep = markFirstError(steps);

  const r = baseRollout(fallbackId(input, ref), 'prm800k', input, ref);
  r.task = { id: null, instruction: rec.question.problem };
  r.steps = steps;
  const finish = rec.label.finish_reason ?? null;
  if (finish !== null) {
    r.outcome.status = finish;
    // README: "solution": "We reached a step that concluded in the correct answer to the problem."
    if (finish === 'solution') r.outcome.resolved = true;
    r.outcome.source = 'label.finish_reason';
  }
  const meta: Record<string, unknown> = {
    phase: rec.generation == null ? 1 : 2,
    labeler: rec.labeler ?? null,
    timestamp: rec.timestamp ?? null,
    generation: rec.generation ?? null,
    finishReason: finish,
    labelledSteps,
    firstErrorStep,
    picks,
  };
  if (rec.is_quality_control_question != null) meta.isQualityControlQuestion = rec.is_quality_control_question;
  if (rec.is_initial_screening_question != null) meta.isInitialScreeningQuestion = rec.is_initial_screening_question;
  if (rec.label.total_time != null) meta.totalTimeMs = rec.label.total_time;
  if (rec.question.ground_truth_answer != null) meta.groundTruthAnswer = rec.question.ground_truth_answer;
  if (rec.question.ground_truth_solution != null) meta.groundTruthSolution = rec.question.ground_truth_solution;
  if (pre) meta.preGeneratedSteps = pre.length;
  if (preGenerated) meta.preGenerated = preGenerated;
  if (rec.question.pre_generated_answer != null) meta.preGeneratedAnswer = rec.question.pre_generated_answer;
  if (rec.question.pre_generated_verifier_score != null) meta.preGeneratedVerifierScore = rec.question.pre_generated_verifier_score;
  if (alternatives.length) meta.alternatives = alternatives;
  if (stoppedAt !== null) meta.stoppedAtLabelStep = stoppedAt;
  r.metadata = meta;
  return r;
}

function prmDetect(input: LoadInput): Detection {
  const { value: v, where } = firstRow(input);
  if (!isObject(v)) return { accept: false, reason: `${where} is not a JSON object` };
  if (isObject(v.question) && typeof v.question.problem === 'string' && isObject(v.label) && Array.isArray(v.label.steps)) {
    return { accept: true, confidence: 1 };
  }
  return { accept: false, reason: `${where} has no "question.problem" and "label.steps"` };
}

/**
 * PRM800K labelled solutions (format id `prm800k`).
 *
 * Mapping (one rollout per record): a user step with `question.problem`, then one agent step per
 * `label.steps[k]` (`sourceId` = k, range = that label step) holding the completion the labeler went
 * on with: `completions[chosen_completion]` when set; else the `human_completion` (written by the
 * labeler; README: "we allowed labelers to write their own +1 step", so it is +1 when its own
 * `rating` is null, as TRL's converter does); else — the last step of a "found_error"/"give_up"
 * solution, where nothing was chosen — the first completion (in phase 2 the pre-generated step). Its
 * `rating` (−1/0/+1) is the step's `referenceLabel` (`source: "PRM800K"`; null rating → null). A step
 * with no completion at all ends the solution (`metadata.stoppedAtLabelStep`). The other completions
 * and their ratings are kept in `metadata.alternatives[{step, pick, chosen, completions, humanCompletion}]`
 * (for steps with several completions or no chosen one); `metadata.picks` lists how each step was picked.
 * Phase 2: when the labelled steps match the start of `question.pre_generated_steps` (labeling stops
 * at the first error), the remaining pre-generated steps follow as unlabelled agent steps
 * (`sourceId` `pre_generated_steps/<j>`); `metadata.preGenerated` says whether they were appended.
 * Outcome: `status` = `finish_reason`; `resolved` = true for "solution" (README: the solution reached
 * the correct answer), else null. No id in the data: `id` = `<path>#<ordinal>`, `task.id` null.
 * metadata: phase (1 when `generation` is null, README), labeler, timestamp (submission time),
 * generation, finishReason, labelledSteps, firstErrorStep, totalTimeMs, ground truth, pre-generated
 * answer and verifier score, QC/screening flags.
 *
 * Detection: `question.problem` string and `label.steps` list (confidence 1).
 */
export const prm800kLoader: FormatLoader = {
  id: 'prm800k',
  label: 'PRM800K labelled solutions',
  detect: prmDetect,
  async load(input) {
    return loadRecords(input, PRM_LABEL, (ref) => prmRollout(input, ref));
  },
};
