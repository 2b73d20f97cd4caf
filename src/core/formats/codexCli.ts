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
 * This file holds the loader and the record reader (`CodexReducer`); the record schemas and the
 * first-record test are in codexCliRecords.ts, what item contents mean (actions, observations,
 * user requests) in codexCliItems.ts, and the step drafts the reader builds in codexCliSteps.ts.
 *
 * This module never imports `vscode`.
 */
import { asWarning, RolloutLoadError } from '../errors';
import type { JsonDoc, JsonlLine } from '../json';
import { unknownOutcome, type Action, type Rollout, type Step } from '../model';
import { APPLY_PATCH_NAMES, codexAction, patchAction, readOutput, shellPatch } from './codexCliItems';
import {
  BOOKKEEPING_EVENTS,
  CompactedSchema,
  CompactionItemSchema,
  CustomToolCallSchema,
  ExecCommandEndSchema,
  firstRecordDecline,
  FunctionCallSchema,
  isLegacyHeader,
  ITEM_TYPES,
  LINE_TYPES,
  LineSchema,
  LocalShellCallSchema,
  MessageSchema,
  OutputSchema,
  PatchApplyEndSchema,
  ReasoningEventSchema,
  ReasoningSchema,
  ROLLOUT_NAME,
  SessionMetaSchema,
  TextEventSchema,
  TokenCountSchema,
  TsSessionSchema,
  TurnAbortedSchema,
  TurnContextSchema,
  WebSearchCallSchema,
  type SessionMeta,
} from './codexCliRecords';
import { CodexSteps, notice, type Rec } from './codexCliSteps';
import { lineRange, loadViaStream, parseSessionLine, shortLabel, type SessionStream } from './sessionStream';
import { parseArguments, shellCommand } from './toolCalls';
import type { Detection, FormatLoader, LoadInput, StreamedRollout, StreamStart } from './types';
import { contentText, isObject, str } from './util';

const LABEL = 'Codex CLI session';

// ---------------------------------------------------------------------------------------------
// The reducer

/** The incremental reader (SessionStream) of one Codex CLI session: reads its records into the steps of CodexSteps. */
class CodexReducer extends CodexSteps implements SessionStream {
  recognised = false;
  private lineCount = 0;

  private meta: SessionMeta | null = null;
  private layout: 'rollout-line' | 'bare-items' | 'typescript-json' | null = null;
  private readonly models: string[] = [];
  private firstTurnCwd: string | null = null;
  private turnContexts = 0;
  private approvalPolicy: unknown = undefined;
  private sandboxPolicy: unknown = undefined;
  private readonly skippedEvents: Record<string, number> = {};
  private readonly unknownEvents: Record<string, number> = {};
  private readonly skippedItems: Record<string, number> = {};
  /** The copy of `callDurations` the snapshots hand out, made again only after a duration was added (null: none yet). */
  private shownDurations: Record<string, number> | null = null;
  private extraSessionMeta = 0;

  constructor(private readonly start: StreamStart) {
    super();
  }

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
