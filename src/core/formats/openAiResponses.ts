/**
 * NeMo-Gym Responses rollouts: one of the RL rollout dump loaders, on the conversation mapper of
 * rlConversation.ts (whose module docs hold the mapping decisions these loaders share).
 *
 * `openai-responses` — NVIDIA NeMo-Gym rollouts (`NVIDIA-NeMo/Gym`, `<server or agent>/data/example_rollouts….jsonl`):
 *    OpenAI *Responses API* items `{responses_create_params{input, instructions}, response{output[],
 *    model, status, usage}, reward, reward_components?, _ng_task_index, _ng_rollout_index, agent_ref,
 *    …task fields}`.
 */
import { z } from 'zod';
import { RolloutLoadError } from '../errors';
import type { JsonDoc, JsonPath } from '../json';
import { unknownOutcome, type Action, type Outcome, type Rollout } from '../model';
import { agentText, ContentSchema, Conversation, fallbackId, firstUserText, IdSchema, otherScalarFields, rowObject } from './rlConversation';
import { firstRow, loadRows, rowSource, type RowRef } from './rows';
import { textToolCalls } from './textToolCalls';
import { shellCommand, toolCallAction } from './toolCalls';
import type { Detection, FormatLoader, LoadInput } from './types';
import { contentText, isObject, maybeJson, resolvedFromReward, str } from './util';

const RESPONSES_LABEL = 'NeMo-Gym Responses rollouts';

const RespMessageSchema = z.looseObject({ role: z.string(), content: ContentSchema });
const RespFunctionCallSchema = z.looseObject({
  name: z.string(),
  arguments: z.union([z.string(), z.record(z.string(), z.unknown())]).nullish(),
  call_id: z.string().nullish(),
  id: z.string().nullish(),
});
const RespFunctionCallOutputSchema = z.looseObject({ call_id: z.string().nullish(), output: ContentSchema });
const TextPartsSchema = z.array(z.looseObject({ text: z.string().nullish() })).nullish();
const RespReasoningSchema = z.looseObject({ summary: TextPartsSchema, content: TextPartsSchema });

const NemoRowSchema = z.looseObject({
  responses_create_params: z.looseObject({
    input: z.union([z.string(), z.array(z.unknown())]).nullish(),
    instructions: z.string().nullish(),
    model: z.string().nullish(),
    metadata: z.unknown().optional(),
  }),
  response: z.looseObject({
    id: z.string().nullish(),
    model: z.string().nullish(),
    output: z.array(z.unknown()),
    status: z.string().nullish(),
    incomplete_details: z.looseObject({ reason: z.string().nullish() }).nullish(),
    usage: z.unknown().optional(),
  }),
  reward: z.number().nullish(),
  reward_components: z.record(z.string(), z.number()).nullish(),
  resolved: z.boolean().nullish(),
  agent_timed_out: z.boolean().nullish(),
  _ng_task_index: z.number().int().nullish(),
  _ng_rollout_index: z.number().int().nullish(),
  instance_id: IdSchema.nullish(),
  task_id: IdSchema.nullish(),
  agent_ref: z.looseObject({ name: z.string().nullish() }).nullish(),
  metadata: z.unknown().optional(),
});
type NemoRow = z.infer<typeof NemoRowSchema>;

const NEMO_KNOWN = new Set(Object.keys(NemoRowSchema.shape));

/** Text of Responses reasoning parts (`summary[].text`, `content[].text`), or null. */
function partsText(parts: z.infer<typeof TextPartsSchema>): string | null {
  const t = (parts ?? []).map((p) => p.text ?? '').filter((s) => s.trim() !== '').join('\n\n');
  return t === '' ? null : t;
}

/** Maps Responses API items (input and output lists) to steps, in order. */
function responsesSteps(conv: Conversation, doc: JsonDoc, at: JsonPath, items: unknown[], skipped: Record<string, number>): void {
  const label = RESPONSES_LABEL;
  items.forEach((item, i) => {
    const p = [...at, i];
    if (!isObject(item)) throw new RolloutLoadError(doc.file, label, [doc.issue(p, 'a Responses API item object')]);
    const type = typeof item.type === 'string' ? item.type : 'role' in item ? 'message' : null;
    const range = doc.rangeOf(p);
    const sourceId = str(item.id) ?? null;
    const cur = conv.lastAgent();
    if (type === 'message') {
      const m = doc.validate(RespMessageSchema, label, p);
      const text = contentText(m.content);
      const role = m.role.toLowerCase();
      if (role === 'assistant') {
        const { message, reasoning } = agentText(text, []);
        const reuse = cur && cur.message === '' && cur.actions.length === 0 && cur.observations.length === 0;
        const step = reuse ? cur : conv.add('agent', { sourceId, range });
        step.message = message;
        if (reasoning) step.reasoning = step.reasoning ? `${step.reasoning}\n\n${reasoning}` : reasoning;
        if (reuse && sourceId !== null) step.sourceId = sourceId;
        const parsed = textToolCalls(step.message);
        if (parsed) {
          step.message = parsed.text;
          conv.addActions(step, parsed.actions);
        }
      } else {
        conv.add(role === 'system' || role === 'developer' ? 'system' : role === 'user' ? 'user' : 'environment', { sourceId, message: text, range });
      }
    } else if (type === 'reasoning') {
      const r = doc.validate(RespReasoningSchema, label, p);
      const text = [partsText(r.summary), partsText(r.content)].filter((t) => t !== null).join('\n\n');
      const reuse = cur && cur.message === '' && cur.actions.length === 0 && cur.observations.length === 0;
      const step = reuse ? cur : conv.add('agent', { sourceId, range });
      if (text) step.reasoning = step.reasoning ? `${step.reasoning}\n\n${text}` : text;
    } else if (type === 'function_call') {
      const fc = doc.validate(RespFunctionCallSchema, label, p);
      const step = cur && cur.observations.length === 0 ? cur : conv.add('agent', { sourceId, range });
      conv.addActions(step, [toolCallAction(fc.name, fc.arguments, fc.call_id ?? fc.id ?? null)]);
    } else if (type === 'function_call_output' || (type !== null && type.endsWith('_call_output'))) {
      const o = doc.validate(RespFunctionCallOutputSchema, label, p);
      conv.observe(o.call_id ?? null, contentText(o.output), range, sourceId);
    } else if (type !== null && type.endsWith('_call')) {
      // Built-in tools (local_shell_call, web_search_call, computer_call, custom_tool_call, mcp_call, …).
      const callId = str(item.call_id) ?? sourceId;
      const step = cur && cur.observations.length === 0 ? cur : conv.add('agent', { sourceId, range });
      const act = isObject(item.action) ? item.action : null;
      const action: Action =
        type === 'local_shell_call' && act && shellCommand(act) !== null
          ? { kind: 'shell', command: shellCommand(act), tool: type, arguments: act, callId }
          : toolCallAction(str(item.name) ?? type, item.arguments ?? item.input ?? item.action, callId);
      conv.addActions(step, [action]);
    } else {
      skipped[String(type)] = (skipped[String(type)] ?? 0) + 1;
    }
  });
}

/** Keys that name a task in the metadata objects of a NeMo-Gym row, most specific first. */
const NEMO_TASK_KEYS = ['instance_id', 'task_id', 'task_name', 'problem_id'] as const;

/** The first task-naming key's value of an object (a string, or a number as text), or null. */
function taskKeyOf(v: unknown): string | null {
  if (!isObject(v)) return null;
  for (const k of NEMO_TASK_KEYS) {
    const x = v[k];
    if (typeof x === 'string' && x !== '') return x;
    if (typeof x === 'number' && Number.isFinite(x)) return String(x);
  }
  return null;
}

/**
 * The task id a NeMo-Gym row records, read from the row's own fields before any index (NVIDIA-NeMo/Gym
 * rows: top-level `instance_id` / `task_id`; `responses_create_params.metadata` (OpenAI metadata, string
 * values: `instance_id`, …, or an `instance_dict` JSON string holding one, as the swe_agents inputs
 * write); `instance_config`; the row's `metadata`), else null (the caller may fall back to
 * `_ng_task_index`, which is an index, not an id, and says so in `Rollout.derived`).
 * `parts` are the parsed values (undefined when absent). Used by the loader and the scale summary.
 */
export function nemoTaskId(parts: { instanceId?: unknown; taskId?: unknown; rcpMetadata?: unknown; instanceConfig?: unknown; metadata?: unknown }): string | null {
  for (const v of [parts.instanceId, parts.taskId]) {
    if (typeof v === 'string' || (typeof v === 'number' && Number.isFinite(v))) return String(v);
  }
  const rm = parts.rcpMetadata;
  const fromRcp = taskKeyOf(rm) ?? (isObject(rm) ? taskKeyOf(maybeJson(rm.instance_dict)) : null);
  return fromRcp ?? taskKeyOf(parts.instanceConfig) ?? taskKeyOf(parts.metadata);
}

/** `resolved` from the row (`resolved`), else from `metadata.eval_report[<instance>].resolved` (SWE-bench agents). */
function nemoResolved(row: NemoRow, instance: string | null): boolean | null {
  if (typeof row.resolved === 'boolean') return row.resolved;
  const report = isObject(row.metadata) && isObject(row.metadata.eval_report) ? row.metadata.eval_report : null;
  if (report && instance !== null) {
    const entry = report[instance];
    if (isObject(entry) && typeof entry.resolved === 'boolean') return entry.resolved;
  }
  return null;
}

function nemoRowRollout(input: LoadInput, ref: RowRef): Rollout {
  const { doc, at } = ref;
  rowObject(ref, RESPONSES_LABEL, 'a JSON object (one NeMo-Gym rollout row)');
  const row = doc.validate(NemoRowSchema, RESPONSES_LABEL, at);
  const raw = doc.get(at) as Record<string, unknown>;
  const conv = new Conversation();
  const skipped: Record<string, number> = {};
  const rcp = row.responses_create_params;
  if (rcp.instructions) conv.add('system', { sourceId: 'instructions', message: rcp.instructions, range: doc.rangeOf([...at, 'responses_create_params', 'instructions']) });
  if (typeof rcp.input === 'string') conv.add('user', { sourceId: 'input', message: rcp.input, range: doc.rangeOf([...at, 'responses_create_params', 'input']) });
  else if (rcp.input) responsesSteps(conv, doc, [...at, 'responses_create_params', 'input'], rcp.input, skipped);
  const promptSteps = conv.steps.length;
  responsesSteps(conv, doc, [...at, 'response', 'output'], row.response.output, skipped);

  const t = row._ng_task_index ?? null;
  const r = row._ng_rollout_index ?? null;
  const instance = nemoTaskId({ instanceId: row.instance_id, taskId: row.task_id, rcpMetadata: rcp.metadata, instanceConfig: raw.instance_config, metadata: row.metadata });
  const base = instance !== null ? instance : t !== null ? `task-${t}` : null;
  const derived: string[] = [];
  // Without a recorded task id the task index stands in for it: shown, and marked as not an id.
  if (instance === null && t !== null) derived.push('task.id');

  const outcome: Outcome = unknownOutcome();
  const reward = row.reward ?? null;
  const components = row.reward_components ?? null;
  outcome.reward = reward;
  outcome.rewards = components && Object.keys(components).length ? { ...(reward !== null ? { reward } : {}), ...components } : null;
  const resolved = nemoResolved(row, instance);
  // A reward summed from components (e.g. 2.0 of 3) says nothing about pass/fail on its own.
  outcome.resolved = resolved ?? (components ? null : resolvedFromReward(reward));
  if (resolved === null && outcome.resolved !== null) derived.push('outcome.resolved');
  outcome.status = row.agent_timed_out ? 'agent_timed_out' : (row.response.incomplete_details?.reason ?? row.response.status ?? null);
  outcome.source = reward !== null ? 'reward' : resolved !== null ? 'resolved' : null;

  const metadata: Record<string, unknown> = { promptSteps };
  if (t !== null) metadata.ngTaskIndex = t;
  if (r !== null) metadata.ngRolloutIndex = r;
  if (row.response.id) metadata.responseId = row.response.id;
  if (row.response.usage !== undefined && row.response.usage !== null) metadata.usage = row.response.usage;
  if (row.agent_ref) metadata.agentRef = row.agent_ref;
  if (Object.keys(skipped).length) metadata.skippedItems = skipped;
  const fields = otherScalarFields(raw, NEMO_KNOWN);
  if (Object.keys(fields).length) metadata.fields = fields;

  const rollout: Rollout = {
    id: base !== null ? (r !== null ? `${base}#rollout-${r}` : base) : fallbackId(input, ref),
    format: 'openai-responses',
    schemaVersion: null,
    source: rowSource(input, ref),
    task: { id: instance !== null ? instance : t !== null ? String(t) : null, instruction: firstUserText(conv.steps) },
    agent: { name: row.agent_ref?.name ?? null, version: null, model: row.response.model ?? rcp.model ?? null },
    environment: { image: null, workdir: null },
    outcome,
    groupId: t !== null ? `ng-task-${t}` : null,
    steps: conv.steps,
    metadata,
  };
  if (derived.length) rollout.derived = derived;
  return rollout;
}

/**
 * NVIDIA NeMo-Gym rollouts (`NVIDIA-NeMo/Gym`, e.g. `responses_api_agents/mini_swe_agent_2/data/
 * example_rollouts.jsonl`): OpenAI Responses API items plus a reward, one rollout per JSONL line (a
 * JSON array of rows or one row also load).
 *
 * Steps: `responses_create_params.instructions` (system), then the `input` items, then
 * `response.output` items in order. Items: `message` (role system/developer → system, user → user,
 * assistant → agent; `output_text` parts joined, `<think>` split off, Hermes text tool calls parsed),
 * `reasoning` (summary/content text → the agent step's reasoning), `function_call` (→ action on the
 * current agent step; a call after outputs starts a new agent step), `function_call_output` and other
 * `*_call_output` (→ observation by `call_id`, exit code per the rlConversation.ts module docs), other `*_call`
 * built-in tool items (→ actions); unknown item types are counted in `metadata.skippedItems`.
 * Outcome: reward = `reward`; rewards = `{reward, …reward_components}` when components exist;
 * resolved = `resolved`, else `metadata.eval_report[instance_id].resolved`, else implied by the
 * reward (not when it is a sum of components); status = `agent_timed_out`, else
 * `response.incomplete_details.reason` / `response.status`. groupId = `ng-task-<_ng_task_index>`;
 * `_ng_rollout_index` in metadata; id = `<instance_id | task-<n>>#rollout-<r>`; task id =
 * `instance_id` / `task_id` / the task index; agent = `agent_ref.name`, model = `response.model`.
 * @throws RolloutLoadError when no row is valid (bad rows otherwise go to `input.issues`).
 */
export const openAiResponsesLoader: FormatLoader = {
  id: 'openai-responses',
  label: RESPONSES_LABEL,
  detect(input): Detection {
    if (input.bytes) return { accept: false, reason: 'a binary archive' };
    const { value, where } = firstRow(input);
    if (!isObject(value)) return { accept: false, reason: `${where} is not a JSON object` };
    const rcp = value.responses_create_params;
    const resp = value.response;
    if (isObject(rcp) && isObject(resp) && Array.isArray(resp.output)) return { accept: true, confidence: 0.95 };
    if (isObject(rcp)) return { accept: true, confidence: 0.8 };
    if (isObject(resp) && Array.isArray(resp.output) && 'reward' in value) return { accept: true, confidence: 0.7 };
    return { accept: false, reason: `${where} has no "responses_create_params" and no "response.output" with "reward"` };
  },
  async load(input) {
    return loadRows(input, RESPONSES_LABEL, (ref) => nemoRowRollout(input, ref));
  },
};
