/**
 * The Sessions list's reader of Codex CLI rollouts (`~/.codex/sessions/YYYY/MM/DD/rollout-<time>-<id>.jsonl`):
 * the head (cwd, session id, start, title) and the counts (model turns, tool calls, failed commands,
 * tokens) from one pass. Not a rollout loader (src/core/formats/codexCli.ts is).
 *
 * Format: written by codex-rs (github.com/openai/codex, `codex-rs/protocol/src/protocol.rs`
 * `RolloutLine` / `RolloutItem`, `codex-rs/core/src/rollout/recorder.rs`): one
 * `{timestamp, type: "session_meta"|"response_item"|"event_msg"|"turn_context"|"compacted", payload}`
 * per line, `session_meta` first. Rollouts written before that envelope (Codex CLI of mid 2025)
 * start with a bare header `{id, timestamp, instructions, cwd?, git?}`, then `{"record_type":"state"}`
 * markers and bare response items (`{type: "message", role, content}`, `{type: "function_call", …}`);
 * their cwd is the header's, or the `<cwd>` of the `<environment_context>` message Codex sends first.
 */
import { getIn, isObject, num, str } from '../formats/util';
import { requestText, shortTitle } from './text';
import type { SessionCounts, SessionHead, SessionTokens } from './types';

type Rec = Record<string, unknown>;

/** Response items the model produces (a run of them is one model turn). */
const MODEL_ITEMS = new Set(['reasoning', 'function_call', 'custom_tool_call', 'local_shell_call', 'web_search_call', 'tool_search_call', 'image_generation_call']);
/** Model items that are tool calls. */
const TOOL_ITEMS = new Set(['function_call', 'custom_tool_call', 'local_shell_call', 'web_search_call', 'tool_search_call', 'image_generation_call']);
/** Top-level record types of the envelope (anything else with a string `type` is a bare item of the older layout). */
const ENVELOPE = new Set(['session_meta', 'response_item', 'event_msg', 'turn_context', 'compacted']);

/** The response item a record carries (enveloped or bare), else null. */
function itemOf(rec: Rec): Rec | null {
  if (rec.type === 'response_item') return isObject(rec.payload) ? rec.payload : null;
  if (typeof rec.type === 'string' && !ENVELOPE.has(rec.type)) return rec;
  return null;
}

function isModelItem(item: Rec): boolean {
  return MODEL_ITEMS.has(item.type as string) || (item.type === 'message' && item.role === 'assistant');
}

/** Text of a message item's content parts (`input_text` / `output_text` / `text`). */
function messageText(item: Rec): string {
  const c = item.content;
  if (typeof c === 'string') return c;
  if (!Array.isArray(c)) return '';
  return c.flatMap((p) => (isObject(p) && typeof p.text === 'string' ? [p.text] : [])).join('\n');
}

/** The user's request in a prompt the IDE extension wrapped (`# Context from my IDE setup: … ## My request for Codex:`). */
export function ideRequest(text: string): string {
  const m = /^## My request for Codex:[ \t]*\r?\n/m.exec(text);
  return m ? text.slice(m.index + m[0].length) : text;
}

const ENV_CWD = /<environment_context>[\s\S]*?<cwd>([^<]+)<\/cwd>/;

/** Reads a rollout's head record by record (see SessionHead). */
export class CodexHead {
  private first = true;
  private sessionId: string | null = null;
  private cwd: string | null = null;
  private cwdFrom: SessionHead['cwdFrom'] = null;
  private startedAt: string | null = null;
  private version: string | null = null;
  private branch: string | null = null;
  private origin: string | null = null;
  private request: string | null = null;
  private fallback: string | null = null;

  private meta(m: Rec, ts: unknown): void {
    this.sessionId = str(m.id);
    if (typeof m.cwd === 'string' && m.cwd) {
      this.cwd = m.cwd;
      this.cwdFrom = 'record';
    }
    this.startedAt = str(m.timestamp) ?? str(ts);
    this.version = str(m.cli_version);
    this.branch = str(getIn(m, 'git', 'branch'));
    const source = m.source;
    this.origin = str(m.originator) ?? (typeof source === 'string' ? source : isObject(source) ? Object.keys(source)[0] ?? null : null);
  }

  /** Takes one record; true when the head is complete (the user's first request seen, or the model answered). */
  take(rec: Rec): boolean {
    if (this.first) {
      this.first = false;
      if (rec.type === 'session_meta' && isObject(rec.payload)) {
        this.meta(rec.payload, rec.timestamp);
        return false;
      }
      if (rec.type === undefined && typeof rec.id === 'string' && typeof rec.timestamp === 'string') {
        this.meta(rec, undefined); // the older bare header
        return false;
      }
    }
    if (this.startedAt === null && typeof rec.timestamp === 'string') this.startedAt = rec.timestamp;
    if (rec.type === 'event_msg' && isObject(rec.payload) && rec.payload.type === 'user_message' && typeof rec.payload.message === 'string') {
      this.request = requestText(ideRequest(rec.payload.message));
      if (this.request !== null) return this.cwd !== null;
    }
    if (rec.type === 'turn_context' && this.cwd === null && typeof getIn(rec, 'payload', 'cwd') === 'string') {
      this.cwd = getIn(rec, 'payload', 'cwd') as string;
      this.cwdFrom = 'record';
    }
    const item = itemOf(rec);
    if (!item) return false;
    if (item.type === 'message' && item.role === 'user') {
      const text = messageText(item);
      if (this.cwd === null) {
        const m = ENV_CWD.exec(text);
        if (m) {
          this.cwd = m[1].trim();
          this.cwdFrom = 'environment_context';
        }
      }
      this.fallback ??= requestText(ideRequest(text));
    }
    // The model answered: the user's request (and its user_message event, when this version writes one) came before.
    return isModelItem(item) && (this.request !== null || this.fallback !== null);
  }

  /** A line cut by the head budget: nothing this reader needs starts there but a `session_meta`'s cwd. */
  partial(piece: string): void {
    if (this.cwd === null && piece.includes('"type":"session_meta"')) {
      const m = /"cwd":"((?:[^"\\]|\\.)*)"/.exec(piece);
      if (m) {
        this.cwd = JSON.parse(`"${m[1]}"`) as string;
        this.cwdFrom = 'record';
      }
    }
  }

  result(bytes: number): SessionHead {
    const request = this.request ?? this.fallback;
    return {
      format: 'codex-cli',
      sessionId: this.sessionId,
      cwd: this.cwd,
      cwdFrom: this.cwdFrom,
      title: request !== null ? shortTitle(request) : null,
      titleFrom: request !== null ? 'first-request' : null,
      startedAt: this.startedAt,
      cliVersion: this.version,
      gitBranch: this.branch,
      origin: this.origin,
      sidechain: false,
      headBytes: bytes,
    };
  }
}

/**
 * The exit code a tool output records, else null: `{"output":…, "metadata":{"exit_code":N}}` (shell,
 * apply_patch), or the header of a formatted output (`Exit code: N` of the shell tool, `Process
 * exited with code N` of exec_command), read only before its `Output:` line.
 */
export function outputExitCode(output: unknown): number | null {
  if (isObject(output)) return num(getIn(output, 'metadata', 'exit_code'));
  if (typeof output !== 'string') return null;
  const s = output.trimStart();
  if (s.startsWith('{')) {
    try {
      const code = num(getIn(JSON.parse(s), 'metadata', 'exit_code'));
      if (code !== null) return code;
    } catch {
      // not JSON: a text output
    }
  }
  const head = s.slice(0, 2000).split(/\r?\nOutput:/)[0];
  const m = /^Exit code: (-?\d+)/m.exec(head) ?? /^Process exited with code (-?\d+)/m.exec(head);
  return m ? Number(m[1]) : null;
}

/** The counter's state between passes (JSON; see ClaudeCountState). */
export interface CodexCountState {
  turns: number;
  toolCalls: number;
  failed: number;
  tokens: SessionTokens | null;
  inRun: boolean;
  lastActivityAt: string | null;
  badLines: number;
}

/** Counts a rollout record by record (rules: SessionCounts). */
export class CodexCounter {
  private s: CodexCountState;

  constructor(state?: CodexCountState) {
    this.s = state ? structuredClone(state) : { turns: 0, toolCalls: 0, failed: 0, tokens: null, inRun: false, lastActivityAt: null, badLines: 0 };
  }

  bad(): void {
    this.s.badLines++;
  }

  take(rec: Rec): void {
    const s = this.s;
    if (typeof rec.timestamp === 'string') s.lastActivityAt = rec.timestamp;
    if (rec.type === 'event_msg') {
      const p = rec.payload;
      if (!isObject(p)) return;
      if (p.type === 'user_message') s.inRun = false;
      else if (p.type === 'token_count') {
        const u = getIn(p, 'info', 'total_token_usage');
        if (isObject(u)) {
          const input = num(u.input_tokens) ?? 0;
          const output = num(u.output_tokens) ?? 0;
          s.tokens = { input, output, cached: num(u.cached_input_tokens) ?? 0, total: num(u.total_tokens) ?? input + output };
        }
      }
      return;
    }
    if (rec.type === 'turn_context' || rec.type === 'compacted') {
      s.inRun = false;
      return;
    }
    const item = itemOf(rec);
    if (!item) return;
    if (isModelItem(item)) {
      if (!s.inRun) {
        s.turns++;
        s.inRun = true;
      }
      if (TOOL_ITEMS.has(item.type as string)) s.toolCalls++;
      return;
    }
    s.inRun = false;
    if (item.type === 'function_call_output' || item.type === 'custom_tool_call_output') {
      const code = outputExitCode(item.output);
      if (code !== null && code !== 0) s.failed++;
    }
  }

  state(): CodexCountState {
    return structuredClone(this.s);
  }

  counts(scannedBytes: number): SessionCounts {
    const s = this.s;
    return {
      turns: s.turns,
      toolCalls: s.toolCalls,
      failedCommands: s.failed,
      tokens: s.tokens ? { ...s.tokens } : null,
      title: null,
      titleFrom: null,
      lastActivityAt: s.lastActivityAt,
      badLines: s.badLines,
      scannedBytes,
    };
  }
}
