/**
 * RL rollout dumps and chat exports: four loaders for files that RL frameworks and trace exporters
 * write, all built on one conversation mapper (assistant turn → agent step, tool results →
 * observations linked by call id).
 *
 * 1. `openai-chat` — OpenAI Chat Completions rollout rows (JSONL, a JSON array of rows, or one row):
 *    `{messages:[{role, content, tool_calls[{id, function{name, arguments}}], tool_call_id,
 *    reasoning_content}], …RL fields}` as verl multi-turn / SkyRL / OpenRLHF / rLLM-style dumps write
 *    them, and flattened text rows without message structure: verl `_dump_generations`
 *    (`volcengine/verl` `verl/trainer/ppo/ray_trainer.py`: `{input, output, gts, score, step,
 *    …reward_extra_infos}`), SkyRL `dump_per_dataset_eval_results` (`NovaSky-AI/SkyRL`
 *    `skyrl-train/skyrl_train/utils/trainer_utils.py`: `{input_prompt, output_response, score,
 *    stop_reason, env_class, env_extras, data_source}`), and `{prompt, response|completion}` rows.
 * 2. `openai-responses` — NVIDIA NeMo-Gym rollouts (`NVIDIA-NeMo/Gym`, `<server or agent>/data/example_rollouts….jsonl`):
 *    OpenAI *Responses API* items `{responses_create_params{input, instructions}, response{output[],
 *    model, status, usage}, reward, reward_components?, _ng_task_index, _ng_rollout_index, agent_ref,
 *    …task fields}`.
 * 3. `harbor-traces` — Harbor's traces export (`harbor-framework/harbor`
 *    `src/harbor/utils/traces_utils.py`: `export_traces` → `collect_conversations_from_trial` →
 *    `_extract_single_episode_conversation`; CLI `harbor traces export`, `src/harbor/cli/traces.py`):
 *    a JSON list (or JSONL) of `{conversations:[{role, content}], agent, model, model_provider, date,
 *    task, episode, run_id, trial_name, result, trace_source?, instruction?, tool_definitions?}`, one
 *    record per episode with the cumulative conversation.
 * 4. `rllm-episode` — rLLM episodes (`rllm-org/rllm` `rllm/agents/agent.py` `Episode.to_dict()`:
 *    `{id:"task:rollout", task, termination_reason, is_correct, trajectories:[{uid, name, steps[{
 *    chat_completions, observation, thought, action, model_response, reward, done}], reward}]}`, and
 *    the per-episode file of `rllm/utils/episode_logger.py` `EpisodeLogger.log_episode`, which writes
 *    `episode_id`, `training_step`, `epoch`, `task_hash` and the same trajectories without token ids).
 *
 * Shared mapping decisions (documented once here, per loader below):
 * - Roles: `system`/`developer` → system step; `user` → user step; `assistant` → agent step;
 *   `tool`/`function`/`ipython` messages and Responses `function_call_output` items → observations.
 * - Tool calls → actions (toolCalls.ts `toolCallAction`, shared with the ATIF loader): a shell-like
 *   tool (`bash`, `shell`, `terminal`, `execute_bash`, `run_command`, `exec_command`, … or a name
 *   with a `bash`/`shell`/`terminal` word) whose arguments hold a `command`/`cmd` string (or argv
 *   list) → `shell` with that command; `finish`/`submit`/`mark_task_complete`/`task_complete` →
 *   `finish`; editor tools that write (`str_replace_editor` with `create`/`str_replace`/`insert`/…,
 *   `write_file`, `edit_file`, `apply_patch`, …) → `file_edit`; anything else → `tool` with the
 *   parsed arguments (a JSON-string argument that parses is stored parsed, else as recorded; a null
 *   argument stays null). Text tool calls in an assistant text without structured calls — Hermes/Qwen
 *   `<tool_call>{"name":…, "arguments":…}</tool_call>` and the XML function form
 *   `<function=NAME><parameter=K>V</parameter></function>` of SWE-agent / OpenHands prompts without
 *   function calling (textToolCalls.ts) — become actions the same way; in chat rows the user message
 *   right after such a message is their output (an observation, not a user step).
 * - Observation linking: by call id (`tool_call_id`, `call_id`); an output without one answers the
 *   oldest unanswered action of the latest agent step (AgentProcessBench-style tool messages carry
 *   only `name`); an output with nothing to answer becomes an `environment` step.
 * - Exit codes are read from the output text only when it carries one (textToolCalls.ts
 *   `exitCodeOf`, marked `exitCodeFrom: 'text'`): mini-swe-agent's `<returncode>N</returncode>`
 *   (first one), a JSON object output with an integer `exit_code` (or `returncode`) key at its top
 *   level (`{"output": …, "exit_code": 0}`), an `Exit code: N` / `exit code: N` line (at most 200
 *   characters) that is the first or last line of the trimmed output, else OpenHands' inline
 *   `[Command finished with exit code N]` / `[The command completed with exit code N.]` (last one).
 *   Otherwise null. The output text is kept as recorded.
 * - Reasoning: an explicit field (`reasoning_content`, `reasoning`, Responses `reasoning` items'
 *   summary/content text, rLLM `thought`) or a leading `<think>…</think>` block in the text (an
 *   unclosed leading `<think>` makes the whole text reasoning; a `</think>` without an opening tag,
 *   as vLLM returns when the template opened it, makes the text before it reasoning).
 * - GRPO group (`Rollout.groupId`): the row's explicit id first (`uid`, `group_id`, `group_uid`,
 *   `prompt_id`; NeMo-Gym `_ng_task_index` → `ng-task-<n>`; rLLM the task part of `task:rollout`),
 *   else `prompt-sha256:<16 hex>` of the prompt (the messages before the first assistant message,
 *   role and text, or the flattened prompt text): rows sharing a prompt share a group.
 * - Bad rows (rows.ts `loadRows`): every row is read; a row that does not conform is left out, its
 *   located issues go to `input.issues` (→ `LoadedFile.issues`) and to each loaded rollout's
 *   `metadata.warnings`; a file with no valid row throws RolloutLoadError listing every issue. A
 *   repeated id gets `#line<N>` appended (the row's line; `#<n>` for a rollout without one).
 */
import { createHash } from 'node:crypto';
import { z } from 'zod';
import { RolloutLoadError } from '../errors';
import type { JsonDoc, JsonPath } from '../json';
import { makeStep, unknownOutcome, type Action, type Observation, type Outcome, type Rollout, type Role, type SourceRange, type Step } from '../model';
import { finishRows, firstRow, IssueCollector, loadRows, rowLine, rowRefs, rowSource, uniqueIds, type RowRef } from './rows';
import { exitCodeOf, textExitCode, textToolCalls } from './textToolCalls';
import { shellCommand, toolCallAction, toolNames } from './toolCalls';
import type { Detection, FormatLoader, LoadInput } from './types';
import { contentText, isObject, maybeJson, resolvedFromReward, str, terminusReplyActions } from './util';

const CHAT_LABEL = 'OpenAI chat rollout dump';
const RESPONSES_LABEL = 'NeMo-Gym Responses rollouts';
const TRACES_LABEL = 'Harbor traces export';
const RLLM_LABEL = 'rLLM episode';

// ---------------------------------------------------------------------------------------------
// Rows: one JSON value per JSONL line, per array item, or the whole document (rows.ts)

/** `<path>:<line>` for rows without an id of their own (`<path>` for a whole-file row). */
function fallbackId(input: LoadInput, ref: RowRef): string {
  return ref.line || ref.at.length ? `${input.path}:${rowLine(ref)}` : input.path;
}

/** Throws a located "not an object" issue unless the row is a JSON object. */
function rowObject(ref: RowRef, label: string, expected: string): Record<string, unknown> {
  const v = ref.doc.get(ref.at);
  if (!isObject(v)) throw new RolloutLoadError(ref.doc.file, label, [ref.doc.issue(ref.at, expected)]);
  return v;
}

// ---------------------------------------------------------------------------------------------
// Text helpers: <think> blocks, Hermes text tool calls, exit codes

/** Splits a leading `<think>…</think>` (or a vLLM orphan `…</think>`) from a text; see the module docs. */
export function splitThink(text: string): { reasoning: string | null; text: string } {
  const open = /^\s*<think>/.exec(text);
  const close = text.indexOf('</think>');
  if (open) {
    if (close < 0) return { reasoning: text.slice(open[0].length).trim() || null, text: '' };
    return { reasoning: text.slice(open[0].length, close).trim() || null, text: text.slice(close + '</think>'.length).trim() };
  }
  if (close >= 0 && !text.includes('<think>')) {
    return { reasoning: text.slice(0, close).trim() || null, text: text.slice(close + '</think>'.length).trim() };
  }
  return { reasoning: null, text };
}

// Hermes / XML text tool calls and exit codes in output text live in textToolCalls.ts (shared with
// the ATIF and SWE trajectory row loaders); re-exported here for the row summaries and tests.
export { exitCodeOf, textToolCalls };

/** Short stable hash of a prompt: `prompt-sha256:<16 hex>`. */
export function promptGroup(promptText: string): string | null {
  if (promptText.trim() === '') return null;
  return `prompt-sha256:${createHash('sha256').update(promptText, 'utf8').digest('hex').slice(0, 16)}`;
}

// ---------------------------------------------------------------------------------------------
// Conversation builder shared by the loaders

class Conversation {
  readonly steps: Step[] = [];
  /** Actions still waiting for their output, oldest first. */
  private pending: { step: Step; action: Action }[] = [];
  /** The last step is an agent step whose actions were read from its text and wait for their output. */
  private textCallsPending = false;

  add(role: Role, fields: Partial<Step> = {}): Step {
    const step = makeStep(this.steps.length, role, fields);
    this.steps.push(step);
    this.textCallsPending = false;
    return step;
  }

  /**
   * True when the next user message is the output of text tool calls (`<function=…>` / `<tool_call>`
   * in the last agent step's text): prompts without function calling return each call's result as
   * the next user message (SWE-agent `OBSERVATION:`, OpenHands `EXECUTION RESULT of […]`).
   */
  awaitsTextResult(): boolean {
    return this.textCallsPending;
  }

  /** The last step when it is an agent step. */
  lastAgent(): Step | null {
    const s = this.steps[this.steps.length - 1];
    return s && s.role === 'agent' ? s : null;
  }

  /** Adds actions to a step; `fromText`: they were read from the step's text (see awaitsTextResult). */
  addActions(step: Step, actions: Action[], fromText = false): void {
    for (const a of actions) {
      step.actions.push(a);
      // A finish written as text still gets an answer (SWE-agent's `submit` review prompt).
      if (a.kind !== 'finish' || a.callId !== null || fromText) {
        this.pending.push({ step, action: a });
        if (fromText && step === this.lastAgent()) this.textCallsPending = true;
      }
    }
  }

  /**
   * Attaches a tool output: to the action with the same call id, else to the oldest unanswered action
   * of the latest agent step, else it becomes an environment step.
   */
  observe(callId: string | null, output: string, range: SourceRange | null, sourceId: string | number | null): void {
    let i = callId !== null ? this.pending.findIndex((p) => p.action.callId === callId) : -1;
    if (i < 0 && callId === null) {
      const last = [...this.steps].reverse().find((s) => s.role === 'agent');
      i = last ? this.pending.findIndex((p) => p.step === last) : -1;
    }
    const obs: Observation = { callId: callId ?? (i >= 0 ? this.pending[i].action.callId : null), output, ...textExitCode(exitCodeOf(output)), truncated: false };
    this.textCallsPending = false;
    if (i >= 0) {
      this.pending[i].step.observations.push(obs);
      this.pending.splice(i, 1);
      return;
    }
    this.add('environment', { sourceId, observations: [obs], range });
  }
}

/** Text of a message's reasoning fields joined with the `<think>` block of its text, and the remaining text. */
function agentText(text: string, explicitReasoning: (string | null | undefined)[]): { message: string; reasoning: string | null } {
  const split = splitThink(text);
  const parts = [...explicitReasoning.filter((r): r is string => typeof r === 'string' && r.trim() !== ''), ...(split.reasoning ? [split.reasoning] : [])];
  return { message: split.text, reasoning: parts.length ? parts.join('\n\n') : null };
}

// ---------------------------------------------------------------------------------------------
// 1. OpenAI chat rollout dumps

const IdSchema = z.union([z.string(), z.number()]);
const ContentSchema = z.union([z.string(), z.array(z.unknown()), z.null()]).optional();

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

/** The row's fields outside `known` that are numbers, booleans or strings of at most 200 characters (`metadata.fields`). */
function otherScalarFields(raw: Record<string, unknown>, known: ReadonlySet<string>): Record<string, unknown> {
  const fields: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(raw)) {
    if (known.has(k)) continue;
    if (typeof v === 'number' || typeof v === 'boolean' || (typeof v === 'string' && v.length <= 200)) fields[k] = v;
  }
  return fields;
}

function firstUserText(steps: Step[]): string | null {
  return steps.find((s) => s.role === 'user')?.message ?? null;
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
 * OpenAI Chat Completions rollout dumps and flattened RL text dumps (see the module docs):
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
 * `group_uid` / `prompt_id`, else the prompt hash (module docs). Id: `id` / `rollout_id` /
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

// ---------------------------------------------------------------------------------------------
// 2. NeMo-Gym Responses API rollouts

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
 * `*_call_output` (→ observation by `call_id`, exit code per the module docs), other `*_call`
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

// ---------------------------------------------------------------------------------------------
// 3. Harbor traces export

const TraceMessageSchema = z.looseObject({ role: z.string(), content: z.union([z.string(), z.array(z.unknown()), z.null()]) });
const TraceRecordSchema = z.looseObject({
  conversations: z.array(TraceMessageSchema),
  agent: z.string().nullish(),
  model: z.string().nullish(),
  model_provider: z.string().nullish(),
  date: z.string().nullish(),
  task: z.string().nullish(),
  episode: z.string().nullish(),
  run_id: z.string().nullish(),
  trial_name: z.string().nullish(),
  result: z.union([z.string(), z.number()]).nullish(),
  trace_source: z.string().nullish(),
  instruction: z.string().nullish(),
  verifier_output: z.string().nullish(),
  tool_definitions: z.array(z.unknown()).nullish(),
});
type TraceRecord = z.infer<typeof TraceRecordSchema>;

interface LoadedTrace {
  ref: RowRef;
  rec: TraceRecord;
  /** Episode number from `episode-<n>`, else the record's ordinal. */
  episodeNo: number;
}

function sameMessage(a: TraceRecord['conversations'][number], b: TraceRecord['conversations'][number]): boolean {
  return a.role === b.role && (a.content === b.content || JSON.stringify(a.content) === JSON.stringify(b.content));
}

function isPrefix(a: TraceRecord['conversations'], b: TraceRecord['conversations']): boolean {
  return a.length <= b.length && a.every((m, i) => sameMessage(m, b[i]));
}

/** Result field: a number (reward bucket like "1.0") or an exception name. */
function traceOutcome(result: string | number | null | undefined): Outcome {
  const o = unknownOutcome();
  if (result === null || result === undefined) return o;
  const n = typeof result === 'number' ? result : /^\s*-?\d+(\.\d+)?([eE][-+]?\d+)?\s*$/.test(result) ? Number(result) : NaN;
  if (Number.isFinite(n)) {
    o.reward = n;
    o.resolved = resolvedFromReward(n);
  } else {
    o.status = String(result);
  }
  o.source = 'result';
  return o;
}

/**
 * Steps of one conversation segment (the last record of a run of cumulative episodes). A user message
 * right after an assistant message is that agent step's observation: the exporter writes each agent
 * step's observation as the next user message (a genuine user turn in that place reads the same).
 */
function traceSegmentSteps(conv: Conversation, seg: LoadedTrace[], episodeEnds: Map<number, string>): void {
  const last = seg[seg.length - 1];
  const msgs = last.rec.conversations;
  /** The agent step of the previous message when it was an assistant message (within this segment). */
  let prevAgent: Step | null = null;
  msgs.forEach((m, i) => {
    const text = contentText(m.content);
    const range = last.ref.doc.rangeOf([...last.ref.at, 'conversations', i]);
    const role = m.role.toLowerCase();
    if (role === 'assistant') {
      const { message, reasoning } = agentText(text, []);
      const step = conv.add('agent', { sourceId: episodeEnds.get(i) ?? null, message, reasoning, range });
      const calls = textToolCalls(message);
      if (calls) {
        step.message = calls.text;
        step.actions.push(...calls.actions);
      } else {
        step.actions.push(...(terminusReplyActions(message) ?? []));
      }
      prevAgent = step;
    } else if ((role === 'user' || role === 'tool') && prevAgent) {
      prevAgent.observations.push({ callId: null, output: text, ...textExitCode(exitCodeOf(text)), truncated: false });
      prevAgent = null;
    } else {
      conv.add(role === 'system' ? 'system' : role === 'user' ? 'user' : 'environment', { message: text, range });
      prevAgent = null;
    }
  });
}

/** Builds the rollouts of a traces export: one per (run_id, trial_name, trace_source). */
function traceRollouts(input: LoadInput, traces: LoadedTrace[]): Rollout[] {
  const groups = new Map<string, LoadedTrace[]>();
  for (const t of traces) {
    const key = JSON.stringify([t.rec.run_id ?? null, t.rec.trial_name ?? null, t.rec.trace_source ?? null, t.rec.task ?? null]);
    const g = groups.get(key);
    if (g) g.push(t);
    else groups.set(key, [t]);
  }
  const out: Rollout[] = [];
  for (const g of groups.values()) {
    const ordered = [...g].sort((a, b) => a.episodeNo - b.episodeNo || a.ref.index - b.ref.index);
    // Segments: runs of records whose conversations extend the previous one (cumulative episodes);
    // a record that does not (a continuation after context summarization) starts a new segment.
    const segments: LoadedTrace[][] = [];
    for (const t of ordered) {
      const seg = segments[segments.length - 1];
      if (seg && isPrefix(seg[seg.length - 1].rec.conversations, t.rec.conversations)) seg.push(t);
      else segments.push([t]);
    }
    const conv = new Conversation();
    const segmentInfo: { firstStep: number; episodes: string[] }[] = [];
    for (const seg of segments) {
      const firstStep = conv.steps.length;
      // Which assistant message ends which episode record (its training target).
      const ends = new Map<number, string>();
      for (const t of seg) {
        const n = t.rec.conversations.length;
        if (n && t.rec.conversations[n - 1].role === 'assistant') ends.set(n - 1, t.rec.episode ?? `#${t.ref.index}`);
      }
      traceSegmentSteps(conv, seg, ends);
      segmentInfo.push({ firstStep, episodes: seg.map((t) => t.rec.episode ?? `#${t.ref.index}`) });
    }
    const first = ordered[0].rec;
    const lastRec = ordered[ordered.length - 1].rec;
    const firstRef = ordered[0].ref;
    const baseId = first.trial_name ?? first.run_id ?? fallbackId(input, firstRef);
    const src = first.trace_source && first.trace_source !== 'main' ? first.trace_source : null;
    const metadata: Record<string, unknown> = {
      runId: first.run_id ?? null,
      trialName: first.trial_name ?? null,
      modelProvider: first.model_provider ?? null,
      date: first.date ?? null,
      episodes: ordered.map((t) => t.rec.episode ?? null),
      records: ordered.length,
      result: lastRec.result ?? null,
    };
    if (segments.length > 1) metadata.segments = segmentInfo;
    if (first.trace_source) metadata.traceSource = first.trace_source;
    if (lastRec.verifier_output != null) metadata.verifierOutput = lastRec.verifier_output;
    if (first.tool_definitions?.length) metadata.toolNames = toolNames(first.tool_definitions);
    const lines = ordered.map((t) => rowLine(t.ref));
    const outcome = traceOutcome(lastRec.result);
    out.push({
      id: src ? `${baseId}#${src}` : baseId,
      format: 'harbor-traces',
      schemaVersion: null,
      source: { path: input.path, range: null, line: ordered.length === 1 ? lines[0] : null },
      task: { id: first.task ?? null, instruction: lastRec.instruction ?? firstUserText(conv.steps) },
      agent: { name: first.agent ?? null, version: null, model: first.model ?? null },
      environment: { image: null, workdir: null },
      outcome,
      // A numeric result is a reward; Harbor records no "resolved" (traceOutcome derives it).
      ...(outcome.resolved !== null ? { derived: ['outcome.resolved'] } : {}),
      groupId: null,
      steps: conv.steps,
      metadata,
    });
  }
  uniqueIds(out);
  return out;
}

function traceLooksLike(v: unknown): boolean {
  return isObject(v) && Array.isArray(v.conversations) && ['episode', 'run_id', 'trial_name', 'agent', 'model_provider'].some((k) => k in v);
}

/**
 * Harbor traces export (module docs, source 3): records of `{conversations:[{role, content}], agent,
 * model, model_provider, date, task, episode, run_id, trial_name, result}`, a JSON list or JSONL.
 *
 * Decision: one rollout per trial (records sharing `run_id`, `trial_name`, `trace_source`, `task`),
 * not per record. Harbor writes one record per episode with the cumulative conversation up to that
 * episode's assistant turn, so the records of a trial are prefixes of each other; the rollout's steps
 * come from the last record of each run of cumulative records ("segment"). A record that does not
 * extend the previous one (the agent restarted its conversation after context summarization) starts
 * a new segment, appended after the previous one (`metadata.segments`: first step and episodes).
 * Steps: the first `user` message (Harbor writes the ATIF system prompt as `user`) → user step;
 * `assistant` → agent step (`<think>` → reasoning; Harbor's `<tool_call>{name, arguments}</tool_call>`
 * blocks → actions; else a Terminus-2 JSON reply → `keystrokes` actions and `finish` for
 * `task_complete: true`, via util `terminusReplyActions`); the user message after an assistant message
 * → that agent step's observation; an agent step's `sourceId` = the episode whose record ends with it.
 * Outcome from `result`: a number (reward bucket "1.0") → reward (resolved implied), another string
 * (exception name) → status. Id = `trial_name` (else `run_id`, else `<path>:<line>`), `#<trace_source>`
 * appended for subagent traces. `ranges` point into the last record of the step's segment.
 * @throws RolloutLoadError when no record is valid (bad records otherwise go to `input.issues`).
 */
export const harborTracesLoader: FormatLoader = {
  id: 'harbor-traces',
  label: TRACES_LABEL,
  detect(input): Detection {
    if (input.bytes) return { accept: false, reason: 'a binary archive' };
    const { value, where } = firstRow(input);
    if (!isObject(value)) return { accept: false, reason: `${where} is not a JSON object` };
    if (traceLooksLike(value)) return { accept: true, confidence: 0.95 };
    return { accept: false, reason: `${where} has no "conversations" list with "episode"/"run_id"/"trial_name"/"agent"` };
  },
  async load(input) {
    const traces: LoadedTrace[] = [];
    const issues = new IssueCollector();
    for (const make of rowRefs(input)) {
      const t = issues.run(() => {
        const ref = make();
        rowObject(ref, TRACES_LABEL, 'a traces record object');
        const rec = ref.doc.validate(TraceRecordSchema, TRACES_LABEL, ref.at);
        const m = /^episode-(\d+)$/.exec(rec.episode ?? '');
        return { ref, rec, episodeNo: m ? Number(m[1]) : ref.index };
      });
      if (t) traces.push(t);
    }
    return finishRows(input, TRACES_LABEL, traces.length ? traceRollouts(input, traces) : [], issues.issues);
  },
};

// ---------------------------------------------------------------------------------------------
// 4. rLLM episodes

const RllmStepSchema = z.looseObject({
  chat_completions: z.array(z.unknown()).nullish(),
  observation: z.unknown().optional(),
  thought: z.string().nullish(),
  action: z.unknown().optional(),
  model_response: z.string().nullish(),
  reward: z.number().nullish(),
  done: z.boolean().nullish(),
});
type RllmStep = z.infer<typeof RllmStepSchema>;
const RllmTrajectorySchema = z.looseObject({
  uid: z.string().nullish(),
  name: z.string().nullish(),
  steps: z.array(RllmStepSchema),
  reward: z.number().nullish(),
});
const RllmEpisodeSchema = z.looseObject({
  id: z.string().nullish(),
  episode_id: z.string().nullish(),
  task: z.unknown().optional(),
  task_hash: z.string().nullish(),
  termination_reason: z.string().nullish(),
  is_correct: z.boolean().nullish(),
  /** A list (`Episode.to_dict()`) or an object keyed by trajectory name; validated apart for precise pointers. */
  trajectories: z.union([z.array(z.unknown()), z.record(z.string(), z.unknown())]),
  metrics: z.unknown().optional(),
  training_step: z.number().nullish(),
  epoch: z.number().nullish(),
});

/** Text of an rLLM observation / task value: a string as is, else JSON. */
function valueText(v: unknown): string {
  if (typeof v === 'string') return v;
  if (v === null || v === undefined) return '';
  return JSON.stringify(v);
}

/** The task's instruction: a string task, or its `question`/`problem`/`instruction`/`prompt` string. */
function rllmInstruction(task: unknown): string | null {
  if (typeof task === 'string') return task;
  if (!isObject(task)) return null;
  for (const k of ['question', 'problem', 'instruction', 'prompt', 'query']) if (typeof task[k] === 'string') return task[k] as string;
  return null;
}

/** Actions of an rLLM step's `action`: ToolCall dicts (`{name, arguments}`), OpenAI tool calls, or a raw value. */
function rllmActions(action: unknown): Action[] {
  if (action === null || action === undefined || action === '') return [];
  const one = (a: unknown): Action | null => {
    if (!isObject(a)) return null;
    if (isObject(a.function) && typeof a.function.name === 'string') return toolCallAction(a.function.name, a.function.arguments, str(a.id));
    if (typeof a.name === 'string' && 'arguments' in a) return toolCallAction(a.name, a.arguments ?? a.arguments_raw, str(a.id));
    return null;
  };
  const list = Array.isArray(action) ? action.map(one) : [one(action)];
  if (list.length && list.every((a) => a !== null)) return list as Action[];
  // Any other action (an answer string, an env action like "Up"): kept as recorded, kind unknown → tool.
  return [{ kind: 'tool', command: null, tool: null, arguments: action, callId: null }];
}

function rllmEpisodeRollout(input: LoadInput, ref: RowRef): Rollout {
  const { doc, at } = ref;
  rowObject(ref, RLLM_LABEL, 'an rLLM episode object');
  const ep = doc.validate(RllmEpisodeSchema, RLLM_LABEL, at);
  const trajs = Array.isArray(ep.trajectories)
    ? doc.validate(z.array(RllmTrajectorySchema), RLLM_LABEL, [...at, 'trajectories'])
    : doc.validate(z.record(z.string(), RllmTrajectorySchema), RLLM_LABEL, [...at, 'trajectories']);
  const trajEntries: [string | number, z.infer<typeof RllmTrajectorySchema>][] = Array.isArray(trajs) ? trajs.map((t, i) => [i, t]) : Object.entries(trajs);
  const conv = new Conversation();
  const stepRewards: { stepIndex: number; trajectory: string; reward: number | null; done: boolean | null }[] = [];
  for (const [key, traj] of trajEntries) {
    const name = traj.name ?? String(key);
    traj.steps.forEach((s: RllmStep, k) => {
      const range = doc.rangeOf([...at, 'trajectories', key, 'steps', k]);
      const cc = (s.chat_completions ?? []).filter(isObject);
      const obs = s.observation;
      const hasObs = obs !== null && obs !== undefined && obs !== '';
      if (k === 0) {
        if (hasObs) conv.add('user', { sourceId: `${name}/0/observation`, message: valueText(obs), range });
        else {
          for (const m of cc) {
            if (m.role === 'assistant') break;
            conv.add(m.role === 'system' ? 'system' : 'user', { sourceId: `${name}/0/prompt`, message: contentText(m.content), range });
          }
        }
      } else if (hasObs) {
        const prev = conv.lastAgent();
        const text = valueText(obs);
        if (prev) prev.observations.push({ callId: null, output: text, ...textExitCode(exitCodeOf(text)), truncated: false });
        else conv.add('environment', { sourceId: `${name}/${k}/observation`, message: text, range });
      }
      const lastMsg = cc[cc.length - 1];
      const fromChat = lastMsg && lastMsg.role === 'assistant' ? lastMsg : null;
      const response = s.model_response || (fromChat ? contentText(fromChat.content) : '');
      const explicit = s.thought || (fromChat ? (str(fromChat.reasoning) ?? str(fromChat.reasoning_content)) : null);
      const { message, reasoning } = agentText(response, [explicit]);
      const step = conv.add('agent', { sourceId: `${name}/${k}`, message, reasoning, range });
      let actions = rllmActions(s.action);
      if (actions.length === 0 && fromChat && Array.isArray(fromChat.tool_calls)) actions = rllmActions(fromChat.tool_calls);
      step.actions.push(...actions);
      stepRewards.push({ stepIndex: step.index, trajectory: name, reward: s.reward ?? null, done: s.done ?? null });
    });
  }
  const id = ep.id ?? ep.episode_id ?? null;
  // rLLM names episodes `<task>:<rollout>`: a task read out of the id is derived.
  const taskId = id && id.includes(':') ? id.slice(0, id.lastIndexOf(':')) : null;
  const derived: string[] = taskId !== null ? ['task.id'] : [];
  const outcome = unknownOutcome();
  const named = trajEntries.filter(([, t]) => typeof t.reward === 'number').map(([k, t]) => [t.name ?? String(k), t.reward as number] as const);
  if (named.length === 1 || (named.length > 1 && named.every(([, r]) => r === named[0][1]))) outcome.reward = named[0][1];
  if (named.length > 1) {
    const rewards: Record<string, number> = {};
    named.forEach(([n, r], i) => (rewards[n in rewards ? `${n}#${i}` : n] = r));
    outcome.rewards = rewards;
  }
  outcome.resolved = typeof ep.is_correct === 'boolean' ? ep.is_correct : resolvedFromReward(outcome.reward);
  if (typeof ep.is_correct !== 'boolean' && outcome.resolved !== null) derived.push('outcome.resolved');
  outcome.status = ep.termination_reason ?? null;
  outcome.source = typeof ep.is_correct === 'boolean' ? 'is_correct' : outcome.reward !== null ? 'trajectories[].reward' : null;
  const metadata: Record<string, unknown> = {
    trajectories: trajEntries.map(([k, t]) => ({ name: t.name ?? String(k), uid: t.uid ?? null, steps: t.steps.length, reward: t.reward ?? null })),
    stepRewards,
  };
  if (ep.metrics !== undefined && ep.metrics !== null) metadata.metrics = ep.metrics;
  if (ep.training_step != null) metadata.trainingStep = ep.training_step;
  if (ep.epoch != null) metadata.epoch = ep.epoch;
  if (ep.task_hash) metadata.taskHash = ep.task_hash;
  const names = [...new Set(trajEntries.map(([k, t]) => t.name ?? String(k)))];
  return {
    ...(derived.length ? { derived } : {}),
    id: id ?? fallbackId(input, ref),
    format: 'rllm-episode',
    schemaVersion: null,
    source: rowSource(input, ref),
    task: { id: taskId ?? ep.task_hash ?? null, instruction: rllmInstruction(ep.task) ?? firstUserText(conv.steps) },
    agent: { name: names.length === 1 ? names[0] : null, version: null, model: null },
    environment: { image: null, workdir: null },
    outcome,
    groupId: taskId ?? ep.task_hash ?? null,
    steps: conv.steps,
    metadata,
  };
}

/**
 * rLLM episodes (module docs, source 4): `Episode.to_dict()` or an `EpisodeLogger` episode file, one
 * JSON object per file, JSONL of episodes, or a JSON array.
 *
 * Mapping: every trajectory's steps in order (multi-agent episodes: trajectories one after another;
 * `sourceId` = `<trajectory name>/<step>`). An rLLM step is one model call: its `observation` (the
 * environment's output before the call) → on the first step a user step, later the observation of
 * the previous agent step (the output of its action); when the first step has no observation, the
 * system/user messages of its `chat_completions` before the first assistant message are the prompt.
 * The agent step: message = `model_response` (else the last assistant message of `chat_completions`),
 * reasoning = `thought` (else that message's `reasoning`, else a `<think>` block); actions from
 * `action`: ToolCall dicts `{name, arguments}` / OpenAI tool calls → tool actions (shell rules in the
 * module docs), any other non-empty action (an answer, an environment move) → one `tool` action with
 * `tool: null` and the action as `arguments`. Step rewards and `done` → `metadata.stepRewards`.
 * Outcome: resolved = `is_correct`; reward = the trajectory reward when one trajectory has one (or
 * all agree), rewards = by trajectory name when several; status = `termination_reason`. Id = `id`
 * (`<task_id>:<rollout_idx>`) / `episode_id`; groupId = task id = the part before the last `:`
 * (rLLM's GRPO groups are `task:role`, so every rollout of a task shares it), else `task_hash`.
 * @throws RolloutLoadError when no episode is valid (bad rows otherwise go to `input.issues`).
 */
export const rllmEpisodeLoader: FormatLoader = {
  id: 'rllm-episode',
  label: RLLM_LABEL,
  detect(input): Detection {
    if (input.bytes) return { accept: false, reason: 'a binary archive' };
    const { value, where } = firstRow(input);
    if (!isObject(value)) return { accept: false, reason: `${where} is not a JSON object` };
    const trajs = value.trajectories;
    if (!(Array.isArray(trajs) || isObject(trajs))) return { accept: false, reason: `${where} has no "trajectories"` };
    if (!('termination_reason' in value || 'is_correct' in value)) return { accept: false, reason: `${where} has "trajectories" but no "termination_reason"/"is_correct"` };
    return { accept: true, confidence: 'id' in value || 'episode_id' in value ? 0.9 : 0.7 };
  },
  async load(input) {
    return loadRows(input, RLLM_LABEL, (ref) => rllmEpisodeRollout(input, ref));
  },
};
