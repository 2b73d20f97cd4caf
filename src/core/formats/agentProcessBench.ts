/**
 * AgentProcessBench rows (`RUCBM/AgentProcessBench`, `data/AgentProcessBench/*.jsonl`): OpenAI chat
 * `messages` with `step_labels` by assistant message index.
 *
 * One of the step-level label dataset loaders; what they share (record loading, the label sources,
 * the first-error mark) is in processLabelRecords.ts, whose module docs describe all four.
 *
 * This module never imports `vscode`.
 */
import { z } from 'zod';
import { RolloutLoadError, type LocatedIssue } from '../errors';
import type { JsonDoc, JsonPath } from '../json';
import { makeStep, type Action, type Rollout, type Step } from '../model';
import { baseRollout, fallbackId, LABEL_SOURCE, LabelValue, loadRecords, markFirstError, recordConflict } from './processLabelRecords';
import { firstRow, type RowRef } from './rows';
import { parseArguments, toolNames } from './toolCalls';
import type { Detection, FormatLoader, LoadInput } from './types';
import { contentText, isObject, str } from './util';

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
