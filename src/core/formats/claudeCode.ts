/**
 * Claude Code session transcripts: `~/.claude/projects/<encoded cwd>/<session id>.jsonl`, one JSON
 * record per line, appended while the session runs, and the transcripts of the subagents it started.
 *
 * Where the format is defined: Anthropic publishes no schema for the file. What this reader relies
 * on comes from
 * - the Claude Agent SDK's TypeScript types (`@anthropic-ai/claude-agent-sdk`, formerly
 *   `@anthropic-ai/claude-code`; `sdk.d.ts`: `SDKAssistantMessage`, `SDKUserMessage`,
 *   `SDKCompactBoundaryMessage` {compact_metadata: {trigger, pre_tokens}}; `sdk-tools.d.ts`:
 *   `BashInput` {command}, `FileEditInput` {file_path, old_string, new_string, replace_all},
 *   `FileMultiEditInput` {file_path, edits[]}, `FileWriteInput` {file_path, content},
 *   `NotebookEditInput` {notebook_path, new_source, …}, `AgentInput` {description, prompt,
 *   subagent_type}) — the messages the CLI writes are these, wrapped in a record envelope;
 * - the readers that parse real transcripts: daaain/claude-code-log `claude_code_log/models.py`
 *   (record types user / assistant / system / summary / queue-operation / ai-title / attachment /
 *   progress, `toolUseResult`, `isSidechain`, `agentId`, `agent-<id>.meta.json` {toolUseId}),
 *   marot/spotter `test/fixtures/transcripts/README.md` (progress `agent_progress` records tie a
 *   subagent's `agentId` to the `Task` call by `parentToolUseID`), ryoppippi/ccusage (usage,
 *   `costUSD`); jeremedia/claude-code-log-format `source-docs/JSONL_LOGGING.md` (notes from
 *   the CLI 2.0.55 source: `agent-<agentId>.jsonl` beside the session for `isSidechain && agentId`,
 *   records deduplicated by `uuid` within a session);
 * - the real files in `../shared/format-census/claude-code/` (CLI 1.0.95, 2.1.38, 2.1.39).
 *
 * Records (envelope: `type`, `uuid`, `parentUuid`, `sessionId`, `timestamp`, `cwd`, `version`,
 * `gitBranch`, `isSidechain`, `agentId`, `isMeta`, …):
 * - `assistant` — one content block per record in CLI ≥ 1.x streaming: the records sharing a
 *   `message.id` are ONE step, their blocks in file order (`thinking`/`redacted_thinking` →
 *   reasoning, `text` → message, `tool_use` → actions). Usage: every record repeats the message's
 *   `usage` as of when its block was written, and only the last one carries the final
 *   `output_tokens` (msg_01EEiRWuVvwAmenNJXZcerPY in the census: 10, 10, 10, 10, 10, 441), so the
 *   step's tokens are the LAST record's usage, counted once: prompt = input + cache creation +
 *   cache read, completion = output, cached = cache read. `costUSD` (early 1.x) likewise.
 *   `isApiErrorMessage` records and other `<synthetic>`-model messages (written by the CLI, not
 *   the model) are system steps with event `api_error` / `notice`.
 * - `user` — a string or blocks. `tool_result` blocks are not steps: each is the observation of
 *   the step holding the `tool_use` with its `tool_use_id` (output = the result's text, images as
 *   `[image]`; when that is empty, `toolUseResult.stdout`/`stderr`; `is_error` → isError;
 *   `toolUseResult.interrupted` → interrupted; an exit code only where the text of a Bash result
 *   says one — "Exit code N" — with exitCodeFrom `text`, else null). Text is a user step, or what
 *   it is: `isCompactSummary` (compaction), `[Request interrupted by user…]` (interrupted),
 *   `<command-name>` slash commands (user, notice), `<local-command-stdout>`, `<bash-stdout>`,
 *   `<task-notification>` and other `isMeta` records (system, notice).
 * - `system` — `compact_boundary` / `microcompact_boundary` (compaction), `api_error` (api_error,
 *   one step per retry record), `local_command` (as the user texts above), others with `content`
 *   (notice); `stop_hook_summary` (a notice only when a hook failed or blocked), `turn_duration`
 *   and content-less records are counted in `metadata.records`.
 * - not turns, counted in `metadata.records` and kept where useful: `summary` (→ title when no
 *   `custom-title` / `ai-title`), `custom-title`, `ai-title`, `queue-operation` (queued texts —
 *   `enqueue`, or `remove`/`popAll` with content — never seen as a user record →
 *   `metadata.queuedMessages` {line, timestamp, operation, content}), `progress` (hook / bash progress;
 *   `agent_progress` ties an agentId to its Task call), `file-history-snapshot`,
 *   `file-history-delta`, `attachment`, `last-prompt`, `mode`, `permission-mode`, `pr-link`,
 *   `agent-name`, `agent-setting`, `worktree-state`, `bridge-session`, `tag`, `frame-link`,
 *   `cost-state`, `atis-latch` (the bookkeeping types readers of newer CLIs list: e.g.
 *   claude-code-log `models.py`, jeremedia/claude-code-log-format `source-docs/JSONL_LOGGING.md`).
 * - any other `type`: a record with a `message` (it looks like a turn) is shown raw as a step
 *   with event `unknown_record`; others are counted, with one located warning per type.
 * - a record whose `uuid` repeats an earlier one (a resumed session copies records) is skipped
 *   and its line listed in `metadata.repeatedRecords`.
 *
 * Subagents (`Task`, later `Agent`, tool calls) and their transcripts, per CLI version:
 * - 1.x: the subagent's records are in the main file with `isSidechain: true` and no agentId;
 *   a sidechain starts at a record whose parent is not a sidechain record and is tied to the
 *   Task call whose `input.prompt` equals its first user text. Each sidechain is a child rollout
 *   (`<id>/sidechain-<n>`), returned after the main rollout; the Task step links to it by id.
 * - 2.0.x: `agent-<agentId>.jsonl` beside the session file; 2.1.x:
 *   `<session id>/subagents/agent-<agentId>.jsonl`. The call is tied to its agentId by, in this
 *   order: the Task result's `toolUseResult.agentId` (or the result record's own `agentId`),
 *   progress records `data.type == "agent_progress"` with `data.agentId` and `parentToolUseID`,
 *   `agent-<id>.meta.json` {toolUseId} in the subagents folder, and the result text
 *   "agentId: <id>". The step link points to the file (absolute path; `missing` with a reason and a
 *   located warning when it is not there). Records with an agentId inside a main file are grouped
 *   into a child rollout `<id>/agent-<agentId>` instead (transcripts merged by other tools).
 * - A subagent transcript loaded on its own (its records carry `isSidechain: true` and `agentId`)
 *   is the rollout `<session id>/agent-<agentId>` with a `parent` link to the session file
 *   (`../../<session id>.jsonl`, or beside it for 2.0.x) and the Task call id from its meta file.
 *
 * Rollout: id = the session id (the file name when it is one, else the first record's
 * `sessionId`; all in `metadata.sessionIds`); agent {name `claude-code`, version = the first
 * record `version`, model = the first non-synthetic assistant model}; workdir = the first `cwd`;
 * task.instruction = the first real user request; metadata: gitBranch, title, permissionMode,
 * slug, models, versions, records. Step timestamps are the first record's; durationSec = first to
 * last record of the step (its tool results included) when it has two or more; range = from the
 * start of the step's first record line to the end of its last record line.
 *
 * Branches of the conversation (a rewind) are shown in file order; `parentUuid` is not followed.
 * Bad input: lines that do not parse, records whose fields used have the wrong types, unknown
 * record types, tool results without their call, subagent transcripts that are missing → located
 * warnings in `input.issues` and `metadata.warnings`; the rest is shown.
 *
 * `load` is the record stream (`stream`) fed every line, then `end()`, `settle()` (the folder
 * listings that tell whether subagent files exist) and `snapshot()`. The stream lists the
 * subagents folder (and the session's folder) when it starts and again when a record names an
 * agent whose file was not there; a link says `missing` only after a listing made after the agent
 * was named. `end()` changes nothing: a Task call without a result may still be running.
 */
import * as path from 'node:path';
import { z } from 'zod';
import { formatIssue, RolloutLoadError, type LocatedIssue } from '../errors';
import type { JsonDoc, JsonlLine } from '../json';
import {
  makeStep,
  unknownOutcome,
  type Action,
  type FileEdit,
  type Observation,
  type Role,
  type Rollout,
  type RolloutLink,
  type Step,
  type StepEvent,
  type TokenCounts,
} from '../model';
import { toolCallAction } from './toolCalls';
import type { Detection, FileAccess, FormatLoader, LoadInput, RecordStream, StreamStart, StreamedRollout } from './types';
import { isObject, num, secondsBetween, str } from './util';

const LABEL = 'Claude Code transcript';

// ---------------------------------------------------------------------------------------------
// Schemas of the fields read (loose about other keys)

const OptStr = z.string().nullish();
const OptBool = z.boolean().nullish();

/** The record envelope. */
const RecordSchema = z.looseObject({
  type: z.string(),
  uuid: OptStr,
  parentUuid: OptStr,
  sessionId: OptStr,
  timestamp: OptStr,
  cwd: OptStr,
  version: OptStr,
  gitBranch: OptStr,
  agentId: OptStr,
  slug: OptStr,
  permissionMode: OptStr,
  isSidechain: OptBool,
  isMeta: OptBool,
  isCompactSummary: OptBool,
  isApiErrorMessage: OptBool,
});
type RecordEnvelope = z.infer<typeof RecordSchema>;

const Content = z.union([z.string(), z.array(z.unknown())]);
const UserMessage = z.looseObject({ role: OptStr, content: Content });
const Usage = z.looseObject({
  input_tokens: z.number().nullish(),
  output_tokens: z.number().nullish(),
  cache_creation_input_tokens: z.number().nullish(),
  cache_read_input_tokens: z.number().nullish(),
});
const AssistantMessage = z.looseObject({ id: OptStr, model: OptStr, content: Content, usage: Usage.nullish() });
const ToolUseBlock = z.looseObject({ type: z.string(), id: z.string(), name: z.string(), input: z.unknown().optional() });
const ToolResultBlock = z.looseObject({
  type: z.string(),
  tool_use_id: z.string(),
  content: z.union([z.string(), z.array(z.unknown())]).nullish(),
  is_error: OptBool,
});
const SystemRecord = z.looseObject({ subtype: OptStr, content: z.unknown().optional(), level: OptStr });

/** Record types that are bookkeeping, not turns (see the module docs). */
const NON_TURN_TYPES: ReadonlySet<string> = new Set([
  'summary',
  'custom-title',
  'ai-title',
  'queue-operation',
  'progress',
  'file-history-snapshot',
  'file-history-delta',
  'attachment',
  'last-prompt',
  'mode',
  'permission-mode',
  'pr-link',
  'agent-name',
  'agent-setting',
  'worktree-state',
  'bridge-session',
  'tag',
  'frame-link',
  'cost-state',
  'atis-latch',
]);

/** Tools that start a subagent. */
const SUBAGENT_TOOLS: ReadonlySet<string> = new Set(['Task', 'Agent']);

const UUID_NAME = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const AGENT_FILE = /^agent-(.+)\.jsonl$/;
const AGENT_META = /^agent-(.+)\.meta\.json$/;

// ---------------------------------------------------------------------------------------------
// Detection

/** How many lines / characters detection reads at most looking for a message record. */
const DETECT_LINES = 200;
const DETECT_CHARS = 2_000_000;

function isMessageRecord(v: unknown): boolean {
  return (
    isObject(v) &&
    (v.type === 'user' || v.type === 'assistant') &&
    typeof v.uuid === 'string' &&
    typeof v.sessionId === 'string' &&
    isObject(v.message)
  );
}

/**
 * A bookkeeping record of Claude Code (NON_TURN_TYPES) with the fields it writes there: a
 * `sessionId`, or for `summary` a `leafUuid`, for the file-history records a `messageId`. Files
 * may begin with many of them (1.x: a `summary` per earlier leaf; newer: `mode`, `last-prompt`).
 */
function isClaudeBookkeeping(v: unknown): boolean {
  if (!isObject(v) || typeof v.type !== 'string' || !NON_TURN_TYPES.has(v.type)) return false;
  if (v.type === 'summary') return typeof v.summary === 'string' && typeof v.leafUuid === 'string';
  if (v.type.startsWith('file-history-')) return typeof v.messageId === 'string';
  return typeof v.sessionId === 'string';
}

function detect(input: LoadInput): Detection {
  if (!input.lines) {
    const v = input.doc?.value;
    return isMessageRecord(v)
      ? { accept: true, confidence: 0.8 }
      : { accept: false, reason: 'not JSON Lines of Claude Code records (type user/assistant with uuid, sessionId, message)' };
  }
  let chars = 0;
  let bookkeeping = 0;
  for (const l of input.lines.slice(0, DETECT_LINES)) {
    chars += l.text.length;
    let v: unknown;
    try {
      v = input.parseLine(l).value;
    } catch {
      continue;
    }
    if (isMessageRecord(v)) return { accept: true, confidence: 0.9 };
    if (isClaudeBookkeeping(v)) bookkeeping++;
    else return { accept: false, reason: `line ${l.line} is no Claude Code record (type user/assistant with uuid, sessionId, message)` };
    if (chars > DETECT_CHARS) break;
  }
  if (bookkeeping > 0) return { accept: true, confidence: 0.6 };
  return { accept: false, reason: 'no Claude Code record (type user/assistant with uuid, sessionId, message) in the first lines' };
}

// ---------------------------------------------------------------------------------------------
// Reading blocks

/** Text of a tool result's content: a string, or blocks (`text`; `image` → `[image]`; others `[type]`). */
function resultText(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content
    .map((b) => {
      if (typeof b === 'string') return b;
      if (!isObject(b)) return '';
      if (typeof b.text === 'string') return b.text;
      return typeof b.type === 'string' ? `[${b.type}]` : '';
    })
    .join('\n');
}

/** The user text of a user record's content (text blocks joined, images as `[image]`); tool results left out. */
function userText(content: string | unknown[]): string {
  if (typeof content === 'string') return content;
  const parts: string[] = [];
  for (const b of content) {
    if (typeof b === 'string') parts.push(b);
    else if (isObject(b) && b.type !== 'tool_result') {
      if (typeof b.text === 'string') parts.push(b.text);
      else if (typeof b.type === 'string') parts.push(`[${b.type}]`);
    }
  }
  return parts.join('\n');
}

/** Inner text of the first `<tag>…</tag>` in a text, or null. */
function tagText(text: string, tag: string): string | null {
  const m = new RegExp(`<${tag}>([\\s\\S]*?)</${tag}>`).exec(text);
  return m ? m[1] : null;
}

interface TurnKind {
  role: Role;
  message: string;
  event: StepEvent | null;
}

/** What a user (or `local_command` system) text is: a request, or a command echo, a notice, an interruption. */
function classifyUserText(text: string, rec: RecordEnvelope): TurnKind {
  const t = text.trimStart();
  if (rec.isCompactSummary) return { role: 'system', message: text, event: { kind: 'compaction', label: 'Summary of the compacted conversation' } };
  if (t.startsWith('[Request interrupted by user')) {
    return { role: 'user', message: text, event: { kind: 'interrupted', label: t.startsWith('[Request interrupted by user for tool use') ? 'Interrupted by the user (during a tool call)' : 'Interrupted by the user' } };
  }
  const name = tagText(t, 'command-name');
  if (name !== null && /^<command-(name|message)>/.test(t)) {
    const args = tagText(t, 'command-args')?.trim();
    return { role: 'user', message: [name.trim(), args].filter(Boolean).join(' '), event: { kind: 'notice', label: `Slash command ${name.trim()}` } };
  }
  for (const [tag, label] of [
    ['local-command-stdout', 'Command output'],
    ['local-command-stderr', 'Command error output'],
  ] as const) {
    const inner = t.startsWith(`<${tag}>`) ? tagText(t, tag) : null;
    if (inner !== null) return { role: 'system', message: inner, event: { kind: 'notice', label } };
  }
  if (t.startsWith('<local-command-caveat>')) return { role: 'system', message: tagText(t, 'local-command-caveat') ?? text, event: { kind: 'notice', label: 'Caveat (local commands)' } };
  if (t.startsWith('<bash-input>')) return { role: 'user', message: tagText(t, 'bash-input') ?? text, event: { kind: 'notice', label: 'Shell command run by the user (!)' } };
  if (t.startsWith('<bash-stdout>') || t.startsWith('<bash-stderr>')) {
    const out = [tagText(t, 'bash-stdout'), tagText(t, 'bash-stderr')].filter((x) => x).join('\n');
    return { role: 'system', message: out, event: { kind: 'notice', label: "Output of the user's shell command" } };
  }
  if (t.startsWith('<task-notification>')) {
    return { role: 'system', message: tagText(t, 'summary') ?? text, event: { kind: 'notice', label: 'Background task notification' } };
  }
  if (rec.isMeta) {
    const label = t.startsWith('Caveat:') ? 'Caveat (local commands)' : t.startsWith('<system-reminder>') ? 'System reminder' : 'Meta message (written by Claude Code)';
    return { role: 'system', message: text, event: { kind: 'notice', label } };
  }
  return { role: 'user', message: text, event: null };
}

/** The replayable change of a Claude Code editor tool call, or null when its input lacks what is needed. */
function claudeFileEdit(name: string, input: unknown): FileEdit | null {
  if (!isObject(input)) return null;
  const p = str(input.file_path) ?? str(input.notebook_path);
  if (name === 'NotebookEdit') {
    return { op: 'other', path: p, reason: 'NotebookEdit replaces, inserts or deletes a notebook cell (cell_id, edit_mode); it is not a text edit that can be re-applied' };
  }
  if (p === null) return null;
  if (name === 'Write') return typeof input.content === 'string' ? { op: 'write', path: p, content: input.content } : null;
  const one = (e: unknown): { oldText: string; newText: string; replaceAll: boolean } | null =>
    isObject(e) && typeof e.old_string === 'string' && typeof e.new_string === 'string'
      ? { oldText: e.old_string, newText: e.new_string, replaceAll: e.replace_all === true }
      : null;
  if (name === 'Edit') {
    const e = one(input);
    return e ? { op: 'replace', path: p, edits: [e] } : null;
  }
  if (name === 'MultiEdit' && Array.isArray(input.edits)) {
    const edits = input.edits.map(one);
    return edits.every((e) => e !== null) ? { op: 'replace', path: p, edits: edits as NonNullable<(typeof edits)[number]>[] } : null;
  }
  return null;
}

/** One `tool_use` → Action: the shared classification (toolCalls.ts) plus the FileEdit of Claude Code's editor tools. */
export function claudeToolAction(name: string, input: unknown, id: string | null): Action {
  const a = toolCallAction(name, input, id);
  if (a.kind === 'file_edit') {
    const edit = claudeFileEdit(name, input);
    if (edit) a.edit = edit;
    else a.edit = null;
  }
  return a;
}

function usageTokens(u: z.infer<typeof Usage> | null | undefined): TokenCounts | null {
  if (!u) return null;
  const input = num(u.input_tokens);
  const output = num(u.output_tokens);
  const created = num(u.cache_creation_input_tokens);
  const read = num(u.cache_read_input_tokens);
  if (input === null && output === null && created === null && read === null) return null;
  return { prompt: input === null ? null : input + (created ?? 0) + (read ?? 0), completion: output, cached: read };
}

/** "Exit code N" at the start of a Bash result's text (the CLI writes it for a non-zero exit). */
function exitCodeFromText(text: string): number | null {
  const m = /^(?:Error: )?Exit code (-?\d+)\b/.exec(text.trimStart());
  return m ? Number(m[1]) : null;
}

// ---------------------------------------------------------------------------------------------
// The reducer

interface StepBuilder {
  index: number;
  role: Role;
  sourceId: string | number | null;
  texts: string[];
  thoughts: string[];
  /** Fixed message (non-agent steps); agent steps join `texts`. */
  message: string | null;
  actions: Action[];
  observations: Observation[];
  event: StepEvent | null;
  firstTs: string | null;
  lastTs: string | null;
  records: number;
  start: number;
  end: number;
  tokens: TokenCounts | null;
  cost: number | null;
  /** Subagent calls of this step, by call id. */
  calls: string[];
}

interface CallInfo {
  rollout: RolloutState;
  step: number;
  name: string;
  input: unknown;
  line: number;
  /** Set when the result has arrived. */
  answered: boolean;
  /** Subagent calls: what ties the call to its subagent. */
  agentId: string | null;
  agentIdLine: number | null;
  /** The listing generation that must complete before a missing file counts as missing. */
  listGen: number;
  child: RolloutState | null;
  warned: boolean;
}

interface RolloutState {
  id: string;
  agentId: string | null;
  steps: StepBuilder[];
  cache: (Step | undefined)[];
  dirtyFrom: number;
  byMessage: Map<string, StepBuilder>;
  calls: Map<string, CallInfo>;
  parentCall: CallInfo | null;
  sessionIds: string[];
  versions: string[];
  models: string[];
  cwd: string | null;
  gitBranch: string | null;
  slug: string | null;
  permissionMode: string | null;
}

interface AgentMeta {
  toolUseId: string | null;
  agentType: string | null;
  description: string | null;
}

/** The incremental reader (RecordStream) of one Claude Code transcript; `settle()` waits for the folder listings. */
export class ClaudeCodeStream implements RecordStream {
  readonly issues: LocatedIssue[] = [];
  private readonly file: string;
  private readonly files: FileAccess;
  private readonly parseLine: (l: JsonlLine) => JsonDoc;
  private readonly dir: string;
  private readonly base: string;
  /** Where this session's subagent transcripts are (2.1.x layout). */
  private readonly subagentsDir: string;
  /** The folder of the parent session file (for a subagent transcript in `<sid>/subagents/`). */
  private readonly parentDir: string;
  private readonly inSubagentsDir: boolean;

  private main: RolloutState | null = null;
  private readonly children: RolloutState[] = [];
  private readonly childByAgent = new Map<string, RolloutState>();
  /** Sidechains without an agentId seen so far (their ids are numbered). */
  private sidechains = 0;
  private readonly uuidOwner = new Map<string, RolloutState>();
  private readonly seenUuid = new Map<string, number>();
  private readonly repeated: number[] = [];
  /** true when the file is itself a subagent transcript (records with isSidechain and agentId). */
  private isSubagentFile: boolean | null = null;
  private ownAgentId: string | null = null;
  private readonly mainId: string | null;
  private mainIdFixed = false;

  private readonly records = new Map<string, number>();
  private readonly unknownWarned = new Set<string>();
  private titles: { custom: string | null; ai: string | null; summary: string | null } = { custom: null, ai: null, summary: null };
  private readonly summaries: { leafUuid: string | null; summary: string }[] = [];
  private readonly queued: { line: number; timestamp: string | null; operation: string; content: string }[] = [];
  private readonly userTexts = new Set<string>();
  /** Calls whose subagent is named by a progress record or meta file before the call is seen. */
  private readonly agentIdByCall = new Map<string, { agentId: string; line: number | null }>();
  /** `agent-<id>.jsonl` of every agent a call of this file is tied to (kept as they are learnt: a snapshot does not walk every call). */
  private readonly linkedAgentFiles = new Set<string>();
  private readonly meta = new Map<string, AgentMeta>();
  private readonly pendingPrompts: CallInfo[] = [];

  // Folder listings (async): subagent files, files beside this one, files beside the parent.
  private subNames: Set<string> | null = null;
  private sibNames: Set<string> | null = null;
  private parentNames: Set<string> | null = null;
  private listStarted = 0;
  private listDone = -1;
  private listing: Promise<void> | null = null;
  private relistWanted = false;

  constructor(start: StreamStart) {
    this.file = path.resolve(start.path);
    this.files = start.files;
    this.parseLine = start.parseLine;
    this.dir = path.dirname(this.file);
    this.base = path.basename(this.file).replace(/\.jsonl$/i, '');
    this.inSubagentsDir = path.basename(this.dir) === 'subagents';
    this.subagentsDir = this.inSubagentsDir ? this.dir : path.join(this.dir, this.base, 'subagents');
    this.parentDir = this.inSubagentsDir ? path.dirname(path.dirname(this.dir)) : this.dir;
    this.mainId = !this.inSubagentsDir && UUID_NAME.test(this.base) ? this.base : null;
    this.startListing();
  }

  // -- folder listings ------------------------------------------------------------------------

  private startListing(): void {
    if (this.listing) {
      this.relistWanted = true;
      return;
    }
    const gen = this.listStarted++;
    this.listing = (async () => {
      const [sub, sib, par] = await Promise.all([
        this.files.list(this.subagentsDir),
        this.files.list(this.dir),
        this.inSubagentsDir ? this.files.list(this.parentDir) : Promise.resolve(null),
      ]);
      for (const name of sub) {
        const m = AGENT_META.exec(name);
        if (!m || this.meta.has(m[1])) continue;
        const text = await this.files.readText(path.join(this.subagentsDir, name));
        let v: unknown = null;
        try {
          v = text === null ? null : JSON.parse(text);
        } catch {
          v = null;
        }
        const info: AgentMeta = isObject(v)
          ? { toolUseId: str(v.toolUseId), agentType: str(v.agentType), description: str(v.description) }
          : { toolUseId: null, agentType: null, description: null };
        this.meta.set(m[1], info);
        if (info.toolUseId) this.learnAgentId(info.toolUseId, m[1], null);
      }
      this.subNames = new Set(sub);
      this.sibNames = new Set(sib);
      this.parentNames = par ? new Set(par) : this.sibNames;
      this.listDone = gen;
      this.listing = null;
      // Every subagent link may now resolve (found or missing).
      for (const r of this.rollouts()) for (const c of r.calls.values()) if (SUBAGENT_TOOLS.has(c.name)) this.touch(r, c.step);
      if (this.relistWanted) {
        this.relistWanted = false;
        this.startListing();
      }
    })().catch(() => {
      this.listDone = gen;
      this.listing = null;
    });
  }

  /** Resolves when no folder listing is running or wanted (load() waits for it before its snapshot). */
  async settle(): Promise<void> {
    while (this.listing) await this.listing;
  }

  // -- rollout states -------------------------------------------------------------------------

  private newRollout(id: string): RolloutState {
    return {
      id,
      agentId: null,
      steps: [],
      cache: [],
      dirtyFrom: Infinity,
      byMessage: new Map(),
      calls: new Map(),
      parentCall: null,
      sessionIds: [],
      versions: [],
      models: [],
      cwd: null,
      gitBranch: null,
      slug: null,
      permissionMode: null,
    };
  }

  private rollouts(): RolloutState[] {
    return this.main ? [this.main, ...this.children] : [...this.children];
  }

  /**
   * The main rollout. Its id is fixed by the first record that can give it: the file name when it
   * is a session id, else the first `sessionId` (`<sessionId>/agent-<agentId>` for a subagent
   * transcript); until then (bookkeeping records without a sessionId) it is the file's path.
   */
  private mainState(rec: RecordEnvelope | null): RolloutState {
    if (!this.main) this.main = this.newRollout(this.mainId ?? this.file);
    if (!this.mainIdFixed && rec) {
      const sid = rec.sessionId ?? null;
      if (this.isSubagentFile) {
        const s = sid ?? (this.inSubagentsDir ? path.basename(path.dirname(this.dir)) : null);
        if (s) this.main.id = `${s}/agent-${this.ownAgentId ?? this.base}`;
        this.main.agentId = this.ownAgentId;
        this.mainIdFixed = s !== null;
      } else if (this.mainId) {
        this.main.id = this.mainId;
        this.mainIdFixed = true;
      } else if (sid) {
        this.main.id = sid;
        this.mainIdFixed = true;
      }
    }
    return this.main;
  }

  /** The child rollout of a sidechain record of a main file. */
  private childState(rec: RecordEnvelope): RolloutState {
    const main = this.mainState(rec);
    const owner = rec.parentUuid ? this.uuidOwner.get(rec.parentUuid) : undefined;
    const chained = owner && owner !== main ? owner : undefined;
    if (rec.agentId) {
      const known = this.childByAgent.get(rec.agentId);
      if (known) return known;
      // A sidechain that continues one without an agentId yet takes this agentId (its id stays).
      let c = chained && chained.agentId === null ? chained : undefined;
      if (!c) {
        c = this.newRollout(`${main.id}/agent-${rec.agentId}`);
        this.children.push(c);
      }
      c.agentId = rec.agentId;
      this.childByAgent.set(rec.agentId, c);
      for (const r of this.rollouts()) for (const call of r.calls.values()) if (call.agentId === rec.agentId) this.touch(r, call.step);
      return c;
    }
    if (chained) return chained;
    const c = this.newRollout(`${main.id}/sidechain-${++this.sidechains}`);
    this.children.push(c);
    return c;
  }

  private touch(r: RolloutState, index: number): void {
    if (index < r.dirtyFrom) r.dirtyFrom = index;
  }

  private learnAgentId(callId: string, agentId: string, line: number | null): void {
    if (!this.agentIdByCall.has(callId)) this.agentIdByCall.set(callId, { agentId, line });
    for (const r of this.rollouts()) {
      const c = r.calls.get(callId);
      if (c && c.agentId === null) {
        c.agentId = agentId;
        this.linkedAgentFiles.add(`agent-${agentId}.jsonl`);
        c.agentIdLine = line ?? c.line;
        c.listGen = this.listStarted;
        if (!this.subNames?.has(`agent-${agentId}.jsonl`) && !this.sibNames?.has(`agent-${agentId}.jsonl`)) this.startListing();
        this.touch(r, c.step);
      }
    }
  }

  // -- issues ---------------------------------------------------------------------------------

  private issue(i: LocatedIssue): void {
    this.issues.push(i);
  }

  /** An issue that leaves nothing out (shown raw, a missing linked file, a result without its call): a warning. */
  private warn(i: LocatedIssue): void {
    this.issues.push({ ...i, severity: 'warning' });
  }

  private lineIssue(l: JsonlLine, pointer: string | null, expected: string, found: string): LocatedIssue {
    return { file: this.file, line: l.line, column: 1, pointer, expected, found };
  }

  // -- steps ----------------------------------------------------------------------------------

  private newStep(r: RolloutState, role: Role, l: JsonlLine, rec: RecordEnvelope, fields: Partial<StepBuilder> = {}): StepBuilder {
    const b: StepBuilder = {
      index: r.steps.length,
      role,
      sourceId: rec.uuid ?? null,
      texts: [],
      thoughts: [],
      message: null,
      actions: [],
      observations: [],
      event: null,
      firstTs: rec.timestamp ?? null,
      lastTs: rec.timestamp ?? null,
      records: 1,
      start: l.offset,
      end: l.offset + l.text.length,
      tokens: null,
      cost: null,
      calls: [],
      ...fields,
    };
    r.steps.push(b);
    r.cache.push(undefined);
    this.touch(r, b.index);
    return b;
  }

  /** Extends a step by one more record (a streamed block, a tool result). */
  private extend(r: RolloutState, b: StepBuilder, l: JsonlLine, ts: string | null | undefined): void {
    b.records++;
    if (ts) {
      if (!b.firstTs) b.firstTs = ts;
      b.lastTs = ts;
    }
    b.start = Math.min(b.start, l.offset);
    b.end = Math.max(b.end, l.offset + l.text.length);
    this.touch(r, b.index);
  }

  // -- records --------------------------------------------------------------------------------

  push(lines: readonly JsonlLine[]): void {
    for (const l of lines) {
      try {
        this.pushLine(l);
      } catch (e) {
        // A record this reader fails on is a located issue, never the end of the stream.
        this.issue(this.lineIssue(l, null, 'a Claude Code record this reader can read', `an error reading it (${(e as Error).message})`));
      }
    }
  }

  /**
   * Nothing is held back here (a partial last line was pushed and reported as a bad line), and
   * "no more lines for now" changes nothing: a Task call without a result may still be running.
   */
  end(): void {}

  private count(key: string): void {
    this.records.set(key, (this.records.get(key) ?? 0) + 1);
  }

  private pushLine(l: JsonlLine): void {
    let doc: JsonDoc;
    try {
      doc = this.parseLine(l);
    } catch (e) {
      const issues = (e as { issues?: LocatedIssue[] }).issues;
      if (issues?.length) for (const i of issues) this.issue(i);
      else this.issue(this.lineIssue(l, null, 'a JSON record', String((e as Error).message)));
      return;
    }
    const v = doc.value;
    if (!isObject(v) || typeof v.type !== 'string') {
      this.issue(doc.issue(isObject(v) ? ['type'] : [], isObject(v) ? 'a record type (string)' : 'a JSON object (a Claude Code record)'));
      return;
    }
    const env = RecordSchema.safeParse(v);
    if (!env.success) {
      for (const i of env.error.issues) this.issue(doc.issue(i.path as (string | number)[], 'the type Claude Code writes there (' + i.message + ')'));
      if ((v.type === 'user' || v.type === 'assistant') && isObject(v.message)) this.rawStep(l, v as RecordEnvelope, v, 'Unreadable record');
      return;
    }
    const rec = env.data;
    this.count(rec.type === 'system' && typeof v.subtype === 'string' ? `system/${v.subtype}` : rec.type);

    if (rec.uuid) {
      const first = this.seenUuid.get(rec.uuid);
      if (first !== undefined) {
        this.repeated.push(l.line);
        return;
      }
      this.seenUuid.set(rec.uuid, l.line);
    }
    if (this.isSubagentFile === null && typeof rec.isSidechain === 'boolean') {
      const named = AGENT_FILE.exec(path.basename(this.file));
      this.isSubagentFile = rec.isSidechain === true && (!!rec.agentId || !!named);
      if (this.isSubagentFile) this.ownAgentId = rec.agentId ?? named?.[1] ?? null;
    }
    const r = rec.isSidechain === true && this.isSubagentFile === false ? this.childState(rec) : this.mainState(rec);
    if (rec.uuid) this.uuidOwner.set(rec.uuid, r);
    this.noteEnvelope(r, rec);

    switch (rec.type) {
      case 'user':
        return this.userRecord(r, l, doc, rec);
      case 'assistant':
        return this.assistantRecord(r, l, doc, rec);
      case 'system':
        return this.systemRecord(r, l, doc, rec);
      default:
        return this.otherRecord(r, l, doc, rec);
    }
  }

  private noteEnvelope(r: RolloutState, rec: RecordEnvelope): void {
    if (rec.sessionId && !r.sessionIds.includes(rec.sessionId)) r.sessionIds.push(rec.sessionId);
    if (rec.version && !r.versions.includes(rec.version)) r.versions.push(rec.version);
    if (rec.cwd && r.cwd === null) r.cwd = rec.cwd;
    if (rec.gitBranch && r.gitBranch === null) r.gitBranch = rec.gitBranch;
    if (rec.slug && r.slug === null) r.slug = rec.slug;
    if (rec.permissionMode) r.permissionMode = rec.permissionMode;
  }

  /** A record that looks like a turn but is unknown or unreadable, shown raw. */
  private rawStep(l: JsonlLine, rec: RecordEnvelope, v: Record<string, unknown>, label: string): void {
    const r = this.mainState(typeof rec.sessionId === 'string' ? rec : null);
    const m = isObject(v.message) ? v.message : {};
    const role: Role = m.role === 'assistant' ? 'agent' : m.role === 'user' ? 'user' : 'system';
    const text = resultText(m.content);
    this.newStep(r, role, l, { ...rec, uuid: typeof rec.uuid === 'string' ? rec.uuid : null, timestamp: typeof rec.timestamp === 'string' ? rec.timestamp : null } as RecordEnvelope, {
      message: text || l.text,
      event: { kind: 'unknown_record', label },
    });
  }

  private userRecord(r: RolloutState, l: JsonlLine, doc: JsonDoc, rec: RecordEnvelope): void {
    const res = UserMessage.safeParse(doc.get(['message']));
    if (!res.success) {
      for (const i of res.error.issues) this.issue(doc.issue(['message', ...(i.path as (string | number)[])], 'a user message {role, content: string | blocks}'));
      this.rawStep(l, rec, doc.value as Record<string, unknown>, 'Unreadable user record');
      return;
    }
    const content = res.data.content;
    const tur = (doc.value as Record<string, unknown>).toolUseResult;
    if (Array.isArray(content)) {
      content.forEach((b, i) => {
        if (isObject(b) && b.type === 'tool_result') this.toolResult(r, l, doc, rec, ['message', 'content', i], b, tur, content.filter((x) => isObject(x) && x.type === 'tool_result').length);
      });
      const hasOther = content.some((b) => !(isObject(b) && b.type === 'tool_result'));
      if (!hasOther) return;
    }
    const text = userText(content);
    const kind = classifyUserText(text, rec);
    this.newStep(r, kind.role, l, rec, { message: kind.message, event: kind.event });
    if (kind.role === 'user' && kind.event === null) this.userTexts.add(text.trim());
  }

  private toolResult(
    r: RolloutState,
    l: JsonlLine,
    doc: JsonDoc,
    rec: RecordEnvelope,
    at: (string | number)[],
    raw: Record<string, unknown>,
    tur: unknown,
    resultsInRecord: number,
  ): void {
    const res = ToolResultBlock.safeParse(raw);
    if (!res.success) {
      for (const i of res.error.issues) this.issue(doc.issue([...at, ...(i.path as (string | number)[])], 'a tool_result block {tool_use_id: string, content: string | blocks, is_error?: boolean}'));
      this.newStep(r, 'environment', l, rec, { message: JSON.stringify(raw), event: { kind: 'unknown_record', label: 'Unreadable tool result' } });
      return;
    }
    const b = res.data;
    const call = r.calls.get(b.tool_use_id);
    // toolUseResult belongs to the record; with several results in one record it cannot be told apart.
    const extra = resultsInRecord === 1 ? tur : undefined;
    let output = resultText(b.content);
    if (output === '' && isObject(extra)) {
      const so = str(extra.stdout) ?? '';
      const se = str(extra.stderr) ?? '';
      output = so && se ? `${so}\n${se}` : so || se;
    }
    const obs: Observation = { callId: b.tool_use_id, output, exitCode: null, truncated: false };
    if (typeof b.is_error === 'boolean') obs.isError = b.is_error;
    if (isObject(extra) && extra.interrupted === true) obs.interrupted = true;
    const action = call ? r.steps[call.step].actions.find((a) => a.callId === b.tool_use_id) : undefined;
    if (action?.kind === 'shell' && b.is_error === true) {
      const code = exitCodeFromText(output) ?? (typeof extra === 'string' ? exitCodeFromText(extra) : null);
      if (code !== null) {
        obs.exitCode = code;
        obs.exitCodeFrom = 'text';
      }
    }
    if (!call) {
      this.warn(doc.issue([...at, 'tool_use_id'], 'the id of a tool_use earlier in this transcript', `${JSON.stringify(b.tool_use_id)}, which no tool_use before it has`));
      this.newStep(r, 'environment', l, rec, { observations: [obs], message: '' });
      return;
    }
    const step = r.steps[call.step];
    step.observations.push(obs);
    call.answered = true;
    this.extend(r, step, l, rec.timestamp);
    if (SUBAGENT_TOOLS.has(call.name)) {
      const agentId =
        (isObject(extra) ? str(extra.agentId) : null) ??
        (rec.agentId && rec.agentId !== r.agentId ? rec.agentId : null) ??
        /agentId: ([\w-]+)/.exec(output)?.[1] ??
        null;
      if (agentId) this.learnAgentId(b.tool_use_id, agentId, l.line);
    }
  }

  private assistantRecord(r: RolloutState, l: JsonlLine, doc: JsonDoc, rec: RecordEnvelope): void {
    const res = AssistantMessage.safeParse(doc.get(['message']));
    if (!res.success) {
      for (const i of res.error.issues) this.issue(doc.issue(['message', ...(i.path as (string | number)[])], 'an assistant message {id, model, content: blocks, usage}'));
      this.rawStep(l, rec, doc.value as Record<string, unknown>, 'Unreadable assistant record');
      return;
    }
    const m = res.data;
    const blocks = typeof m.content === 'string' ? [{ type: 'text', text: m.content }] : m.content;
    const synthetic = m.model === '<synthetic>';
    const v = doc.value as Record<string, unknown>;
    if (rec.isApiErrorMessage || synthetic) {
      const text = userText(blocks);
      const status = num(v.apiErrorStatus);
      const err = str(v.error);
      const label = rec.isApiErrorMessage
        ? `API error${status !== null ? ` ${status}` : ''}${err ? ` (${err})` : ''}`
        : 'Synthetic message (written by Claude Code, not the model)';
      this.newStep(r, 'system', l, rec, { message: text, event: { kind: rec.isApiErrorMessage ? 'api_error' : 'notice', label } });
      return;
    }
    if (m.model && !r.models.includes(m.model)) r.models.push(m.model);
    let step = m.id ? r.byMessage.get(m.id) : undefined;
    if (step) this.extend(r, step, l, rec.timestamp);
    else {
      step = this.newStep(r, 'agent', l, rec, { sourceId: m.id ?? rec.uuid ?? null });
      if (m.id) r.byMessage.set(m.id, step);
    }
    const tokens = usageTokens(m.usage);
    if (tokens) step.tokens = tokens;
    const cost = num(v.costUSD);
    if (cost !== null) step.cost = cost;
    blocks.forEach((b, i) => this.assistantBlock(r, step, l, doc, ['message', 'content', i], b));
  }

  private assistantBlock(r: RolloutState, step: StepBuilder, l: JsonlLine, doc: JsonDoc, at: (string | number)[], b: unknown): void {
    if (typeof b === 'string') {
      if (b.trim()) step.texts.push(b);
      return;
    }
    if (!isObject(b)) {
      this.issue(doc.issue(at, 'a content block (object)'));
      return;
    }
    switch (b.type) {
      case 'text':
        if (typeof b.text === 'string' && b.text.trim()) step.texts.push(b.text);
        return;
      case 'thinking':
        if (typeof b.thinking === 'string' && b.thinking.trim()) step.thoughts.push(b.thinking);
        return;
      case 'redacted_thinking':
        step.thoughts.push('[redacted thinking]');
        return;
      case 'tool_use':
      case 'server_tool_use': {
        const res = ToolUseBlock.safeParse(b);
        if (!res.success) {
          for (const i of res.error.issues) this.issue(doc.issue([...at, ...(i.path as (string | number)[])], 'a tool_use block {id: string, name: string, input}'));
          step.texts.push(`[unreadable ${String(b.type)} block: ${JSON.stringify(b)}]`);
          return;
        }
        const u = res.data;
        step.actions.push(claudeToolAction(u.name, u.input, u.id));
        const call: CallInfo = {
          rollout: r,
          step: step.index,
          name: u.name,
          input: u.input,
          line: l.line,
          answered: false,
          agentId: null,
          agentIdLine: null,
          listGen: this.listStarted,
          child: null,
          warned: false,
        };
        r.calls.set(u.id, call);
        if (SUBAGENT_TOOLS.has(u.name)) {
          step.calls.push(u.id);
          const known = this.agentIdByCall.get(u.id);
          if (known) this.learnAgentId(u.id, known.agentId, known.line);
          if (isObject(u.input) && typeof u.input.prompt === 'string') this.pendingPrompts.push(call);
        }
        return;
      }
      default:
        if (typeof b.type === 'string' && b.type.endsWith('_tool_result') && typeof b.tool_use_id === 'string') {
          // A server tool's result (web search) inside the assistant message.
          step.observations.push({ callId: b.tool_use_id, output: resultText(b.content), exitCode: null, truncated: false });
          const c = r.calls.get(b.tool_use_id);
          if (c) c.answered = true;
          return;
        }
        step.texts.push(typeof b.type === 'string' ? `[${b.type}]` : JSON.stringify(b));
    }
  }

  private systemRecord(r: RolloutState, l: JsonlLine, doc: JsonDoc, rec: RecordEnvelope): void {
    const res = SystemRecord.safeParse(doc.value);
    const s = res.success ? res.data : { subtype: null, content: undefined, level: null };
    const v = doc.value as Record<string, unknown>;
    const content = typeof s.content === 'string' ? s.content : null;
    switch (s.subtype) {
      case 'compact_boundary':
      case 'microcompact_boundary': {
        const md = isObject(v.compactMetadata) ? v.compactMetadata : isObject(v.microcompactMetadata) ? v.microcompactMetadata : {};
        const trigger = str(md.trigger);
        const pre = num(md.preTokens);
        const what = s.subtype === 'compact_boundary' ? 'Conversation compacted' : 'Context micro-compacted';
        const detail = [trigger, pre !== null ? `${pre} tokens before` : null].filter(Boolean).join(', ');
        this.newStep(r, 'system', l, rec, { message: content ?? what, event: { kind: 'compaction', label: detail ? `${what} (${detail})` : what } });
        return;
      }
      case 'api_error': {
        const err = isObject(v.error) ? v.error : {};
        const status = num(err.status) ?? num(v.status);
        const attempt = num(v.retryAttempt);
        const max = num(v.maxRetries);
        const label = `API error${status !== null ? ` ${status}` : ''}${attempt !== null ? ` (retry ${attempt}${max !== null ? `/${max}` : ''})` : ''}`;
        const msg = str(err.message) ?? str(err.formatted) ?? content ?? (typeof v.error === 'string' ? v.error : '');
        this.newStep(r, 'system', l, rec, { message: msg, event: { kind: 'api_error', label } });
        return;
      }
      case 'local_command': {
        const kind = classifyUserText(content ?? '', rec);
        this.newStep(r, kind.role, l, rec, { message: kind.message, event: kind.event ?? { kind: 'notice', label: 'Local command' } });
        return;
      }
      case 'stop_hook_summary': {
        const errors = Array.isArray(v.hookErrors) ? v.hookErrors.filter((e) => e !== null && e !== '') : [];
        if (errors.length || v.preventedContinuation === true) {
          const msg = [...errors.map((e) => (typeof e === 'string' ? e : JSON.stringify(e))), str(v.stopReason) ?? ''].filter(Boolean).join('\n');
          this.newStep(r, 'system', l, rec, { message: msg, event: { kind: 'notice', label: v.preventedContinuation === true ? 'Stop hook prevented the agent from stopping' : 'Stop hook error' } });
        }
        return;
      }
      default:
        if (content) this.newStep(r, 'system', l, rec, { message: content, event: { kind: 'notice', label: s.subtype ? `System: ${s.subtype}` : 'System message' } });
    }
  }

  private otherRecord(r: RolloutState, l: JsonlLine, doc: JsonDoc, rec: RecordEnvelope): void {
    const v = doc.value as Record<string, unknown>;
    switch (rec.type) {
      case 'summary':
        if (typeof v.summary === 'string') {
          this.summaries.push({ leafUuid: str(v.leafUuid), summary: v.summary });
          this.titles.summary = v.summary;
        }
        return;
      case 'custom-title':
        if (typeof v.customTitle === 'string') this.titles.custom = v.customTitle;
        return;
      case 'ai-title':
        if (typeof v.aiTitle === 'string') this.titles.ai = v.aiTitle;
        return;
      case 'queue-operation':
        // enqueue: typed while the agent worked; remove/popAll with content: taken out as steering.
        if (typeof v.operation === 'string' && typeof v.content === 'string') {
          this.queued.push({ line: l.line, timestamp: rec.timestamp ?? null, operation: v.operation, content: v.content });
        }
        return;
      case 'progress': {
        const d = isObject(v.data) ? v.data : {};
        const callId = str(v.parentToolUseID);
        if (d.type === 'agent_progress' && typeof d.agentId === 'string' && callId) this.learnAgentId(callId, d.agentId, l.line);
        return;
      }
    }
    if (NON_TURN_TYPES.has(rec.type)) return;
    if (isObject(v.message)) {
      this.rawStep(l, rec, v, `Unknown record type "${rec.type}"`);
      if (!this.unknownWarned.has(rec.type)) {
        this.unknownWarned.add(rec.type);
        this.warn(doc.issue(['type'], 'a record type this reader knows (shown raw)'));
      }
      return;
    }
    if (!this.unknownWarned.has(rec.type)) {
      this.unknownWarned.add(rec.type);
      this.warn(doc.issue(['type'], 'a record type this reader knows (not a turn: counted in metadata.records, not shown)'));
    }
  }

  // -- sidechain ties -------------------------------------------------------------------------

  /** Ties in-file sidechains without an agentId to the Task call whose prompt they start with. */
  private tieSidechains(): void {
    for (const c of this.children) {
      if (c.parentCall || c.agentId !== null) continue;
      const first = c.steps.find((s) => s.role === 'user' && s.event === null);
      if (!first || first !== c.steps[0]) continue;
      const text = (first.message ?? '').trim();
      for (let i = this.pendingPrompts.length - 1; i >= 0; i--) {
        const call = this.pendingPrompts[i];
        if (call.child || !isObject(call.input) || String(call.input.prompt).trim() !== text) continue;
        call.child = c;
        c.parentCall = call;
        this.pendingPrompts.splice(i, 1);
        this.touch(call.rollout, call.step);
        break;
      }
    }
    for (const c of this.children) {
      if (c.parentCall || c.agentId === null) continue;
      for (const r of this.rollouts()) {
        for (const call of r.calls.values()) {
          if (call.agentId === c.agentId && SUBAGENT_TOOLS.has(call.name)) {
            c.parentCall = call;
            call.child = c;
          }
        }
      }
    }
  }

  // -- links ----------------------------------------------------------------------------------

  private subagentLink(call: CallInfo, callId: string): RolloutLink {
    const input = isObject(call.input) ? call.input : {};
    const what = str(input.description) ?? str(input.subagent_type) ?? call.name;
    const label = `Subagent: ${what}`;
    const child = call.child ?? (call.agentId ? this.childByAgent.get(call.agentId) : undefined);
    if (child) return { relation: 'subagent', label, path: null, rolloutId: child.id, callId };
    const sessionId = this.main?.sessionIds[0] ?? this.mainId ?? this.base;
    if (call.agentId) {
      const name = `agent-${call.agentId}.jsonl`;
      const inSub = path.join(this.subagentsDir, name);
      const beside = path.join(this.dir, name);
      const rolloutId = `${sessionId}/agent-${call.agentId}`;
      if (this.subNames?.has(name)) return { relation: 'subagent', label, path: inSub, rolloutId, callId };
      if (!this.inSubagentsDir && this.sibNames?.has(name)) return { relation: 'subagent', label, path: beside, rolloutId, callId };
      if (this.listDone < call.listGen) return { relation: 'subagent', label, path: inSub, rolloutId, callId, missing: null };
      const missing = `no ${name} in ${this.subagentsDir}${this.inSubagentsDir ? '' : ` nor beside the session file`}`;
      if (!call.warned) {
        call.warned = true;
        this.warn({ file: this.file, line: call.agentIdLine ?? call.line, column: 1, pointer: null, expected: `the transcript of subagent ${call.agentId} (${inSub})`, found: 'no such file' });
      }
      return { relation: 'subagent', label, path: inSub, rolloutId, callId, missing };
    }
    // Without an agentId the call is unresolved for good once it is answered and the subagents
    // folder (meta files) has been read; unanswered, the subagent may still be running.
    if (call.answered && this.listDone >= 0 && this.listing === null) {
      const missing = 'the transcript does not say which subagent ran this call (no agentId, no sidechain starting with its prompt)';
      if (!call.warned) {
        call.warned = true;
        this.warn({ file: this.file, line: call.line, column: 1, pointer: null, expected: `the subagent transcript of ${call.name} call ${callId}`, found: 'none named (no agentId recorded, no sidechain with its prompt)' });
      }
      return { relation: 'subagent', label, path: null, rolloutId: null, callId, missing };
    }
    return { relation: 'subagent', label, path: null, rolloutId: null, callId, missing: 'no result and no agentId yet (the subagent may still be running)' };
  }

  private parentLinks(r: RolloutState): RolloutLink[] | undefined {
    if (r !== this.main) {
      if (!r.parentCall) return undefined;
      const pc = r.parentCall;
      return [{ relation: 'parent', label: 'Parent session', path: null, rolloutId: pc.rollout.id, stepIndex: pc.step, callId: [...pc.rollout.calls].find(([, c]) => c === pc)?.[0] ?? null }];
    }
    if (!this.isSubagentFile) return undefined;
    const sid = r.sessionIds[0] ?? (this.inSubagentsDir ? path.basename(path.dirname(this.dir)) : null);
    if (!sid) return undefined;
    const name = `${sid}.jsonl`;
    const p = path.join(this.parentDir, name);
    const meta = this.ownAgentId ? this.meta.get(this.ownAgentId) : undefined;
    const link: RolloutLink = { relation: 'parent', label: 'Parent session', path: p, rolloutId: sid, callId: meta?.toolUseId ?? null };
    if (this.parentNames && !this.parentNames.has(name)) link.missing = `no ${name} in ${this.parentDir}`;
    return [link];
  }

  // -- snapshot -------------------------------------------------------------------------------

  private materialize(r: RolloutState, b: StepBuilder): Step {
    let message = b.message ?? b.texts.join('\n\n');
    // An assistant message with no blocks at all is shown as such, never as an empty step.
    if (b.role === 'agent' && !message && !b.thoughts.length && !b.actions.length && !b.observations.length) message = '[empty assistant message]';
    const step = makeStep(b.index, b.role, {
      sourceId: b.sourceId,
      message,
      reasoning: b.thoughts.length ? b.thoughts.join('\n\n') : null,
      actions: b.actions.map((a) => ({ ...a })),
      observations: b.observations.map((o) => ({ ...o })),
      timestamp: b.firstTs,
      durationSec: b.records > 1 ? secondsBetween(b.firstTs, b.lastTs) : null,
      tokens: b.tokens,
      costUsd: b.cost,
      range: { start: b.start, end: b.end },
    });
    if (b.event) step.event = b.event;
    if (b.calls.length) step.links = b.calls.map((id) => this.subagentLink(r.calls.get(id) as CallInfo, id));
    return step;
  }

  private buildRollout(r: RolloutState, steps: Step[]): Rollout {
    const isMain = r === this.main;
    const instruction = steps.find((s) => s.role === 'user' && !s.event && s.message.trim() !== '')?.message ?? null;
    const metadata: Record<string, unknown> = {};
    if (r.gitBranch) metadata.gitBranch = r.gitBranch;
    if (isMain) {
      // A summary whose leaf is a record of this file names this session (1.x files also carry other sessions' summaries).
      const own = [...this.summaries].reverse().find((x) => x.leafUuid !== null && this.seenUuid.has(x.leafUuid));
      const title = this.titles.custom ?? this.titles.ai ?? own?.summary ?? this.titles.summary;
      if (title) metadata.title = title;
      if (this.summaries.length) metadata.summaries = this.summaries;
    }
    if (r.permissionMode) metadata.permissionMode = r.permissionMode;
    if (r.slug) metadata.slug = r.slug;
    if (r.sessionIds.length) metadata.sessionIds = r.sessionIds;
    if (r.versions.length > 1) metadata.versions = r.versions;
    if (r.models.length) metadata.models = r.models;
    if (r.agentId) metadata.agentId = r.agentId;
    const meta = r.agentId ? this.meta.get(r.agentId) : undefined;
    const pin = r.parentCall && isObject(r.parentCall.input) ? r.parentCall.input : null;
    const agentType = meta?.agentType ?? (pin ? str(pin.subagent_type) : null);
    const description = meta?.description ?? (pin ? str(pin.description) : null);
    if (agentType) metadata.subagentType = agentType;
    if (description) metadata.description = description;
    if (isMain) {
      metadata.records = Object.fromEntries(this.records);
      const pending = this.queued.filter((q) => !this.userTexts.has(q.content.trim()) && !q.content.trimStart().startsWith('<task-notification>'));
      if (pending.length) metadata.queuedMessages = pending;
      if (this.repeated.length) metadata.repeatedRecords = this.repeated;
      const unlinked = [...(this.subNames ?? [])].filter((n) => AGENT_FILE.test(n) && !this.linkedAgentFiles.has(n)).sort();
      if (unlinked.length && !this.inSubagentsDir) metadata.unlinkedSubagents = unlinked.map((n) => path.join(this.subagentsDir, n));
      if (this.issues.length) metadata.warnings = this.issues.map(formatIssue);
    }
    const out: Rollout = {
      id: r.id,
      format: 'claude-code',
      schemaVersion: null,
      source: { path: this.file, range: null, line: null },
      task: { id: null, instruction },
      agent: { name: 'claude-code', version: r.versions[0] ?? null, model: r.models[0] ?? null },
      environment: { image: null, workdir: r.cwd },
      outcome: unknownOutcome(),
      groupId: null,
      steps,
      metadata,
    };
    const links = this.parentLinks(r);
    if (links) out.links = links;
    return out;
  }

  snapshot(): StreamedRollout[] {
    this.tieSidechains();
    const rollouts = this.rollouts();
    // Steps first (materializing a link may add a warning), then the rollouts that list the warnings.
    const changed = rollouts.map((r) => {
      const from = Math.min(r.dirtyFrom, r.steps.length);
      for (let i = from; i < r.steps.length; i++) r.cache[i] = this.materialize(r, r.steps[i]);
      r.dirtyFrom = Infinity;
      return from;
    });
    return rollouts.map((r, i) => ({ rollout: this.buildRollout(r, r.cache.slice() as Step[]), changedFrom: changed[i] }));
  }
}

export const claudeCodeLoader: FormatLoader = {
  id: 'claude-code',
  label: LABEL,
  detect,
  stream(start: StreamStart): ClaudeCodeStream {
    return new ClaudeCodeStream(start);
  },
  async load(input: LoadInput): Promise<Rollout[]> {
    const s = new ClaudeCodeStream({ path: input.path, files: input.files, parseLine: input.parseLine });
    const lines = input.lines ?? (input.doc ? [{ line: 1, offset: 0, text: input.text }] : []);
    s.push(lines);
    s.end();
    await s.settle();
    const rollouts = s.snapshot().map((x) => x.rollout);
    if (rollouts.length === 0) {
      throw new RolloutLoadError(input.path, LABEL, s.issues.length ? [...s.issues] : [{ file: input.path, line: null, column: null, pointer: null, expected: 'at least one Claude Code record', found: 'none' }]);
    }
    if (s.issues.length) (input.issues ??= []).push(...s.issues);
    return rollouts;
  },
};
