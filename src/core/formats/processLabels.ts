/**
 * Step-level ("process") label datasets, read as rollouts whose steps carry the dataset's own label
 * in `Step.referenceLabel` (`{value: +1|0|-1, source, firstError?}`; null on steps the dataset does
 * not label). Four formats:
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
import { asWarning, RolloutLoadError, type LocatedIssue } from '../errors';
import type { JsonDoc, JsonPath } from '../json';
import { makeStep, unknownOutcome, type Action, type FormatId, type Rollout, type Step } from '../model';
import { firstRow, loadRows, rowRange, type RowRef } from './rows';
import { parseArguments, toolNames } from './toolCalls';
import type { Detection, FormatLoader, LoadInput } from './types';
import { contentText, isObject, str } from './util';

/** `Step.referenceLabel.source` of each dataset. */
export const LABEL_SOURCE = {
  agentprocessbench: 'AgentProcessBench',
  processbench: 'ProcessBench',
  prm800k: 'PRM800K',
  trlStepwise: 'TRL stepwise supervision',
} as const;

type LabelValue = 1 | 0 | -1;
const LabelValue = z.union([z.literal(1), z.literal(0), z.literal(-1)]);

// ---------------------------------------------------------------------------------------------
// Shared: records of a file, loading them one by one

/** `Rollout.source` of a record: its range; its line only for a JSONL/concatenated record. */
function rolloutSource(input: LoadInput, ref: RowRef): Rollout['source'] {
  return { path: input.path, range: rowRange(ref), line: ref.line ? ref.line.line : null };
}

/** `<path>#<ordinal>` for records without an id of their own. */
function fallbackId(input: LoadInput, ref: RowRef): string {
  return `${input.path}#${ref.index}`;
}

/**
 * Reads every record with `build` under the bad-row policy of rows.ts (see the module docs).
 * Repeated ids get `#<n>` appended (n = 2, 3, …), like the `<path>#<ordinal>` fallback ids.
 * @throws RolloutLoadError when no record is valid
 */
function loadRecords(input: LoadInput, label: string, build: (ref: RowRef) => Rollout): Rollout[] {
  return loadRows(input, label, build, { rowName: `${label} record`, duplicateIds: 'ordinal' });
}

/** Marks the first step labelled −1 with `firstError: true`; returns its index or null. */
function markFirstError(steps: Step[]): number | null {
  const first = steps.find((s) => s.referenceLabel?.value === -1);
  if (!first || !first.referenceLabel) return null;
  first.referenceLabel.firstError = true;
  return first.index;
}

/**
 * Records a conflict between a record's own labels (src/core/labels/conflicts.ts) on the rollout
 * (`metadata.labelConflict`) and as a located warning at `path` (the field that contradicts).
 */
function recordConflict(r: Rollout, input: LoadInput, doc: JsonDoc, path: JsonPath, expected: string, reason: string): void {
  const issue = asWarning(doc.issue(path, expected, reason));
  r.metadata.labelConflict = { reason, pointer: issue.pointer };
  (input.issues ??= []).push(issue);
}

function baseRollout(id: string, format: FormatId, input: LoadInput, ref: RowRef): Rollout {
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

// ---------------------------------------------------------------------------------------------
// AgentProcessBench

const APB_LABEL = 'AgentProcessBench row';

const ApbToolCall = z.looseObject({
  id: z.string().nullish(),
  type: z.string().nullish(),
  function: z.looseObject({ name: z.string(), arguments: z.unknown().optional() }),
});

const ApbMessage = z.looseObject({
  role: z.string(),
  content: z.union([z.string(), z.array(z.unknown())]).nullish(),
  tool_calls: z.array(ApbToolCall).nullish(),
  tool_call_id: z.string().nullish(),
  name: z.string().nullish(),
  reasoning_content: z.string().nullish(),
});

const IndexValue = z.union([z.number().int(), z.string()]);

/** An AgentProcessBench row (fields read; others kept out). */
export const AgentProcessBenchRow = z.looseObject({
  record_id: z.string().nullish(),
  total_index: z.number().int().nullish(),
  query_index: IndexValue.nullish(),
  sample_index: IndexValue.nullish(),
  data_source: z.string().nullish(),
  question: z.string().nullish(),
  ground_truth: z.unknown().optional(),
  answer_text: z.string().nullish(),
  messages: z.array(ApbMessage),
  tools: z.array(z.unknown()).nullish(),
  step_labels: z.record(z.string(), LabelValue.nullable()).nullish(),
  final_label: LabelValue.nullish(),
});
type ApbRow = z.infer<typeof AgentProcessBenchRow>;

/** Steps of an AgentProcessBench `messages` list and the message index → step index map. */
function apbSteps(row: ApbRow, doc: JsonDoc, at: JsonPath): { steps: Step[]; stepOfMessage: Map<number, number> } {
  const steps: Step[] = [];
  const stepOfMessage = new Map<number, number>();
  let cur: Step | null = null;
  row.messages.forEach((m, k) => {
    const range = doc.rangeOf([...at, 'messages', k]);
    const text = contentText(m.content);
    if (m.role === 'assistant') {
      const actions: Action[] = (m.tool_calls ?? []).map((c) => {
        const a: Action = { kind: 'tool', command: null, tool: c.function.name, callId: c.id ?? null };
        if (c.function.arguments !== undefined) a.arguments = parseArguments(c.function.arguments);
        return a;
      });
      const reasoning = m.reasoning_content && m.reasoning_content.trim() !== '' ? m.reasoning_content : null;
      cur = makeStep(steps.length, 'agent', { sourceId: k, message: text, reasoning, actions, range, referenceLabel: null });
      steps.push(cur);
      stepOfMessage.set(k, cur.index);
      return;
    }
    const isTool = m.role === 'tool' || m.role === 'function';
    if (isTool) {
      const obs = { callId: m.tool_call_id ?? null, output: text, exitCode: null, truncated: false };
      if (cur) {
        cur.observations.push(obs);
        stepOfMessage.set(k, cur.index);
        return;
      }
      const env = makeStep(steps.length, 'environment', { sourceId: k, observations: [obs], range, referenceLabel: null });
      steps.push(env);
      stepOfMessage.set(k, env.index);
      return;
    }
    cur = null;
    const role = m.role === 'system' || m.role === 'developer' ? 'system' : m.role === 'user' ? 'user' : 'environment';
    const step = makeStep(steps.length, role, { sourceId: k, message: text, range, referenceLabel: null });
    steps.push(step);
    stepOfMessage.set(k, step.index);
  });
  return { steps, stepOfMessage };
}

/** `<data_source>:<query_index>:<sample_index>` (AgentProcessBench `record_id`), or null when a part is missing. */
function apbRecordId(row: ApbRow): string | null {
  if (row.record_id) return row.record_id;
  if (row.data_source == null || row.query_index == null || row.sample_index == null) return null;
  return `${row.data_source}:${row.query_index}:${row.sample_index}`;
}

function apbRollout(input: LoadInput, ref: RowRef): Rollout {
  const { doc, at } = ref;
  const row = doc.validate(AgentProcessBenchRow, APB_LABEL, at);
  const { steps, stepOfMessage } = apbSteps(row, doc, at);
  const issues: LocatedIssue[] = [];
  const labels = row.step_labels ?? {};
  const labelled: [number, LabelValue][] = [];
  for (const [key, value] of Object.entries(labels)) {
    const p = [...at, 'step_labels', key];
    const k = /^\d+$/.test(key) ? Number(key) : NaN;
    const m = Number.isInteger(k) ? row.messages[k] : undefined;
    if (!m) {
      issues.push(doc.issue(p, `a key that is the index of an assistant message (0–${row.messages.length - 1})`, `key ${JSON.stringify(key)}`));
    } else if (m.role !== 'assistant') {
      issues.push(doc.issue(p, 'a key that is the index of an assistant message', `key ${JSON.stringify(key)}: messages[${k}] has role ${JSON.stringify(m.role)}`));
    } else if (value !== null) {
      labelled.push([k, value]);
    }
  }
  if (issues.length) throw new RolloutLoadError(input.path, APB_LABEL, issues);
  for (const [k, value] of labelled) steps[stepOfMessage.get(k)!].referenceLabel = { value, source: LABEL_SOURCE.agentprocessbench };
  const firstErrorStep = markFirstError(steps);

  const recordId = apbRecordId(row);
  const r = baseRollout(recordId ?? fallbackId(input, ref), 'agentprocessbench', input, ref);
  const query = row.data_source != null && row.query_index != null ? `${row.data_source}:${row.query_index}` : null;
  r.task = { id: query, instruction: row.question ?? null };
  r.groupId = query;
  r.steps = steps;
  if (row.final_label != null) {
    r.outcome.resolved = row.final_label === 1 ? true : row.final_label === -1 ? false : null;
    r.outcome.source = 'final_label';
  }
  const meta: Record<string, unknown> = {};
  if (recordId) meta.recordId = recordId;
  if (row.data_source != null) meta.dataSource = row.data_source;
  if (row.query_index != null) meta.queryIndex = row.query_index;
  if (row.sample_index != null) meta.sampleIndex = row.sample_index;
  if (row.total_index != null) meta.totalIndex = row.total_index;
  meta.finalLabel = row.final_label ?? null;
  meta.labelledSteps = labelled.length;
  meta.firstErrorStep = firstErrorStep;
  if (row.ground_truth !== undefined) meta.groundTruth = row.ground_truth;
  if (row.answer_text != null) meta.answerText = row.answer_text;
  const names = toolNames(row.tools);
  if (names.length) meta.tools = names;
  r.metadata = meta;
  if (row.final_label === -1 && labelled.length > 0 && labelled.every(([, v]) => v === 1)) {
    recordConflict(r, input, doc, [...at, 'final_label'], 'a final label consistent with the step labels',
      `label conflict: final_label is −1 but all ${labelled.length} labelled step(s) are +1 (no step is marked wrong)`);
  }
  return r;
}

function apbDetect(input: LoadInput): Detection {
  const { value: v, where } = firstRow(input);
  if (!isObject(v)) return { accept: false, reason: `${where} is not a JSON object` };
  const hasLabels = isObject(v.step_labels);
  if (Array.isArray(v.messages) && hasLabels) return { accept: true, confidence: 1 };
  if (hasLabels) {
    return {
      accept: false,
      reason: `an AgentProcessBench label-only row (${str(v.record_id) ?? 'step_labels without messages'}): it has no messages to show; open the full data file (data/AgentProcessBench/*.jsonl)`,
    };
  }
  return { accept: false, reason: `${where} has no "messages" list with "step_labels"` };
}

/**
 * AgentProcessBench rows (format id `agentprocessbench`).
 *
 * Mapping (one rollout per row):
 * - `messages` in order: `system`/`developer` → system step, `user` → user step, `assistant` → agent
 *   step (text = `content`, reasoning = `reasoning_content` when present, one `tool` action per
 *   `tool_calls[]` entry with the function name, its JSON `arguments` parsed, and the call id);
 *   `tool` messages → observations of the agent step before them (callId = `tool_call_id`, no exit
 *   code); a tool message with no agent step before it (or other roles) is a step of its own.
 *   `Step.sourceId` is the message index, `range` the message.
 * - `step_labels` keys are *message* indices (strings) of assistant messages (the annotation guide's
 *   "one step = one assistant message"); each becomes that agent step's `referenceLabel`
 *   (`source: "AgentProcessBench"`). A key that is not the index of an assistant message makes the
 *   row invalid (located at `/step_labels/<key>`); a null value is no label. Unlabelled steps
 *   (system, user, environment, unlabelled agent) have `referenceLabel: null`.
 * - `final_label` → `outcome.resolved` (true for +1, false for −1, null for 0; source
 *   `final_label`), also `metadata.finalLabel`; no reward.
 * - Ids: `id` = `record_id` or `<data_source>:<query_index>:<sample_index>` (the dataset's record
 *   id), else `<path>#<ordinal>`; `task.id` = `groupId` = `<data_source>:<query_index>` (the query the
 *   samples share); `task.instruction` = `question`.
 * - metadata: recordId, dataSource, queryIndex, sampleIndex, totalIndex, finalLabel, labelledSteps,
 *   firstErrorStep (step index), groundTruth, answerText, tools (names).
 *
 * Detection: a row with a `messages` list and a `step_labels` object (confidence 1). Label-only
 * rows (`data/AnswerOnly/*`, annotation exports: `step_labels` without `messages`) are declined.
 */
export const agentProcessBenchLoader: FormatLoader = {
  id: 'agentprocessbench',
  label: 'AgentProcessBench labelled trajectories',
  detect: apbDetect,
  async load(input) {
    return loadRecords(input, APB_LABEL, (ref) => apbRollout(input, ref));
  },
};

// ---------------------------------------------------------------------------------------------
// ProcessBench

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

// ---------------------------------------------------------------------------------------------
// PRM800K

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

// ---------------------------------------------------------------------------------------------
// TRL stepwise supervision

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
