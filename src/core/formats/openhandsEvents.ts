/**
 * The OpenHands event mapping shared by the OpenHands loaders (openhandsV0.ts: V0 event lists,
 * openhandsV1.ts: V1 software-agent-sdk event streams, openhandsEval.ts: evaluation `output.jsonl`
 * files): the schemas of the events these loaders read, their validation, and what V0 and V1 steps
 * share; openhandsV0Steps.ts and openhandsV1Steps.ts build the steps.
 *
 * Source definitions read for these loaders:
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
import { z } from 'zod';
import type { LocatedIssue } from '../errors';
import { JsonDoc, type JsonPath } from '../json';
import { type Role, type Step, type TokenCounts } from '../model';
import { IssueCollector } from './rows';
import { isObject, num, secondsBetween, str } from './util';

// ---------------------------------------------------------------------------------------------
// Schemas (the fields the loaders read; unknown keys are allowed)

const ToolCallMetadataSchema = z.looseObject({
  function_name: z.string().nullish(),
  tool_call_id: z.string().nullish(),
  model_response: z.unknown().optional(),
  total_calls_in_response: z.number().nullish(),
});

/** V0 token counts (`llm_metrics.accumulated_token_usage`). */
export const TokenUsageSchema = z.looseObject({
  prompt_tokens: z.number().nullish(),
  completion_tokens: z.number().nullish(),
  cache_read_tokens: z.number().nullish(),
});

const LlmMetricsSchema = z.looseObject({
  accumulated_cost: z.number().nullish(),
  accumulated_token_usage: TokenUsageSchema.nullish(),
});

/** One V0 event as written by `event_to_dict`. */
export const V0EventSchema = z
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
/** A V0 event as validated (the fields the loaders read; unknown keys kept). */
export type V0Event = z.infer<typeof V0EventSchema>;

const V1BaseSchema = z.looseObject({
  id: z.string(),
  timestamp: z.string().nullish(),
  source: z.string(),
  kind: z.string(),
});
/** A V1 event as validated: the base fields plus every other key as recorded. */
export type V1Event = z.infer<typeof V1BaseSchema> & Record<string, unknown>;

const TextContentListSchema = z.array(z.looseObject({ type: z.string().nullish(), text: z.string().nullish() }));

/** Per-kind schemas (fields the loaders read), applied after the base schema. */
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
export const V1_KINDS = new Set([
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
export const V1_SKIPPED_KINDS = new Set(['ConversationStateUpdateEvent', 'TokenEvent', 'LLMCompletionLogEvent']);
/** V1 observation kinds: they answer a tool call. */
export const V1_OBSERVATION_KINDS = new Set(['ObservationEvent', 'UserRejectObservation', 'AgentErrorEvent']);

// ---------------------------------------------------------------------------------------------
// Shared helpers

/** OpenHands' truncation markers (see the module comment for their sources). */
const TRUNCATION_MARKERS: RegExp[] = [
  /\[\.\.\. Observation truncated due to length \.\.\.\]/,
  /\[\.\.\. Command output truncated: removed \d+ characters from the middle \.\.\.\]/,
  /<response clipped>/,
];

/** True when the text carries one of OpenHands' truncation markers. */
export function hasTruncationMarker(text: string | null | undefined): boolean {
  return !!text && TRUNCATION_MARKERS.some((re) => re.test(text));
}

/** The step role of an event `source` (`agent` / `user` / `environment`), else `fallback`. */
export function roleOf(source: string | null | undefined, fallback: Role): Role {
  if (source === 'agent' || source === 'user' || source === 'environment') return source;
  return fallback;
}

/** The non-blank parts joined by a blank line, or null when there is none. */
export function joinText(parts: (string | null | undefined)[]): string | null {
  const kept = parts.filter((p): p is string => typeof p === 'string' && p.trim() !== '');
  return kept.length ? kept.join('\n\n') : null;
}

/** Rounds a cost difference to 1e-12 USD so float noise (0.0015990000000000002) does not show. */
export function roundCost(x: number): number {
  return Math.round(x * 1e12) / 1e12;
}

/** Per-response token counts and costs read from an OpenHands `Metrics` dump (V0 and V1 share the shape). */
export interface ResponseMetrics {
  tokens: Map<string, TokenCounts>;
  cost: Map<string, number>;
}

/**
 * Reads `{token_usages:[{response_id, prompt_tokens, …}], costs:[{cost}], response_latencies:[{response_id}]}`.
 * Costs carry no response id; they are paired with `response_latencies` (one per response) only when
 * both lists have the same length, since OpenHands skips zero costs.
 */
export function readResponseMetrics(m: unknown, into: ResponseMetrics = { tokens: new Map(), cost: new Map() }): ResponseMetrics {
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
export interface BuildInfo {
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

/** A BuildInfo with nothing read yet. */
export function emptyInfo(): BuildInfo {
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
export function fillDurations(steps: Step[], obsTimes: Map<number, string>): void {
  steps.forEach((s, i) => {
    const end = obsTimes.get(i);
    if (end) s.durationSec = secondsBetween(s.timestamp, end);
    else if (i + 1 < steps.length) s.durationSec = secondsBetween(s.timestamp, steps[i + 1].timestamp);
  });
}
// ---------------------------------------------------------------------------------------------
// Validation of event lists

/** Path of the events array in a V0 document: the list itself or the UI download's `trajectory`. */
export function v0EventsPath(value: unknown): JsonPath | null {
  if (Array.isArray(value)) return [];
  if (isObject(value) && Array.isArray(value.trajectory)) return ['trajectory'];
  return null;
}

/** True for an object with a V0 event's `source`, `id`/`timestamp` and an `action`/`observation` name. */
export function looksLikeV0Event(v: unknown): boolean {
  return isObject(v) && 'source' in v && ('id' in v || 'timestamp' in v) && (typeof v.action === 'string' || typeof v.observation === 'string');
}

/** True for an object with a known V1 event `kind` (or a `*Event` kind with `source` and `id`). */
export function looksLikeV1Event(v: unknown): boolean {
  if (!isObject(v) || typeof v.kind !== 'string') return false;
  return V1_KINDS.has(v.kind) || (/Event$/.test(v.kind) && typeof v.source === 'string' && typeof v.id === 'string');
}

/** Validates a list of V1 events at `at` in `doc` (base + per-kind schema); issues go to `issues`. */
export function validateV1Events(doc: JsonDoc, at: JsonPath, issues: IssueCollector, label: string): V1Event[] {
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

/** Validates one V1 event at `at` in `doc` (base + per-kind schema); undefined when invalid, the issues go to `issues`. */
export function validateV1Event(doc: JsonDoc, at: JsonPath, issues: IssueCollector, label: string): V1Event | undefined {
  const base = issues.run(() => doc.validate(V1BaseSchema, label, at));
  if (!base) return undefined;
  const extra = V1_KIND_SCHEMAS[base.kind];
  if (extra && issues.run(() => doc.validate(extra, label, at)) === undefined) return undefined;
  return doc.get(at) as V1Event;
}

// ---------------------------------------------------------------------------------------------
// Rollout assembly

/** `Rollout.metadata` of an OpenHands rollout: the event count, `extra`, and what the step builders recorded in `info`. */
export function metadataOf(info: BuildInfo, eventCount: number, extra: Record<string, unknown> = {}): Record<string, unknown> {
  const m: Record<string, unknown> = { eventCount, ...extra };
  if (info.agentClass) m.agentClass = info.agentClass;
  if (info.totalCostUsd !== null) m.totalCostUsd = info.totalCostUsd;
  if (info.exitCodeUnknownSteps.length) m.exitCodeUnknownSteps = info.exitCodeUnknownSteps;
  if (Object.keys(info.skippedEvents).length) m.skippedEvents = info.skippedEvents;
  if (info.agentStates.length) m.agentStates = info.agentStates;
  m.finishAction = info.finished;
  return m;
}
