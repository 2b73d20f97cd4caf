/**
 * Google Gemini CLI chat recordings, one rollout per file: the older single-JSON chats
 * (`~/.gemini/tmp/<project hash>/chats/session-<time>-<id8>.json`) and the JSONL log that replaced
 * them (`…/chats/session-<time>-<id8>.jsonl`; a subagent's `…/chats/<parent session id>/<id>.jsonl`).
 *
 * Source definitions read for this loader (google-gemini/gemini-cli):
 * - `packages/core/src/services/chatRecordingTypes.ts`: `ConversationRecord {sessionId,
 *   projectHash, startTime, lastUpdated, messages, summary?, directories?, kind?: main | subagent}`,
 *   `MessageRecord {id, timestamp, content: PartListUnion, displayContent?, type: user | gemini |
 *   info | error | warning, (gemini:) toolCalls?, thoughts?: [{subject, description, timestamp}],
 *   tokens?: {input, output, cached, thoughts?, tool?, total}, model?}`, `ToolCallRecord {id,
 *   name, args, result?: PartListUnion, status, timestamp, resultDisplay?, displayName?,
 *   description?}`, `RewindRecord {$rewindTo}`, `MetadataUpdateRecord {$set}`;
 * - `packages/core/src/services/chatRecordingService.ts`: the JSONL writer and its reader
 *   `loadConversationRecord` — the first line holds the metadata; a message is appended again,
 *   whole, each time it changes (tool calls, tokens), so a later line with the same `id` replaces
 *   the earlier one in place; `{$set: {…}}` merges metadata (a `messages` list replaces them all);
 *   `{$rewindTo: id}` removes that message and every later one; a `.json` chat resumed by a newer
 *   CLI is migrated to `.jsonl`;
 * - the tool results of `packages/core/src/tools/shell.ts` (`Command: …\nDirectory: …\nOutput: …
 *   \nError: …\nExit Code: N\nSignal: …`, older writers `Stdout:`/`Stderr:`), `write-file.ts`
 *   (`write_file {file_path, content}`) and `edit.ts` (`replace {file_path, old_string,
 *   new_string, expected_replacements? | allow_multiple?}`).
 *
 * Mapping decisions:
 * - One step per message: `user` → user step (a `<session_context>` block the CLI sends first is a
 *   system step with a `notice`; a user message made only of `functionResponse` parts — the tool
 *   results sent back to the model, which the `gemini` message's tool calls already hold — makes no
 *   step, its results fill calls that have none, and it is counted in `metadata.toolResultEchoes`);
 *   `gemini` → agent step (content → message, thoughts → reasoning as `subject\ndescription`);
 *   `info` / `warning` → system step with a `notice` event (the info "Request cancelled." →
 *   `interrupted`); `error` → `api_error`.
 * - Tool calls → actions, each with its result as the observation (`functionResponse.response`
 *   `output` or `error`, else a text `resultDisplay`): `run_shell_command` → shell with `command`
 *   (`directory` kept in the arguments; exit code only from the result's `Exit Code: N` line, marked
 *   `exitCodeFrom: 'text'`); `write_file` → `file_edit` with `edit {op:'write'}`; `replace` (and
 *   `edit` / `smart_edit` with old/new strings) → `edit {op:'replace'}`, `replaceAll` when
 *   `allow_multiple` is true or `expected_replacements` > 1; other tools by toolCalls.ts. Status
 *   `error` → `isError`, `cancelled` → `interrupted`.
 * - Tokens: prompt = `input` + `tool` (promptTokenCount + toolUsePromptTokenCount), completion =
 *   `output` + `thoughts` (candidates + thoughts: what the model generated), cached = `cached`. A
 *   count whose `total` is 0 (the CLI writes zeros when the response had no usage) is unknown (null).
 * - `environment.workdir` is read from the `<session_context>` text ("I'm currently working in the
 *   directory: …") and listed in `Rollout.derived`; the file itself records only the project hash.
 * - A rewind drops the removed messages (as the CLI's reader does) and leaves a `notice` step
 *   naming how many were removed.
 * - Bad input (each a located issue in `input.issues`, the rest shown): a line that does not parse
 *   (a truncated last line), a record or message that does not conform or has an unknown type (a raw
 *   `unknown_record` step), a tool result echo for a call not in the file, a rewind to an unknown id.
 *
 * The legacy-JSON census sample (VibeCodingTracker `examples/test_conversation_gemini.json`) has the
 * writer's shape but no `toolCalls`; the real writer records them on `gemini` messages.
 *
 * This module never imports `vscode`.
 */
import { z } from 'zod';
import { asWarning, RolloutLoadError, type LocatedIssue } from '../errors';
import type { JsonDoc, JsonlLine, JsonPath } from '../json';
import { makeStep, unknownOutcome, type Action, type Observation, type Rollout, type SourceRange, type Step, type StepEvent, type TokenCounts } from '../model';
import { lineRange, loadViaStream, parseSessionLine, shortLabel, StepPublisher, type SessionStream } from './sessionStream';
import { toolCallAction } from './toolCalls';
import type { Detection, FormatLoader, LoadInput, StreamedRollout, StreamStart } from './types';
import { isObject, num, secondsBetween, str } from './util';

const LABEL = 'Gemini CLI chat';

// ---------------------------------------------------------------------------------------------
// Schemas (the fields this loader reads; unknown keys are allowed)

const MetaSchema = z.looseObject({
  sessionId: z.string(),
  projectHash: z.string().nullish(),
  startTime: z.string().nullish(),
  lastUpdated: z.string().nullish(),
  kind: z.string().nullish(),
  summary: z.string().nullish(),
  directories: z.array(z.string()).nullish(),
});
type Meta = z.infer<typeof MetaSchema>;

const ToolCallSchema = z.looseObject({
  id: z.string().nullish(),
  name: z.string(),
  args: z.record(z.string(), z.unknown()).nullish(),
  result: z.unknown().optional(),
  status: z.string().nullish(),
  timestamp: z.string().nullish(),
  resultDisplay: z.unknown().optional(),
});
type ToolCall = z.infer<typeof ToolCallSchema>;

const TokensSchema = z.looseObject({
  input: z.number().nullish(),
  output: z.number().nullish(),
  cached: z.number().nullish(),
  thoughts: z.number().nullish(),
  tool: z.number().nullish(),
  total: z.number().nullish(),
});

const MessageSchema = z.looseObject({
  id: z.string(),
  timestamp: z.string().nullish(),
  type: z.string(),
  content: z.unknown().optional(),
  displayContent: z.unknown().optional(),
  thoughts: z.array(z.looseObject({ subject: z.string().nullish(), description: z.string().nullish() })).nullish(),
  tokens: TokensSchema.nullish(),
  model: z.string().nullish(),
  toolCalls: z.array(ToolCallSchema).nullish(),
});
type Message = z.infer<typeof MessageSchema>;

const LegacyDocSchema = MetaSchema.extend({ messages: z.array(z.unknown()) });

const MESSAGE_TYPES = new Set(['user', 'gemini', 'info', 'error', 'warning']);

// ---------------------------------------------------------------------------------------------
// Parts, results, actions

/** Text of a Gemini `PartListUnion` (a string, a part, or a list): text parts joined; other parts as `[inlineData]`, … */
export function partsText(content: unknown): string {
  if (typeof content === 'string') return content;
  const parts = Array.isArray(content) ? content : content === null || content === undefined ? [] : [content];
  return parts
    .map((p) => {
      if (typeof p === 'string') return p;
      if (!isObject(p)) return '';
      if (typeof p.text === 'string') return p.text;
      if (isObject(p.functionResponse)) return responseText(p.functionResponse.response);
      const key = Object.keys(p)[0];
      return key ? `[${key}]` : '';
    })
    .join('');
}

/** The text of a `functionResponse.response`: its `output` or `error` string, else the value as JSON. */
function responseText(response: unknown): string {
  if (typeof response === 'string') return response;
  if (isObject(response)) {
    if (typeof response.output === 'string') return response.output;
    if (typeof response.error === 'string') return response.error;
  }
  return response === undefined ? '' : JSON.stringify(response);
}

/** The `functionResponse` parts of a content value (empty when any part is something else). */
function functionResponses(content: unknown): Record<string, unknown>[] | null {
  const parts = Array.isArray(content) ? content : [content];
  const out: Record<string, unknown>[] = [];
  for (const p of parts) {
    if (!isObject(p) || !isObject(p.functionResponse)) return null;
    out.push(p.functionResponse);
  }
  return out.length ? out : null;
}

/** `Exit Code: N` of a shell tool's result text (`(none)` and absence are null). */
export function shellExitCode(text: string): number | null {
  const m = /^Exit Code: (-?\d+)\s*$/m.exec(text);
  return m ? Number(m[1]) : null;
}

const SHELL = 'run_shell_command';
const REPLACE_TOOLS = new Set(['replace', 'edit', 'smart_edit']);

/** The file a Gemini file tool names (`file_path`, older `absolute_path`, `path`). */
function toolPath(args: Record<string, unknown>): string | null {
  return str(args.file_path) ?? str(args.absolute_path) ?? str(args.path);
}

/** One Gemini tool call → Action (see the module docs). */
export function geminiAction(name: string, args: Record<string, unknown> | null | undefined, callId: string | null): Action {
  const a = args ?? {};
  const lower = name.toLowerCase();
  const path = toolPath(a);
  if (lower === 'write_file' && path !== null && typeof a.content === 'string') {
    return { kind: 'file_edit', command: null, tool: name, arguments: a, callId, path, edit: { op: 'write', path, content: a.content } };
  }
  if (REPLACE_TOOLS.has(lower) && path !== null && typeof a.old_string === 'string' && typeof a.new_string === 'string') {
    const n = num(a.expected_replacements);
    const replaceAll = a.allow_multiple === true || (n !== null && n > 1);
    return {
      kind: 'file_edit',
      command: null,
      tool: name,
      arguments: a,
      callId,
      path,
      edit: { op: 'replace', path, edits: [{ oldText: a.old_string, newText: a.new_string, replaceAll }] },
    };
  }
  return toolCallAction(name, a, callId);
}

/** The observation of a tool call, or null when it has no result yet. */
function callObservation(tc: ToolCall): Observation | null {
  let text: string | null = null;
  if (tc.result !== undefined && tc.result !== null) text = partsText(tc.result);
  if (text === null && typeof tc.resultDisplay === 'string') text = tc.resultDisplay;
  const status = tc.status ?? null;
  if (text === null && status !== 'error' && status !== 'cancelled') return null;
  const obs: Observation = { callId: tc.id ?? null, output: text ?? '', exitCode: null, truncated: false };
  if (tc.name === SHELL) {
    const code = shellExitCode(obs.output);
    if (code !== null) {
      obs.exitCode = code;
      obs.exitCodeFrom = 'text';
    }
  }
  const errorResponse = (functionResponses(tc.result) ?? []).some((r) => isObject(r.response) && typeof r.response.error === 'string');
  if (status === 'error' || errorResponse) obs.isError = true;
  if (status === 'cancelled') obs.interrupted = true;
  return obs;
}

/** Token counts of a message (module docs); null when unknown. */
export function geminiTokens(t: z.infer<typeof TokensSchema> | null | undefined): TokenCounts | null {
  if (!t || !t.total) return null;
  const input = t.input ?? null;
  const output = t.output ?? null;
  return {
    prompt: input === null ? null : input + (t.tool ?? 0),
    completion: output === null ? null : output + (t.thoughts ?? 0),
    cached: t.cached ?? null,
  };
}

const SESSION_CONTEXT = /^\s*(<session_context>|This is the Gemini CLI\. We are setting up the context for our chat\.)/;
const CONTEXT_DIR = /I'm currently working in the directory: ?([^\n]+)/;

// ---------------------------------------------------------------------------------------------
// The reducer

/** Where a message sits: its document and the path of the message inside it. */
interface Rec {
  doc: JsonDoc;
  at: JsonPath;
  range: SourceRange | null;
}

interface Draft {
  kind: 'message' | 'rewind' | 'raw';
  id: string | null;
  step: Step;
  /** Tool call ids of this step → index of the action. */
  calls: Map<string, number>;
}

function notice(kind: StepEvent['kind'], label: string): StepEvent {
  return { kind, label };
}

class GeminiReducer implements SessionStream {
  readonly issues: LocatedIssue[] = [];
  recognised = false;
  private readonly drafts: Draft[] = [];
  private readonly publisher = new StepPublisher<Draft>((d, i) => ({ ...d.step, index: i, actions: d.step.actions.slice(), observations: d.step.observations.map((o) => ({ ...o })) }));
  /** Message id → index in `drafts` (-1 for a tool result echo, which makes no step). */
  private readonly byId = new Map<string, number>();
  /** Message ids in the order of their first record (for rewinds). */
  private readonly order: string[] = [];
  private readonly models: string[] = [];
  private meta: Partial<Meta> = {};
  private layout: 'json' | 'jsonl' | null = null;
  private echoes = 0;
  private rewinds = 0;
  private lineCount = 0;

  constructor(private readonly start: StreamStart) {}

  push(lines: readonly JsonlLine[]): void {
    this.layout ??= 'jsonl';
    for (const line of lines) {
      const first = this.lineCount === 0;
      this.lineCount++;
      const doc = parseSessionLine(this.start, line, this.issues);
      if (doc) this.record({ doc, at: [], range: lineRange(line) }, first);
    }
  }

  end(): void {}

  snapshot(): StreamedRollout[] {
    if (!this.recognised) return [];
    const { steps, changedFrom } = this.publisher.publish(this.drafts);
    return [{ rollout: this.rollout(steps), changedFrom }];
  }

  /** Reads a single-JSON chat `{sessionId, projectHash, …, messages}`. */
  readJson(doc: JsonDoc): void {
    const v = doc.validate(LegacyDocSchema, LABEL);
    this.recognised = true;
    this.layout = 'json';
    this.mergeMeta(v);
    v.messages.forEach((_, i) => {
      const rec: Rec = { doc, at: ['messages', i], range: doc.rangeOf(['messages', i]) };
      this.guard(rec, () => this.message(rec));
    });
  }

  private record(rec: Rec, first: boolean): void {
    const v = rec.doc.value;
    if (!isObject(v)) {
      this.issues.push(rec.doc.issue([], 'a JSON object (one Gemini CLI chat record)'));
      return;
    }
    this.guard(rec, () => {
      if (typeof v.$rewindTo === 'string') {
        this.recognised = true;
        this.rewind(v.$rewindTo, rec);
      } else if (isObject(v.$set)) {
        this.recognised = true;
        this.metaUpdate(rec);
      } else if (typeof v.id === 'string') {
        this.recognised = true;
        this.message(rec);
      } else if (typeof v.sessionId === 'string') {
        this.recognised = true;
        this.mergeMeta(rec.doc.validate(MetaSchema, LABEL));
      } else {
        this.issues.push(rec.doc.issue([], first ? 'the metadata record `{sessionId, projectHash, startTime, …}`' : 'a message `{id, type, …}`, `{$set}` or `{$rewindTo}` record'));
        this.raw(rec, 'an unknown record');
      }
    });
  }

  private guard(rec: Rec, fn: () => void): void {
    try {
      fn();
    } catch (e) {
      if (!(e instanceof RolloutLoadError)) throw e;
      this.issues.push(...e.issues);
      this.raw(rec, 'a record that does not conform');
    }
  }

  private mergeMeta(m: Partial<Meta>): void {
    for (const [k, v] of Object.entries(m)) if (v !== undefined && k !== 'messages') (this.meta as Record<string, unknown>)[k] = v;
  }

  private metaUpdate(rec: Rec): void {
    const set = rec.doc.get(['$set']) as Record<string, unknown>;
    const { messages, ...rest } = set;
    this.mergeMeta(rest as Partial<Meta>);
    if (Array.isArray(messages)) {
      // The whole history rewritten (`updateMessagesFromHistory`): it replaces every message.
      this.drafts.length = 0;
      this.byId.clear();
      this.order.length = 0;
      this.publisher.touch(0);
      messages.forEach((_, i) => {
        const at = ['$set', 'messages', i];
        const item: Rec = { ...rec, at, range: rec.doc.rangeOf(at) };
        this.guard(item, () => this.message(item));
      });
    }
  }

  private rewind(id: string, rec: Rec): void {
    const p = this.order.indexOf(id);
    if (p < 0) {
      this.issues.push(rec.doc.issue(['$rewindTo'], 'the id of a message earlier in the chat'));
      this.notice(rec, `Rewind to ${id}: no such message, nothing removed`, 'Rewind (message not found)');
      return;
    }
    // That message and every later one are gone (the CLI's reader does the same).
    const removed = this.order.splice(p);
    const stepIndices = removed.map((m) => this.byId.get(m) ?? -1).filter((i) => i >= 0);
    for (const m of removed) this.byId.delete(m);
    const cut = stepIndices.length ? Math.min(...stepIndices) : this.drafts.length;
    this.drafts.length = Math.min(this.drafts.length, cut);
    this.publisher.touch(cut);
    this.rewinds++;
    this.notice(rec, `Rewound to message ${id}: ${removed.length} message(s) removed (${removed.join(', ')})`, `Rewind: ${removed.length} message(s) removed`);
  }

  private notice(rec: Rec, message: string, label: string): void {
    this.put(null, { kind: 'rewind', id: null, step: makeStep(0, 'system', { message, range: rec.range, event: notice('notice', label) }), calls: new Map() });
  }

  /** Puts a draft for message `id`: in place of its earlier version, else at the end. */
  private put(id: string | null, d: Draft): void {
    const at = id !== null ? this.byId.get(id) : undefined;
    if (at !== undefined && at >= 0) {
      this.drafts[at] = d;
      this.publisher.touch(at);
      return;
    }
    this.drafts.push(d);
    this.publisher.touch(this.drafts.length - 1);
    if (id !== null) {
      if (at === undefined) this.order.push(id);
      this.byId.set(id, this.drafts.length - 1);
    }
  }

  private raw(rec: Rec, what: string): void {
    const text = rec.at.length === 0 ? rec.doc.text : JSON.stringify(rec.doc.get(rec.at));
    this.put(null, { kind: 'raw', id: null, step: makeStep(0, 'system', { message: text, range: rec.range, event: notice('unknown_record', `Unread record: ${what}`) }), calls: new Map() });
  }

  private message(rec: Rec): void {
    const m: Message = rec.doc.validate(MessageSchema, LABEL, rec.at);
    const type = m.type;
    const base = { sourceId: m.id, timestamp: m.timestamp ?? null, range: rec.range };
    const draft = (step: Step): Draft => ({ kind: 'message', id: m.id, step, calls: new Map() });
    if (type === 'user') {
      const echoes = functionResponses(m.content);
      if (echoes) {
        this.echo(m.id, echoes, rec);
        return;
      }
      const text = partsText(m.content);
      if (SESSION_CONTEXT.test(text)) {
        this.put(m.id, draft(makeStep(0, 'system', { ...base, message: text, event: notice('notice', 'Session context') })));
      } else {
        this.put(m.id, draft(makeStep(0, 'user', { ...base, message: text })));
      }
      return;
    }
    if (type === 'gemini') {
      const thoughts = (m.thoughts ?? [])
        .map((t) => [t.subject?.trim(), t.description?.trim()].filter((x) => x).join('\n'))
        .filter((t) => t !== '');
      const step = makeStep(0, 'agent', { ...base, message: partsText(m.content), reasoning: thoughts.length ? thoughts.join('\n\n') : null, tokens: geminiTokens(m.tokens) });
      const d = draft(step);
      let end: string | null = null;
      for (const tc of m.toolCalls ?? []) {
        const callId = tc.id ?? null;
        d.calls.set(callId ?? `#${step.actions.length}`, step.actions.length);
        step.actions.push(geminiAction(tc.name, tc.args, callId));
        const obs = callObservation(tc);
        if (obs) step.observations.push(obs);
        if (tc.timestamp && (!end || tc.timestamp > end)) end = tc.timestamp;
      }
      step.durationSec = end ? secondsBetween(step.timestamp, end) : null;
      if (m.model && !this.models.includes(m.model)) this.models.push(m.model);
      this.put(m.id, d);
      return;
    }
    if (type === 'info' || type === 'warning' || type === 'error') {
      const text = partsText(m.content);
      // "Request cancelled." is what the CLI records when the user stops a response (Esc).
      const kind = type === 'error' ? 'api_error' : /^Request cancelled\.?$/.test(text.trim()) ? 'interrupted' : 'notice';
      const prefix = type === 'info' ? 'Info' : type === 'warning' ? 'Warning' : 'Error';
      this.put(m.id, draft(makeStep(0, 'system', { ...base, message: text, event: notice(kind, `${prefix}: ${shortLabel(text, 70)}`) })));
      return;
    }
    this.issues.push(asWarning(rec.doc.issue([...rec.at, 'type'], `a Gemini CLI message type (${[...MESSAGE_TYPES].join(', ')})`)));
    this.put(m.id, draft(makeStep(0, 'system', { ...base, message: JSON.stringify(rec.doc.get(rec.at)), event: notice('unknown_record', `Unread message type "${type}"`) })));
  }

  /** A user message of tool results: each fills its call's observation when the call has none. */
  private echo(id: string, responses: Record<string, unknown>[], rec: Rec): void {
    this.echoes++;
    if (!this.byId.has(id)) {
      this.order.push(id);
      this.byId.set(id, -1);
    }
    responses.forEach((r, i) => {
      const callId = str(r.id);
      const found = callId !== null ? this.findCall(callId) : null;
      if (!found) {
        this.issues.push(asWarning(rec.doc.issue([...rec.at, 'content', i, 'functionResponse', 'id'], 'the id of a tool call earlier in the chat')));
        return;
      }
      const [di, ai] = found;
      const step = this.drafts[di].step;
      if (step.observations.some((o) => o.callId === callId)) return;
      const text = responseText(r.response);
      const obs: Observation = { callId, output: text, exitCode: null, truncated: false };
      if (step.actions[ai].tool === SHELL) {
        const code = shellExitCode(text);
        if (code !== null) {
          obs.exitCode = code;
          obs.exitCodeFrom = 'text';
        }
      }
      if (isObject(r.response) && typeof r.response.error === 'string') obs.isError = true;
      step.observations.push(obs);
      this.publisher.touch(di);
    });
  }

  private findCall(callId: string): [number, number] | null {
    for (let i = this.drafts.length - 1; i >= 0; i--) {
      const a = this.drafts[i].calls.get(callId);
      if (a !== undefined) return [i, a];
    }
    return null;
  }

  private rollout(steps: Step[]): Rollout {
    const m = this.meta;
    const derived: string[] = [];
    const ctx = steps.find((s) => s.event?.label === 'Session context');
    const dir = ctx ? CONTEXT_DIR.exec(ctx.message)?.[1]?.trim() ?? null : null;
    if (dir) derived.push('environment.workdir');
    const metadata: Record<string, unknown> = { layout: this.layout };
    if (m.projectHash) metadata.projectHash = m.projectHash;
    if (m.startTime) metadata.startTime = m.startTime;
    if (m.lastUpdated) metadata.lastUpdated = m.lastUpdated;
    if (m.kind) metadata.kind = m.kind;
    if (m.summary) metadata.summary = m.summary;
    if (m.directories) metadata.directories = m.directories;
    if (this.models.length) metadata.models = [...this.models];
    if (this.echoes) metadata.toolResultEchoes = this.echoes;
    if (this.rewinds) metadata.rewinds = this.rewinds;
    const firstUser = steps.find((s) => s.role === 'user');
    const r: Rollout = {
      id: m.sessionId ?? this.start.path,
      format: 'gemini-cli',
      schemaVersion: null,
      source: { path: this.start.path, range: null, line: null },
      task: { id: null, instruction: firstUser ? firstUser.message : null },
      agent: { name: 'gemini-cli', version: null, model: this.models[0] ?? null },
      environment: { image: null, workdir: dir },
      outcome: unknownOutcome(),
      groupId: null,
      steps,
      metadata,
    };
    if (derived.length) r.derived = derived;
    return r;
  }
}

/** True for a Gemini CLI metadata record / chat document: `sessionId` and `projectHash` strings. */
function isChatHeader(v: unknown): v is Record<string, unknown> {
  return isObject(v) && typeof v.sessionId === 'string' && typeof v.projectHash === 'string';
}

/**
 * Gemini CLI chat recordings (module docs): `session-*.jsonl` logs (streamed) and older
 * `session-*.json` chats. One rollout per file; id = `sessionId`.
 * @throws RolloutLoadError when no chat record can be read
 */
export const geminiCliLoader: FormatLoader = {
  id: 'gemini-cli',
  label: LABEL,
  detect(input: LoadInput): Detection {
    if (input.bytes) return { accept: false, reason: 'a binary archive' };
    if (input.lines) {
      return isChatHeader(input.firstLineValue)
        ? { accept: true, confidence: 0.95 }
        : { accept: false, reason: 'the first JSONL line is not a Gemini CLI chat metadata record (`sessionId`, `projectHash`)' };
    }
    const v = input.doc?.value;
    if (isObject(v) && typeof v.sessionId === 'string' && Array.isArray(v.messages)) {
      if (typeof v.projectHash === 'string') return { accept: true, confidence: 0.95 };
      const m0 = v.messages[0];
      if (isObject(m0) && typeof m0.id === 'string' && typeof m0.type === 'string' && MESSAGE_TYPES.has(m0.type)) return { accept: true, confidence: 0.8 };
    }
    return { accept: false, reason: 'not a Gemini CLI chat (`sessionId`, `projectHash`, `messages` of `{id, type, content}`)' };
  },
  async load(input: LoadInput): Promise<Rollout[]> {
    if (!input.lines && input.doc) {
      const r = new GeminiReducer({ path: input.path, files: input.files, parseLine: input.parseLine });
      r.readJson(input.doc);
      return loadViaStream(input, LABEL, () => r);
    }
    return loadViaStream(input, LABEL, (start) => new GeminiReducer(start));
  },
  stream(start: StreamStart) {
    return new GeminiReducer(start);
  },
};
