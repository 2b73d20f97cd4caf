/**
 * GitHub Copilot CLI session logs: `~/.copilot/session-state/<session id>/events.jsonl`, one event per
 * line (also what `copilot -p … --output-format json` prints, with its transient events).
 *
 * Source of the format: the session event schema the Copilot CLI runtime emits, published as
 * generated types in github/copilot-sdk `nodejs/src/generated/session-events.ts` (from
 * `session-events.schema.json`): every event is `{type, data, id, timestamp, parentId, agentId?,
 * ephemeral?}` (`agentId` = a sub-agent's instance, absent for the main agent; `ephemeral` events are
 * not persisted to the log). The events this loader reads:
 * - `session.start` `{sessionId, version, producer, copilotVersion, startTime, selectedModel?,
 *   context{cwd, gitRoot, branch, headCommit, repository, …}}`, `session.resume`,
 *   `session.model_change {newModel}`, `session.shutdown {shutdownType, errorReason?, modelMetrics,
 *   codeChanges, totalPremiumRequests, totalApiDurationMs}`, `session.task_complete {summary,
 *   success}`, `session.title_changed`, `session.context_changed`;
 * - `system.message {role, content}`, `user.message {content, transformedContent?, attachments?,
 *   source?}`, `assistant.message {messageId, content, toolRequests[{toolCallId, name, arguments,
 *   type}], reasoningText?, outputTokens?}`;
 * - `tool.execution_start {toolCallId, toolName, arguments, parentToolCallId?}`,
 *   `tool.execution_complete {toolCallId, success, result{content, detailedContent?, contents?[{type:
 *   "terminal", exitCode?, cwd?, text}]}, error{message, code?}}`, `tool.user_requested`;
 * - `subagent.started|completed|failed {toolCallId, agentName, agentDisplayName}`, `abort {reason}`,
 *   `session.error {errorType, message}`, `session.compaction_complete {summaryContent?,
 *   messagesRemoved?}`, `session.truncation`, `session.info|warning {infoType|warningType, message}`,
 *   `session.mode_changed {previousMode, newMode}`.
 * The tool names are the CLI's own (seen in real logs and in third-party readers of them, e.g.
 * Mai0313/VibeCodingTracker `src/analysis/copilot_analyzer.rs`): `bash` / `powershell` `{command,
 * description}`, `write_bash` / `read_bash` / `stop_bash` (async shells), `view {path}`, `create
 * {path, file_text}`, `edit {path, old_str, new_str}`, the older `str_replace_editor {command, path,
 * …}`, `apply_patch`, `glob`, `grep`, `web_fetch`, `task` (a sub-agent), `report_intent`,
 * `task_complete {summary}`.
 *
 * Mapping (one rollout for the main agent, one more per sub-agent):
 * - `system.message` → system step; `user.message` → user step (`content`, or `transformedContent`
 *   when the content is empty: the CLI's own autopilot prompts; attached paths listed after it);
 * - `assistant.message` → one agent step (`content`, `reasoningText` as reasoning, `outputTokens` as
 *   completion tokens) with an action per tool request: `bash`/`powershell` → shell (the command);
 *   `create` → file_edit `write`; `edit` (and `str_replace_editor str_replace`) → file_edit `replace`
 *   of `old_str` by `new_str`; `apply_patch` → file_edit `patch`; `task_complete` → finish; anything
 *   else → tool (toolCalls.ts rules). A `tool.execution_start` without a request (a tool run the
 *   user asked for, or a log without the message) adds its own agent step (role `user` after
 *   `tool.user_requested`);
 * - `tool.execution_complete` → the observation of the call with its `toolCallId`: output =
 *   `result.content` (what the model was shown), else `error.message`; `isError` = not `success`;
 *   exit code = a terminal content's `exitCode` (recorded), else the `<exited with exit code N>`
 *   line the shell tools end their output with (marked as read from text); the step's duration runs
 *   from the message to its last result. A result whose call is unknown is a located warning and an
 *   environment step;
 * - `abort` → an `interrupted` event step, `session.error` → `api_error`, `session.compaction_complete`
 *   → `compaction`, `session.info` / `warning` / `mode_changed` / `truncation` / `snapshot_rewind` /
 *   `system.notification` → `notice` steps; bookkeeping events (turn start/end, model changes, usage,
 *   MCP/tool/skill loading, permissions, hooks) make no step and are counted in
 *   `metadata.skippedEvents`, transient (`ephemeral`) events likewise; an event type this loader does
 *   not know is shown raw as an `unknown_record` step and its first occurrence is a located warning;
 * - sub-agents: events with an `agentId` (or, in older logs, a `data.parentToolCallId`) go to the
 *   sub-agent's rollout `<session id>/<agent id>`; the parent step whose tool call started it links to
 *   it (`subagent`), it links back (`parent`);
 * - rollout: id = `sessionId`, agent `GitHub Copilot CLI` / `copilotVersion` / the first model
 *   selected, workdir = `context.cwd`, `schemaVersion` = the event format `version`, outcome.status =
 *   `session.shutdown` `shutdownType` (the summary of `session.task_complete` in metadata);
 *   metadata: git context, models, shutdown usage per model and code changes.
 * Bad lines (not JSON, a truncated last line, an event without `type`/`data`) are located warnings in
 * `input.issues`; the rest of the session is shown.
 *
 * `load` is the record stream (`stream`) fed every line, then `end()` and `snapshot()`.
 * This module never imports `vscode`.
 */
import { z } from 'zod';
import { asWarning, formatIssue, RolloutLoadError, type LocatedIssue } from '../errors';
import type { JsonDoc, JsonlLine } from '../json';
import { makeStep, unknownOutcome, type Action, type FileEdit, type Observation, type Rollout, type RolloutLink, type Step, type StepEvent } from '../model';
import { editPath, parseArguments, shellCommand, toolCallAction } from './toolCalls';
import type { FormatLoader, LoadInput, RecordStream, StreamedRollout, StreamStart } from './types';
import { isObject, num, secondsBetween, str } from './util';

const LABEL = 'GitHub Copilot CLI session (events.jsonl)';

const EventSchema = z.looseObject({
  type: z.string(),
  data: z.record(z.string(), z.unknown()),
  id: z.string().nullish(),
  timestamp: z.string().nullish(),
  parentId: z.string().nullish(),
  agentId: z.string().nullish(),
  ephemeral: z.boolean().nullish(),
});
type CopilotEvent = z.infer<typeof EventSchema>;

const ToolRequestSchema = z.looseObject({
  toolCallId: z.string(),
  name: z.string(),
  arguments: z.unknown().optional(),
  type: z.string().nullish(),
});

/** Per-type schemas of the `data` fields read (unknown keys allowed). */
const DATA_SCHEMAS: Record<string, z.ZodType> = {
  'session.start': z.looseObject({
    sessionId: z.string().nullish(),
    version: z.number().nullish(),
    producer: z.string().nullish(),
    copilotVersion: z.string().nullish(),
    startTime: z.string().nullish(),
    selectedModel: z.string().nullish(),
    context: z.looseObject({ cwd: z.string().nullish() }).nullish(),
  }),
  'user.message': z.looseObject({ content: z.string().nullish(), transformedContent: z.string().nullish(), attachments: z.array(z.unknown()).nullish() }),
  'system.message': z.looseObject({ content: z.string() }),
  'assistant.message': z.looseObject({
    messageId: z.string().nullish(),
    content: z.string().nullish(),
    toolRequests: z.array(ToolRequestSchema).nullish(),
    reasoningText: z.string().nullish(),
    outputTokens: z.number().nullish(),
    model: z.string().nullish(),
  }),
  'tool.execution_start': z.looseObject({ toolCallId: z.string(), toolName: z.string(), arguments: z.unknown().optional(), parentToolCallId: z.string().nullish() }),
  'tool.execution_complete': z.looseObject({
    toolCallId: z.string(),
    success: z.boolean().nullish(),
    /** An object in the schema; some CLI versions write the result text as a plain string. */
    result: z.union([z.string(), z.looseObject({ content: z.string().nullish(), detailedContent: z.string().nullish(), contents: z.array(z.unknown()).nullish() })]).nullish(),
    error: z.looseObject({ message: z.string().nullish(), code: z.string().nullish() }).nullish(),
    parentToolCallId: z.string().nullish(),
  }),
};

/** Events that carry nothing a step shows (bookkeeping, loading, permissions); counted in metadata. */
const SKIPPED = new Set([
  'assistant.turn_start',
  'assistant.turn_end',
  'assistant.reasoning',
  'assistant.intent',
  'assistant.usage',
  'session.model_change',
  'session.usage_info',
  'session.context_changed',
  'session.title_changed',
  'session.plan_changed',
  'session.todos_changed',
  'session.workspace_file_changed',
  'session.compaction_start',
  'session.idle',
  'session.remote_steerable_changed',
  'session.tools_updated',
  'session.skills_loaded',
  'session.custom_agents_updated',
  'session.mcp_servers_loaded',
  'session.mcp_server_status_changed',
  'session.extensions_loaded',
  'session.background_tasks_changed',
  'session.usage_checkpoint',
  'session.limits_changed',
  'session.permissions_changed',
  'pending_messages.modified',
  'permission.requested',
  'permission.completed',
  'hook.start',
  'hook.end',
  'hook.progress',
  'tool.execution_partial_result',
  'tool.execution_progress',
  'subagent.selected',
  'subagent.deselected',
  'subagent.configured',
  'subagent.completed',
  'subagent.failed',
  'command.queued',
  'command.execute',
  'command.completed',
  'user_input.requested',
  'user_input.completed',
  'elicitation.requested',
  'elicitation.completed',
  'external_tool.requested',
  'external_tool.completed',
  'exit_plan_mode.requested',
  'exit_plan_mode.completed',
  'model.call_start',
  'model.call_finished',
]);

/** Events shown as `notice` steps: the label's prefix. */
const NOTICES: Record<string, string> = {
  'session.info': 'info',
  'session.warning': 'warning',
  'session.mode_changed': 'mode',
  'session.truncation': 'truncation',
  'session.snapshot_rewind': 'rewind',
  'session.handoff': 'handoff',
  'system.notification': 'notification',
  'skill.invoked': 'skill',
};

/** The `<exited with exit code N>` line Copilot's shell tools end an output with (last one). */
const EXITED = /<exited with exit code (-?\d+)>/g;

function exitedCode(text: string): number | null {
  let code: number | null = null;
  for (const m of text.matchAll(EXITED)) code = Number(m[1]);
  return code;
}

/** Short one-line text for labels. */
function short(s: string, n = 120): string {
  const one = s.replace(/\s+/g, ' ').trim();
  return one.length > n ? `${one.slice(0, n)}…` : one;
}

/** The file change of a Copilot editor call (module docs), or undefined when the tool is not one. */
function copilotEdit(lower: string, args: Record<string, unknown>, raw: unknown): FileEdit | undefined {
  const p = editPath(args);
  const sub = lower === 'str_replace_editor' ? str(args.command) : null;
  if (lower === 'create' || sub === 'create') {
    const content = str(args.file_text) ?? str(args.content);
    return p !== null && content !== null ? { op: 'write', path: p, content } : { op: 'other', path: p, reason: 'no path and file_text recorded' };
  }
  if (lower === 'edit' || lower === 'str_replace' || sub === 'str_replace') {
    const oldText = str(args.old_str) ?? str(args.old_string);
    const newText = str(args.new_str) ?? str(args.new_string) ?? '';
    return p !== null && oldText !== null ? { op: 'replace', path: p, edits: [{ oldText, newText, replaceAll: false }] } : { op: 'other', path: p, reason: 'no old_str recorded' };
  }
  if (sub === 'insert') return { op: 'other', path: p, reason: 'an insert at a line number (needs the file to re-apply)' };
  if (sub === 'undo_edit') return { op: 'other', path: p, reason: 'undo of an earlier edit' };
  if (lower === 'apply_patch') {
    const patch = typeof raw === 'string' ? raw : (str(args.input) ?? str(args.patch));
    if (patch === null) return { op: 'other', path: p, reason: 'no patch text recorded' };
    return { op: 'patch', path: p ?? /^\*\*\* (?:Add|Update|Delete) File: (.+)$/m.exec(patch)?.[1]?.trim() ?? null, patch, dialect: patch.trimStart().startsWith('*** Begin Patch') ? 'codex' : 'unified' };
  }
  return undefined;
}

/** One Copilot tool call → Action (module docs). */
export function copilotAction(name: string, rawArgs: unknown, callId: string | null): Action {
  const parsed = parseArguments(rawArgs);
  const args = isObject(parsed) ? parsed : {};
  const lower = name.toLowerCase();
  if (lower === 'bash' || lower === 'powershell' || lower === 'shell') {
    const command = shellCommand(args);
    if (command !== null) return { kind: 'shell', command, tool: name, arguments: parsed, callId };
  }
  const edit = copilotEdit(lower, args, parsed);
  if (edit) return { kind: 'file_edit', command: null, tool: name, arguments: parsed, callId, path: edit.path, edit };
  if (lower === 'str_replace_editor') return { kind: 'tool', command: null, tool: name, arguments: parsed, callId };
  return toolCallAction(name, rawArgs, callId);
}

/** Exit code and cwd of a terminal content block of a result (`contents[{type: "terminal", exitCode, cwd}]`). */
function terminalContent(contents: unknown[] | null | undefined): { exitCode: number | null; cwd: string | null } | null {
  for (const c of contents ?? []) {
    if (isObject(c) && c.type === 'terminal') {
      const code = num(c.exitCode);
      return { exitCode: code !== null && Number.isInteger(code) ? code : null, cwd: str(c.cwd) };
    }
  }
  return null;
}

interface PendingCall {
  step: Step;
  action: Action;
  startedAt: string | null;
}

/** The steps of one agent (the main agent or one sub-agent) and what changed since the last snapshot. */
class AgentLog {
  readonly steps: Step[] = [];
  readonly calls = new Map<string, PendingCall>();
  /** First step index changed since the last snapshot. */
  dirtyFrom = 0;
  /** Models named by this agent's messages (`assistant.message` `model`), in order. */
  readonly models: string[] = [];
  /** The model `subagent.started` names for a sub-agent (used when its messages name none). */
  declaredModel: string | null = null;
  /** @param key the sub-agent's key (`agentId` or parent tool call id), null for the main agent */
  constructor(readonly key: string | null) {}

  add(step: Omit<Step, 'index'> | Step): Step {
    const s = step as Step;
    s.index = this.steps.length;
    this.steps.push(s);
    return s;
  }

  touch(i: number): void {
    if (i < this.dirtyFrom) this.dirtyFrom = i;
  }
}

/** Mutable facts about the session gathered from its events. */
interface SessionFacts {
  sessionId: string | null;
  version: number | null;
  producer: string | null;
  copilotVersion: string | null;
  startTime: string | null;
  cwd: string | null;
  git: Record<string, unknown> | null;
  models: string[];
  title: string | null;
  shutdown: Record<string, unknown> | null;
  taskComplete: Record<string, unknown> | null;
  resumes: string[];
  result: Record<string, unknown> | null;
  skipped: Record<string, number>;
  ephemeral: number;
  unknown: Record<string, number>;
  unrequestedTools: number;
}

/**
 * The record stream of one Copilot CLI `events.jsonl` (types.ts RecordStream; module docs for the
 * mapping). Bad lines and unknown events become located issues; nothing throws.
 */
class CopilotStream implements RecordStream {
  readonly issues: LocatedIssue[] = [];
  private readonly main = new AgentLog(null);
  private readonly subs = new Map<string, AgentLog>();
  /** Sub-agent key (and its starting tool call id) → that tool call and the sub-agent's display name. */
  private readonly subStarts = new Map<string, { callId: string | null; name: string | null }>();
  /** Tool call ids announced by `tool.user_requested`. */
  private readonly userRequested = new Set<string>();
  /** Agent steps of assistant messages that recorded no tool requests (runs after them join them). */
  private readonly requestless = new WeakSet<Step>();
  /** The prompt of the sub-agent just started (its opening user message has no agent id). */
  private awaitedPrompt: { key: string; prompt: string } | null = null;
  private readonly facts: SessionFacts = {
    sessionId: null,
    version: null,
    producer: null,
    copilotVersion: null,
    startTime: null,
    cwd: null,
    git: null,
    models: [],
    title: null,
    shutdown: null,
    taskComplete: null,
    resumes: [],
    result: null,
    skipped: {},
    ephemeral: 0,
    unknown: {},
    unrequestedTools: 0,
  };
  private events = 0;

  constructor(private readonly start: StreamStart) {}

  push(lines: readonly JsonlLine[]): void {
    for (const line of lines) {
      let doc: JsonDoc;
      try {
        doc = this.start.parseLine(line);
      } catch (e) {
        if (e instanceof RolloutLoadError) {
          this.issues.push(...e.issues);
          continue;
        }
        throw e;
      }
      const res = EventSchema.safeParse(doc.value);
      if (!res.success) {
        this.issues.push(doc.issue(res.error.issues[0]?.path as (string | number)[] ?? [], 'a Copilot CLI event {type, data, id, timestamp}'));
        continue;
      }
      const ev = res.data;
      const schema = DATA_SCHEMAS[ev.type];
      if (schema) {
        const d = schema.safeParse(ev.data);
        if (!d.success) {
          for (const i of d.error.issues.slice(0, 3)) this.issues.push(doc.issue(['data', ...(i.path as (string | number)[])], i.message));
          continue;
        }
      }
      this.events++;
      this.handle(ev, doc, line);
    }
  }

  end(): void {
    // Nothing is held back: a call without its result stays without an observation.
  }

  private log(ev: CopilotEvent): AgentLog {
    let key = ev.agentId ?? str(ev.data.parentToolCallId);
    // A sub-agent's opening prompt carries no agent id: the first user message after
    // `subagent.started` that equals the `task` call's prompt belongs to the sub-agent.
    if (!key && ev.type === 'user.message' && this.awaitedPrompt) {
      if (str(ev.data.content) === this.awaitedPrompt.prompt) key = this.awaitedPrompt.key;
      this.awaitedPrompt = null;
    }
    if (!key) return this.main;
    let log = this.subs.get(key);
    if (!log) {
      log = new AgentLog(key);
      this.subs.set(key, log);
    }
    return log;
  }

  private count(into: Record<string, number>, type: string): void {
    into[type] = (into[type] ?? 0) + 1;
  }

  private stepAt(log: AgentLog, role: Step['role'], ev: CopilotEvent, doc: JsonDoc, fields: Partial<Step>): Step {
    return log.add(makeStep(0, role, { sourceId: ev.id ?? null, timestamp: ev.timestamp ?? null, range: doc.rangeOf([]), ...fields }));
  }

  private eventStep(log: AgentLog, ev: CopilotEvent, doc: JsonDoc, event: StepEvent, message: string): void {
    this.stepAt(log, 'system', ev, doc, { message, event });
  }

  private handle(ev: CopilotEvent, doc: JsonDoc, line: JsonlLine): void {
    const d = ev.data;
    const f = this.facts;
    if (ev.ephemeral === true) {
      f.ephemeral++;
      return;
    }
    const log = this.log(ev);
    switch (ev.type) {
      case 'session.start': {
        f.sessionId ??= str(d.sessionId);
        f.version ??= num(d.version);
        f.producer ??= str(d.producer);
        f.copilotVersion ??= str(d.copilotVersion);
        f.startTime ??= str(d.startTime);
        const sel = str(d.selectedModel);
        if (sel && !f.models.includes(sel)) f.models.push(sel);
        this.context(d.context);
        return;
      }
      case 'session.resume':
        f.resumes.push(str(d.resumeTime) ?? ev.timestamp ?? '');
        this.context(d.context);
        return;
      case 'session.model_change': {
        const m = str(d.newModel);
        if (m && !f.models.includes(m)) f.models.push(m);
        this.count(f.skipped, ev.type);
        return;
      }
      case 'session.title_changed':
        f.title = str(d.title) ?? f.title;
        this.count(f.skipped, ev.type);
        return;
      case 'session.context_changed':
        this.context(d);
        this.count(f.skipped, ev.type);
        return;
      case 'session.shutdown':
        f.shutdown = d;
        return;
      case 'session.task_complete':
        f.taskComplete = d;
        return;
      case 'result':
        f.result = { ...ev } as Record<string, unknown>;
        return;
      case 'system.message':
        this.stepAt(log, 'system', ev, doc, { message: str(d.content) ?? '' });
        return;
      case 'user.message': {
        const content = str(d.content) ?? '';
        let message = content.trim() !== '' ? content : (str(d.transformedContent) ?? '');
        const paths = (Array.isArray(d.attachments) ? d.attachments : []).map((a) => (isObject(a) ? (str(a.path) ?? str(a.filePath) ?? str(a.url) ?? str(a.displayName)) : null)).filter((p): p is string => !!p);
        if (paths.length) message += `${message ? '\n\n' : ''}${paths.map((p) => `[attached: ${p}]`).join('\n')}`;
        this.stepAt(log, 'user', ev, doc, { message });
        return;
      }
      case 'assistant.message': {
        const out = num(d.outputTokens);
        const model = str(d.model);
        if (model && !log.models.includes(model)) log.models.push(model);
        const step = this.stepAt(log, 'agent', ev, doc, {
          sourceId: str(d.messageId) ?? ev.id ?? null,
          message: str(d.content) ?? '',
          reasoning: str(d.reasoningText) || null,
          tokens: out !== null ? { prompt: null, completion: out, cached: null } : null,
        });
        const requests = (d.toolRequests as z.infer<typeof ToolRequestSchema>[] | null | undefined) ?? [];
        for (const r of requests) {
          const action = copilotAction(r.name, r.arguments, r.toolCallId);
          step.actions.push(action);
          log.calls.set(r.toolCallId, { step, action, startedAt: null });
        }
        if (requests.length === 0) this.requestless.add(step);
        return;
      }
      case 'tool.user_requested': {
        const id = str(d.toolCallId);
        if (id) this.userRequested.add(id);
        this.count(f.skipped, ev.type);
        return;
      }
      case 'tool.execution_start': {
        const id = d.toolCallId as string;
        const known = log.calls.get(id);
        if (known) {
          known.startedAt = ev.timestamp ?? null;
          return;
        }
        // A run without a request in this log: it belongs to the message just before it when that
        // message recorded no requests (the CLI writes some calls only as runs), else it is its own
        // step (a user-requested tool, a trimmed log).
        f.unrequestedTools++;
        const action = copilotAction(d.toolName as string, d.arguments, id);
        const last = log.steps[log.steps.length - 1];
        const user = this.userRequested.has(id);
        const step = !user && last && this.requestless.has(last) ? last : this.stepAt(log, user ? 'user' : 'agent', ev, doc, {});
        step.actions.push(action);
        log.touch(step.index);
        log.calls.set(id, { step, action, startedAt: ev.timestamp ?? null });
        return;
      }
      case 'tool.execution_complete':
        this.complete(log, ev, doc);
        return;
      case 'subagent.started': {
        const callId = str(d.toolCallId);
        const name = str(d.agentDisplayName) ?? str(d.agentName);
        const key = ev.agentId ?? callId;
        if (key) this.subStarts.set(key, { callId, name });
        const subModel = str(d.model);
        if (key && subModel) {
          const sub = this.subs.get(key) ?? new AgentLog(key);
          this.subs.set(key, sub);
          sub.declaredModel = subModel;
        }
        if (callId && ev.agentId) this.subStarts.set(callId, { callId, name });
        const parent = callId ? this.main.calls.get(callId) : undefined;
        const prompt = parent && isObject(parent.action.arguments) ? str(parent.action.arguments.prompt) : null;
        this.awaitedPrompt = key && prompt ? { key, prompt } : null;
        if (parent && key) {
          (parent.step.links ??= []).push({ relation: 'subagent', label: name ?? 'sub-agent', path: null, rolloutId: this.subId(key), callId, stepIndex: 0 });
          this.main.touch(parent.step.index);
        }
        return;
      }
      case 'abort':
        this.eventStep(log, ev, doc, { kind: 'interrupted', label: `interrupted: ${short(str(d.reason) ?? 'aborted')}` }, str(d.reason) ?? '');
        return;
      case 'session.error': {
        const msg = str(d.message) ?? '';
        this.eventStep(log, ev, doc, { kind: 'api_error', label: short(`${str(d.errorType) ?? 'error'}: ${msg}`) }, msg);
        return;
      }
      case 'session.compaction_complete': {
        const removed = num(d.messagesRemoved);
        const ok = d.success !== false;
        const label = ok ? `compaction${removed !== null ? `: ${removed} messages removed` : ''}` : `compaction failed: ${short(str(d.error) ?? '')}`;
        this.eventStep(log, ev, doc, { kind: 'compaction', label }, str(d.summaryContent) ?? str(d.error) ?? '');
        return;
      }
      default:
        break;
    }
    if (ev.type in NOTICES) {
      const text = this.noticeText(ev);
      this.eventStep(log, ev, doc, { kind: 'notice', label: short(`${NOTICES[ev.type]}: ${text}`) }, text);
      return;
    }
    if (SKIPPED.has(ev.type)) {
      this.count(f.skipped, ev.type);
      return;
    }
    // An event type this loader does not know: shown raw; its first occurrence is a located warning.
    if (!(ev.type in f.unknown)) this.issues.push(asWarning(doc.issue(['type'], 'a Copilot CLI event type this reader knows (shown raw)')));
    this.count(f.unknown, ev.type);
    this.eventStep(log, ev, doc, { kind: 'unknown_record', label: `unknown event ${ev.type}` }, line.text);
  }

  private noticeText(ev: CopilotEvent): string {
    const d = ev.data;
    if (ev.type === 'session.mode_changed') return `${str(d.previousMode) ?? '?'} → ${str(d.newMode) ?? '?'}`;
    if (ev.type === 'session.truncation') {
      const n = num(d.messagesRemovedDuringTruncation);
      return n !== null ? `${n} messages removed` : 'context truncated';
    }
    if (ev.type === 'session.snapshot_rewind') return `rewound to ${str(d.upToEventId) ?? '?'} (${num(d.eventsRemoved) ?? '?'} events removed)`;
    if (ev.type === 'skill.invoked') return str(d.name) ?? 'skill';
    return str(d.message) ?? str(d.summary) ?? JSON.stringify(d);
  }

  private context(c: unknown): void {
    if (!isObject(c)) return;
    const f = this.facts;
    f.cwd ??= str(c.cwd);
    const git: Record<string, unknown> = {};
    for (const k of ['gitRoot', 'branch', 'headCommit', 'baseCommit', 'repository', 'repositoryHost', 'hostType']) if (c[k] !== undefined) git[k] = c[k];
    if (Object.keys(git).length && !f.git) f.git = git;
  }

  private complete(log: AgentLog, ev: CopilotEvent, doc: JsonDoc): void {
    const d = ev.data;
    const id = d.toolCallId as string;
    const result = isObject(d.result) ? d.result : null;
    const error = isObject(d.error) ? d.error : null;
    const output = (typeof d.result === 'string' ? d.result : null) ?? (result ? str(result.content) : null) ?? (error ? str(error.message) : null) ?? '';
    const terminal = terminalContent(result && Array.isArray(result.contents) ? result.contents : null);
    const obs: Observation = { callId: id, output, exitCode: null, truncated: false };
    if (terminal?.exitCode != null) {
      obs.exitCode = terminal.exitCode;
    } else {
      const code = exitedCode(output);
      if (code !== null) {
        obs.exitCode = code;
        obs.exitCodeFrom = 'text';
      }
    }
    if (terminal?.cwd) obs.cwd = terminal.cwd;
    if (d.success === false) obs.isError = true;
    const call = log.calls.get(id) ?? (log === this.main ? undefined : this.main.calls.get(id));
    if (!call) {
      this.issues.push(asWarning(doc.issue(['data', 'toolCallId'], 'the result of a tool call requested earlier in the log (assistant.message toolRequests or tool.execution_start)', `tool.execution_complete for unknown call ${JSON.stringify(id)}`)));
      this.stepAt(log, 'environment', ev, doc, { observations: [obs] });
      return;
    }
    call.step.observations.push(obs);
    const end = ev.timestamp ?? null;
    const dur = secondsBetween(call.step.timestamp, end);
    if (dur !== null && (call.step.durationSec === null || dur > call.step.durationSec)) call.step.durationSec = dur;
    this.ownerOf(call.step).touch(call.step.index);
  }

  /** The log holding a step (the main agent's unless a sub-agent's). */
  private ownerOf(step: Step): AgentLog {
    if (this.main.steps[step.index] === step) return this.main;
    for (const l of this.subs.values()) if (l.steps[step.index] === step) return l;
    return this.main;
  }

  /**
   * The agent's model: the first one its messages name, else the first selected one that is not the
   * `auto` router, else `auto`.
   */
  private model(log: AgentLog): string | null {
    if (log.models.length) return log.models[0];
    if (log !== this.main) return log.declaredModel;
    return this.facts.models.find((m) => m !== 'auto') ?? this.facts.models[0] ?? null;
  }

  private mainId(): string {
    return this.facts.sessionId ?? this.start.path;
  }

  private subId(key: string): string {
    return `${this.mainId()}/${key}`;
  }

  private rollout(log: AgentLog): Rollout {
    const f = this.facts;
    const outcome = unknownOutcome();
    const shutdownType = f.shutdown ? str(f.shutdown.shutdownType) : null;
    if (log === this.main && shutdownType) {
      outcome.status = shutdownType === 'error' && f.shutdown && str(f.shutdown.errorReason) ? `error: ${str(f.shutdown.errorReason)}` : shutdownType;
      outcome.source = 'session.shutdown shutdownType';
    }
    const metadata: Record<string, unknown> = { layout: 'events.jsonl', events: this.events };
    if (f.sessionId) metadata.sessionId = f.sessionId;
    if (f.producer) metadata.producer = f.producer;
    if (f.startTime) metadata.startTime = f.startTime;
    if (f.git) metadata.git = f.git;
    if (f.models.length) metadata.models = f.models;
    if (f.title) metadata.title = f.title;
    if (f.resumes.length) metadata.resumes = f.resumes;
    if (Object.keys(f.skipped).length) metadata.skippedEvents = f.skipped;
    if (f.ephemeral) metadata.ephemeralEvents = f.ephemeral;
    if (Object.keys(f.unknown).length) metadata.unknownEvents = f.unknown;
    if (f.unrequestedTools) metadata.unrequestedToolRuns = f.unrequestedTools;
    if (this.issues.length) metadata.warnings = this.issues.map(formatIssue);
    if (log === this.main) {
      if (f.taskComplete) metadata.taskComplete = f.taskComplete;
      if (f.shutdown) {
        const { modelMetrics, codeChanges, totalPremiumRequests, totalApiDurationMs } = f.shutdown;
        metadata.shutdown = { modelMetrics, codeChanges, totalPremiumRequests, totalApiDurationMs };
      }
      if (f.result) metadata.result = f.result;
    }
    const firstUser = log.steps.find((s) => s.role === 'user' && s.message.trim() !== '');
    const r: Rollout = {
      id: log === this.main ? this.mainId() : this.subId(log.key as string),
      format: 'copilot-cli',
      schemaVersion: f.version !== null ? String(f.version) : null,
      source: { path: this.start.path, range: null, line: null },
      task: { id: null, instruction: firstUser?.message ?? null },
      agent: { name: 'GitHub Copilot CLI', version: f.copilotVersion, model: this.model(log) },
      environment: { image: null, workdir: f.cwd },
      outcome,
      groupId: null,
      steps: log.steps,
      metadata,
    };
    if (log !== this.main) {
      const started = this.subStarts.get(log.key as string);
      const parentCall = started?.callId ? this.main.calls.get(started.callId) : this.main.calls.get(log.key as string);
      const link: RolloutLink = { relation: 'parent', label: 'parent session', path: null, rolloutId: this.mainId(), stepIndex: parentCall ? parentCall.step.index : null, callId: started?.callId ?? log.key };
      r.links = [link];
      r.agent = { ...r.agent, name: started?.name ? `GitHub Copilot CLI sub-agent ${started.name}` : 'GitHub Copilot CLI sub-agent' };
      metadata.subagentOf = this.mainId();
    }
    return r;
  }

  snapshot(): StreamedRollout[] {
    const logs = [this.main, ...this.subs.values()];
    const out = logs.map((log) => ({ rollout: this.rollout(log), changedFrom: Math.min(log.dirtyFrom, log.steps.length) }));
    for (const log of logs) log.dirtyFrom = log.steps.length;
    return out;
  }
}

/** True for a first line that is a Copilot CLI session event. */
function isCopilotEvent(v: unknown): boolean {
  if (!isObject(v) || typeof v.type !== 'string' || !isObject(v.data)) return false;
  if (v.type === 'session.start') return true;
  return /^(session|user|assistant|tool|system|subagent|hook|skill|permission)\.[a-z_]+$/.test(v.type) && ('timestamp' in v || 'id' in v);
}

/**
 * Loader for GitHub Copilot CLI `events.jsonl` (format `copilot-cli`, module docs). Detects a JSONL
 * file whose first event is `{type: "session.start" | "user.message" | …, data: {…}}`.
 * @throws RolloutLoadError when no line is a Copilot event (bad lines otherwise go to `input.issues`)
 */
export const copilotCliLoader: FormatLoader = {
  id: 'copilot-cli',
  label: LABEL,
  detect(input) {
    if (!input.lines) return { accept: false, reason: 'not JSON Lines (a Copilot CLI session is events.jsonl)' };
    const v = input.firstLineValue;
    if (!isCopilotEvent(v)) return { accept: false, reason: 'first JSONL line is not a Copilot CLI event {type: "session.start" | "user.message" | …, data}' };
    const d = (v as Record<string, unknown>).data as Record<string, unknown>;
    return { accept: true, confidence: d.producer === 'copilot-agent' || typeof d.copilotVersion === 'string' ? 0.95 : 0.8 };
  },
  async load(input: LoadInput) {
    if (!input.lines) throw new RolloutLoadError(input.path, LABEL, [{ file: input.path, line: 1, column: 1, pointer: null, expected: 'JSON Lines (one event per line)', found: 'one JSON document' }]);
    const s = copilotCliLoader.stream!({ path: input.path, files: input.files, parseLine: input.parseLine });
    s.push(input.lines);
    s.end?.();
    const rollouts = s.snapshot().map((x) => x.rollout);
    if (Number(rollouts[0].metadata.events) === 0) {
      throw new RolloutLoadError(input.path, LABEL, s.issues.length ? [...s.issues] : [{ file: input.path, line: null, column: null, pointer: null, expected: 'at least one Copilot CLI event', found: 'none' }]);
    }
    if (s.issues.length) (input.issues ??= []).push(...s.issues);
    return rollouts;
  },
  stream(start: StreamStart): RecordStream {
    return new CopilotStream(start);
  },
};
