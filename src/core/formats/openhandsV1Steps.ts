/**
 * The steps of OpenHands V1 events (`OpenHands/software-agent-sdk`
 * `openhands-sdk/openhands/sdk/event/`): one step per agent action event with the observations that
 * answer it. The sources read and the mapping decisions shared with V0 are in the module docs of
 * openhandsEvents.ts.
 *
 * This module never imports `vscode`.
 */
import { asWarning, type LocatedIssue } from '../errors';
import { JsonDoc, type JsonPath } from '../json';
import { makeStep, type Action, type Observation, type Role, type SourceRange, type Step, type TokenCounts } from '../model';
import { emptyInfo, hasTruncationMarker, joinText, roleOf, V1_KINDS, V1_OBSERVATION_KINDS, V1_SKIPPED_KINDS, type BuildInfo, type ResponseMetrics, type V1Event } from './openhandsEvents';
import { EDITING_SUBCOMMANDS, parseArguments } from './toolCalls';
import { contentText, isObject, num, secondsBetween, str } from './util';

// ---------------------------------------------------------------------------------------------
// V1 steps

const V1_SHELL_ACTION_KINDS = new Set(['TerminalAction', 'ExecuteBashAction', 'BashAction']);
const V1_SHELL_TOOLS = new Set(['terminal', 'execute_bash', 'bash']);
const V1_EDITOR_TOOLS = new Set(['file_editor', 'str_replace_editor']);
const V1_EDITOR_KINDS = new Set(['FileEditorAction', 'StrReplaceEditorAction']);
/** Tools that always change a file (the `gemini` tool preset, apply_patch). */
const V1_WRITE_TOOLS = new Set(['write_file', 'edit', 'edit_file', 'replace', 'create_file', 'apply_patch']);

/** One V1 event with where it sits in the source. */
export interface V1Item {
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
export class V1StepBuilder {
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
export function buildV1Steps(items: V1Item[], metrics: ResponseMetrics | null): { steps: Step[]; info: BuildInfo } {
  const b = new V1StepBuilder(metrics);
  for (const item of items) b.add(item);
  return { steps: b.steps, info: b.info };
}
