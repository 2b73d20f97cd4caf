/**
 * The conversation mapper shared by the RL rollout dump loaders (openAiChat.ts, openAiResponses.ts,
 * harborTraces.ts, rllmEpisode.ts): files that RL frameworks and trace exporters write, read as
 * conversations (assistant turn → agent step, tool results → observations linked by call id).
 *
 * The four loaders:
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
import { makeStep, type Action, type Observation, type Role, type SourceRange, type Step } from '../model';
import { rowLine, type RowRef } from './rows';
import { exitCodeOf, textExitCode } from './textToolCalls';
import type { LoadInput } from './types';
import { isObject } from './util';

// ---------------------------------------------------------------------------------------------
// Rows: one JSON value per JSONL line, per array item, or the whole document (rows.ts)

/** `<path>:<line>` for rows without an id of their own (`<path>` for a whole-file row). */
export function fallbackId(input: LoadInput, ref: RowRef): string {
  return ref.line || ref.at.length ? `${input.path}:${rowLine(ref)}` : input.path;
}

/** Throws a located "not an object" issue unless the row is a JSON object. */
export function rowObject(ref: RowRef, label: string, expected: string): Record<string, unknown> {
  const v = ref.doc.get(ref.at);
  if (!isObject(v)) throw new RolloutLoadError(ref.doc.file, label, [ref.doc.issue(ref.at, expected)]);
  return v;
}

// ---------------------------------------------------------------------------------------------
// Text helpers: <think> blocks, prompt groups

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

/** Short stable hash of a prompt: `prompt-sha256:<16 hex>`. */
export function promptGroup(promptText: string): string | null {
  if (promptText.trim() === '') return null;
  return `prompt-sha256:${createHash('sha256').update(promptText, 'utf8').digest('hex').slice(0, 16)}`;
}

// ---------------------------------------------------------------------------------------------
// Conversation builder shared by the loaders

/**
 * The steps of a conversation as they are read, in order: `add` appends a step, `addActions` records
 * actions that wait for their output, `observe` attaches a tool output to its action (by call id, else
 * the oldest unanswered action of the latest agent step, else a new environment step).
 */
export class Conversation {
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
export function agentText(text: string, explicitReasoning: (string | null | undefined)[]): { message: string; reasoning: string | null } {
  const split = splitThink(text);
  const parts = [...explicitReasoning.filter((r): r is string => typeof r === 'string' && r.trim() !== ''), ...(split.reasoning ? [split.reasoning] : [])];
  return { message: split.text, reasoning: parts.length ? parts.join('\n\n') : null };
}

// ---------------------------------------------------------------------------------------------
// Row fields shared by the loaders

/** An id field: a string or a number. */
export const IdSchema = z.union([z.string(), z.number()]);
/** A message content: a string, a list of content parts, or null. */
export const ContentSchema = z.union([z.string(), z.array(z.unknown()), z.null()]).optional();

/** The row's fields outside `known` that are numbers, booleans or strings of at most 200 characters (`metadata.fields`). */
export function otherScalarFields(raw: Record<string, unknown>, known: ReadonlySet<string>): Record<string, unknown> {
  const fields: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(raw)) {
    if (known.has(k)) continue;
    if (typeof v === 'number' || typeof v === 'boolean' || (typeof v === 'string' && v.length <= 200)) fields[k] = v;
  }
  return fields;
}

/** The message of the first user step, or null. */
export function firstUserText(steps: Step[]): string | null {
  return steps.find((s) => s.role === 'user')?.message ?? null;
}
