/**
 * OpenHands rollouts: V0 event lists, V1 (software-agent-sdk) event streams and evaluation
 * `output.jsonl` files.
 *
 * Source definitions read for this loader:
 * - V0 (`All-Hands-AI/OpenHands`): `openhands/events/serialization/event.py` (`event_to_dict`,
 *   `event_to_trajectory`: `{id, timestamp, source, message, cause, action|observation,
 *   tool_call_metadata, llm_metrics, args | content+extras, timeout, success}`),
 *   `openhands/events/action/commands.py` (`CmdRunAction{command, is_input, thought, …}`),
 *   `openhands/events/observation/commands.py` (`CmdOutputObservation`, `CmdOutputMetadata
 *   {exit_code=-1, pid, username, hostname, working_dir, py_interpreter_path, prefix, suffix}`, the
 *   legacy top-level `exit_code`/`command_id` extras, the 30 000-char `MAX_CMD_OUTPUT_SIZE` cap with
 *   its `[... Observation truncated due to length ...]` marker; one intermediate version cut at 9 500
 *   chars with `[... Command output truncated: removed N characters from the middle ...]`),
 *   `openhands/runtime/utils/bash.py` (`[Previous command outputs are truncated. …]` prefix),
 *   `openhands/events/action/{agent,files,message}.py`, `openhands/core/schema/{action,observation}.py`,
 *   `openhands/core/main.py` (`save_trajectory_path`: a JSON list) and
 *   `openhands/server/routes/trajectory.py` (UI download: `{"trajectory": [...]}`).
 * - V1 (`OpenHands/software-agent-sdk`): `openhands-sdk/openhands/sdk/event/base.py`,
 *   `event/llm_convertible/{action,observation,message,system}.py` (`ActionEvent`,
 *   `ObservationEvent`, `UserRejectObservation`, `AgentErrorEvent`, `MessageEvent`,
 *   `SystemPromptEvent`), `event/{condenser,conversation_error,user_action,token}.py`,
 *   `openhands-tools/openhands/tools/terminal/definition.py` (`TerminalAction{command, is_input,
 *   timeout, reset}`, `TerminalObservation{command, exit_code (-1 = soft timeout), timeout,
 *   metadata}`), `maybe_truncate` from `openhands.sdk.utils` (imported there; its
 *   `DEFAULT_TRUNCATE_NOTICE` starts `<response clipped>`),
 *   `openhands-sdk/openhands/sdk/llm/utils/telemetry.py` (per-response `token_usages`, costs only
 *   recorded when positive) and `conversation/{event_store,persistence_const}.py`: a conversation is
 *   persisted as a folder `<conversation_id>/base_state.json` + `events/event-NNNNN-<event id>.json`,
 *   one compact JSON object per file.
 * - Evaluation rows: V0 `evaluation/utils/shared.py` (`EvalOutput{instance_id, instruction,
 *   instance, metadata{agent_class, llm_config, …}, history, metrics, error, test_result}`) and
 *   V1 `OpenHands/benchmarks` `benchmarks/utils/models.py` (`EvalOutput{…, metadata{llm, …},
 *   history: list[Event], attempt}`).
 *
 * Mapping decisions (shared by V0 and V1):
 * - One step per agent action event; the observations that answer it (V0 `cause` → action `id`,
 *   falling back to the tool call id; V1 `tool_call_id` / `action_id`) are attached to that step.
 *   User messages are user steps, the system prompt a system step; an observation that answers no
 *   action in the file is an `environment` step of its own. Parallel tool calls of one LLM response
 *   stay separate steps.
 * - Exit code: V0 `extras.metadata.exit_code` (legacy `extras.exit_code`), V1
 *   `observation.exit_code`. OpenHands writes -1 for "unknown / still running (soft timeout)": that
 *   becomes null and the step index is listed in `metadata.exitCodeUnknownSteps`.
 * - Truncated: the output carries one of OpenHands' truncation markers (listed above). Length alone
 *   is not taken as evidence: writers before the cap stored full outputs of any length.
 * - Tokens are per step, never accumulated: the usage of the LLM response that produced the step
 *   (V0 `tool_call_metadata.model_response.usage`; else a `token_usages[]` entry with the response id
 *   from the eval row's `metrics` or V1 `base_state.json` stats; else, V0 only, the difference of
 *   `llm_metrics.accumulated_token_usage` to the previous event that carried it). A response that
 *   produced several actions is counted on its first step only. Cost likewise: a per-response cost
 *   when the metrics pair costs with responses one to one, else the difference of
 *   `llm_metrics.accumulated_cost`.
 * - V0 bookkeeping events carry no agent or environment content and make no step: empty `null`
 *   observations, `agent_state_changed` observations and `change_agent_state` actions. They are
 *   counted in `metadata.skippedEvents`; agent state transitions go to `metadata.agentStates`, and
 *   the last one is a V0 list's `outcome.status`. V1 `ConversationStateUpdateEvent`, `TokenEvent`
 *   and `LLMCompletionLogEvent` are skipped the same way.
 * - Timestamps are kept as written (OpenHands writes local ISO times without a zone). Duration: last
 *   attached observation's time minus the step's time; without observations, the time until the
 *   next step; null for the last step.
 * - Reasoning: V0 `args.thought` (for `think` and `finish` the thought is the message instead) plus
 *   the model response's `reasoning_content` / thinking blocks; V1 `reasoning_content`, thinking
 *   blocks and `thought`.
 *
 * This module never imports `vscode`.
 */
import * as path from 'node:path';
import { z } from 'zod';
import { asWarning, RolloutLoadError, type LocatedIssue } from '../errors';
import { JsonDoc, type JsonlLine, type JsonPath } from '../json';
import {
  makeStep,
  unknownOutcome,
  type Action,
  type Observation,
  type Role,
  type Rollout,
  type SourceRange,
  type Step,
  type TokenCounts,
} from '../model';
import { IssueCollector, loadRows, rowSource, type RowRef } from './rows';
import { EDITING_SUBCOMMANDS, parseArguments } from './toolCalls';
import type { Detection, FormatLoader, LoadInput, RecordStream, StreamedRollout, StreamStart } from './types';
import { contentText, isObject, num, secondsBetween, str } from './util';

const V0_LABEL = 'OpenHands V0 event list';
const V1_LABEL = 'OpenHands V1 events';
const EVAL_LABEL = 'OpenHands evaluation output.jsonl';

// ---------------------------------------------------------------------------------------------
// Schemas (the fields this loader reads; unknown keys are allowed)

const ToolCallMetadataSchema = z.looseObject({
  function_name: z.string().nullish(),
  tool_call_id: z.string().nullish(),
  model_response: z.unknown().optional(),
  total_calls_in_response: z.number().nullish(),
});

const TokenUsageSchema = z.looseObject({
  prompt_tokens: z.number().nullish(),
  completion_tokens: z.number().nullish(),
  cache_read_tokens: z.number().nullish(),
});

const LlmMetricsSchema = z.looseObject({
  accumulated_cost: z.number().nullish(),
  accumulated_token_usage: TokenUsageSchema.nullish(),
});

/** One V0 event as written by `event_to_dict`. */
const V0EventSchema = z
  .looseObject({
    id: z.number().int().nullish(),
    timestamp: z.string().nullish(),
    source: z.enum(['agent', 'user', 'environment']).nullish(),
    message: z.string().nullish(),
    cause: z.number().int().nullish(),
    action: z.string().optional(),
    observation: z.string().optional(),
    args: z.record(z.string(), z.unknown()).nullish(),
    content: z.string().nullish(),
    extras: z.record(z.string(), z.unknown()).nullish(),
    tool_call_metadata: ToolCallMetadataSchema.nullish(),
    llm_metrics: LlmMetricsSchema.nullish(),
  })
  .superRefine((e, ctx) => {
    if (typeof e.action !== 'string' && typeof e.observation !== 'string') {
      ctx.addIssue({ code: 'custom', path: ['action'], message: 'an "action" or "observation" string (every V0 event is one or the other)' });
    }
  });
type V0Event = z.infer<typeof V0EventSchema>;

const V1BaseSchema = z.looseObject({
  id: z.string(),
  timestamp: z.string().nullish(),
  source: z.string(),
  kind: z.string(),
});
type V1Event = z.infer<typeof V1BaseSchema> & Record<string, unknown>;

const TextContentListSchema = z.array(z.looseObject({ type: z.string().nullish(), text: z.string().nullish() }));

/** Per-kind schemas (fields this loader reads), applied after the base schema. */
const V1_KIND_SCHEMAS: Record<string, z.ZodType> = {
  ActionEvent: z.looseObject({
    tool_name: z.string(),
    tool_call_id: z.string(),
    thought: TextContentListSchema.nullish(),
    reasoning_content: z.string().nullish(),
    action: z.record(z.string(), z.unknown()).nullish(),
    tool_call: z.looseObject({ name: z.string().nullish(), arguments: z.unknown().optional() }).nullish(),
    llm_response_id: z.string().nullish(),
  }),
  ObservationEvent: z.looseObject({
    tool_name: z.string(),
    tool_call_id: z.string(),
    observation: z.record(z.string(), z.unknown()),
    action_id: z.string().nullish(),
  }),
  UserRejectObservation: z.looseObject({
    tool_call_id: z.string(),
    rejection_reason: z.string().nullish(),
    action_id: z.string().nullish(),
  }),
  AgentErrorEvent: z.looseObject({ tool_call_id: z.string(), error: z.string() }),
  MessageEvent: z.looseObject({
    llm_message: z.looseObject({ role: z.string().nullish(), content: z.union([z.string(), z.array(z.unknown())]).nullish() }),
    llm_response_id: z.string().nullish(),
  }),
  SystemPromptEvent: z.looseObject({
    system_prompt: z.looseObject({ text: z.string() }),
    dynamic_context: z.looseObject({ text: z.string().nullish() }).nullish(),
  }),
};

/** V1 event kinds defined by the SDK (`openhands/sdk/event/__init__.py`). */
const V1_KINDS = new Set([
  'ActionEvent',
  'ObservationEvent',
  'MessageEvent',
  'SystemPromptEvent',
  'AgentErrorEvent',
  'UserRejectObservation',
  'Condensation',
  'CondensationRequest',
  'CondensationSummaryEvent',
  'ConversationStateUpdateEvent',
  'ConversationErrorEvent',
  'PauseEvent',
  'InterruptEvent',
  'TokenEvent',
  'HookExecutionEvent',
  'LLMCompletionLogEvent',
  'ACPToolCallEvent',
]);
/** V1 kinds that carry no step content (state snapshots, token ids, completion logs); counted in metadata. */
const V1_SKIPPED_KINDS = new Set(['ConversationStateUpdateEvent', 'TokenEvent', 'LLMCompletionLogEvent']);
/** V1 observation kinds: they answer a tool call. */
const V1_OBSERVATION_KINDS = new Set(['ObservationEvent', 'UserRejectObservation', 'AgentErrorEvent']);

// ---------------------------------------------------------------------------------------------
// Shared helpers

/** OpenHands' truncation markers (see the module comment for their sources). */
const TRUNCATION_MARKERS: RegExp[] = [
  /\[\.\.\. Observation truncated due to length \.\.\.\]/,
  /\[\.\.\. Command output truncated: removed \d+ characters from the middle \.\.\.\]/,
  /<response clipped>/,
];

function hasTruncationMarker(text: string | null | undefined): boolean {
  return !!text && TRUNCATION_MARKERS.some((re) => re.test(text));
}

function roleOf(source: string | null | undefined, fallback: Role): Role {
  if (source === 'agent' || source === 'user' || source === 'environment') return source;
  return fallback;
}

function joinText(parts: (string | null | undefined)[]): string | null {
  const kept = parts.filter((p): p is string => typeof p === 'string' && p.trim() !== '');
  return kept.length ? kept.join('\n\n') : null;
}

/** Rounds a cost difference to 1e-12 USD so float noise (0.0015990000000000002) does not show. */
function roundCost(x: number): number {
  return Math.round(x * 1e12) / 1e12;
}

/** Per-response token counts and costs read from an OpenHands `Metrics` dump (V0 and V1 share the shape). */
interface ResponseMetrics {
  tokens: Map<string, TokenCounts>;
  cost: Map<string, number>;
}

/**
 * Reads `{token_usages:[{response_id, prompt_tokens, …}], costs:[{cost}], response_latencies:[{response_id}]}`.
 * Costs carry no response id; they are paired with `response_latencies` (one per response) only when
 * both lists have the same length, since OpenHands skips zero costs.
 */
function readResponseMetrics(m: unknown, into: ResponseMetrics = { tokens: new Map(), cost: new Map() }): ResponseMetrics {
  if (!isObject(m)) return into;
  if (Array.isArray(m.token_usages)) {
    for (const u of m.token_usages) {
      if (!isObject(u)) continue;
      const id = str(u.response_id);
      if (!id || into.tokens.has(id)) continue;
      into.tokens.set(id, { prompt: num(u.prompt_tokens), completion: num(u.completion_tokens), cached: num(u.cache_read_tokens) });
    }
  }
  const costs = Array.isArray(m.costs) ? m.costs : [];
  const lat = Array.isArray(m.response_latencies) ? m.response_latencies : [];
  if (costs.length > 0 && costs.length === lat.length) {
    costs.forEach((c, i) => {
      const id = isObject(lat[i]) ? str(lat[i].response_id) : null;
      const cost = isObject(c) ? num(c.cost) : null;
      if (id && cost !== null && !into.cost.has(id)) into.cost.set(id, cost);
    });
  }
  return into;
}

/** Facts about a rollout gathered while building its steps. */
interface BuildInfo {
  model: string | null;
  agentClass: string | null;
  version: string | null;
  workdir: string | null;
  firstUserMessage: string | null;
  totalCostUsd: number | null;
  exitCodeUnknownSteps: number[];
  skippedEvents: Record<string, number>;
  /** V0 agent state transitions (`agent_state_changed` / `change_agent_state`), in order. */
  agentStates: { timestamp: string | null; state: string }[];
  finished: boolean;
  /** Located warnings found while building steps (an event kind this reader does not know, shown raw). */
  warnings: LocatedIssue[];
}

function emptyInfo(): BuildInfo {
  return {
    model: null,
    agentClass: null,
    version: null,
    workdir: null,
    firstUserMessage: null,
    totalCostUsd: null,
    exitCodeUnknownSteps: [],
    skippedEvents: {},
    agentStates: [],
    finished: false,
    warnings: [],
  };
}

/** Fills durations: last observation's time − step time, else time until the next step. */
function fillDurations(steps: Step[], obsTimes: Map<number, string>): void {
  steps.forEach((s, i) => {
    const end = obsTimes.get(i);
    if (end) s.durationSec = secondsBetween(s.timestamp, end);
    else if (i + 1 < steps.length) s.durationSec = secondsBetween(s.timestamp, steps[i + 1].timestamp);
  });
}

// ---------------------------------------------------------------------------------------------
// V0 steps

/** V0 action types that are not tool calls: they become steps with a message and no action. */
const V0_MESSAGE_LIKE = new Set([
  'message',
  'system',
  'recall',
  'change_agent_state',
  'null',
  'pause',
  'resume',
  'stop',
  'start',
  'condensation',
  'condensation_request',
  'summarize',
]);
/** V0 scaffold actions shown as system steps (not typed by a user, not chosen by the model). */
const V0_SYSTEM_ACTIONS = new Set(['system', 'recall', 'condensation', 'condensation_request']);

function firstChoiceMessage(modelResponse: unknown): Record<string, unknown> | null {
  if (!isObject(modelResponse) || !Array.isArray(modelResponse.choices)) return null;
  const c = modelResponse.choices[0];
  return isObject(c) && isObject(c.message) ? c.message : null;
}

/** Reasoning text a litellm response carries (`reasoning_content`, Anthropic thinking blocks). */
function responseReasoning(modelResponse: unknown): string | null {
  const msg = firstChoiceMessage(modelResponse);
  if (!msg) return null;
  const blocks = Array.isArray(msg.thinking_blocks)
    ? msg.thinking_blocks.map((b) => (isObject(b) ? str(b.thinking) : null))
    : [];
  return joinText([str(msg.reasoning_content), ...blocks]);
}

/** Token counts of a litellm `usage` object; null when it has none. */
function usageTokens(usage: unknown): TokenCounts | null {
  if (!isObject(usage)) return null;
  const prompt = num(usage.prompt_tokens);
  const completion = num(usage.completion_tokens);
  const details = isObject(usage.prompt_tokens_details) ? usage.prompt_tokens_details : {};
  const cached = num(details.cached_tokens) ?? num(usage.cache_read_input_tokens);
  if (prompt === null && completion === null) return null;
  return { prompt, completion, cached };
}

/** Maps one V0 tool action to an Action. */
function v0Action(e: V0Event): Action {
  const type = e.action as string;
  const args = e.args ?? {};
  const tcm = e.tool_call_metadata;
  const tool = tcm?.function_name ?? type;
  const callId = tcm?.tool_call_id ?? null;
  const base = { tool, arguments: args, callId };
  switch (type) {
    case 'run': {
      const command = str(args.command) ?? '';
      return { kind: args.is_input === true ? 'keystrokes' : 'shell', command, ...base };
    }
    case 'edit':
    case 'write':
      return { kind: 'file_edit', command: null, path: str(args.path), ...base };
    case 'finish':
    case 'reject':
      return { kind: 'finish', command: null, ...base };
    default:
      return { kind: 'tool', command: null, ...base };
  }
}

/** Maps one V0 observation event to an Observation; records its cwd in `info`. */
function v0Observation(e: V0Event, info: BuildInfo): { obs: Observation; exitWasUnknown: boolean } {
  const extras = e.extras ?? {};
  const meta = isObject(extras.metadata) ? extras.metadata : null;
  let exitCode: number | null = null;
  let exitWasUnknown = false;
  if (e.observation === 'run') {
    const raw = num(meta?.exit_code) ?? num(extras.exit_code);
    if (raw === -1) exitWasUnknown = true;
    else if (raw !== null && Number.isInteger(raw)) exitCode = raw;
  }
  const wd = str(meta?.working_dir) ?? str(extras.working_dir);
  if (!info.workdir && wd) info.workdir = wd;
  const content = e.content ?? '';
  const truncated = hasTruncationMarker(content) || /^\[Previous command outputs are truncated\./.test(str(meta?.prefix) ?? '');
  return {
    obs: { callId: e.tool_call_metadata?.tool_call_id ?? null, output: content, exitCode, truncated, cwd: wd },
    exitWasUnknown,
  };
}

/**
 * Builds steps from validated V0 events.
 * @param rangeOf source range of event i
 * @param metrics per-response token counts / costs from an eval row's `metrics`, when known
 */
function buildV0Steps(events: V0Event[], rangeOf: (i: number) => SourceRange | null, metrics: ResponseMetrics | null): { steps: Step[]; info: BuildInfo } {
  const info = emptyInfo();
  const steps: Step[] = [];
  const stepOfActionId = new Map<number, number>();
  const stepOfCallId = new Map<string, number>();
  const obsTimes = new Map<number, string>();
  const seenResponses = new Set<string>();
  let prevAcc: { cost: number | null; usage: z.infer<typeof TokenUsageSchema> | null } | null = null;

  const skip = (what: string) => {
    info.skippedEvents[what] = (info.skippedEvents[what] ?? 0) + 1;
  };

  events.forEach((e, i) => {
    // Accumulated metrics: per-step differences (computed for every event that carries them).
    let costDelta: number | null = null;
    let tokenDelta: TokenCounts | null = null;
    const lm = e.llm_metrics;
    if (lm) {
      const cost = lm.accumulated_cost ?? null;
      const usage = lm.accumulated_token_usage ?? null;
      if (cost !== null) {
        info.totalCostUsd = cost;
        const d = cost - (prevAcc?.cost ?? 0);
        costDelta = d >= 0 ? roundCost(d) : null;
      }
      if (usage) {
        const p = (usage.prompt_tokens ?? 0) - (prevAcc?.usage?.prompt_tokens ?? 0);
        const c = (usage.completion_tokens ?? 0) - (prevAcc?.usage?.completion_tokens ?? 0);
        const k = (usage.cache_read_tokens ?? 0) - (prevAcc?.usage?.cache_read_tokens ?? 0);
        if (p >= 0 && c >= 0 && k >= 0 && (p > 0 || c > 0)) tokenDelta = { prompt: p, completion: c, cached: k };
      }
      prevAcc = { cost: cost ?? prevAcc?.cost ?? null, usage: usage ?? prevAcc?.usage ?? null };
    }

    if (typeof e.observation === 'string') {
      if (e.observation === 'null' && !e.content) {
        skip('null observation');
        return;
      }
      if (e.observation === 'agent_state_changed') {
        const state = str(e.extras?.agent_state);
        if (state) info.agentStates.push({ timestamp: e.timestamp ?? null, state });
        skip('agent_state_changed');
        return;
      }
      const { obs, exitWasUnknown } = v0Observation(e, info);
      let target = typeof e.cause === 'number' ? stepOfActionId.get(e.cause) : undefined;
      if (target === undefined && obs.callId) target = stepOfCallId.get(obs.callId);
      if (target === undefined) {
        const step = makeStep(steps.length, 'environment', {
          sourceId: e.id ?? null,
          message: e.message ?? '',
          observations: [obs],
          timestamp: e.timestamp ?? null,
          range: rangeOf(i),
        });
        if (exitWasUnknown) info.exitCodeUnknownSteps.push(step.index);
        steps.push(step);
        return;
      }
      steps[target].observations.push(obs);
      if (exitWasUnknown && !info.exitCodeUnknownSteps.includes(target)) info.exitCodeUnknownSteps.push(target);
      if (e.timestamp) obsTimes.set(target, e.timestamp);
      return;
    }

    // An action.
    const type = e.action as string;
    const args = e.args ?? {};
    if (type === 'change_agent_state') {
      const state = str(args.agent_state);
      if (state) info.agentStates.push({ timestamp: e.timestamp ?? null, state });
      skip('change_agent_state');
      return;
    }
    const tcm = e.tool_call_metadata;
    const response = tcm?.model_response;
    const responseId = isObject(response) ? str(response.id) : null;
    const firstOfResponse = responseId ? !seenResponses.has(responseId) : true;
    if (responseId) seenResponses.add(responseId);
    if (!info.model && isObject(response)) info.model = str(response.model);

    let role = roleOf(e.source, 'agent');
    let message = '';
    let reasoningParts: (string | null)[] = [];
    const actions: Action[] = [];

    if (V0_MESSAGE_LIKE.has(type)) {
      if (V0_SYSTEM_ACTIONS.has(type)) role = 'system';
      message = str(args.content) ?? e.message ?? '';
      if (type === 'system') {
        info.agentClass ??= str(args.agent_class);
        info.version ??= str(args.openhands_version);
      }
      if (type === 'message' && role === 'user' && info.firstUserMessage === null) info.firstUserMessage = message;
    } else {
      actions.push(v0Action(e));
      const thought = str(args.thought);
      if (type === 'think') {
        message = thought ?? e.message ?? '';
      } else if (type === 'finish' || type === 'reject') {
        info.finished = true;
        const final = str(args.final_thought);
        if (final) {
          message = final;
          reasoningParts.push(thought);
        } else {
          message = thought || (e.message ?? '');
        }
      } else {
        reasoningParts.push(thought);
      }
    }
    if (firstOfResponse) reasoningParts = [responseReasoning(response), ...reasoningParts];

    // Tokens and cost of the LLM response behind this step (first step of a response only).
    let tokens: TokenCounts | null = null;
    let costUsd: number | null = null;
    if (firstOfResponse) {
      tokens = usageTokens(isObject(response) ? response.usage : undefined);
      if (!tokens && responseId) tokens = metrics?.tokens.get(responseId) ?? null;
      if (!tokens) tokens = tokenDelta;
      costUsd = (responseId ? metrics?.cost.get(responseId) : undefined) ?? costDelta;
    }

    const step = makeStep(steps.length, role, {
      sourceId: e.id ?? null,
      message,
      reasoning: joinText(reasoningParts),
      actions,
      timestamp: e.timestamp ?? null,
      tokens,
      costUsd,
      range: rangeOf(i),
    });
    if (typeof e.id === 'number') stepOfActionId.set(e.id, step.index);
    if (tcm?.tool_call_id) stepOfCallId.set(tcm.tool_call_id, step.index);
    steps.push(step);
  });

  fillDurations(steps, obsTimes);
  return { steps, info };
}

// ---------------------------------------------------------------------------------------------
// V1 steps

const V1_SHELL_ACTION_KINDS = new Set(['TerminalAction', 'ExecuteBashAction', 'BashAction']);
const V1_SHELL_TOOLS = new Set(['terminal', 'execute_bash', 'bash']);
const V1_EDITOR_TOOLS = new Set(['file_editor', 'str_replace_editor']);
const V1_EDITOR_KINDS = new Set(['FileEditorAction', 'StrReplaceEditorAction']);
/** Tools that always change a file (the `gemini` tool preset, apply_patch). */
const V1_WRITE_TOOLS = new Set(['write_file', 'edit', 'edit_file', 'replace', 'create_file', 'apply_patch']);

/** One V1 event with where it sits in the source. */
interface V1Item {
  ev: V1Event;
  range: SourceRange | null;
  /** The file the range points into when it is not the rollout's own file. */
  file?: string;
  /** The document and path of the event, for located warnings. */
  doc?: JsonDoc;
  at?: JsonPath;
}

function textOf(list: unknown): string | null {
  if (!Array.isArray(list)) return null;
  const t = list.map((p) => (isObject(p) ? (str(p.text) ?? str(p.thinking) ?? '') : '')).join('');
  return t === '' ? null : t;
}

/** Maps a V1 ActionEvent to an Action (the `action` object as arguments, else the parsed tool-call arguments). */
function v1Action(ev: V1Event): Action {
  const toolName = str(ev.tool_name) ?? '';
  const a = isObject(ev.action) ? ev.action : null;
  const tc = isObject(ev.tool_call) ? ev.tool_call : null;
  const argsValue: unknown = a ?? parseArguments(tc?.arguments);
  const args = isObject(argsValue) ? argsValue : {};
  const kind = str(a?.kind);
  const base = { tool: toolName || str(tc?.name), arguments: argsValue, callId: str(ev.tool_call_id) };
  if ((kind && V1_SHELL_ACTION_KINDS.has(kind)) || V1_SHELL_TOOLS.has(toolName)) {
    const command = str(args.command);
    if (command !== null) return { kind: args.is_input === true ? 'keystrokes' : 'shell', command, ...base };
  }
  if (kind === 'FinishAction' || toolName === 'finish') return { kind: 'finish', command: null, ...base };
  if ((kind && V1_EDITOR_KINDS.has(kind)) || V1_EDITOR_TOOLS.has(toolName)) {
    const sub = str(args.command);
    if (sub && EDITING_SUBCOMMANDS.has(sub)) return { kind: 'file_edit', command: null, path: str(args.path), ...base };
    return { kind: 'tool', command: null, ...base };
  }
  if (V1_WRITE_TOOLS.has(toolName)) {
    return { kind: 'file_edit', command: null, path: str(args.path) ?? str(args.file_path), ...base };
  }
  return { kind: 'tool', command: null, ...base };
}

/** Maps a V1 observation-like event (ObservationEvent, UserRejectObservation, AgentErrorEvent). */
function v1Observation(ev: V1Event, info: BuildInfo): { obs: Observation; exitWasUnknown: boolean } {
  const callId = str(ev.tool_call_id);
  if (ev.kind === 'AgentErrorEvent') return { obs: { callId, output: str(ev.error) ?? '', exitCode: null, truncated: false }, exitWasUnknown: false };
  if (ev.kind === 'UserRejectObservation') {
    return { obs: { callId, output: str(ev.rejection_reason) ?? '', exitCode: null, truncated: false }, exitWasUnknown: false };
  }
  const o = isObject(ev.observation) ? ev.observation : {};
  const content = o.content;
  const output = typeof content === 'string' || Array.isArray(content) ? contentText(content) : (str(o.output) ?? str(o.text) ?? '');
  const meta = isObject(o.metadata) ? o.metadata : null;
  const okind = str(o.kind) ?? '';
  const isTerminal = 'exit_code' in o || /^(Terminal|ExecuteBash|Bash)Observation$/.test(okind);
  let exitCode: number | null = null;
  let exitWasUnknown = false;
  if (isTerminal) {
    const raw = num(o.exit_code) ?? num(meta?.exit_code);
    if (raw === -1) exitWasUnknown = true;
    else if (raw !== null && Number.isInteger(raw)) exitCode = raw;
  }
  const wd = str(meta?.working_dir);
  if (!info.workdir && wd) info.workdir = wd;
  const truncated = hasTruncationMarker(output) || /^\[Previous command outputs are truncated\./.test(str(meta?.prefix) ?? '');
  return { obs: { callId, output, exitCode, truncated, cwd: wd }, exitWasUnknown };
}

/** Message text of a generic V1 event (condensation summary, conversation error, pause/interrupt reason). */
/** An event as indented JSON, cut to 20,000 characters (how an unknown event kind is shown). */
function rawEventText(ev: V1Event): string {
  const t = JSON.stringify(ev, null, 2) ?? '';
  return t.length > 20_000 ? `${t.slice(0, 20_000)}\n…[${t.length - 20_000} chars cut]` : t;
}

function genericMessage(ev: V1Event): string {
  if (ev.kind === 'ConversationErrorEvent') return [str(ev.code), str(ev.detail)].filter(Boolean).join(': ');
  return str(ev.summary) ?? str(ev.reason) ?? str(ev.detail) ?? str(ev.message) ?? str(ev.error) ?? '';
}

/**
 * Builds the steps of validated V1 events one event at a time (`add`), so that a JSONL file of
 * events can be read a part at a time (the loader's RecordStream) with the same result as reading
 * it whole. Besides appending steps, an event may change an earlier step: an observation joins its
 * action's step (and sets its duration), a new step ends the previous one's duration; `takeChanged`
 * says from which step on anything changed since it was last called.
 */
class V1StepBuilder {
  readonly info = emptyInfo();
  readonly steps: Step[] = [];
  private readonly stepOfCall = new Map<string, number>();
  private readonly stepOfEventId = new Map<string, number>();
  /** Time of the last observation attached to each step. */
  private readonly obsTimes = new Map<number, string>();
  private readonly seenResponses = new Set<string>();
  /** Lowest index of a step changed (or added) since the last takeChanged. */
  private changed = Infinity;

  /** @param metrics per-response token counts / costs (V1 `base_state.json` stats or an eval row's `metrics`) */
  constructor(private readonly metrics: ResponseMetrics | null) {}

  /** Index of the first step added or changed since the last call (`steps.length` when none); starts afresh. */
  takeChanged(): number {
    const c = Math.min(this.changed, this.steps.length);
    this.changed = Infinity;
    return c;
  }

  private touch(i: number): void {
    if (i < this.changed) this.changed = i;
  }

  /** Duration of step `i`: its last observation's time − its time, else the time until the next step. */
  private setDuration(i: number): void {
    const s = this.steps[i];
    const end = this.obsTimes.get(i);
    let d: number | null | undefined;
    if (end) d = secondsBetween(s.timestamp, end);
    else if (i + 1 < this.steps.length) d = secondsBetween(s.timestamp, this.steps[i + 1].timestamp);
    if (d !== undefined && d !== s.durationSec) {
      s.durationSec = d;
      this.touch(i);
    }
  }

  private push(item: V1Item, role: Role, fields: Partial<Step>): Step {
    const step = makeStep(this.steps.length, role, {
      sourceId: item.ev.id,
      timestamp: item.ev.timestamp ?? null,
      range: item.range,
      ...(item.file ? { file: item.file } : {}),
      ...fields,
    });
    this.steps.push(step);
    this.touch(step.index);
    this.stepOfEventId.set(item.ev.id, step.index);
    if (step.index > 0) this.setDuration(step.index - 1);
    return step;
  }

  private responseFacts(responseId: string | null): { first: boolean; tokens: TokenCounts | null; costUsd: number | null } {
    if (!responseId) return { first: true, tokens: null, costUsd: null };
    const first = !this.seenResponses.has(responseId);
    this.seenResponses.add(responseId);
    if (!first) return { first, tokens: null, costUsd: null };
    return { first, tokens: this.metrics?.tokens.get(responseId) ?? null, costUsd: this.metrics?.cost.get(responseId) ?? null };
  }

  /** Takes the next event (in file order). */
  add(item: V1Item): void {
    const { info, steps } = this;
    const ev = item.ev;
    const kind = ev.kind;
    if (V1_SKIPPED_KINDS.has(kind)) {
      info.skippedEvents[kind] = (info.skippedEvents[kind] ?? 0) + 1;
      return;
    }
    if (kind === 'SystemPromptEvent' || isObject(ev.system_prompt)) {
      // Also SystemPromptUpdateEvent (newer SDKs: the tools changed mid-conversation).
      const sp = isObject(ev.system_prompt) ? str(ev.system_prompt.text) : null;
      const dyn = isObject(ev.dynamic_context) ? str(ev.dynamic_context.text) : null;
      this.push(item, 'system', { message: joinText([sp, dyn]) ?? '' });
      return;
    }
    if (kind === 'MessageEvent') {
      const msg = isObject(ev.llm_message) ? ev.llm_message : {};
      const role = roleOf(ev.source, 'user');
      const text = contentText(msg.content ?? '');
      const r = this.responseFacts(str(ev.llm_response_id));
      const reasoning = r.first ? joinText([str(msg.reasoning_content), textOf(msg.thinking_blocks)]) : null;
      if (role === 'user' && info.firstUserMessage === null) info.firstUserMessage = text;
      this.push(item, role, { message: text, reasoning, tokens: r.tokens, costUsd: r.costUsd });
      return;
    }
    if (kind === 'ActionEvent') {
      const action = v1Action(ev);
      const a = isObject(ev.action) ? ev.action : {};
      let message = '';
      if (action.kind === 'finish') {
        info.finished = true;
        message = str(a.message) ?? '';
      } else if (str(a.kind) === 'ThinkAction' || ev.tool_name === 'think') {
        message = str(a.thought) ?? '';
      }
      const r = this.responseFacts(str(ev.llm_response_id));
      const reasoning = joinText([
        r.first ? str(ev.reasoning_content) : null,
        r.first ? textOf(ev.thinking_blocks) : null,
        textOf(ev.thought),
      ]);
      const step = this.push(item, roleOf(ev.source, 'agent'), { message, reasoning, actions: [action], tokens: r.tokens, costUsd: r.costUsd });
      if (action.callId) this.stepOfCall.set(action.callId, step.index);
      return;
    }
    if (V1_OBSERVATION_KINDS.has(kind)) {
      const { obs, exitWasUnknown } = v1Observation(ev, info);
      let target = obs.callId ? this.stepOfCall.get(obs.callId) : undefined;
      const actionId = str(ev.action_id);
      if (target === undefined && actionId) target = this.stepOfEventId.get(actionId);
      if (target === undefined) {
        const step = this.push(item, 'environment', { observations: [obs] });
        if (exitWasUnknown) info.exitCodeUnknownSteps.push(step.index);
        return;
      }
      steps[target].observations.push(obs);
      this.touch(target);
      if (exitWasUnknown && !info.exitCodeUnknownSteps.includes(target)) info.exitCodeUnknownSteps.push(target);
      if (ev.timestamp) this.obsTimes.set(target, ev.timestamp);
      this.setDuration(target);
      return;
    }
    if (!V1_KINDS.has(kind)) {
      // An event kind this reader does not know: a located warning, and the event shown raw (never a silent empty step).
      const found = `unrecognised OpenHands event kind ${JSON.stringify(kind)}`;
      const issue: LocatedIssue = item.doc
        ? item.doc.issue([...(item.at ?? []), 'kind'], 'an OpenHands event kind this reader knows (the event is shown raw)', found)
        : { file: item.file ?? '', line: null, column: null, pointer: null, expected: 'an OpenHands event kind this reader knows (the event is shown raw)', found };
      info.warnings.push(asWarning(issue));
      this.push(item, roleOf(ev.source, 'environment'), { message: rawEventText(ev), event: { kind: 'unknown_record', label: `unrecognised event kind ${kind}` } });
      return;
    }
    // Condensation, ConversationErrorEvent, PauseEvent, InterruptEvent.
    this.push(item, roleOf(ev.source, 'environment'), { message: genericMessage(ev) });
  }
}

/**
 * Builds steps from validated V1 events (all at once; see V1StepBuilder).
 * @param metrics per-response token counts / costs (V1 `base_state.json` stats or an eval row's `metrics`)
 */
function buildV1Steps(items: V1Item[], metrics: ResponseMetrics | null): { steps: Step[]; info: BuildInfo } {
  const b = new V1StepBuilder(metrics);
  for (const item of items) b.add(item);
  return { steps: b.steps, info: b.info };
}

// ---------------------------------------------------------------------------------------------
// Validation of event lists

/** Path of the events array in a V0 document: the list itself or the UI download's `trajectory`. */
function v0EventsPath(value: unknown): JsonPath | null {
  if (Array.isArray(value)) return [];
  if (isObject(value) && Array.isArray(value.trajectory)) return ['trajectory'];
  return null;
}

function looksLikeV0Event(v: unknown): boolean {
  return isObject(v) && 'source' in v && ('id' in v || 'timestamp' in v) && (typeof v.action === 'string' || typeof v.observation === 'string');
}

function looksLikeV1Event(v: unknown): boolean {
  if (!isObject(v) || typeof v.kind !== 'string') return false;
  return V1_KINDS.has(v.kind) || (/Event$/.test(v.kind) && typeof v.source === 'string' && typeof v.id === 'string');
}

/** Validates a list of V1 events at `at` in `doc` (base + per-kind schema); issues go to `issues`. */
function validateV1Events(doc: JsonDoc, at: JsonPath, issues: IssueCollector, label: string): V1Event[] {
  const list = doc.get(at);
  const out: V1Event[] = [];
  if (!Array.isArray(list)) {
    issues.run(() => doc.validate(z.array(z.unknown()), label, at));
    return out;
  }
  list.forEach((_, i) => {
    const ev = validateV1Event(doc, [...at, i], issues, label);
    if (ev) out.push(ev);
  });
  return out;
}

function validateV1Event(doc: JsonDoc, at: JsonPath, issues: IssueCollector, label: string): V1Event | undefined {
  const base = issues.run(() => doc.validate(V1BaseSchema, label, at));
  if (!base) return undefined;
  const extra = V1_KIND_SCHEMAS[base.kind];
  if (extra && issues.run(() => doc.validate(extra, label, at)) === undefined) return undefined;
  return doc.get(at) as V1Event;
}

// ---------------------------------------------------------------------------------------------
// Rollout assembly

function metadataOf(info: BuildInfo, eventCount: number, extra: Record<string, unknown> = {}): Record<string, unknown> {
  const m: Record<string, unknown> = { eventCount, ...extra };
  if (info.agentClass) m.agentClass = info.agentClass;
  if (info.totalCostUsd !== null) m.totalCostUsd = info.totalCostUsd;
  if (info.exitCodeUnknownSteps.length) m.exitCodeUnknownSteps = info.exitCodeUnknownSteps;
  if (Object.keys(info.skippedEvents).length) m.skippedEvents = info.skippedEvents;
  if (info.agentStates.length) m.agentStates = info.agentStates;
  m.finishAction = info.finished;
  return m;
}

// ---------------------------------------------------------------------------------------------
// V0 loader

function v0Detect(input: LoadInput): Detection {
  if (!input.doc) return { accept: false, reason: 'not a single JSON document (a V0 event list is one JSON list)' };
  const at = v0EventsPath(input.doc.value);
  if (!at) return { accept: false, reason: 'neither a JSON list nor an object with a "trajectory" list' };
  const list = input.doc.get(at) as unknown[];
  if (list.length === 0) return { accept: false, reason: 'the event list is empty' };
  // Structure is checked by load(); detection needs the list to be made of objects and to contain events.
  const sample = list.slice(0, 3);
  if (!sample.every(isObject) || !sample.some(looksLikeV0Event)) {
    return { accept: false, reason: 'list items are not OpenHands events ({id, source, action|observation})' };
  }
  return { accept: true, confidence: 0.8 };
}

/**
 * OpenHands V0 event list: `<sid>.json` from `save_trajectory_path` (a JSON list of events) or the
 * UI/API download `{"trajectory": [...]}`. One rollout per file, id `<path>#0`.
 * @throws RolloutLoadError listing every event that does not match the event shape.
 */
export const openHandsV0Loader: FormatLoader = {
  id: 'openhands-v0',
  label: V0_LABEL,
  detect: v0Detect,
  async load(input: LoadInput): Promise<Rollout[]> {
    const doc = input.doc;
    const at = doc ? v0EventsPath(doc.value) : null;
    if (!doc || !at) {
      throw new RolloutLoadError(input.path, V0_LABEL, [
        { file: input.path, line: 1, column: 1, pointer: '', expected: 'a JSON list of events or {"trajectory": [...]}', found: doc ? 'another value' : 'JSON Lines' },
      ]);
    }
    const events = doc.validate(z.array(V0EventSchema), V0_LABEL, at);
    const { steps, info } = buildV0Steps(events, (i) => doc.rangeOf([...at, i]), null);
    const outcome = unknownOutcome();
    const lastState = info.agentStates[info.agentStates.length - 1];
    if (lastState) {
      outcome.status = lastState.state;
      outcome.source = 'last agent_state_changed event';
    }
    return [
      {
        id: `${input.path}#0`,
        format: 'openhands-v0',
        schemaVersion: null,
        source: { path: input.path, range: null, line: null },
        task: { id: null, instruction: info.firstUserMessage },
        agent: { name: 'OpenHands', version: info.version, model: info.model },
        environment: { image: null, workdir: info.workdir },
        outcome,
        groupId: null,
        steps,
        metadata: metadataOf(info, events.length, at.length ? { wrapper: 'trajectory' } : {}),
      },
    ];
  },
};

// ---------------------------------------------------------------------------------------------
// V1 loader

const EVENT_FILE_RE = /^event-(\d{5,})-([0-9a-fA-F-]{8,})\.json$/;

function v1Detect(input: LoadInput): Detection {
  if (input.lines) {
    if (looksLikeV1Event(input.firstLineValue)) return { accept: true, confidence: 0.85 };
    return { accept: false, reason: 'first JSONL line is not a V1 event (no known "kind")' };
  }
  const v = input.doc?.value;
  if (Array.isArray(v)) {
    if (v.length === 0) return { accept: false, reason: 'the event list is empty' };
    const sample = v.slice(0, 3);
    if (sample.every(isObject) && sample.some(looksLikeV1Event)) return { accept: true, confidence: 0.85 };
    return { accept: false, reason: 'list items are not V1 events (no known "kind")' };
  }
  if (looksLikeV1Event(v)) {
    const m = EVENT_FILE_RE.exec(path.basename(input.path));
    if (!m) return { accept: false, reason: 'a single V1 event outside a conversation events/ folder' };
    if (Number(m[1]) !== 0) {
      return {
        accept: false,
        reason: `one event of a V1 conversation folder; the conversation is read from its first event file (event-00000-…json in ${path.dirname(input.path)})`,
      };
    }
    return { accept: true, confidence: 0.9 };
  }
  return { accept: false, reason: 'no V1 event "kind"' };
}

/**
 * `base_state.json` beside a persisted conversation's `events/` folder. It only adds facts (id, model,
 * workdir, status, per-response usage), so a missing file gives null and an unreadable one a warning.
 */
async function readBaseState(input: LoadInput, eventsDir: string, warnings: string[]): Promise<Record<string, unknown> | null> {
  if (path.basename(eventsDir) !== 'events') return null;
  const file = path.join(path.dirname(eventsDir), 'base_state.json');
  const text = await input.files.readText(file);
  if (text === null) return null;
  try {
    const v: unknown = JSON.parse(text);
    if (isObject(v)) return v;
  } catch {
    // reported below
  }
  warnings.push(`${file} is not a JSON object; conversation id, model and usage were not read from it`);
  return null;
}

/** Metrics of every LLM in a V1 `ConversationState.stats.usage_to_metrics` (agent, condenser, …). */
function baseStateMetrics(bs: Record<string, unknown> | null): ResponseMetrics | null {
  const stats = bs && isObject(bs.stats) ? bs.stats : null;
  const per = stats && isObject(stats.usage_to_metrics) ? stats.usage_to_metrics : null;
  if (!per) return null;
  const m: ResponseMetrics = { tokens: new Map(), cost: new Map() };
  for (const v of Object.values(per)) readResponseMetrics(v, m);
  return m;
}

async function loadV1Folder(input: LoadInput): Promise<{ items: V1Item[]; base: Record<string, unknown> | null; warnings: string[] }> {
  const dir = path.dirname(input.path);
  const names = (await input.files.list(dir))
    .map((n) => ({ n, m: EVENT_FILE_RE.exec(n) }))
    .filter((x): x is { n: string; m: RegExpExecArray } => x.m !== null)
    .sort((a, b) => Number(a.m[1]) - Number(b.m[1]));
  const warnings: string[] = [];
  names.forEach((x, i) => {
    if (Number(x.m[1]) !== i && (i === 0 || Number(names[i - 1].m[1]) !== Number(x.m[1]) - 1)) {
      warnings.push(`event index gap before ${x.n} (expected index ${i})`);
    }
  });
  const issues = new IssueCollector();
  const items: V1Item[] = [];
  for (const { n } of names) {
    const file = path.join(dir, n);
    const text = file === input.path ? input.text : await input.files.readText(file);
    if (text === null) {
      issues.issues.push({ file, line: null, column: null, pointer: null, expected: 'a readable event file', found: 'nothing' });
      continue;
    }
    const doc = file === input.path && input.doc ? input.doc : issues.run(() => JsonDoc.parse(file, text));
    if (!doc) continue;
    const ev = validateV1Event(doc, [], issues, V1_LABEL);
    if (ev) items.push({ ev, range: doc.rangeOf([]), doc, at: [], ...(file !== input.path ? { file } : {}) });
  }
  if (issues.issues.length) throw new RolloutLoadError(input.path, V1_LABEL, issues.issues);
  const base = await readBaseState(input, dir, warnings);
  return { items, base, warnings };
}

function v1Rollout(input: LoadInput, items: V1Item[], base: Record<string, unknown> | null, extraMeta: Record<string, unknown>): Rollout {
  const { steps, info } = buildV1Steps(items, baseStateMetrics(base));
  if (info.warnings.length) (input.issues ??= []).push(...info.warnings);
  return v1RolloutOf(input.path, steps, info, items.length, base, extraMeta);
}

/** The rollout of a V1 conversation from its steps and what was gathered building them. */
function v1RolloutOf(file: string, steps: Step[], info: BuildInfo, eventCount: number, base: Record<string, unknown> | null, extraMeta: Record<string, unknown>): Rollout {
  const agent = base && isObject(base.agent) ? base.agent : null;
  const llm = agent && isObject(agent.llm) ? agent.llm : null;
  const ws = base && isObject(base.workspace) ? base.workspace : null;
  const status = base ? str(base.execution_status) : null;
  const outcome = unknownOutcome();
  if (status) {
    outcome.status = status;
    outcome.source = 'base_state.json execution_status';
  }
  const stats = base && isObject(base.stats) && isObject(base.stats.usage_to_metrics) ? base.stats.usage_to_metrics : null;
  const totalCost = stats ? Object.values(stats).reduce<number | null>((s, v) => (isObject(v) && num(v.accumulated_cost) !== null ? (s ?? 0) + (v.accumulated_cost as number) : s), null) : null;
  if (totalCost !== null) info.totalCostUsd = totalCost;
  return {
    id: (base && str(base.id)) ?? `${file}#0`,
    format: 'openhands-v1',
    schemaVersion: null,
    source: { path: file, range: null, line: null },
    task: { id: null, instruction: info.firstUserMessage },
    agent: { name: 'OpenHands', version: null, model: llm ? str(llm.model) : null },
    environment: { image: null, workdir: (ws && str(ws.working_dir)) ?? info.workdir },
    outcome,
    groupId: null,
    steps,
    metadata: metadataOf(info, eventCount, extraMeta),
  };
}

/** A copy of the facts gathered so far that the builder's later events do not change. */
function copyInfo(info: BuildInfo): BuildInfo {
  return { ...info, exitCodeUnknownSteps: [...info.exitCodeUnknownSteps], skippedEvents: { ...info.skippedEvents }, agentStates: [...info.agentStates], warnings: [...info.warnings] };
}

/**
 * The incremental reader of a V1 events JSONL file (RecordStream): each pushed line is parsed,
 * validated and added to the steps at once; a line that is not JSON or not a V1 event becomes a
 * located issue and is left out. `load` of a JSONL file is this stream fed every line.
 */
class V1EventStream implements RecordStream {
  readonly issues: LocatedIssue[] = [];
  private readonly builder = new V1StepBuilder(null);
  private events = 0;

  constructor(private readonly start: StreamStart) {}

  push(lines: readonly JsonlLine[]): void {
    for (const line of lines) {
      const c = new IssueCollector();
      const doc = c.run(() => this.start.parseLine(line));
      const ev = doc ? validateV1Event(doc, [], c, V1_LABEL) : undefined;
      if (doc && ev) {
        const before = this.builder.info.warnings.length;
        this.builder.add({ ev, range: doc.valueRange(), doc, at: [] });
        this.issues.push(...this.builder.info.warnings.slice(before));
        this.events++;
      }
      this.issues.push(...c.issues);
    }
  }

  /** Events read so far. */
  get eventCount(): number {
    return this.events;
  }

  snapshot(): StreamedRollout[] {
    const changedFrom = this.builder.takeChanged();
    // A copy of the list: the builder goes on appending to its own.
    const rollout = v1RolloutOf(this.start.path, this.builder.steps.slice(), copyInfo(this.builder.info), this.events, null, { layout: 'jsonl' });
    return [{ rollout, changedFrom }];
  }
}

/**
 * OpenHands V1 (software-agent-sdk) events: a JSON list of events, a JSONL file of events, or a
 * persisted conversation folder read through its first event file
 * (`<conversation>/events/event-00000-<id>.json`; sibling event files and `../base_state.json`
 * are joined, steps from other files carry `file`). One rollout per input; id = `base_state.json`
 * `id` when present, else `<path>#0`.
 * @throws RolloutLoadError listing every event (or JSONL line, or event file) that does not conform.
 */
export const openHandsV1Loader: FormatLoader = {
  id: 'openhands-v1',
  label: V1_LABEL,
  detect: v1Detect,
  stream: (start) => new V1EventStream(start),
  async load(input: LoadInput): Promise<Rollout[]> {
    const issues = new IssueCollector();
    if (input.lines) {
      // The stream fed every line: bad lines are located warnings (input.issues), the rest is read;
      // a file without a single V1 event fails with them.
      const stream = new V1EventStream({ path: input.path, files: input.files, parseLine: input.parseLine });
      stream.push(input.lines);
      if (stream.eventCount === 0) throw new RolloutLoadError(input.path, V1_LABEL, stream.issues.length ? [...stream.issues] : [{ file: input.path, line: 1, column: 1, pointer: null, expected: 'a V1 event', found: 'no events' }]);
      if (stream.issues.length) (input.issues ??= []).push(...stream.issues);
      return stream.snapshot().map((s) => s.rollout);
    }
    const doc = input.doc;
    if (doc && Array.isArray(doc.value)) {
      const events = validateV1Events(doc, [], issues, V1_LABEL);
      if (issues.issues.length) throw new RolloutLoadError(input.path, V1_LABEL, issues.issues);
      const items = events.map((ev, i) => ({ ev, range: doc.rangeOf([i]), doc, at: [i] }));
      return [v1Rollout(input, items, null, { layout: 'list' })];
    }
    if (doc && isObject(doc.value) && EVENT_FILE_RE.test(path.basename(input.path))) {
      const { items, base, warnings } = await loadV1Folder(input);
      const extra: Record<string, unknown> = { layout: 'conversation-folder', eventsDir: path.dirname(input.path) };
      if (base) extra.baseState = path.join(path.dirname(path.dirname(input.path)), 'base_state.json');
      if (warnings.length) extra.warnings = warnings;
      return [v1Rollout(input, items, base, extra)];
    }
    throw new RolloutLoadError(input.path, V1_LABEL, [
      { file: input.path, line: 1, column: 1, pointer: '', expected: 'a list of V1 events, a JSONL of events, or events/event-00000-….json', found: 'another value' },
    ]);
  },
};

// ---------------------------------------------------------------------------------------------
// Evaluation output.jsonl loader

const EvalRowSchema = z.looseObject({
  instance_id: z.union([z.string(), z.number()]),
  instruction: z.string().nullish(),
  history: z.array(z.unknown()),
  metadata: z.record(z.string(), z.unknown()).nullish(),
  metrics: z.record(z.string(), z.unknown()).nullish(),
  error: z.string().nullish(),
  test_result: z.record(z.string(), z.unknown()).nullish(),
  instance: z.record(z.string(), z.unknown()).nullish(),
  attempt: z.number().nullish(),
});

/**
 * A resolver row (All-Hands-AI/OpenHands `openhands/resolver/resolver_output.py` `ResolverOutput`:
 * `{issue: {owner, repo, number, title, body, …}, issue_type, instruction, base_commit, git_patch,
 * history, metrics, success, comment_success, result_explanation, error}`), one per line of the
 * resolver's `output/output.jsonl`.
 */
const ResolverRowSchema = z.looseObject({
  issue: z.looseObject({ owner: z.string(), repo: z.string(), number: z.number().int(), title: z.string().nullish() }),
  issue_type: z.string().nullish(),
  instruction: z.string().nullish(),
  base_commit: z.string().nullish(),
  git_patch: z.string().nullish(),
  history: z.array(z.unknown()),
  metrics: z.record(z.string(), z.unknown()).nullish(),
  success: z.boolean().nullish(),
  comment_success: z.array(z.boolean()).nullish(),
  result_explanation: z.string().nullish(),
  error: z.string().nullish(),
});

function looksLikeResolverRow(v: unknown): v is Record<string, unknown> {
  return isObject(v) && isObject(v.issue) && 'number' in v.issue && Array.isArray(v.history) && ('git_patch' in v || 'issue_type' in v || 'success' in v);
}

/** Top-level fields of an event that are the event itself, not the flat arguments / extras of the older serialization. */
const EVENT_FIELDS = new Set(['id', 'timestamp', 'source', 'message', 'cause', 'action', 'observation', 'args', 'content', 'extras', 'tool_call_metadata', 'llm_metrics']);

/**
 * The older V0 serialization the resolver's history uses (an action's arguments and an
 * observation's extras at the top level: `{action: "run", command, thought}`, `{observation: "run",
 * content, command, exit_code}`, no ids, no causes) in the current shape: `args` / `extras` from the
 * other fields, ids by position, each observation caused by the action before it, the first message
 * the user's. Events already in the current shape are left as they are.
 */
function flatV0Events(events: V0Event[]): V0Event[] {
  if (events.some((e) => e.args || e.extras || typeof e.id === 'number')) return events;
  let lastAction: number | null = null;
  return events.map((e, i) => {
    const rest = Object.fromEntries(Object.entries(e).filter(([k]) => !EVENT_FIELDS.has(k)));
    if (typeof e.action === 'string') {
      lastAction = i;
      const source = e.source ?? (e.action === 'message' && i === 0 ? 'user' : 'agent');
      // A message action's text is its `content`.
      return { ...e, id: i, source, args: e.content != null ? { content: e.content, ...rest } : rest };
    }
    return { ...e, id: i, source: e.source ?? 'environment', cause: lastAction ?? undefined, extras: rest };
  });
}

function looksLikeEvalRow(v: unknown): boolean {
  return isObject(v) && 'instance_id' in v && Array.isArray(v.history);
}

function evalDetect(input: LoadInput): Detection {
  const v = input.lines ? input.firstLineValue : input.doc?.value;
  if (!isObject(v)) return { accept: false, reason: input.lines ? 'first JSONL line is not a JSON object' : 'not an evaluation row object' };
  if (looksLikeResolverRow(v)) return { accept: true, confidence: 0.9 };
  if (!('instance_id' in v)) return { accept: false, reason: 'no "instance_id" field (nor a resolver row\'s "issue" and "history")' };
  if (looksLikeEvalRow(v)) return { accept: true, confidence: 0.9 };
  if ('test_result' in v || 'instruction' in v || 'history' in v) return { accept: true, confidence: 0.6 };
  return { accept: false, reason: 'no "history" list of events' };
}

/**
 * Reads one evaluation row into a rollout (throws RolloutLoadError for a row that does not conform).
 * The row is a whole document: a JSONL line, or the file (`ref.at` is `[]`).
 */
function evalRowRollout(input: LoadInput, ref: RowRef): Rollout {
  const { doc } = ref;
  if (looksLikeResolverRow(doc.value)) return resolverRowRollout(input, ref);
  const row = doc.validate(EvalRowSchema, EVAL_LABEL);
  const history = row.history;
  // V1 histories are lists of `kind`-tagged events; the first event decides, validation reports the rest.
  const v1 = isObject(history[0]) && typeof history[0].kind === 'string';
  const metrics = readResponseMetrics(row.metrics);
  const meta = row.metadata ?? {};
  let steps: Step[];
  let info: BuildInfo;
  if (v1) {
    const issues = new IssueCollector();
    const events = validateV1Events(doc, ['history'], issues, EVAL_LABEL);
    if (issues.issues.length) throw new RolloutLoadError(input.path, EVAL_LABEL, issues.issues);
    ({ steps, info } = buildV1Steps(events.map((ev, i) => ({ ev, range: doc.rangeOf(['history', i]), doc, at: ['history', i] })), metrics));
    if (info.warnings.length) (input.issues ??= []).push(...info.warnings);
  } else {
    const events = doc.validate(z.array(V0EventSchema), EVAL_LABEL, ['history']);
    ({ steps, info } = buildV0Steps(events, (i) => doc.rangeOf(['history', i]), metrics));
  }
  const llmConfig = isObject(meta.llm_config) ? meta.llm_config : isObject(meta.llm) ? meta.llm : null;
  const instanceId = String(row.instance_id);
  const outcome = unknownOutcome();
  const report = row.test_result && isObject(row.test_result.report) ? row.test_result.report : null;
  if (report && typeof report.resolved === 'boolean') {
    outcome.resolved = report.resolved;
    outcome.source = 'test_result.report.resolved';
  }
  if (row.error) {
    outcome.status = row.error;
    outcome.source ??= 'error';
  }
  const accCost = num(row.metrics?.accumulated_cost);
  if (accCost !== null) info.totalCostUsd = accCost;
  const extra: Record<string, unknown> = { historyFormat: v1 ? 'v1' : 'v0', instanceId };
  if (typeof row.attempt === 'number') extra.attempt = row.attempt;
  if (row.error) extra.error = row.error;
  if (str(meta.agent_class)) info.agentClass = str(meta.agent_class);
  for (const k of ['dataset', 'data_split', 'git_commit', 'max_iterations'] as const) if (meta[k] !== undefined && meta[k] !== null) extra[k] = meta[k];
  if (row.test_result && typeof row.test_result.git_patch === 'string') extra.gitPatchChars = row.test_result.git_patch.length;
  return {
    id: instanceId,
    format: 'openhands-eval',
    schemaVersion: null,
    source: rowSource(input, ref),
    task: { id: instanceId, instruction: row.instruction ?? info.firstUserMessage },
    agent: { name: 'OpenHands', version: info.version, model: (llmConfig && str(llmConfig.model)) ?? info.model },
    environment: { image: null, workdir: info.workdir },
    outcome,
    groupId: null,
    steps,
    metadata: metadataOf(info, history.length, extra),
  };
}

/**
 * Reads one resolver row (ResolverRowSchema): steps from its `history` (V0 events, the older flat
 * serialization included: flatV0Events); id and task id `<owner>/<repo>#<number>` (the issue it
 * resolves); `outcome.resolved` = `success` (the resolver's own verdict); `status` = `error`;
 * metadata: the issue's title and type, base commit, patch size, comment successes, the result
 * explanation and the accumulated cost.
 */
function resolverRowRollout(input: LoadInput, ref: RowRef): Rollout {
  const { doc } = ref;
  const row = doc.validate(ResolverRowSchema, EVAL_LABEL);
  const events = flatV0Events(doc.validate(z.array(V0EventSchema), EVAL_LABEL, ['history']));
  const { steps, info } = buildV0Steps(events, (i) => doc.rangeOf(['history', i]), readResponseMetrics(row.metrics));
  const issueId = `${row.issue.owner}/${row.issue.repo}#${row.issue.number}`;
  const outcome = unknownOutcome();
  if (typeof row.success === 'boolean') {
    outcome.resolved = row.success;
    outcome.source = 'success';
  }
  if (row.error) {
    outcome.status = row.error;
    outcome.source ??= 'error';
  }
  const accCost = num(row.metrics?.accumulated_cost);
  if (accCost !== null) info.totalCostUsd = accCost;
  const extra: Record<string, unknown> = { historyFormat: 'v0', layout: 'resolver output', issue: { owner: row.issue.owner, repo: row.issue.repo, number: row.issue.number, title: row.issue.title ?? null } };
  if (row.issue_type) extra.issueType = row.issue_type;
  if (row.base_commit) extra.baseCommit = row.base_commit;
  if (typeof row.git_patch === 'string') extra.gitPatchChars = row.git_patch.length;
  if (row.comment_success) extra.commentSuccess = row.comment_success;
  if (row.result_explanation) extra.resultExplanation = row.result_explanation;
  if (row.error) extra.error = row.error;
  return {
    id: issueId,
    format: 'openhands-eval',
    schemaVersion: null,
    source: rowSource(input, ref),
    task: { id: issueId, instruction: row.instruction ?? info.firstUserMessage },
    agent: { name: 'OpenHands', version: info.version, model: info.model },
    environment: { image: null, workdir: info.workdir },
    outcome,
    groupId: null,
    steps,
    metadata: metadataOf(info, row.history.length, extra),
  };
}

/**
 * OpenHands evaluation `output.jsonl`: one rollout per line (`instance_id`, `instruction`,
 * `history` of V0 or V1 events, `metadata`, `metrics`, `error`, `test_result`). A pretty-printed
 * single row (a JSON document) is read as one rollout without a line number.
 *
 * Bad lines (the bad-row policy of rows.ts `loadRows`): every line is read; if no line is valid a
 * RolloutLoadError lists the issues of every line. Otherwise the valid lines are loaded, the bad
 * lines' issues go to `input.issues` (`LoadedFile.issues`: `validate` fails on them) and each
 * rollout's `metadata.warnings` lists them too (formatted `file:line:col at /pointer: expected …,
 * found …`) for views of one rollout.
 * Ids: `instance_id`; a repeated id gets `#line<N>` appended.
 * outcome.resolved = `test_result.report.resolved` when present; outcome.status = `error`.
 * The resolver's `output.jsonl` (ResolverOutput rows: an `issue` instead of an `instance_id`) is
 * read by the same loader (resolverRowRollout).
 * @throws RolloutLoadError when no line is a valid row.
 */
export const openHandsEvalLoader: FormatLoader = {
  id: 'openhands-eval',
  label: EVAL_LABEL,
  detect: evalDetect,
  async load(input: LoadInput): Promise<Rollout[]> {
    if (!input.lines) {
      if (!input.doc) throw new RolloutLoadError(input.path, EVAL_LABEL, [{ file: input.path, line: 1, column: 1, pointer: null, expected: 'evaluation rows', found: 'nothing' }]);
      return [evalRowRollout(input, { doc: input.doc, at: [], line: null, index: 0 })];
    }
    return loadRows(input, EVAL_LABEL, (ref) => evalRowRollout(input, ref), { rowName: 'evaluation row' });
  },
};
