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
 *
 * This file holds the loader, detection and the record reader (`ClaudeCodeStream`); the record
 * schemas are in claudeCodeRecords.ts, what blocks and texts mean in claudeCodeBlocks.ts, and the
 * stream's state, subagent linking and snapshot in claudeCodeState.ts.
 */
import * as path from 'node:path';
import { RolloutLoadError, type LocatedIssue } from '../errors';
import type { JsonDoc, JsonlLine } from '../json';
import type { Observation, Role, Rollout } from '../model';
import { classifyUserText, claudeToolAction, exitCodeFromText, resultText, usageTokens, userText } from './claudeCodeBlocks';
import { AGENT_FILE, AssistantMessage, isClaudeBookkeeping, isMessageRecord, NON_TURN_TYPES, RecordSchema, SUBAGENT_TOOLS, SystemRecord, ToolResultBlock, ToolUseBlock, UserMessage, type RecordEnvelope } from './claudeCodeRecords';
import { ClaudeCodeState, type CallInfo, type RolloutState, type StepBuilder } from './claudeCodeState';
import type { Detection, FormatLoader, LoadInput, RecordStream, StreamStart } from './types';
import { isObject, num, str } from './util';

const LABEL = 'Claude Code transcript';

// ---------------------------------------------------------------------------------------------
// Detection

/** How many lines / characters detection reads at most looking for a message record. */
const DETECT_LINES = 200;
const DETECT_CHARS = 2_000_000;

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
// The reader

/** The incremental reader (RecordStream) of one Claude Code transcript; `settle()` waits for the folder listings. */
export class ClaudeCodeStream extends ClaudeCodeState implements RecordStream {
  private readonly unknownWarned = new Set<string>();

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
