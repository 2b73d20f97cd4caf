/**
 * OpenAI chat rollout dumps: one of the RL rollout dump loaders, on the conversation mapper of
 * rlConversation.ts (whose module docs hold the mapping decisions these loaders share).
 *
 * `openai-chat` — OpenAI Chat Completions rollout rows (JSONL, a JSON array of rows, or one row):
 *    `{messages:[{role, content, tool_calls[{id, function{name, arguments}}], tool_call_id,
 *    reasoning_content}], …RL fields}` as verl multi-turn / SkyRL / OpenRLHF / rLLM-style dumps write
 *    them, and flattened text rows without message structure: verl `_dump_generations`
 *    (`volcengine/verl` `verl/trainer/ppo/ray_trainer.py`: `{input, output, gts, score, step,
 *    …reward_extra_infos}`), SkyRL `dump_per_dataset_eval_results` (`NovaSky-AI/SkyRL`
 *    `skyrl-train/skyrl_train/utils/trainer_utils.py`: `{input_prompt, output_response, score,
 *    stop_reason, env_class, env_extras, data_source}`), and `{prompt, response|completion}` rows.
 */
import { z } from 'zod';
import { RolloutLoadError } from '../errors';
import type { JsonDoc, JsonPath } from '../json';
import { unknownOutcome, type Outcome, type Rollout, type Step } from '../model';
import { agentText, ContentSchema, Conversation, fallbackId, firstUserText, IdSchema, otherScalarFields, promptGroup, rowObject } from './rlConversation';
import { firstRow, loadRows, rowSource, type RowRef } from './rows';
import { textToolCalls } from './textToolCalls';
import { toolCallAction, toolNames } from './toolCalls';
import type { Detection, FormatLoader, LoadInput } from './types';
import { contentText, isObject, resolvedFromReward } from './util';

const CHAT_LABEL = 'OpenAI chat rollout dump';

const ChatToolCallSchema = z
  .looseObject({
    id: z.string().nullish(),
    function: z.looseObject({ name: z.string(), arguments: z.unknown().optional() }).optional(),
    name: z.string().optional(),
    arguments: z.unknown().optional(),
  })
  .refine((t) => t.function !== undefined || typeof t.name === 'string', { message: 'a tool call with "function.name" (or "name")' });

const ChatMessageSchema = z.looseObject({
  role: z.string(),
  content: ContentSchema,
  tool_calls: z.array(ChatToolCallSchema).nullish(),
  tool_call_id: z.string().nullish(),
  name: z.string().nullish(),
  reasoning_content: z.string().nullish(),
  reasoning: z.string().nullish(),
  function_call: z.looseObject({ name: z.string(), arguments: z.unknown().optional() }).nullish(),
});
type ChatMessage = z.infer<typeof ChatMessageSchema>;

/** RL fields the chat loader reads (the rest of a row goes to metadata as recorded). */
const RlFields = {
  id: IdSchema.nullish(),
  rollout_id: IdSchema.nullish(),
  trajectory_id: IdSchema.nullish(),
  request_id: IdSchema.nullish(),
  uid: IdSchema.nullish(),
  group_id: IdSchema.nullish(),
  group_uid: IdSchema.nullish(),
  prompt_id: IdSchema.nullish(),
  reward: z.number().nullish(),
  score: z.union([z.number(), z.array(z.number())]).nullish(),
  resolved: z.boolean().nullish(),
  is_correct: z.boolean().nullish(),
  stop_reason: z.string().nullish(),
  finish_reason: z.string().nullish(),
  termination_reason: z.string().nullish(),
  model: z.string().nullish(),
  instance_id: IdSchema.nullish(),
  task_id: IdSchema.nullish(),
  data_source: z.string().nullish(),
};
const ChatRowSchema = z.looseObject({ messages: z.array(ChatMessageSchema), ...RlFields });
/** TRL-style conversational prompt/completion: both lists of messages. */
const PromptCompletionRowSchema = z.looseObject({ prompt: z.array(ChatMessageSchema), completion: z.array(ChatMessageSchema), ...RlFields });
type RlRow = z.infer<z.ZodObject<typeof RlFields>>;

/** Flattened text rows: [prompt field, response field]. */
const FLAT_PAIRS: [string, string][] = [
  ['input_prompt', 'output_response'],
  ['input', 'output'],
  ['prompt', 'response'],
  ['prompt', 'completion'],
];

/** Keys the chat loader interprets; other scalar keys are copied to `metadata.fields`. */
const CHAT_KNOWN = new Set([...Object.keys(RlFields), 'messages', 'prompt', 'completion', 'response', 'input', 'output', 'input_prompt', 'output_response', 'tools', 'gts', 'step', 'env_class', 'env_extras', 'index']);

/** Maps Chat Completions messages (at `at` in `doc`) to steps. */
function chatSteps(conv: Conversation, messages: ChatMessage[], doc: JsonDoc, at: JsonPath): void {
  messages.forEach((m, i) => {
    const range = doc.rangeOf([...at, i]);
    const text = contentText(m.content);
    const role = m.role.toLowerCase();
    if (role === 'system' || role === 'developer') {
      conv.add('system', { sourceId: i, message: text, range });
    } else if (role === 'user') {
      if (conv.awaitsTextResult()) conv.observe(null, text, range, i);
      else conv.add('user', { sourceId: i, message: text, range });
    } else if (role === 'assistant') {
      const { message, reasoning } = agentText(text, [m.reasoning_content, m.reasoning]);
      const step = conv.add('agent', { sourceId: i, message, reasoning, range });
      const calls = (m.tool_calls ?? []).map((tc) =>
        tc.function ? toolCallAction(tc.function.name, tc.function.arguments, tc.id ?? null) : toolCallAction(tc.name as string, tc.arguments, tc.id ?? null),
      );
      if (m.function_call) calls.push(toolCallAction(m.function_call.name, m.function_call.arguments, null));
      const parsed = calls.length === 0 ? textToolCalls(step.message) : null;
      if (parsed) {
        step.message = parsed.text;
        conv.addActions(step, parsed.actions, true);
      } else conv.addActions(step, calls);
    } else if (role === 'tool' || role === 'function' || role === 'ipython' || role === 'observation' || role === 'environment') {
      conv.observe(m.tool_call_id ?? null, text, range, i);
    } else {
      conv.add('environment', { sourceId: i, message: text, range });
    }
  });
}

/** The prompt of a conversation for grouping: role and text of the messages before the first assistant message. */
export function chatPromptText(messages: ChatMessage[]): string {
  const out: string[] = [];
  for (const m of messages) {
    if (m.role === 'assistant') break;
    out.push(`${m.role}\n${contentText(m.content)}`);
  }
  return out.join('\n\n');
}

/** Outcome, group, id, task fields common to chat and flat rows. */
function rlRollout(input: LoadInput, ref: RowRef, row: RlRow, raw: Record<string, unknown>, steps: Step[], promptText: string, layout: string): Rollout {
  const outcome: Outcome = unknownOutcome();
  if (typeof row.reward === 'number') {
    outcome.reward = row.reward;
    outcome.source = 'reward';
  } else if (typeof row.score === 'number') {
    outcome.reward = row.score;
    outcome.source = 'score';
  }
  const derived: string[] = [];
  if (typeof row.resolved === 'boolean') outcome.resolved = row.resolved;
  else if (typeof row.is_correct === 'boolean') outcome.resolved = row.is_correct;
  else if ((outcome.resolved = resolvedFromReward(outcome.reward)) !== null) derived.push('outcome.resolved');
  outcome.status = row.stop_reason ?? row.finish_reason ?? row.termination_reason ?? null;

  const explicitGroup = row.uid ?? row.group_id ?? row.group_uid ?? row.prompt_id;
  const groupId = explicitGroup !== null && explicitGroup !== undefined ? String(explicitGroup) : promptGroup(promptText);
  const explicitId = row.id ?? row.rollout_id ?? row.trajectory_id ?? row.request_id;
  const taskId = row.instance_id ?? row.task_id;

  const metadata: Record<string, unknown> = { layout };
  for (const k of ['data_source', 'step', 'env_class', 'index', 'stop_reason', 'finish_reason'] as const) {
    if (raw[k] !== undefined && raw[k] !== null) metadata[k === 'data_source' ? 'dataSource' : k] = raw[k];
  }
  if (raw.gts !== undefined) metadata.groundTruth = raw.gts;
  if (Array.isArray(row.score)) metadata.score = row.score;
  if (Array.isArray(raw.tools)) metadata.toolNames = toolNames(raw.tools);
  const fields = otherScalarFields(raw, CHAT_KNOWN);
  if (Object.keys(fields).length) metadata.fields = fields;
  metadata.groupRule = explicitGroup !== null && explicitGroup !== undefined ? 'explicit' : groupId ? 'prompt-hash' : null;

  const rollout: Rollout = {
    id: explicitId !== null && explicitId !== undefined ? String(explicitId) : fallbackId(input, ref),
    format: 'openai-chat',
    schemaVersion: null,
    source: rowSource(input, ref),
    task: { id: taskId !== null && taskId !== undefined ? String(taskId) : null, instruction: firstUserText(steps) },
    agent: { name: null, version: null, model: row.model ?? null },
    environment: { image: null, workdir: null },
    outcome,
    groupId,
    steps,
    metadata,
  };
  if (derived.length) rollout.derived = derived;
  return rollout;
}

/** Which flattened pair a row has (both strings), or null. */
function flatPair(v: Record<string, unknown>): [string, string] | null {
  return FLAT_PAIRS.find(([p, r]) => typeof v[p] === 'string' && typeof v[r] === 'string') ?? null;
}

/** Reads one chat / flat row into a rollout. */
function chatRowRollout(input: LoadInput, ref: RowRef): Rollout {
  const { doc, at } = ref;
  const v = rowObject(ref, CHAT_LABEL, 'a JSON object (one rollout row)');
  const conv = new Conversation();
  if ('messages' in v) {
    const row = doc.validate(ChatRowSchema, CHAT_LABEL, at);
    chatSteps(conv, row.messages, doc, [...at, 'messages']);
    return rlRollout(input, ref, row, v, conv.steps, chatPromptText(row.messages), 'messages');
  }
  if (Array.isArray(v.prompt) && Array.isArray(v.completion)) {
    const row = doc.validate(PromptCompletionRowSchema, CHAT_LABEL, at);
    chatSteps(conv, row.prompt, doc, [...at, 'prompt']);
    const n = conv.steps.length;
    chatSteps(conv, row.completion, doc, [...at, 'completion']);
    for (const s of conv.steps.slice(n)) if (typeof s.sourceId === 'number') s.sourceId = `completion/${s.sourceId}`;
    for (const s of conv.steps.slice(0, n)) if (typeof s.sourceId === 'number') s.sourceId = `prompt/${s.sourceId}`;
    return rlRollout(input, ref, row, v, conv.steps, chatPromptText(row.prompt), 'prompt-completion');
  }
  const pair = flatPair(v);
  if (!pair) {
    throw new RolloutLoadError(doc.file, CHAT_LABEL, [
      doc.issue(at, 'a rollout row with "messages" or a prompt/response text pair (input/output, input_prompt/output_response, prompt/response)'),
    ]);
  }
  const row = doc.validate(z.looseObject(RlFields), CHAT_LABEL, at);
  const [p, r] = pair;
  const prompt = v[p] as string;
  const { message, reasoning } = agentText(v[r] as string, []);
  conv.add('user', { sourceId: p, message: prompt, range: doc.rangeOf([...at, p]) });
  conv.add('agent', { sourceId: r, message, reasoning, range: doc.rangeOf([...at, r]) });
  return rlRollout(input, ref, row, v, conv.steps, prompt, `${p}/${r}`);
}

/** Why a row is not a chat/flat row, or null when it is one. */
function chatDecline(v: unknown, where: string): string | null {
  if (!isObject(v)) return `${where} is not a JSON object`;
  if ('step_labels' in v) return `${where} has "step_labels" (an AgentProcessBench row)`;
  if ('trajectory_format' in v) return `${where} has "trajectory_format" (a mini-swe-agent trajectory)`;
  if ('responses_create_params' in v) return `${where} has "responses_create_params" (NeMo-Gym Responses rollouts)`;
  if ('conversations' in v) return `${where} has "conversations" (a Harbor traces export)`;
  if ('completions' in v || 'labels' in v) return `${where} has "completions"/"labels" (a step-label dataset)`;
  if ('litellm_call_id' in v || 'litellm_params' in v) return `${where} is a litellm call log (one LLM request), not a rollout`;
  if (Array.isArray(v.messages)) {
    const m0 = v.messages[0];
    return isObject(m0) && typeof m0.role === 'string' ? null : `${where} has "messages" but its first item has no "role"`;
  }
  if (Array.isArray(v.prompt) && Array.isArray(v.completion)) return null;
  if (flatPair(v)) return null;
  return `${where} has no "messages" list and no prompt/response text pair (input/output, input_prompt/output_response, prompt/response)`;
}

/**
 * OpenAI Chat Completions rollout dumps and flattened RL text dumps (see the module docs of rlConversation.ts):
 * JSONL (one rollout per line), a JSON array of rows, or one row object.
 *
 * Row shapes: `messages[]` (Chat Completions; AgentProcessBench rows — those with `step_labels` — are
 * left to that loader), TRL conversational `{prompt:[…], completion:[…]}`, and flattened text pairs
 * (verl `input`/`output`, SkyRL `input_prompt`/`output_response`, `prompt`/`response|completion`),
 * which become a user step (the prompt) and an agent step (the response, `<think>` split off).
 * Steps: `sourceId` = the message index (a string field name for flat rows). Outcome: reward =
 * `reward`, else a numeric `score` (a per-token `score` list is kept in metadata, reward null);
 * resolved = `resolved` / `is_correct`, else implied by a reward of ≥1 / ≤0; status =
 * `stop_reason` / `finish_reason` / `termination_reason`. groupId: explicit `uid` / `group_id` /
 * `group_uid` / `prompt_id`, else the prompt hash (rlConversation.ts module docs). Id: `id` / `rollout_id` /
 * `trajectory_id` / `request_id`, else `<path>:<line>`; task id `instance_id` / `task_id`; model `model`.
 * Metadata: data source, step, ground truth (`gts`), tool names, other scalar fields (`fields`).
 * @throws RolloutLoadError when no row is valid (bad rows otherwise go to `input.issues`).
 */
export const openAiChatLoader: FormatLoader = {
  id: 'openai-chat',
  label: CHAT_LABEL,
  detect(input): Detection {
    if (input.bytes) return { accept: false, reason: 'a binary archive' };
    const { value, where } = firstRow(input);
    const why = chatDecline(value, where);
    if (why) return { accept: false, reason: why };
    const v = value as Record<string, unknown>;
    const rl = ['reward', 'score', 'uid', 'gts', 'step', 'data_source', 'stop_reason', 'env_class'].some((k) => k in v);
    const many = input.lines !== null || Array.isArray(input.doc?.value);
    return { accept: true, confidence: Array.isArray(v.messages) ? (many ? 0.6 : 0.5) : rl ? 0.6 : 0.45 };
  },
  async load(input) {
    return loadRows(input, CHAT_LABEL, (ref) => chatRowRollout(input, ref));
  },
};
