/**
 * The steps of OpenHands V0 events (`All-Hands-AI/OpenHands` `openhands/events/serialization/event.py`):
 * one step per agent action event with the observations that answer it. The sources read and the
 * mapping decisions shared with V1 are in the module docs of openhandsEvents.ts.
 *
 * This module never imports `vscode`.
 */
import { z } from 'zod';
import { makeStep, type Action, type Observation, type SourceRange, type Step, type TokenCounts } from '../model';
import { emptyInfo, fillDurations, hasTruncationMarker, joinText, roleOf, roundCost, TokenUsageSchema, type BuildInfo, type ResponseMetrics, type V0Event } from './openhandsEvents';
import { isObject, num, str } from './util';

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
export function buildV0Steps(events: V0Event[], rangeOf: (i: number) => SourceRange | null, metrics: ResponseMetrics | null): { steps: Step[]; info: BuildInfo } {
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
