/**
 * OpenAI Codex CLI sessions ("rollouts"): `~/.codex/sessions/YYYY/MM/DD/rollout-<time>-<id>.jsonl`
 * (also Codex Desktop and the IDE extension, which share the recorder), as one rollout per file.
 *
 * Source definitions read for this loader (openai/codex):
 * - `codex-rs/protocol/src/protocol.rs`: `RolloutLine {timestamp, type, payload}` with
 *   `RolloutItem` = `session_meta` (`SessionMetaLine {id, timestamp, cwd, originator, cli_version,
 *   instructions, source, model_provider, base_instructions?, git {commit_hash, branch,
 *   repository_url}}`), `response_item` (a `ResponseItem`), `compacted` (`CompactedItem {message,
 *   replacement_history?}`), `turn_context` (`TurnContextItem {cwd, approval_policy,
 *   sandbox_policy, model, effort, summary, …}`), `event_msg` (an `EventMsg`: `user_message`,
 *   `agent_message`, `agent_reasoning`, `agent_reasoning_raw_content`, `token_count {info:
 *   {total_token_usage, last_token_usage, model_context_window} | null, rate_limits}`,
 *   `turn_aborted {reason}`, `context_compacted`, `error`, `stream_error`, `warning`,
 *   `patch_apply_end {call_id, stdout, stderr, success, changes}`, `exec_command_end {call_id,
 *   exit_code, aggregated_output, …}`, `task_started`, `task_complete`, …);
 * - `codex-rs/protocol/src/models.rs`: `ResponseItem` = `message {role, content:[input_text |
 *   output_text | input_image]}`, `reasoning {summary:[summary_text], content?, encrypted_content}`,
 *   `local_shell_call {call_id, status, action:{type:"exec", command:[argv], working_directory}}`,
 *   `function_call {name, arguments (a JSON string), call_id}`, `function_call_output {call_id,
 *   output}` (a string, content items, or, in older writers, `{content, success}`),
 *   `custom_tool_call {call_id, name, input}` / `custom_tool_call_output`, `web_search_call
 *   {status, action}`, `ghost_snapshot`, `compaction {encrypted_content}`; `ShellToolCallParams
 *   {command:[argv], workdir}` and `ShellCommandToolCallParams {command, workdir}`;
 * - `codex-rs/core/src/rollout/recorder.rs` and `rollout/policy.rs` (what is persisted: response
 *   items, the listed events, turn contexts, compaction markers);
 * - the shell tool's JSON output `{output, metadata:{exit_code, duration_seconds}}` and the unified
 *   exec text outputs (`Exit code: N` / `Process exited with code N`, `Wall time: …`, `Output:`);
 * - `codex-rs/apply-patch/apply_patch_tool_instructions.md` (`*** Begin Patch` patches, also sent
 *   through the shell tool as argv `["apply_patch", patch]` or a `apply_patch <<'EOF'` heredoc).
 *
 * Writer generations read: the TypeScript CLI (spring 2025: one JSON object `{session:{id,
 * timestamp, instructions}, items:[ResponseItem]}`), the first Rust writers (to ~0.30: line 1 a bare
 * header `{id, timestamp, instructions, git?, cwd?, …}`, then bare response items and
 * `{"record_type":"state"}` markers), and `RolloutLine` files (0.3x to today, including Codex
 * Desktop 0.104 and exec 0.135).
 *
 * Mapping decisions:
 * - One agent step per model response: the consecutive assistant records (reasoning, message,
 *   function / custom / local-shell / web-search calls) until a tool output, a user message, a
 *   turn context (each sampling request writes one) or an event that ends the response. Outputs
 *   are joined to their call by `call_id` (any later step); as in the Responses loader
 *   (openAiResponses.ts), a call after outputs starts a new step. Step range = the lines of its records
 *   (its items, their events, its token count and its outputs); duration = its last output's time
 *   minus its first record's time.
 * - Text that appears both as an `event_msg` (`agent_message`, `agent_reasoning`, `user_message`)
 *   and as a `response_item` is one turn: items and events are paired one to one in order (not by
 *   text: publishers redact them differently) and the item's text is kept; an event without its
 *   item (writers that did not persist it, or a line not yet written) is shown until the item
 *   arrives.
 * - User messages: `<environment_context>`, `<user_instructions>` / `# AGENTS.md instructions`, and
 *   an IDE `# Context from my IDE setup:` block without `## My request for Codex:` are context, shown
 *   as system steps with a `notice` event; in files that carry `user_message` events, a user item
 *   no event confirms while a later one is confirmed is context too. `task.instruction` = the first
 *   confirmed user request (the text after `## My request for Codex:` when the IDE block wraps it).
 *   `developer` / `system` messages and the session's instructions are system steps.
 * - Actions: shell tools (`shell`, `local_shell`, `container.exec`, `shell_command`,
 *   `exec_command`) → `shell` with the command from the arguments (argv `["bash","-lc",script]`
 *   gives the script, toolCalls.ts `shellCommand`); `write_stdin` → `keystrokes`; `apply_patch`
 *   (custom tool, function, or shell argv / heredoc) → `file_edit` with `edit {op:'patch',
 *   dialect:'codex', patch, path: first file}` (a text that is not a `*** Begin Patch` patch, as in
 *   redacted logs, gives `edit {op:'other'}`); `web_search_call` → tool `web_search`; other
 *   functions by toolCalls.ts `toolCallAction`. Arguments are kept parsed (`workdir` included).
 * - Observations: the shell JSON output gives the output text and a recorded exit code (duration in
 *   `metadata.callDurations`); a text output's `Exit code: N` / `Process exited with code N` header
 *   line gives an exit code marked `exitCodeFrom: 'text'`; `exec_command_end` (recorded exit code)
 *   and `patch_apply_end` (success, stdout) stand in for an output item that is missing and lend
 *   their recorded exit code to one whose exit code was only read from text. `{success:false}`
 *   outputs and failed patches are `isError`.
 * - Tokens: `token_count` → the step of the model response it reports (`last_token_usage`; the
 *   count arrives after the response's items in newer writers and before them in 0.3x): the open
 *   agent step, else the next one. A count repeating the previous total (writers emit it again
 *   after tool outputs) is not counted twice. prompt = `input_tokens` (cached included), completion
 *   = `output_tokens` (reasoning included), cached = `cached_input_tokens`; the session total and
 *   context window go to metadata.
 * - Events: `turn_aborted` → `interrupted`; `compacted` / `context_compacted` / a `compaction` item
 *   → `compaction`; `error` / `stream_error` → `api_error`; `warning`, review mode and undo →
 *   `notice`. Bookkeeping events (`task_started`, `exec_command_begin`, deltas, …) make no step and
 *   are counted in `metadata.skippedEvents`; event types this loader does not know are counted in
 *   `metadata.unknownEvents` (writers add UI events often; the turns are in the response items).
 *   Harness `ghost_snapshot` items and `record_type` markers are counted in `metadata.skippedItems`.
 * - Bad input (each a located issue in `input.issues`, the rest shown): a line that does not parse
 *   (a truncated last line), a record that does not conform (shown raw as an `unknown_record`
 *   step), an unknown record or response item type (an unknown `*_call` item is a tool action with
 *   its raw payload), an output or patch result whose call is not in the file (an `environment`
 *   step).
 *
 * This module never imports `vscode`.
 */
import { z } from 'zod';
import { asWarning, RolloutLoadError, type LocatedIssue } from '../errors';
import type { JsonDoc, JsonlLine, JsonPath } from '../json';
import {
  makeStep,
  unknownOutcome,
  type Action,
  type FileEdit,
  type Observation,
  type Role,
  type Rollout,
  type SourceRange,
  type Step,
  type StepEvent,
  type TokenCounts,
} from '../model';
import { lineRange, loadViaStream, parseSessionLine, shortLabel, StepPublisher, unionRange, type SessionStream } from './sessionStream';
import { editPath, parseArguments, shellCommand, toolCallAction } from './toolCalls';
import type { Detection, FormatLoader, LoadInput, StreamedRollout, StreamStart } from './types';
import { contentText, isObject, num, secondsBetween, str } from './util';

const LABEL = 'Codex CLI session';
/** Codex's rollout file names (`rollout-2025-09-19T09-02-12-<uuid>.jsonl`). */
const ROLLOUT_NAME = /(^|[\\/])rollout-[^\\/]*\.jsonl$/;

// ---------------------------------------------------------------------------------------------
// Schemas (the fields this loader reads; unknown keys are allowed)

const LineSchema = z.looseObject({ timestamp: z.string().nullish(), type: z.string(), payload: z.unknown() });

const GitSchema = z.looseObject({ commit_hash: z.string().nullish(), branch: z.string().nullish(), repository_url: z.string().nullish() });

const SessionMetaSchema = z.looseObject({
  id: z.string().nullish(),
  timestamp: z.string().nullish(),
  cwd: z.string().nullish(),
  originator: z.string().nullish(),
  cli_version: z.string().nullish(),
  instructions: z.string().nullish(),
  source: z.unknown().optional(),
  model_provider: z.string().nullish(),
  base_instructions: z.looseObject({ text: z.string().nullish() }).nullish(),
  git: GitSchema.nullish(),
});
type SessionMeta = z.infer<typeof SessionMetaSchema>;

const TurnContextSchema = z.looseObject({
  cwd: z.string().nullish(),
  model: z.string().nullish(),
  approval_policy: z.unknown().optional(),
  sandbox_policy: z.unknown().optional(),
  effort: z.unknown().optional(),
  turn_id: z.string().nullish(),
});

const MessageSchema = z.looseObject({ role: z.string(), content: z.union([z.string(), z.array(z.unknown())]).nullish(), id: z.string().nullish() });
const TextPartsSchema = z.array(z.looseObject({ text: z.string().nullish() })).nullish();
const ReasoningSchema = z.looseObject({ summary: TextPartsSchema, content: TextPartsSchema, encrypted_content: z.string().nullish(), id: z.string().nullish() });
const FunctionCallSchema = z.looseObject({
  name: z.string(),
  arguments: z.union([z.string(), z.record(z.string(), z.unknown())]).nullish(),
  call_id: z.string().nullish(),
  id: z.string().nullish(),
});
const CustomToolCallSchema = z.looseObject({ name: z.string(), input: z.string().nullish(), call_id: z.string().nullish(), id: z.string().nullish() });
const OutputSchema = z.looseObject({ call_id: z.string(), output: z.unknown() });
const LocalShellCallSchema = z.looseObject({
  call_id: z.string().nullish(),
  id: z.string().nullish(),
  action: z.looseObject({ type: z.string().nullish(), command: z.array(z.string()).nullish(), working_directory: z.string().nullish() }),
});
const WebSearchCallSchema = z.looseObject({ id: z.string().nullish(), status: z.string().nullish(), action: z.unknown().optional() });
const CompactionItemSchema = z.looseObject({ encrypted_content: z.string().nullish() });

const UsageSchema = z.looseObject({
  input_tokens: z.number().nullish(),
  cached_input_tokens: z.number().nullish(),
  output_tokens: z.number().nullish(),
  reasoning_output_tokens: z.number().nullish(),
  total_tokens: z.number().nullish(),
});
const TokenCountSchema = z.looseObject({
  info: z.looseObject({ total_token_usage: UsageSchema.nullish(), last_token_usage: UsageSchema.nullish(), model_context_window: z.number().nullish() }).nullish(),
  // Early Rust writers: the usage itself, flat in the payload.
  input_tokens: z.number().nullish(),
  output_tokens: z.number().nullish(),
  cached_input_tokens: z.number().nullish(),
});
const TextEventSchema = z.looseObject({ message: z.string() });
const ReasoningEventSchema = z.looseObject({ text: z.string() });
const TurnAbortedSchema = z.looseObject({ reason: z.string().nullish() });
const PatchApplyEndSchema = z.looseObject({ call_id: z.string(), stdout: z.string().nullish(), stderr: z.string().nullish(), success: z.boolean().nullish() });
const ExecCommandEndSchema = z.looseObject({
  call_id: z.string(),
  exit_code: z.number().int().nullish(),
  aggregated_output: z.string().nullish(),
  formatted_output: z.string().nullish(),
  stdout: z.string().nullish(),
  stderr: z.string().nullish(),
  command: z.array(z.string()).nullish(),
  source: z.string().nullish(),
});
const CompactedSchema = z.looseObject({ message: z.string(), replacement_history: z.array(z.unknown()).nullish() });
const TsSessionSchema = z.looseObject({
  session: z.looseObject({ id: z.string().nullish(), timestamp: z.string().nullish(), instructions: z.string().nullish() }),
  items: z.array(z.unknown()),
});

/** `RolloutItem` types (the `type` of a `RolloutLine`). */
const LINE_TYPES = new Set(['session_meta', 'response_item', 'event_msg', 'turn_context', 'compacted']);
/** `ResponseItem` types this loader maps. */
const ITEM_TYPES = new Set([
  'message',
  'reasoning',
  'function_call',
  'function_call_output',
  'custom_tool_call',
  'custom_tool_call_output',
  'local_shell_call',
  'web_search_call',
  'ghost_snapshot',
  'compaction',
  'compaction_summary',
]);
/** `EventMsg` types that carry nothing a step shows (or that items already carry); counted in metadata. */
const BOOKKEEPING_EVENTS = new Set([
  'task_started',
  'task_complete',
  'turn_started',
  'turn_complete',
  'session_configured',
  'exec_command_begin',
  'exec_command_output_delta',
  'terminal_interaction',
  'exec_approval_request',
  'apply_patch_approval_request',
  'elicitation_request',
  'patch_apply_begin',
  'mcp_tool_call_begin',
  'mcp_tool_call_end',
  'mcp_list_tools_response',
  'mcp_startup_update',
  'mcp_startup_complete',
  'web_search_begin',
  'web_search_end',
  'turn_diff',
  'plan_update',
  'background_event',
  'agent_message_delta',
  'agent_reasoning_delta',
  'agent_reasoning_raw_content_delta',
  'agent_reasoning_section_break',
  'agent_message_content_delta',
  'reasoning_content_delta',
  'reasoning_raw_content_delta',
  'item_started',
  'item_completed',
  'raw_response_item',
  'get_history_entry_response',
  'list_custom_prompts_response',
  'list_skills_response',
  'skills_update_available',
  'view_image_tool_call',
  'deprecation_notice',
  'undo_started',
  'shutdown_complete',
]);

// ---------------------------------------------------------------------------------------------
// Tool calls → actions

/** Shell tools whose arguments hold a command (beyond toolCalls.ts SHELL_TOOLS, which has the others). */
const CONTAINER_EXEC = 'container.exec';
const APPLY_PATCH_NAMES = new Set(['apply_patch', 'applypatch']);
/** `apply_patch <<'EOF' … EOF` (optionally after `cd DIR &&`), as models send it through the shell tool. */
const HEREDOC_PATCH = /^\s*(?:cd\s+\S+\s*&&\s*)?(?:apply_patch|applypatch)\s*<<-?\s*(['"]?)([\w-]+)\1[^\n]*\n([\s\S]*?)\n\2\s*$/;

/** The patch text of a shell call that runs apply_patch (argv or heredoc), else null. */
export function shellPatch(args: Record<string, unknown>): string | null {
  const c = args.command;
  if (Array.isArray(c) && c.length === 2 && typeof c[0] === 'string' && typeof c[1] === 'string' && APPLY_PATCH_NAMES.has(c[0].split('/').pop() ?? '')) {
    return c[1];
  }
  const script = shellCommand(args);
  const m = script ? HEREDOC_PATCH.exec(script) : null;
  return m ? m[3] : null;
}

/** A `file_edit` action for an apply_patch call; a text that is no `*** Begin Patch` patch is kept as `edit {op:'other'}`. */
function patchAction(tool: string, args: unknown, callId: string | null, patch: string): Action {
  const isPatch = /^\s*\*\*\* Begin Patch\b/.test(patch);
  const path = isPatch ? editPath({ input: patch }) : null;
  const edit: FileEdit = isPatch
    ? { op: 'patch', path, patch, dialect: 'codex' }
    : { op: 'other', path: null, reason: 'the apply_patch input is not a "*** Begin Patch" patch (redacted or malformed)' };
  const action: Action = { kind: 'file_edit', command: null, tool, arguments: args, callId, path, edit };
  if (args === undefined) delete action.arguments;
  return action;
}

/**
 * One Codex function call → Action: apply_patch (as a function or through the shell) → file edit,
 * `container.exec` → shell, `write_stdin` → keystrokes, the rest by toolCalls.ts `toolCallAction`.
 */
export function codexAction(name: string, rawArgs: unknown, callId: string | null): Action {
  const args = parseArguments(rawArgs);
  const obj = isObject(args) ? args : {};
  const lower = name.toLowerCase();
  if (APPLY_PATCH_NAMES.has(lower)) {
    const patch = str(obj.input) ?? str(obj.patch) ?? (typeof args === 'string' ? args : null);
    if (patch !== null) return patchAction(name, args, callId, patch);
  }
  const action = toolCallAction(name, rawArgs, callId);
  if (action.kind === 'shell' || lower === CONTAINER_EXEC) {
    const patch = shellPatch(obj);
    if (patch !== null) return patchAction(name, args, callId, patch);
    if (lower === CONTAINER_EXEC && action.kind !== 'shell') {
      const command = shellCommand(obj);
      if (command !== null) return { ...action, kind: 'shell', command };
    }
  }
  if (lower === 'write_stdin' && typeof obj.chars === 'string') return { ...action, kind: 'keystrokes', command: obj.chars };
  return action;
}

// ---------------------------------------------------------------------------------------------
// Outputs → observations

/** Codex's truncation markers in model-visible tool output. */
const TRUNCATION_MARKERS = [/\[\.\.\. omitted \d+ of \d+ lines \.\.\.\]/, /…\d+ tokens truncated…/, /\[\.\.\. \d+ (?:bytes|characters|tokens) truncated \.\.\.\]/];

/** What a tool output says: its text, exit code (and where it came from), duration, error flag. */
export interface CodexOutput {
  text: string;
  exitCode: number | null;
  exitCodeFrom: 'recorded' | 'text' | null;
  durationSec: number | null;
  isError: boolean;
}

/**
 * Reads a `function_call_output` / `custom_tool_call_output` value: the shell tool's JSON
 * `{output, metadata:{exit_code, duration_seconds}}` (recorded exit code), a text whose header
 * (the lines before `Output:`, or its first line) says `Exit code: N` / `Process exited with code
 * N` (exit code from text; `Wall time: S seconds` the duration), content items, or `{content,
 * success}`.
 */
export function readOutput(output: unknown): CodexOutput {
  const res: CodexOutput = { text: '', exitCode: null, exitCodeFrom: null, durationSec: null, isError: false };
  if (typeof output === 'string') {
    const t = output.trimStart();
    if (t.startsWith('{') && output.length < 50_000_000) {
      const v = parseArguments(output);
      if (isObject(v) && typeof v.output === 'string' && isObject(v.metadata)) {
        res.text = v.output;
        const code = num(v.metadata.exit_code);
        if (code !== null && Number.isInteger(code)) {
          res.exitCode = code;
          res.exitCodeFrom = 'recorded';
        }
        res.durationSec = num(v.metadata.duration_seconds);
        return res;
      }
    }
    res.text = output;
    // Early writers stored content items as a JSON string (`[{"text": …, "type": "text"}]`).
    if (t.startsWith('[{') && output.length < 50_000_000) {
      const items = parseArguments(output);
      if (Array.isArray(items) && items.every((i) => isObject(i) && typeof i.text === 'string')) res.text = contentText(items);
    }
  } else if (Array.isArray(output)) {
    res.text = contentText(output);
  } else if (isObject(output)) {
    res.text = typeof output.content === 'string' ? output.content : contentText(output.content ?? output);
    if (output.success === false) res.isError = true;
  } else if (output !== null && output !== undefined) {
    res.text = String(output);
  }
  const lines = res.text.split('\n', 40);
  const end = lines.findIndex((l) => l.trim() === 'Output:');
  for (const l of end >= 0 ? lines.slice(0, end) : lines.slice(0, 1)) {
    const m = /^(?:Exit code:|Process exited with code)\s*(-?\d+)\s*$/.exec(l.trim());
    if (m) {
      res.exitCode = Number(m[1]);
      res.exitCodeFrom = 'text';
    }
    const w = /^Wall time:\s*([\d.]+)\s*seconds?\s*$/.exec(l.trim());
    if (w) res.durationSec = Number(w[1]);
  }
  return res;
}

function observationOf(callId: string | null, o: CodexOutput): Observation {
  const obs: Observation = { callId, output: o.text, exitCode: o.exitCode, truncated: TRUNCATION_MARKERS.some((re) => re.test(o.text)) };
  if (o.exitCodeFrom === 'text') obs.exitCodeFrom = 'text';
  if (o.isError) obs.isError = true;
  return obs;
}

// ---------------------------------------------------------------------------------------------
// User messages

const USER_REQUEST_MARKER = '## My request for Codex:';

/** The label of a user message that is context rather than the user's request, else null. */
export function userContextLabel(text: string): string | null {
  const t = text.trimStart();
  if (t.startsWith('<environment_context>')) return 'Environment context';
  if (t.startsWith('<user_instructions>') || t.startsWith('# AGENTS.md instructions for')) return 'User instructions (AGENTS.md)';
  if (t.startsWith('# Context from my IDE setup:') && !t.includes(USER_REQUEST_MARKER)) return 'IDE context';
  return null;
}

/** The user's request in a message: the text after `## My request for Codex:` when the IDE block wraps it, else the text. */
export function userRequestText(text: string): string {
  const i = text.indexOf(USER_REQUEST_MARKER);
  return i >= 0 ? text.slice(i + USER_REQUEST_MARKER.length).trim() : text;
}

/** `<cwd>…</cwd>` of an `<environment_context>` message, or null. */
function contextCwd(text: string): string | null {
  const m = /<cwd>([^<]+)<\/cwd>/.exec(text);
  return m ? m[1].trim() : null;
}

// ---------------------------------------------------------------------------------------------
// The reducer

/** Where a record sits: its document, the path of the record inside it, its range and time. */
interface Rec {
  doc: JsonDoc;
  /** Path of the record (`[]` for a JSONL line, `['items', i]` in a TypeScript-CLI file). */
  at: JsonPath;
  /** Path of the record's payload (`['payload']`, or `at` for bare items). */
  body: JsonPath;
  range: SourceRange | null;
  ts: string | null;
}

interface TextPart {
  text: string;
  item: boolean;
  event: boolean;
}

interface ThoughtPart {
  text: string;
  item: boolean;
  /** Texts of the item (summary + content entries) that events may mirror, and how many did. */
  slots: number;
  used: number;
}

type DraftKind = 'agent' | 'user' | 'context' | 'system' | 'event' | 'environment';

interface Draft {
  index: number;
  kind: DraftKind;
  role: Role;
  sourceId: string | null;
  timestamp: string | null;
  range: SourceRange | null;
  parts: TextPart[];
  thoughts: ThoughtPart[];
  actions: Action[];
  observations: Observation[];
  tokens: TokenCounts | null;
  event: StepEvent | null;
  endTs: string | null;
  /** User steps: a `user_message` event confirmed it as the user's input. */
  paired: boolean;
  /** User steps made from a `user_message` event whose item has not (yet) been read. */
  fromEvent: boolean;
}

interface CallRef {
  step: Draft;
  action: Action;
  obs: Observation | null;
  /** Where `obs` came from: an output item, or an end event standing in for it. */
  origin: 'item' | 'event' | null;
}

function notice(kind: StepEvent['kind'], label: string): StepEvent {
  return { kind, label };
}

class CodexReducer implements SessionStream {
  readonly issues: LocatedIssue[] = [];
  recognised = false;
  private readonly steps: Draft[] = [];
  private readonly publisher = new StepPublisher<Draft>((d, i) => this.build(d, i));
  private readonly calls = new Map<string, CallRef>();
  private open: Draft | null = null;
  /** The latest agent step since the last user message (events may still pair with its items). */
  private recentAgent: Draft | null = null;
  /** A user step made from an event, waiting for its item. */
  private eventUser: Draft | null = null;
  /** User items not (yet) confirmed by a `user_message` event. */
  private unpairedUsers: Draft[] = [];
  private sawUserEvents = false;
  private lastCompaction: Draft | null = null;
  private pendingTokens: TokenCounts | null = null;
  private lastTotalKey: string | null = null;
  private lineCount = 0;

  private meta: SessionMeta | null = null;
  private layout: 'rollout-line' | 'bare-items' | 'typescript-json' | null = null;
  private readonly models: string[] = [];
  private firstTurnCwd: string | null = null;
  private contextCwd: string | null = null;
  private turnContexts = 0;
  private approvalPolicy: unknown = undefined;
  private sandboxPolicy: unknown = undefined;
  private totalUsage: unknown = null;
  private contextWindow: number | null = null;
  private readonly skippedEvents: Record<string, number> = {};
  private readonly unknownEvents: Record<string, number> = {};
  private readonly skippedItems: Record<string, number> = {};
  private readonly callDurations: Record<string, number> = {};
  /** The copy of `callDurations` the snapshots hand out, made again only after a duration was added (null: none yet). */
  private shownDurations: Record<string, number> | null = null;
  private durationsChanged = false;
  private extraSessionMeta = 0;

  constructor(private readonly start: StreamStart) {}

  // --- RecordStream ------------------------------------------------------------------------

  push(lines: readonly JsonlLine[]): void {
    for (const line of lines) {
      const first = this.lineCount === 0;
      this.lineCount++;
      const doc = parseSessionLine(this.start, line, this.issues);
      if (!doc) continue;
      this.record({ doc, at: [], body: ['payload'], range: lineRange(line), ts: null }, first);
    }
  }

  end(): void {
    this.open = null;
  }

  snapshot(): StreamedRollout[] {
    if (!this.recognised) return [];
    const { steps, changedFrom } = this.publisher.publish(this.steps);
    return [{ rollout: this.rollout(steps), changedFrom }];
  }

  /** Reads a TypeScript-CLI session document `{session, items}` (no stream: one JSON value). */
  readTypescriptDoc(doc: JsonDoc): void {
    const v = doc.validate(TsSessionSchema, LABEL);
    this.recognised = true;
    this.layout = 'typescript-json';
    this.sessionMeta(v.session, { doc, at: ['session'], body: ['session'], range: doc.rangeOf(['session']), ts: v.session.timestamp ?? null });
    v.items.forEach((_, i) => {
      const at = ['items', i];
      this.guard({ doc, at, body: at, range: doc.rangeOf(at), ts: null }, (r) => this.responseItem(r));
    });
  }

  // --- records -----------------------------------------------------------------------------

  /** Runs `fn` on a record; a record that does not conform becomes an issue and a raw step. */
  private guard(rec: Rec, fn: (rec: Rec) => void): void {
    try {
      fn(rec);
    } catch (e) {
      if (!(e instanceof RolloutLoadError)) throw e;
      this.issues.push(...e.issues);
      this.rawStep(rec, 'a record that does not conform');
    }
  }

  private record(rec: Rec, first: boolean): void {
    const v = rec.doc.value;
    if (!isObject(v)) {
      this.issues.push(rec.doc.issue(rec.at, 'a JSON object (one Codex rollout record)'));
      return;
    }
    if (typeof v.type === 'string' && 'payload' in v) {
      this.recognised = true;
      this.layout ??= 'rollout-line';
      rec.ts = str(v.timestamp);
      this.guard(rec, (r) => this.rolloutLine(r));
      return;
    }
    if (typeof v.record_type === 'string') {
      this.recognised = true;
      this.skippedItems[`record_type:${v.record_type}`] = (this.skippedItems[`record_type:${v.record_type}`] ?? 0) + 1;
      return;
    }
    if (typeof v.type === 'string' && !LINE_TYPES.has(v.type) && !(first && isLegacyHeader(v, true))) {
      // A bare response item (early Rust writers); unknown item types are kept by `responseItem`.
      this.recognised = true;
      this.layout ??= 'bare-items';
      const bare: Rec = { ...rec, body: rec.at, ts: str(v.timestamp) };
      this.guard(bare, (r) => this.responseItem(r));
      return;
    }
    if (first && isLegacyHeader(v, true)) {
      this.recognised = true;
      this.layout = 'bare-items';
      this.guard({ ...rec, body: rec.at, ts: str(v.timestamp) }, (r) => this.sessionMeta(r.doc.validate(SessionMetaSchema, LABEL, r.at), r));
      return;
    }
    this.issues.push(rec.doc.issue(typeof v.type === 'string' ? ['type'] : [], 'a Codex rollout record (`{timestamp, type, payload}`, a response item, or a session header)'));
    this.rawStep(rec, 'an unknown record');
  }

  private rolloutLine(rec: Rec): void {
    const line = rec.doc.validate(LineSchema, LABEL, rec.at);
    switch (line.type) {
      case 'session_meta':
        this.sessionMeta(rec.doc.validate(SessionMetaSchema, LABEL, rec.body), rec);
        return;
      case 'turn_context':
        this.turnContext(rec);
        return;
      case 'response_item':
        this.responseItem(rec);
        return;
      case 'event_msg':
        this.eventMsg(rec);
        return;
      case 'compacted': {
        const c = rec.doc.validate(CompactedSchema, LABEL, rec.body);
        this.close();
        const d = this.add('event', 'system', rec, { event: notice('compaction', 'Context compacted'), text: c.message });
        this.lastCompaction = d;
        return;
      }
      default:
        this.issues.push(asWarning(rec.doc.issue([...rec.at, 'type'], `a Codex rollout record type (${[...LINE_TYPES].join(', ')})`)));
        this.rawStep(rec, `record type "${line.type}"`);
    }
  }

  private sessionMeta(m: SessionMeta, rec: Rec): void {
    if (this.meta) {
      // Forked and resumed sessions repeat their parent's meta line.
      this.extraSessionMeta++;
      return;
    }
    this.meta = m;
    const instructions = m.instructions?.trim() ? m.instructions : null;
    const base = m.base_instructions?.text?.trim() ? m.base_instructions.text : null;
    if (base) this.add('system', 'system', rec, { text: base, sourceId: 'base_instructions' });
    if (instructions) this.add('system', 'system', rec, { text: instructions, sourceId: 'instructions' });
  }

  private turnContext(rec: Rec): void {
    const t = rec.doc.validate(TurnContextSchema, LABEL, rec.body);
    this.close();
    this.turnContexts++;
    if (t.model && !this.models.includes(t.model)) this.models.push(t.model);
    if (t.cwd && this.firstTurnCwd === null) this.firstTurnCwd = t.cwd;
    if (t.approval_policy !== undefined) this.approvalPolicy = t.approval_policy;
    if (t.sandbox_policy !== undefined) this.sandboxPolicy = t.sandbox_policy;
  }

  private responseItem(rec: Rec): void {
    const p = rec.doc.get(rec.body);
    if (!isObject(p) || typeof p.type !== 'string') {
      this.issues.push(rec.doc.issue([...rec.body, 'type'], 'a response item with a "type"'));
      this.rawStep(rec, 'a response item without a type');
      return;
    }
    const { doc, body } = rec;
    switch (p.type) {
      case 'message': {
        const m = doc.validate(MessageSchema, LABEL, body);
        const text = contentText(m.content ?? '');
        const role = m.role.toLowerCase();
        if (role === 'assistant') this.assistantItem(text, rec, m.id ?? null);
        else if (role === 'user') this.userItem(text, rec);
        else this.systemItem(text, rec, role);
        return;
      }
      case 'reasoning': {
        const r = doc.validate(ReasoningSchema, LABEL, body);
        const texts = [...(r.summary ?? []), ...(r.content ?? [])].map((t) => t.text ?? '').filter((t) => t.trim() !== '');
        this.reasoningItem(texts, !!r.encrypted_content, rec, r.id ?? null);
        return;
      }
      case 'function_call': {
        const f = doc.validate(FunctionCallSchema, LABEL, body);
        this.call(codexAction(f.name, f.arguments ?? undefined, f.call_id ?? f.id ?? null), rec, f.id ?? null);
        return;
      }
      case 'custom_tool_call': {
        const c = doc.validate(CustomToolCallSchema, LABEL, body);
        const callId = c.call_id ?? c.id ?? null;
        const input = c.input ?? '';
        const action: Action = APPLY_PATCH_NAMES.has(c.name.toLowerCase())
          ? patchAction(c.name, input, callId, input)
          : { kind: 'tool', command: null, tool: c.name, arguments: parseArguments(input) ?? input, callId };
        this.call(action, rec, c.id ?? null);
        return;
      }
      case 'local_shell_call': {
        const l = doc.validate(LocalShellCallSchema, LABEL, body);
        const callId = l.call_id ?? l.id ?? null;
        const patch = shellPatch(l.action);
        const command = shellCommand(l.action);
        const action: Action =
          patch !== null
            ? patchAction('local_shell', l.action, callId, patch)
            : command !== null
              ? { kind: 'shell', command, tool: 'local_shell', arguments: l.action, callId }
              : { kind: 'tool', command: null, tool: 'local_shell', arguments: l.action, callId };
        this.call(action, rec, l.id ?? null);
        return;
      }
      case 'web_search_call': {
        const w = doc.validate(WebSearchCallSchema, LABEL, body);
        const action: Action = { kind: 'tool', command: null, tool: 'web_search', callId: w.id ?? null };
        if (w.action !== undefined) action.arguments = w.action;
        this.call(action, rec, w.id ?? null);
        return;
      }
      case 'function_call_output':
      case 'custom_tool_call_output': {
        const o = doc.validate(OutputSchema, LABEL, body);
        this.output(o.call_id, readOutput(o.output), rec);
        return;
      }
      case 'ghost_snapshot':
        this.skippedItems.ghost_snapshot = (this.skippedItems.ghost_snapshot ?? 0) + 1;
        return;
      case 'compaction':
      case 'compaction_summary': {
        doc.validate(CompactionItemSchema, LABEL, body);
        this.close();
        this.lastCompaction = this.add('event', 'system', rec, { event: notice('compaction', 'Context compacted'), text: '[encrypted compaction summary]' });
        return;
      }
      default:
        this.unknownItem(p, rec);
    }
  }

  /** An item type this loader does not know: a `*_call` is a tool action with its raw payload, an output with a `call_id` an observation; else a raw step. Each with an issue. */
  private unknownItem(p: Record<string, unknown>, rec: Rec): void {
    const type = p.type as string;
    this.issues.push(asWarning(rec.doc.issue([...rec.body, 'type'], `a known Codex response item type (${[...ITEM_TYPES].join(', ')})`)));
    const callId = str(p.call_id) ?? str(p.id);
    if (/_output$/.test(type) && str(p.call_id)) {
      this.output(str(p.call_id) as string, readOutput(p.output ?? p.result ?? p), rec);
    } else if (/_call$/.test(type)) {
      this.call({ kind: 'tool', command: null, tool: type, arguments: p, callId }, rec, str(p.id));
    } else {
      this.rawStep(rec, `response item type "${type}"`);
    }
  }

  private eventMsg(rec: Rec): void {
    const p = rec.doc.get(rec.body);
    if (!isObject(p) || typeof p.type !== 'string') {
      this.issues.push(rec.doc.issue([...rec.body, 'type'], 'an event with a "type"'));
      this.rawStep(rec, 'an event without a type');
      return;
    }
    const { doc, body } = rec;
    switch (p.type) {
      case 'user_message':
        this.userEvent(doc.validate(TextEventSchema, LABEL, body).message, rec);
        return;
      case 'agent_message':
        this.agentMessageEvent(doc.validate(TextEventSchema, LABEL, body).message, rec);
        return;
      case 'agent_reasoning':
      case 'agent_reasoning_raw_content':
        this.reasoningEvent(doc.validate(ReasoningEventSchema, LABEL, body).text, rec);
        return;
      case 'token_count':
        this.tokenCount(doc.validate(TokenCountSchema, LABEL, body), rec);
        return;
      case 'turn_aborted': {
        const t = doc.validate(TurnAbortedSchema, LABEL, body);
        this.close();
        this.add('event', 'system', rec, { event: notice('interrupted', `Turn aborted${t.reason ? ` (${t.reason})` : ''}`), text: t.reason ?? '' });
        return;
      }
      case 'context_compacted':
        this.close();
        if (this.lastCompaction && this.lastCompaction === this.steps[this.steps.length - 1]) {
          this.extend(this.lastCompaction, rec);
        } else {
          this.lastCompaction = this.add('event', 'system', rec, { event: notice('compaction', 'Context compacted') });
        }
        return;
      case 'error':
      case 'stream_error': {
        const e = doc.validate(TextEventSchema, LABEL, body);
        this.close();
        const label = p.type === 'error' ? `Error: ${shortLabel(e.message, 70)}` : `Stream error (retrying): ${shortLabel(e.message, 56)}`;
        this.add('event', 'system', rec, { event: notice('api_error', label), text: e.message });
        return;
      }
      case 'warning': {
        const e = doc.validate(TextEventSchema, LABEL, body);
        this.add('event', 'system', rec, { event: notice('notice', `Warning: ${shortLabel(e.message, 68)}`), text: e.message });
        return;
      }
      case 'entered_review_mode':
      case 'exited_review_mode':
      case 'undo_completed': {
        const label = p.type === 'entered_review_mode' ? 'Entered review mode' : p.type === 'exited_review_mode' ? 'Exited review mode' : 'Undo completed';
        this.close();
        this.add('event', 'system', rec, { event: notice('notice', label), text: JSON.stringify(p) });
        return;
      }
      case 'patch_apply_end':
        this.patchApplyEnd(doc.validate(PatchApplyEndSchema, LABEL, body), rec);
        return;
      case 'exec_command_end':
        this.execCommandEnd(doc.validate(ExecCommandEndSchema, LABEL, body), rec);
        return;
      default: {
        if (p.type === 'task_started' || p.type === 'task_complete') this.close();
        // Bookkeeping events are counted; event types this loader does not know are counted apart
        // (new writers add UI events often; none carries a turn the items do not).
        const counts = BOOKKEEPING_EVENTS.has(p.type) ? this.skippedEvents : this.unknownEvents;
        counts[p.type] = (counts[p.type] ?? 0) + 1;
      }
    }
  }

  // --- steps -------------------------------------------------------------------------------

  private add(kind: DraftKind, role: Role, rec: Rec, fields: { text?: string; event?: StepEvent; sourceId?: string | null } = {}): Draft {
    const d: Draft = {
      index: this.steps.length,
      kind,
      role,
      sourceId: fields.sourceId ?? null,
      timestamp: rec.ts,
      range: rec.range,
      parts: fields.text !== undefined ? [{ text: fields.text, item: true, event: false }] : [],
      thoughts: [],
      actions: [],
      observations: [],
      tokens: null,
      event: fields.event ?? null,
      endTs: null,
      paired: false,
      fromEvent: false,
    };
    this.steps.push(d);
    this.publisher.touch(d.index);
    return d;
  }

  /** A record kept raw (it does not conform, or its type is unknown): an `unknown_record` step showing the record's text. */
  private rawStep(rec: Rec, what: string): void {
    this.close();
    const text = rec.at.length === 0 ? rec.doc.text : JSON.stringify(rec.doc.get(rec.at));
    this.add('event', 'system', rec, { event: notice('unknown_record', `Unread record: ${what}`), text });
  }

  private extend(d: Draft, rec: Rec): void {
    d.range = unionRange(d.range, rec.range);
    d.timestamp ??= rec.ts;
    this.publisher.touch(d.index);
  }

  private close(): void {
    this.open = null;
  }

  /** The agent step of the model response being read: the open one, else a new one. */
  private agentStep(rec: Rec, sourceId: string | null = null): Draft {
    this.eventUser = null;
    if (this.open) {
      this.extend(this.open, rec);
      if (sourceId !== null) this.open.sourceId ??= sourceId;
      return this.open;
    }
    const d = this.add('agent', 'agent', rec, { sourceId });
    if (this.pendingTokens) {
      d.tokens = this.pendingTokens;
      this.pendingTokens = null;
    }
    this.open = d;
    this.recentAgent = d;
    return d;
  }

  private assistantItem(text: string, rec: Rec, id: string | null): void {
    const d = this.agentStep(rec, id);
    const part = d.parts.find((p) => p.event && !p.item);
    if (part) {
      part.text = text;
      part.item = true;
    } else {
      d.parts.push({ text, item: true, event: false });
    }
  }

  private agentMessageEvent(text: string, rec: Rec): void {
    for (const d of [this.open, this.recentAgent]) {
      const part = d?.parts.find((p) => p.item && !p.event);
      if (d && part) {
        part.event = true;
        this.extend(d, rec);
        return;
      }
    }
    this.agentStep(rec).parts.push({ text, item: false, event: true });
  }

  private reasoningItem(texts: string[], encrypted: boolean, rec: Rec, id: string | null): void {
    const d = this.agentStep(rec, id);
    const text = texts.length ? texts.join('\n\n') : encrypted ? '[encrypted reasoning]' : '';
    let at = -1;
    let used = 0;
    for (let i = 0; i < d.thoughts.length && used < texts.length; ) {
      if (!d.thoughts[i].item) {
        if (at < 0) at = i;
        d.thoughts.splice(i, 1);
        used++;
      } else {
        i++;
      }
    }
    if (text === '') return;
    const part: ThoughtPart = { text, item: true, slots: texts.length, used };
    if (at >= 0) d.thoughts.splice(at, 0, part);
    else d.thoughts.push(part);
  }

  private reasoningEvent(text: string, rec: Rec): void {
    for (const d of [this.open, this.recentAgent]) {
      const part = d?.thoughts.find((p) => p.item && p.used < p.slots);
      if (d && part) {
        part.used++;
        this.extend(d, rec);
        return;
      }
    }
    this.agentStep(rec).thoughts.push({ text, item: false, slots: 0, used: 0 });
  }

  private call(action: Action, rec: Rec, sourceId: string | null): void {
    const d = this.agentStep(rec, sourceId);
    d.actions.push(action);
    if (action.callId !== null) this.calls.set(action.callId, { step: d, action, obs: null, origin: null });
  }

  private output(callId: string, out: CodexOutput, rec: Rec): void {
    this.close();
    if (out.durationSec !== null) {
      this.callDurations[callId] = out.durationSec;
      this.durationsChanged = true;
    }
    const obs = observationOf(callId, out);
    const ref = this.calls.get(callId);
    if (!ref) {
      this.issues.push(asWarning(rec.doc.issue([...rec.body, 'call_id'], 'the call_id of a call earlier in the session')));
      this.orphan(obs, rec);
      return;
    }
    if (ref.obs && ref.origin === 'event') {
      // The item replaces the end event's stand-in; a recorded exit code of the event stays.
      const i = ref.step.observations.indexOf(ref.obs);
      if (obs.exitCode === null || obs.exitCodeFrom === 'text') {
        if (ref.obs.exitCode !== null && ref.obs.exitCodeFrom === undefined) {
          obs.exitCode = ref.obs.exitCode;
          delete obs.exitCodeFrom;
        }
      }
      if (ref.obs.isError && !obs.isError) obs.isError = true;
      ref.step.observations[i] = obs;
    } else {
      ref.step.observations.push(obs);
    }
    ref.obs = obs;
    ref.origin = 'item';
    this.answered(ref, rec);
  }

  private answered(ref: CallRef, rec: Rec): void {
    ref.step.endTs = rec.ts ?? ref.step.endTs;
    this.extend(ref.step, rec);
  }

  /** An output whose call is not in the file: an environment step of its own. */
  private orphan(obs: Observation, rec: Rec): void {
    const d = this.add('environment', 'environment', rec);
    d.observations.push(obs);
  }

  private patchApplyEnd(e: z.infer<typeof PatchApplyEndSchema>, rec: Rec): void {
    const text = [e.stdout ?? '', e.stderr ?? ''].filter((t) => t !== '').join('\n');
    const obs: Observation = { callId: e.call_id, output: text, exitCode: null, truncated: false };
    if (e.success === false) obs.isError = true;
    const ref = this.calls.get(e.call_id);
    if (!ref) {
      this.close();
      this.issues.push(asWarning(rec.doc.issue([...rec.body, 'call_id'], 'the call_id of an apply_patch call earlier in the session')));
      this.orphan(obs, rec);
      return;
    }
    if (!ref.obs) {
      ref.step.observations.push(obs);
      ref.obs = obs;
      ref.origin = 'event';
    } else if (e.success === false && !ref.obs.isError) {
      ref.obs.isError = true;
    }
    this.answered(ref, rec);
  }

  private execCommandEnd(e: z.infer<typeof ExecCommandEndSchema>, rec: Rec): void {
    const text = e.aggregated_output ?? e.formatted_output ?? [e.stdout ?? '', e.stderr ?? ''].filter((t) => t !== '').join('\n');
    const obs: Observation = { callId: e.call_id, output: text, exitCode: e.exit_code ?? null, truncated: false };
    const ref = this.calls.get(e.call_id);
    if (!ref) {
      this.close();
      if (e.source === 'user_shell') {
        // The user's own `!command`.
        const d = this.add('user', 'user', rec);
        d.actions.push({ kind: 'shell', command: e.command ? shellCommand({ command: e.command }) : null, tool: 'user_shell', callId: e.call_id });
        d.observations.push(obs);
        return;
      }
      this.issues.push(asWarning(rec.doc.issue([...rec.body, 'call_id'], 'the call_id of a shell call earlier in the session')));
      this.orphan(obs, rec);
      return;
    }
    if (!ref.obs) {
      ref.step.observations.push(obs);
      ref.obs = obs;
      ref.origin = 'event';
    } else if ((ref.obs.exitCode === null || ref.obs.exitCodeFrom === 'text') && e.exit_code !== null && e.exit_code !== undefined) {
      ref.obs.exitCode = e.exit_code;
      delete ref.obs.exitCodeFrom;
    }
    this.answered(ref, rec);
  }

  private tokenCount(t: z.infer<typeof TokenCountSchema>, rec: Rec): void {
    let last: z.infer<typeof UsageSchema> | null | undefined;
    if (t.info) {
      const key = t.info.total_token_usage ? JSON.stringify(t.info.total_token_usage) : null;
      if (key !== null && key === this.lastTotalKey) return; // the same count again
      this.lastTotalKey = key;
      if (t.info.total_token_usage) this.totalUsage = t.info.total_token_usage;
      if (typeof t.info.model_context_window === 'number') this.contextWindow = t.info.model_context_window;
      last = t.info.last_token_usage;
    } else if (typeof t.input_tokens === 'number' || typeof t.output_tokens === 'number') {
      last = t;
    }
    if (!last) return; // rate limits only, or a total without the turn's usage
    const tokens: TokenCounts = { prompt: last.input_tokens ?? null, completion: last.output_tokens ?? null, cached: last.cached_input_tokens ?? null };
    if (this.open && !this.open.tokens) {
      this.open.tokens = tokens;
      this.extend(this.open, rec);
    } else {
      this.pendingTokens = tokens;
    }
  }

  private systemItem(text: string, rec: Rec, role: string): void {
    this.close();
    this.add('system', role === 'developer' || role === 'system' ? 'system' : 'environment', rec, { text, sourceId: role === 'developer' || role === 'system' ? null : role });
  }

  private userItem(text: string, rec: Rec): void {
    this.close();
    this.recentAgent = null;
    if (text.trimStart().startsWith('<turn_aborted>')) {
      this.add('event', 'system', rec, { event: notice('interrupted', 'Turn aborted'), text });
      return;
    }
    const label = userContextLabel(text);
    if (label) {
      if (!this.contextCwd && label === 'Environment context') this.contextCwd = contextCwd(text);
      this.add('context', 'system', rec, { text, event: notice('notice', label) });
      return;
    }
    const ev = this.eventUser;
    if (ev && ev === this.steps[this.steps.length - 1]) {
      // The event came first: the item takes its place.
      ev.parts = [{ text, item: true, event: true }];
      ev.fromEvent = false;
      this.eventUser = null;
      this.extend(ev, rec);
      return;
    }
    this.unpairedUsers.push(this.add('user', 'user', rec, { text }));
  }

  private userEvent(message: string, rec: Rec): void {
    this.close();
    this.recentAgent = null;
    this.sawUserEvents = true;
    const list = this.unpairedUsers;
    let at = -1;
    for (let i = list.length - 1; i >= 0 && at < 0; i--) {
      const t = list[i].parts[0]?.text ?? '';
      if (t === message || userRequestText(t) === message.trim()) at = i;
    }
    if (at < 0) at = list.length - 1;
    if (at >= 0) {
      const d = list[at];
      d.paired = true;
      if (d.parts[0]) d.parts[0].event = true;
      this.extend(d, rec);
      // Earlier user items that no event confirmed are context the harness added.
      for (const u of list.slice(0, at)) {
        u.kind = 'context';
        u.role = 'system';
        u.event = notice('notice', 'Context (no user_message event)');
        this.publisher.touch(u.index);
      }
      list.splice(0, at + 1);
      return;
    }
    const d = this.add('user', 'user', rec, { text: message });
    d.parts[0] = { text: message, item: false, event: true };
    d.paired = true;
    d.fromEvent = true;
    this.eventUser = d;
  }

  // --- snapshot ----------------------------------------------------------------------------

  private build(d: Draft, index: number): Step {
    const reasoning = d.thoughts.map((t) => t.text).filter((t) => t !== '');
    const step = makeStep(index, d.role, {
      sourceId: d.sourceId,
      message: d.parts.map((p) => p.text).join('\n\n'),
      reasoning: reasoning.length ? reasoning.join('\n\n') : null,
      actions: d.actions.slice(),
      observations: d.observations.map((o) => ({ ...o })),
      timestamp: d.timestamp,
      durationSec: d.endTs ? secondsBetween(d.timestamp, d.endTs) : null,
      tokens: d.tokens,
      range: d.range,
    });
    if (d.event) step.event = d.event;
    return step;
  }

  /**
   * The first confirmed user request (with `user_message` events), else the first user step. The
   * loop stops at it (near the start of a session): a snapshot does not walk every step again.
   */
  private instruction(): string | null {
    let first: Draft | null = null;
    for (const d of this.steps) {
      if (d.kind !== 'user' || d.actions.length !== 0) continue;
      if (!this.sawUserEvents || d.paired) {
        first = d;
        break;
      }
      first ??= d;
    }
    return first ? userRequestText(first.parts.map((p) => p.text).join('\n\n')) : null;
  }

  private rollout(steps: Step[]): Rollout {
    const m = this.meta;
    const derived: string[] = [];
    let workdir = m?.cwd ?? this.firstTurnCwd;
    if (!workdir && this.contextCwd) {
      workdir = this.contextCwd;
      derived.push('environment.workdir');
    }
    const metadata: Record<string, unknown> = { layout: this.layout };
    if (m?.id) metadata.sessionId = m.id;
    if (m?.timestamp) metadata.startedAt = m.timestamp;
    if (m?.originator) metadata.originator = m.originator;
    if (m?.source !== undefined) metadata.sessionSource = m.source;
    if (m?.model_provider) metadata.modelProvider = m.model_provider;
    if (m?.git) metadata.git = m.git;
    if (this.models.length) metadata.models = [...this.models];
    if (this.approvalPolicy !== undefined) metadata.approvalPolicy = this.approvalPolicy;
    if (this.sandboxPolicy !== undefined) metadata.sandboxPolicy = this.sandboxPolicy;
    metadata.turnContexts = this.turnContexts;
    if (this.totalUsage) metadata.totalTokenUsage = this.totalUsage;
    if (this.contextWindow !== null) metadata.modelContextWindow = this.contextWindow;
    if (this.durationsChanged) {
      this.shownDurations = { ...this.callDurations };
      this.durationsChanged = false;
    }
    if (this.shownDurations) metadata.callDurations = this.shownDurations;
    if (Object.keys(this.skippedEvents).length) metadata.skippedEvents = { ...this.skippedEvents };
    if (Object.keys(this.unknownEvents).length) metadata.unknownEvents = { ...this.unknownEvents };
    if (Object.keys(this.skippedItems).length) metadata.skippedItems = { ...this.skippedItems };
    if (this.extraSessionMeta) metadata.repeatedSessionMeta = this.extraSessionMeta;
    if (this.pendingTokens) metadata.unattributedTokenCount = this.pendingTokens;
    const r: Rollout = {
      id: m?.id ?? this.start.path,
      format: 'codex-cli',
      schemaVersion: null,
      source: { path: this.start.path, range: null, line: null },
      task: { id: null, instruction: this.instruction() },
      agent: { name: 'codex', version: m?.cli_version ?? null, model: this.models[0] ?? null },
      environment: { image: null, workdir: workdir ?? null },
      outcome: unknownOutcome(),
      groupId: null,
      steps,
      metadata,
    };
    if (derived.length) r.derived = derived;
    return r;
  }
}

/**
 * The first line of an early Rust rollout: `{id, timestamp, instructions?, git?, cwd?, …}` without
 * `type`. Unless `loose` (a file already known to be a rollout), one of `instructions`, `git`,
 * `cli_version`, `originator` must be there.
 */
function isLegacyHeader(v: Record<string, unknown>, loose = false): boolean {
  if (typeof v.id !== 'string' || typeof v.timestamp !== 'string') return false;
  if ('type' in v || 'kind' in v || 'source' in v || 'role' in v || 'messages' in v || 'payload' in v) return false;
  return loose || 'instructions' in v || 'git' in v || 'cli_version' in v || 'originator' in v;
}

/** Why a value is not the first record of a Codex rollout (file `path`), or null when it is one. */
function firstRecordDecline(v: unknown, path: string): string | null {
  if (!isObject(v)) return 'the first JSONL line is not a JSON object';
  if (typeof v.type === 'string' && isObject(v.payload)) {
    if (v.type === 'session_meta' || LINE_TYPES.has(v.type)) return null;
    return `the first line's type "${v.type}" is not a Codex rollout record type`;
  }
  if (isLegacyHeader(v, ROLLOUT_NAME.test(path))) return null;
  return 'the first JSONL line is neither a `{timestamp, type, payload}` rollout record nor an early Codex session header';
}

/**
 * Codex CLI rollouts (see the module docs): JSONL `RolloutLine` files and early bare-item files,
 * and the TypeScript CLI's JSON sessions. One rollout per file; id = the session id (else the path).
 * @throws RolloutLoadError when no Codex record can be read
 */
export const codexCliLoader: FormatLoader = {
  id: 'codex-cli',
  label: LABEL,
  detect(input: LoadInput): Detection {
    if (input.bytes) return { accept: false, reason: 'a binary archive' };
    if (input.lines) {
      const v = input.firstLineValue;
      const why = firstRecordDecline(v, input.path);
      if (why) return { accept: false, reason: why };
      const o = v as Record<string, unknown>;
      return { accept: true, confidence: o.type === 'session_meta' ? 0.95 : 'payload' in o || ROLLOUT_NAME.test(input.path) ? 0.85 : 0.7 };
    }
    const d = input.doc?.value;
    if (isObject(d) && isObject(d.session) && Array.isArray(d.items) && typeof d.session.id === 'string') return { accept: true, confidence: 0.9 };
    return { accept: false, reason: 'not JSON Lines of Codex rollout records, nor a `{session, items}` Codex session' };
  },
  async load(input: LoadInput): Promise<Rollout[]> {
    if (!input.lines && input.doc) {
      const r = new CodexReducer({ path: input.path, files: input.files, parseLine: input.parseLine });
      r.readTypescriptDoc(input.doc);
      return loadViaStream(input, LABEL, () => r);
    }
    return loadViaStream(input, LABEL, (start) => new CodexReducer(start));
  },
  stream(start: StreamStart) {
    return new CodexReducer(start);
  },
};
