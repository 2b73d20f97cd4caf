/**
 * Cline / Roo Code task histories: `<VS Code globalStorage>/<extension>/tasks/<task id>/
 * api_conversation_history.json` (Cline `saoudrizwan.claude-dev`, Roo Code
 * `rooveterinaryinc.roo-cline`, Kilo Code `kilocode.kilo-code`), with `ui_messages.json` beside it.
 *
 * Sources of the format: cline/cline `src/core/storage/disk.ts` (`saveApiConversationHistory`: the
 * Anthropic `MessageParam[]` the extension sends, each message extended with `ts` and, in newer
 * versions, `metrics.tokens{prompt, completion, cached}` and `modelInfo{modelId, providerId, mode}`;
 * `saveClineMessages`: the UI messages `{ts, type: "say"|"ask", say|ask, text, conversationHistoryIndex?,
 * modelInfo?}`), `src/core/assistant-message/parse-assistant-message.ts` (`parseAssistantMessageV2`:
 * tool uses written as XML in the assistant text, `<tool><param>value</param></tool>`, values
 * trimmed, `write_to_file`'s `<content>` closed by its last `</content>`), `src/core/prompts/
 * responses.ts` / `src/core/task/index.ts` (`toolDescription()` + `Result:`: each result comes back in
 * the next user message as text, `[execute_command for 'cmd'] Result:` followed by the output — one
 * block in newer versions, the header and the output as two blocks in older ones; command outputs
 * `Command executed.` (older), `Command executed successfully (exit code N).` / `Command failed with
 * exit code N.` (newer)), `src/core/assistant-message/diff.ts` (`replace_in_file` SEARCH/REPLACE
 * blocks `------- SEARCH` / `=======` / `+++++++ REPLACE`, legacy `<<<<<<< SEARCH` / `>>>>>>>
 * REPLACE`). Roo Code (RooCodeInc/Roo-Code, a Cline fork) writes the same files; its differences used
 * here: `apply_diff` SEARCH/REPLACE blocks with `:start_line:N` and a `-------` line, `Command executed
 * in terminal … within working directory '…'. Exit code: N`, environment details with `# Current
 * Mode\n<slug>…</slug>` (Cline writes `ACT MODE` / `PLAN MODE`), `isSummary` messages of context
 * condensing. Newer versions of both call tools natively: `tool_use` blocks in the assistant message,
 * the results as `tool_result` blocks or, in Cline, still as `[tool] Result:` text.
 *
 * Mapping (one rollout per task):
 * - the first user message → user step (its text without the scaffolding blocks Cline adds to every
 *   user message: `<environment_details>`, task-progress reminders; they are counted in
 *   `metadata.scaffoldingBlocks`, the working directory of their `# Current Working Directory (…)`
 *   line is `environment.workdir`); the task is the text inside its `<task>…</task>`;
 * - each assistant message → one agent step: text (a `<thinking>` block and `thinking` blocks →
 *   reasoning), tool uses as actions — `tool_use` blocks (call id = their `id`), else the XML tool
 *   tags of the text (removed from the message): `execute_command` → shell; `write_to_file` → file
 *   edit `write` (path, content); `replace_in_file` / `apply_diff` → `replace` with the SEARCH/REPLACE
 *   blocks in order (an edit whose blocks do not parse → `other` with the reason); Roo
 *   `search_and_replace` → `replace` of every occurrence; `insert_content` → `other`;
 *   `attempt_completion` → finish; others → tool (toolCalls.ts rules); tokens from `metrics.tokens`,
 *   the model from `modelInfo.modelId`, time from `ts` (epoch ms);
 * - the next user message answers them: `tool_result` blocks by `tool_use_id` (`is_error` →
 *   isError), `[tool …] Result:` text in order (the result of the first unanswered call of that tool,
 *   else of the first unanswered call); an `execute_command` result's exit code is read from the
 *   text (Cline's and Roo's sentences above; marked as read from text, null for `Command executed.`);
 *   Roo's working directory → `cwd`; the rest of the message (feedback, `[TASK RESUMPTION]`, errors)
 *   → a user step (a resumption marked `interrupted`); a result with no call to answer → a located
 *   warning and an environment step;
 * - `ui_messages.json` beside the file (also `<prefix>ui_messages.json` for a
 *   `<prefix>api_conversation_history.json`): the `task` text when the history has no `<task>`, the
 *   `api_req_started` requests (`tokensIn/Out`, `cacheReads`, `cost`) paired in order with the agent
 *   steps when their counts agree (cost per step, tokens where the message has none, the request
 *   time where the message has no `ts`, listed in `Rollout.derived`), `reasoning` texts by
 *   `conversationHistoryIndex` (the reply being produced is the next history message); a missing or
 *   unreadable file is said in `metadata.uiMessages`;
 * - `agent.name`: Cline, Roo Code or Kilo Code from the extension folder in the path, else from the
 *   content (the markers above, `metadata.agentEvidence`), null when nothing tells.
 *
 * This module never imports `vscode`.
 */
import * as path from 'node:path';
import { z } from 'zod';
import { asWarning, formatIssue, RolloutLoadError, type LocatedIssue } from '../errors';
import type { JsonDoc } from '../json';
import { makeStep, unknownOutcome, type Action, type FileEdit, type Observation, type Rollout, type Step } from '../model';
import { textExitCode } from './textToolCalls';
import { editPath, parseArguments, toolCallAction } from './toolCalls';
import type { Detection, FileAccess, FormatLoader, LoadInput } from './types';
import { contentText, isObject, maybeJson, num, singleDoc, str } from './util';

const LABEL = 'Cline / Roo Code task history (api_conversation_history.json)';

const BlockSchema = z.looseObject({ type: z.string() });
const MessageSchema = z.looseObject({
  role: z.enum(['user', 'assistant']),
  content: z.union([z.string(), z.array(BlockSchema)]),
  ts: z.number().nullish(),
  metrics: z.looseObject({ tokens: z.looseObject({ prompt: z.number().nullish(), completion: z.number().nullish(), cached: z.number().nullish() }).nullish() }).nullish(),
  modelInfo: z.looseObject({ modelId: z.string().nullish(), providerId: z.string().nullish(), mode: z.string().nullish() }).nullish(),
  isSummary: z.boolean().nullish(),
});
type Message = z.infer<typeof MessageSchema>;
type Block = Record<string, unknown> & { type: string };

// ---------------------------------------------------------------------------------------------
// Tools written as XML in the assistant text (Cline's parseAssistantMessageV2)

/** Tool names of Cline and Roo Code (a tag is a tool only when it opens one of these). */
export const CLINE_TOOLS: ReadonlySet<string> = new Set([
  'execute_command',
  'read_file',
  'write_to_file',
  'replace_in_file',
  'search_files',
  'list_files',
  'list_code_definition_names',
  'browser_action',
  'use_mcp_tool',
  'access_mcp_resource',
  'ask_followup_question',
  'plan_mode_respond',
  'plan_mode_response',
  'attempt_completion',
  'new_task',
  'load_mcp_documentation',
  'web_fetch',
  'web_search',
  'condense',
  'summarize_task',
  'report_bug',
  'new_rule',
  'use_subagents',
  // Roo Code / Kilo Code
  'apply_diff',
  'insert_content',
  'search_and_replace',
  'fetch_instructions',
  'switch_mode',
  'codebase_search',
  'update_todo_list',
  'run_slash_command',
  'generate_image',
  'edit_file',
  'apply_patch',
]);

/** One XML tool use found in a text. */
export interface XmlToolUse {
  name: string;
  params: Record<string, string>;
}

/**
 * Splits an assistant text into its text and its XML tool uses, as Cline's parser does (module docs):
 * a tool opens with `<name>` for a known tool name and closes with `</name>` (or runs to the end of the
 * text when cut off); inside it each `<param>` runs to its `</param>` (a `write_to_file` `content` to
 * the last `</content>`); values are trimmed. Returns the text outside the tools (trimmed) and the uses.
 */
export function parseXmlToolUses(text: string): { text: string; uses: XmlToolUse[] } {
  const uses: XmlToolUse[] = [];
  const kept: string[] = [];
  const open = /<([a-z_]+)>/g;
  let pos = 0;
  while (pos < text.length) {
    open.lastIndex = pos;
    let m: RegExpExecArray | null;
    do m = open.exec(text);
    while (m && !CLINE_TOOLS.has(m[1]));
    if (!m) break;
    kept.push(text.slice(pos, m.index));
    const name = m[1];
    const closeTag = `</${name}>`;
    let p = m.index + m[0].length;
    const params: Record<string, string> = {};
    let end = text.length;
    const param = /<([A-Za-z_]\w*)>/g;
    for (;;) {
      const close = text.indexOf(closeTag, p);
      param.lastIndex = p;
      const pm = param.exec(text);
      if (close >= 0 && (!pm || close < pm.index)) {
        end = close + closeTag.length;
        break;
      }
      if (!pm) break;
      const pname = pm[1];
      const vStart = pm.index + pm[0].length;
      const pClose = `</${pname}>`;
      let vEnd = text.indexOf(pClose, vStart);
      if (name === 'write_to_file' && pname === 'content') {
        // The file body may hold `</content>`: the value runs to the last one before the tool's end.
        const toolEnd = text.indexOf(closeTag, vStart);
        const last = text.lastIndexOf(pClose, toolEnd >= 0 ? toolEnd : text.length);
        if (last >= vStart) vEnd = last;
      }
      if (vEnd < 0) {
        params[pname] = text.slice(vStart).trim();
        break;
      }
      params[pname] = text.slice(vStart, vEnd).trim();
      p = vEnd + pClose.length;
    }
    uses.push({ name, params });
    pos = end;
  }
  kept.push(text.slice(pos));
  return { text: kept.join('').trim(), uses };
}

// ---------------------------------------------------------------------------------------------
// SEARCH/REPLACE blocks

const SEARCH_START = /^(?:-{3,}|<{3,}) SEARCH>?$/;
const SEARCH_END = /^={3,}$/;
const REPLACE_END = /^(?:\+{3,}|>{3,}) REPLACE>?$/;

/**
 * The replacements of a SEARCH/REPLACE diff (Cline `replace_in_file`, Roo `apply_diff`; module docs),
 * in order. Roo's `:start_line:` / `:end_line:` lines and its `-------` separator after SEARCH are
 * skipped. Throws an Error naming the line when the blocks do not close.
 */
export function searchReplaceBlocks(diff: string): { oldText: string; newText: string }[] {
  const lines = diff.replace(/\r\n/g, '\n').split('\n');
  const out: { oldText: string; newText: string }[] = [];
  let state: 'idle' | 'search' | 'replace' = 'idle';
  let search: string[] = [];
  let replace: string[] = [];
  let headerDone = false;
  lines.forEach((line) => {
    if (state === 'idle') {
      if (SEARCH_START.test(line)) {
        state = 'search';
        search = [];
        headerDone = false;
      }
      return;
    }
    if (state === 'search') {
      if (!headerDone && /^:(start|end)_line:\s*\d*\s*$/.test(line)) return;
      if (!headerDone && /^-{3,}$/.test(line)) {
        headerDone = true;
        return;
      }
      headerDone = true;
      if (SEARCH_END.test(line)) {
        state = 'replace';
        replace = [];
      } else search.push(line);
      return;
    }
    if (REPLACE_END.test(line)) {
      out.push({ oldText: search.join('\n'), newText: replace.join('\n') });
      state = 'idle';
    } else replace.push(line);
  });
  if (state !== 'idle') throw new Error(`a SEARCH/REPLACE block is not closed (${state === 'search' ? 'no =======' : 'no REPLACE marker'})`);
  if (out.length === 0) throw new Error('no SEARCH/REPLACE block');
  return out;
}

// ---------------------------------------------------------------------------------------------
// Actions

/** The path of a Cline/Roo tool's arguments: `absolutePath` (native Cline), `path`, else toolCalls.ts editPath. */
function clinePath(args: Record<string, unknown>): string | null {
  return str(args.absolutePath) ?? editPath(args);
}

/** The file change of a Cline/Roo editing tool, or undefined when the tool does not edit. */
function clineEdit(name: string, args: Record<string, unknown>): FileEdit | undefined {
  const p = clinePath(args);
  switch (name) {
    case 'write_to_file': {
      const content = str(args.content);
      if (p !== null && content !== null) return { op: 'write', path: p, content };
      return { op: 'other', path: p, reason: 'no path and content recorded' };
    }
    case 'replace_in_file':
    case 'apply_diff': {
      const diff = str(args.diff);
      if (p === null || diff === null) return { op: 'other', path: p, reason: isObject(args.args) || str(args.args) ? 'a multi-file apply_diff' : 'no path and diff recorded' };
      try {
        return { op: 'replace', path: p, edits: searchReplaceBlocks(diff).map((b) => ({ ...b, replaceAll: false })) };
      } catch (e) {
        return { op: 'other', path: p, reason: `the diff does not parse: ${(e as Error).message}` };
      }
    }
    case 'search_and_replace': {
      const search = str(args.search);
      const replace = str(args.replace) ?? '';
      const regex = args.use_regex === true || args.use_regex === 'true';
      if (p !== null && search !== null && !regex && args.start_line === undefined) return { op: 'replace', path: p, edits: [{ oldText: search, newText: replace, replaceAll: true }] };
      return { op: 'other', path: p, reason: regex ? 'a regular-expression replacement' : 'a replacement limited to lines, or without search text' };
    }
    case 'insert_content':
      return { op: 'other', path: p, reason: 'an insert at a line number (needs the file to re-apply)' };
    default:
      return undefined;
  }
}

/** One Cline/Roo tool use → Action (module docs). */
export function clineAction(name: string, rawArgs: unknown, callId: string | null): Action {
  const parsed = parseArguments(rawArgs);
  const args = isObject(parsed) ? parsed : {};
  if (name === 'attempt_completion') return { kind: 'finish', command: null, tool: name, arguments: parsed, callId };
  const edit = clineEdit(name, args);
  if (edit) return { kind: 'file_edit', command: null, tool: name, arguments: parsed, callId, path: edit.path, edit };
  const a = toolCallAction(name, parsed, callId);
  return a.kind === 'file_edit' && a.path == null ? { ...a, path: clinePath(args) } : a;
}

// ---------------------------------------------------------------------------------------------
// User messages: results, scaffolding, the rest

/**
 * A result header: `[name] Result:`, `[name for '…'] Result:`, Roo's `[read_file for 3 files] Result:`,
 * `[switch_mode to 'code' because: …] Result:` (the description may span lines; it ends at the first
 * `] Result:`).
 */
const RESULT_HEAD = /^\[([A-Za-z_][\w-]*)(?:[ :][\s\S]*?)?\] Result:/;

/** True for a block Cline adds to every user message (not typed by the user, not a result). */
function isScaffolding(text: string): boolean {
  const t = text.trimStart();
  return t.startsWith('<environment_details>') || t.startsWith('# task_progress') || t.startsWith('# TODO LIST UPDATE REQUIRED');
}

/** Exit code (read from text) and cwd of an execute_command result (module docs). */
function commandResult(text: string): { exitCode: number | null; cwd: string | null } {
  const head = text.slice(0, 2000);
  const roo = /Command executed in terminal[^\n]*? within working directory '([^'\n]*)'\.\s*Exit code: (-?\d+)/.exec(head);
  if (roo) return { exitCode: Number(roo[2]), cwd: roo[1] };
  const m =
    /Command executed successfully \(exit code (-?\d+)\)/.exec(head) ??
    /Command failed with exit code (-?\d+)/.exec(head) ??
    /Command execution was not successful[^\n]*\n\s*Exit code: (-?\d+)/.exec(head);
  return { exitCode: m ? Number(m[1]) : null, cwd: null };
}

/** Text of a tool_result block's `content` (a string or blocks). */
function resultText(content: unknown): string {
  return typeof content === 'string' ? content : contentText(content);
}

/** Milliseconds since the epoch → ISO string, null for a missing or bad value. */
function isoOf(ms: number | null | undefined): string | null {
  if (typeof ms !== 'number' || !Number.isFinite(ms)) return null;
  const d = new Date(ms);
  return Number.isNaN(d.getTime()) ? null : d.toISOString();
}

// ---------------------------------------------------------------------------------------------
// ui_messages.json

interface UiFacts {
  path: string;
  task: string | null;
  /** `api_req_started` in order: time, cost, tokens. */
  requests: { ts: string | null; cost: number | null; tokensIn: number | null; tokensOut: number | null; cacheReads: number | null }[];
  /** `reasoning` texts by the history index of the reply they belong to. */
  reasoning: Map<number, string>;
  messages: number;
  modelIds: string[];
}

/** Where `ui_messages.json` of a history file may be: beside it, and with the history file's name prefix. */
function uiMessagesPaths(file: string): string[] {
  const dir = path.dirname(file);
  const base = path.basename(file);
  const out = [path.join(dir, 'ui_messages.json')];
  if (base.endsWith('api_conversation_history.json') && base !== 'api_conversation_history.json') {
    out.unshift(path.join(dir, `${base.slice(0, -'api_conversation_history.json'.length)}ui_messages.json`));
  }
  return out;
}

async function readUiMessages(file: string, files: FileAccess): Promise<{ facts: UiFacts | null; note: string }> {
  for (const p of uiMessagesPaths(file)) {
    const text = await files.readText(p);
    if (text === null) continue;
    const v = maybeJson(text.trim());
    if (!Array.isArray(v)) return { facts: null, note: `${p} is not a JSON array; timestamps and costs were not joined` };
    const facts: UiFacts = { path: p, task: null, requests: [], reasoning: new Map(), messages: v.length, modelIds: [] };
    for (const m of v) {
      if (!isObject(m)) continue;
      const say = str(m.say);
      const ts = isoOf(num(m.ts));
      const model = isObject(m.modelInfo) ? str(m.modelInfo.modelId) : null;
      if (model && !facts.modelIds.includes(model)) facts.modelIds.push(model);
      if (m.type === 'say' && say === 'task' && facts.task === null) facts.task = str(m.text);
      if (m.type === 'say' && say === 'api_req_started') {
        const info = maybeJson(str(m.text) ?? '');
        const o = isObject(info) ? info : {};
        facts.requests.push({ ts, cost: num(o.cost), tokensIn: num(o.tokensIn), tokensOut: num(o.tokensOut), cacheReads: num(o.cacheReads) });
      }
      const chi = num(m.conversationHistoryIndex);
      const reasoning = m.type === 'say' && say === 'reasoning' && m.partial !== true ? str(m.text) : null;
      if (reasoning && chi !== null) {
        const at = chi + 1;
        facts.reasoning.set(at, facts.reasoning.has(at) ? `${facts.reasoning.get(at)}\n\n${reasoning}` : reasoning);
      }
    }
    return { facts, note: `joined ${p}` };
  }
  return { facts: null, note: 'not found beside the file (no per-request costs or UI timestamps)' };
}

// ---------------------------------------------------------------------------------------------
// Building the rollout

/** What tells Cline from Roo Code (module docs). */
function agentOf(file: string, texts: { env: string[]; results: string[]; tools: Set<string>; modelInfo: boolean }): { name: string | null; evidence: string } {
  const p = file.replace(/\\/g, '/').toLowerCase();
  if (p.includes('/rooveterinaryinc.roo-cline/')) return { name: 'Roo Code', evidence: 'extension folder rooveterinaryinc.roo-cline' };
  if (p.includes('/kilocode.kilo-code/')) return { name: 'Kilo Code', evidence: 'extension folder kilocode.kilo-code' };
  if (p.includes('/saoudrizwan.claude-dev/')) return { name: 'Cline', evidence: 'extension folder saoudrizwan.claude-dev' };
  if (texts.env.some((e) => /# Current Mode\s*\n\s*<slug>/.test(e))) return { name: 'Roo Code', evidence: 'environment details "# Current Mode" with a <slug>' };
  if (texts.results.some((r) => /Command executed in terminal .*within working directory/.test(r))) return { name: 'Roo Code', evidence: 'Roo\'s "Command executed in terminal … Exit code" results' };
  if (['apply_diff', 'update_todo_list', 'switch_mode', 'insert_content', 'search_and_replace'].some((t) => texts.tools.has(t))) return { name: 'Roo Code', evidence: 'Roo Code tool names' };
  if (texts.env.some((e) => /# Current Mode\s*\n\s*(ACT|PLAN) MODE/.test(e))) return { name: 'Cline', evidence: 'environment details "# Current Mode" ACT/PLAN MODE' };
  if (texts.modelInfo) return { name: 'Cline', evidence: 'messages with modelInfo' };
  if (['replace_in_file', 'plan_mode_respond', 'plan_mode_response'].some((t) => texts.tools.has(t))) return { name: 'Cline', evidence: 'Cline tool names' };
  return { name: null, evidence: 'nothing in the path or content tells Cline from Roo Code' };
}

interface Pending {
  step: Step;
  action: Action;
}

async function clineRollout(input: LoadInput, doc: JsonDoc): Promise<Rollout> {
  const messages: Message[] = doc.validate(z.array(MessageSchema).min(1), LABEL);
  const issues: LocatedIssue[] = [];
  const steps: Step[] = [];
  const add = (role: Step['role'], fields: Partial<Step>): Step => {
    const s = makeStep(steps.length, role, fields);
    steps.push(s);
    return s;
  };
  const evidence = { env: [] as string[], results: [] as string[], tools: new Set<string>(), modelInfo: false };
  let pending: Pending[] = [];
  let scaffolding = 0;
  const workdirs: string[] = [];
  let task: string | null = null;
  const models: string[] = [];
  const agentIndexByMessage = new Map<number, Step>();

  messages.forEach((m, i) => {
    const range = doc.rangeOf([i]);
    const timestamp = isoOf(m.ts);
    const blocks: Block[] = typeof m.content === 'string' ? [{ type: 'text', text: m.content }] : (m.content as Block[]);
    if (m.modelInfo) {
      evidence.modelInfo = true;
      const id = m.modelInfo.modelId;
      if (id && !models.includes(id)) models.push(id);
    }
    if (m.role === 'assistant') {
      const texts: string[] = [];
      const reasoning: string[] = [];
      const actions: Action[] = [];
      for (const b of blocks) {
        if (b.type === 'text') texts.push(str(b.text) ?? '');
        else if (b.type === 'thinking') reasoning.push(str(b.thinking) ?? '');
        else if (b.type === 'reasoning') reasoning.push(str(b.text) ?? str(b.reasoning) ?? '');
        else if (b.type === 'redacted_thinking') reasoning.push('[redacted thinking]');
        else if (b.type === 'tool_use') {
          const name = str(b.name) ?? '';
          evidence.tools.add(name);
          actions.push(clineAction(name, b.input, str(b.id)));
        } else texts.push(`[${b.type}]`);
      }
      let message = texts.join('\n');
      const think = /<thinking>([\s\S]*?)<\/thinking>/g;
      message = message.replace(think, (_all, t: string) => {
        reasoning.push(t.trim());
        return '';
      });
      if (actions.length === 0) {
        const parsed = parseXmlToolUses(message);
        for (const u of parsed.uses) {
          evidence.tools.add(u.name);
          actions.push(clineAction(u.name, u.params, null));
        }
        if (parsed.uses.length) message = parsed.text;
      }
      message = message.trim();
      const t = m.metrics?.tokens;
      const step = add('agent', {
        sourceId: i,
        message,
        reasoning: reasoning.filter((r) => r.trim() !== '').join('\n\n') || null,
        actions,
        timestamp,
        range,
        tokens: t ? { prompt: t.prompt ?? null, completion: t.completion ?? null, cached: t.cached ?? null } : null,
      });
      if (m.isSummary) step.event = { kind: 'compaction', label: 'context condensed (summary)' };
      agentIndexByMessage.set(i, step);
      pending = actions.map((action) => ({ step, action }));
      return;
    }
    // A user message: results of the previous agent step's calls, scaffolding, the rest.
    const rest: string[] = [];
    const answer = (callId: string | null, toolName: string | null, obs: Omit<Observation, 'callId'>, at: (string | number)[]): void => {
      let k = callId !== null ? pending.findIndex((p) => p.action.callId === callId) : -1;
      if (k < 0 && callId === null && toolName) k = pending.findIndex((p) => p.action.tool === toolName);
      if (k < 0 && callId === null) k = 0 < pending.length ? 0 : -1;
      if (k < 0) {
        issues.push(asWarning(doc.issue(at, 'the result of a tool call of the previous assistant message', callId ? `a tool_result for unknown tool_use_id ${JSON.stringify(callId)}` : `a result (${toolName ?? 'tool'}) with no call left to answer`)));
        add('environment', { sourceId: i, observations: [{ callId, ...obs }], timestamp, range });
        return;
      }
      const p = pending[k];
      pending.splice(k, 1);
      p.step.observations.push({ callId: callId ?? p.action.callId, ...obs });
    };
    const observation = (toolName: string | null, output: string, isError: boolean): Omit<Observation, 'callId'> => {
      const base: Omit<Observation, 'callId'> = { output, exitCode: null, truncated: false };
      const isCommand = toolName === 'execute_command' || (toolName === null && pending[0]?.action.kind === 'shell');
      if (isCommand) {
        const r = commandResult(output);
        Object.assign(base, textExitCode(r.exitCode));
        if (r.cwd) base.cwd = r.cwd;
      }
      if (isError) base.isError = true;
      return base;
    };
    for (let k = 0; k < blocks.length; k++) {
      const b = blocks[k];
      const at: (string | number)[] = typeof m.content === 'string' ? [i, 'content'] : [i, 'content', k];
      if (b.type === 'tool_result') {
        const out = resultText(b.content);
        const callId = str(b.tool_use_id);
        const known = pending.find((p) => p.action.callId === callId);
        answer(callId, null, observation(known ? known.action.tool : null, out, b.is_error === true), at);
        continue;
      }
      if (b.type !== 'text') {
        rest.push(contentText([b]));
        continue;
      }
      const text = str(b.text) ?? '';
      if (isScaffolding(text)) {
        scaffolding++;
        if (text.trimStart().startsWith('<environment_details>')) {
          evidence.env.push(text);
          const wd = /# Current Working Directory \(([^)\n]+)\)/.exec(text);
          if (wd && !workdirs.includes(wd[1])) workdirs.push(wd[1]);
        }
        continue;
      }
      const head = RESULT_HEAD.exec(text);
      if (head) {
        let out = text.slice(head[0].length).replace(/^[ \t]*\n?/, '');
        // Older Cline: the header alone, the output in the next block.
        if (out.trim() === '' && k + 1 < blocks.length && blocks[k + 1].type === 'text' && !RESULT_HEAD.test(str(blocks[k + 1].text) ?? '') && !isScaffolding(str(blocks[k + 1].text) ?? '')) {
          out = str(blocks[++k].text) ?? '';
        }
        evidence.results.push(out.slice(0, 300));
        const name = head[1];
        const tool = CLINE_TOOLS.has(name) ? name : pending.find((p) => p.action.tool === `use_${name}`)?.action.tool ?? null;
        answer(null, tool, observation(tool, out, /^\s*(?:\[ERROR\]|Error)/.test(out)), at);
        continue;
      }
      rest.push(text);
    }
    const text = rest.join('\n').trim();
    if (i === 0) {
      const t = /<task>\s*([\s\S]*?)\s*<\/task>/.exec(text);
      task = t ? t[1] : null;
    }
    if (text !== '' || i === 0) {
      const step = add('user', { sourceId: i, message: text, timestamp, range });
      if (/^\[TASK RESUMPTION\]/.test(text)) step.event = { kind: 'interrupted', label: 'task resumed after an interruption' };
      if (m.isSummary) step.event = { kind: 'compaction', label: 'context condensed (summary)' };
    }
  });

  const { facts: ui, note } = await readUiMessages(input.path, input.files);
  const derived: string[] = [];
  const agents = steps.filter((s) => s.role === 'agent');
  const metadata: Record<string, unknown> = { layout: 'api_conversation_history', messages: messages.length, uiMessages: ui ? { path: ui.path, messages: ui.messages, apiRequests: ui.requests.length } : { path: null, note } };
  if (ui) {
    task ??= ui.task;
    if (ui.requests.length === agents.length) {
      let total = 0;
      let any = false;
      agents.forEach((s, k) => {
        const r = ui.requests[k];
        if (r.cost !== null) {
          s.costUsd = r.cost;
          total += r.cost;
          any = true;
        }
        if (s.tokens === null && (r.tokensIn !== null || r.tokensOut !== null)) s.tokens = { prompt: r.tokensIn, completion: r.tokensOut, cached: r.cacheReads };
        if (s.timestamp === null && r.ts) {
          s.timestamp = r.ts;
          if (!derived.includes('steps.timestamp')) derived.push('steps.timestamp');
        }
      });
      if (any) metadata.totalCostUsd = Math.round(total * 1e9) / 1e9;
      (metadata.uiMessages as Record<string, unknown>).pairing = 'api_req_started in order with the agent steps';
    } else {
      const total = ui.requests.reduce<number | null>((acc, r) => (r.cost !== null ? (acc ?? 0) + r.cost : acc), null);
      if (total !== null) metadata.totalCostUsd = Math.round(total * 1e9) / 1e9;
      (metadata.uiMessages as Record<string, unknown>).pairing = `not paired: ${ui.requests.length} api_req_started for ${agents.length} agent steps`;
    }
    for (const [at, text] of ui.reasoning) {
      const s = agentIndexByMessage.get(at);
      if (s && s.reasoning === null) s.reasoning = text;
    }
    for (const m of ui.modelIds) if (!models.includes(m)) models.push(m);
  }
  for (let k = 0; k + 1 < steps.length; k++) {
    const a = steps[k];
    const b = steps[k + 1];
    if (a.role === 'agent' && a.timestamp && b.timestamp) {
      const d = (Date.parse(b.timestamp) - Date.parse(a.timestamp)) / 1000;
      if (d >= 0) a.durationSec = d;
    }
  }
  const agent = agentOf(input.path, evidence);
  metadata.agentEvidence = agent.evidence;
  if (scaffolding) metadata.scaffoldingBlocks = scaffolding;
  if (workdirs.length > 1) metadata.workdirs = workdirs;
  if (models.length) metadata.models = models;
  if (issues.length) {
    (input.issues ??= []).push(...issues);
    metadata.warnings = issues.map(formatIssue);
  }
  const dir = path.basename(path.dirname(input.path));
  const r: Rollout = {
    id: /^\d{10,}$/.test(dir) ? dir : input.path,
    format: 'cline',
    schemaVersion: null,
    source: { path: input.path, range: null, line: null },
    task: { id: null, instruction: task ?? steps.find((s) => s.role === 'user')?.message ?? null },
    agent: { name: agent.name, version: null, model: models[0] ?? null },
    environment: { image: null, workdir: workdirs[0] ?? null },
    outcome: unknownOutcome(),
    groupId: null,
    steps,
    metadata,
  };
  if (derived.length) r.derived = derived;
  return r;
}

// ---------------------------------------------------------------------------------------------
// Detection

/** Cline's markers in the first messages: its tags, result headers, environment details. */
function hasClineMarkers(items: unknown[]): boolean {
  for (const m of items.slice(0, 4)) {
    if (!isObject(m)) continue;
    const text = contentText(m.content);
    if (/<environment_details>|<task>|\] Result:|<(execute_command|write_to_file|replace_in_file|read_file|attempt_completion|apply_diff)>/.test(text)) return true;
    if (Array.isArray(m.content) && m.content.some((b) => isObject(b) && b.type === 'tool_use' && typeof b.name === 'string' && CLINE_TOOLS.has(b.name))) return true;
  }
  return false;
}

/** True for an Anthropic message: role user/assistant, content a string or typed blocks. */
function isAnthropicMessage(v: unknown): boolean {
  if (!isObject(v) || (v.role !== 'user' && v.role !== 'assistant')) return false;
  return typeof v.content === 'string' || (Array.isArray(v.content) && v.content.every((b) => isObject(b) && typeof b.type === 'string'));
}

/**
 * Loader for Cline / Roo Code `api_conversation_history.json` (format `cline`, module docs). Detects a
 * top-level JSON array of Anthropic messages starting with a user message, with Cline's markers
 * (`<task>`, `<environment_details>`, `[tool] Result:`, its tool tags or tool names) in the first
 * messages, or named `api_conversation_history.json`.
 * @throws RolloutLoadError when the array's messages do not conform (role, content)
 */
export const clineLoader: FormatLoader = {
  id: 'cline',
  label: LABEL,
  detect(input): Detection {
    const v = input.doc?.value;
    if (!Array.isArray(v)) return { accept: false, reason: 'not a top-level JSON array of messages' };
    if (v.length === 0 || !isAnthropicMessage(v[0]) || (v[0] as Record<string, unknown>).role !== 'user') return { accept: false, reason: 'the array does not start with an Anthropic user message {role, content}' };
    if (!v.slice(0, 4).every(isAnthropicMessage)) return { accept: false, reason: 'the first array items are not all Anthropic messages {role: user|assistant, content}' };
    if (hasClineMarkers(v)) return { accept: true, confidence: 0.9 };
    if (/api_conversation_history\.json$/i.test(path.basename(input.path))) return { accept: true, confidence: 0.7 };
    return { accept: false, reason: 'an Anthropic message array without Cline markers (<task>, <environment_details>, "[tool] Result:") and not named api_conversation_history.json' };
  },
  async load(input) {
    const doc = singleDoc(input, LABEL);
    if (!Array.isArray(doc.value)) throw new RolloutLoadError(input.path, LABEL, [doc.issue([], 'a JSON array of messages')]);
    return [await clineRollout(input, doc)];
  },
};
