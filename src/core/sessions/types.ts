/**
 * What the Sessions list knows of a coding-agent session file (Claude Code transcript, Codex CLI
 * rollout) without loading it as a rollout: a head (read from the first records) and counts (one
 * streaming pass over the file, cached). Pure data; no vscode.
 */

/** The session formats the list reads (the same ids as `FormatId` in model.ts). */
export type SessionFormat = 'claude-code' | 'codex-cli';

/** Where a session's title came from. */
export type TitleSource =
  /** Claude Code `{"type":"custom-title"}` (the user's `/rename`), the latest one. */
  | 'custom-title'
  /** Claude Code `{"type":"summary"}` or `{"type":"ai-title"}`, the latest one. */
  | 'summary'
  /** The first thing the user asked (Claude: first user message that is not a tool result, command or meta record; Codex: first `user_message` event). */
  | 'first-request'
  /** Only a slash command was typed (`/model`, `/mcp`): the command and its arguments. */
  | 'command';

/** What the first records of a session say (read before anything else; see claudeScan / codexScan `readHead`). */
export interface SessionHead {
  format: SessionFormat;
  /** The session id as recorded (Claude `sessionId`, Codex `session_meta.payload.id`), else null. */
  sessionId: string | null;
  /**
   * The directory the session started in, as recorded (Claude: the first record's `cwd`; Codex:
   * `session_meta.payload.cwd`, or for rollouts written before `session_meta` the header's `cwd` or
   * the `<cwd>` of the first `<environment_context>` message). Null when the file records none.
   */
  cwd: string | null;
  /** Where `cwd` was read: a record field, or the `<environment_context>` text Codex sent the model. */
  cwdFrom: 'record' | 'environment_context' | null;
  /** Title shown in the list (whitespace collapsed, at most TITLE_MAX characters), or null when none is recorded. */
  title: string | null;
  titleFrom: TitleSource | null;
  /** ISO-8601 time of the first record, as recorded; null when none carries a timestamp. */
  startedAt: string | null;
  /** CLI version that wrote the file (Claude `version`, Codex `cli_version`), else null. */
  cliVersion: string | null;
  /** Git branch at the start (Claude `gitBranch`, Codex `session_meta.payload.git.branch`), else null. */
  gitBranch: string | null;
  /** Codex `originator` / `source` (`codex_cli_rs`, `Codex Desktop`, `exec`, …), Claude `entrypoint`; else null. */
  origin: string | null;
  /**
   * True when the file is a subagent's transcript of another session (Claude `isSidechain: true` on
   * its first message: the older `agent-*.jsonl` files beside the sessions). Such files are not listed.
   */
  sidechain: boolean;
  /** Bytes of the file the head was read from (a file that only grew keeps its head). */
  headBytes: number;
}

/** Token totals of a session; each a sum over the model calls counted (see the counting rules). */
export interface SessionTokens {
  /** Prompt tokens, cached ones included (Claude: input + cache creation + cache read; Codex: `input_tokens`). */
  input: number;
  /** Completion tokens (reasoning included where the format counts it there). */
  output: number;
  /** Prompt tokens read from a cache (Claude `cache_read_input_tokens`, Codex `cached_input_tokens`). */
  cached: number;
  /** input + output (Codex: its `total_tokens`). */
  total: number;
}

/**
 * Counts of one session from one pass over its lines. The rules (docs/sessions.md):
 * - Claude Code: a turn per distinct assistant `message.id` (streamed records sharing an id are one
 *   turn; usage counted once, from the id's last record); tool calls = `tool_use` blocks (by id);
 *   failed = `tool_result` blocks with `is_error: true`; records with `isSidechain: true` belong to
 *   a subagent and are not counted in the parent.
 * - Codex CLI: a turn per model response (a run of reasoning / assistant message / tool-call items
 *   not interrupted by an input item: user or developer message, tool output); tool calls =
 *   `function_call`, `custom_tool_call`, `local_shell_call`, `web_search_call`; failed = tool
 *   outputs with a non-zero exit code (`metadata.exit_code`, or the `Exit code: N` / `Process exited
 *   with code N` header of the output text); tokens = the last `token_count` event's `total_token_usage`.
 */
export interface SessionCounts {
  turns: number;
  toolCalls: number;
  failedCommands: number;
  /** Null when the file records no token usage. */
  tokens: SessionTokens | null;
  /** A title record found anywhere in the file (Claude custom-title, summary, ai-title), else null. */
  title: string | null;
  titleFrom: TitleSource | null;
  /** Timestamp of the last record that has one, as recorded; null when none. */
  lastActivityAt: string | null;
  /** Complete lines that are not JSON objects (a truncated last line is not counted: it may still be written). */
  badLines: number;
  /** Byte offset up to which the file was read (end of the last complete record). */
  scannedBytes: number;
}

/** One session file the list found: its file facts, its head, and its counts once scanned. */
export interface SessionEntry {
  /** Absolute path of the session file. */
  path: string;
  /** File size in bytes and modification time (ms since the epoch) when listed. */
  size: number;
  mtimeMs: number;
  /** The file's inode when listed (a file replaced by another under the same name is read afresh). */
  ino: number;
  head: SessionHead;
  /** Null until the file has been counted (the list shows first, counts fill in). */
  counts: SessionCounts | null;
}

/** A folder holding session files. `format` null: either kind, told apart by each file's first record. */
export interface SessionRoot {
  path: string;
  format: SessionFormat | null;
  /** Why this root is listed: a default location of the tool, an environment variable, a setting or a CLI option. */
  origin: 'default' | 'env' | 'setting' | 'option';
}

/** Longest title kept (characters). */
export const TITLE_MAX = 300;
