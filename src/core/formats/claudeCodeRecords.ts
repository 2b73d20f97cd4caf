/**
 * The records of a Claude Code session transcript as the Claude Code loader (claudeCode.ts) reads
 * them: zod schemas of the fields read (loose about other keys), the bookkeeping record types,
 * the subagent tools, the names of session and subagent files, and the record tests of detection.
 * Sources: the module docs of claudeCode.ts.
 *
 * This module never imports `vscode`.
 */
import { z } from 'zod';
import { isObject } from './util';

// ---------------------------------------------------------------------------------------------
// Schemas of the fields read (loose about other keys)

const OptStr = z.string().nullish();
const OptBool = z.boolean().nullish();

/** The record envelope. */
export const RecordSchema = z.looseObject({
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
/** The envelope fields of a record. */
export type RecordEnvelope = z.infer<typeof RecordSchema>;

const Content = z.union([z.string(), z.array(z.unknown())]);
/** The `message` of a `user` record. */
export const UserMessage = z.looseObject({ role: OptStr, content: Content });
/** An assistant message's `usage`. */
export const Usage = z.looseObject({
  input_tokens: z.number().nullish(),
  output_tokens: z.number().nullish(),
  cache_creation_input_tokens: z.number().nullish(),
  cache_read_input_tokens: z.number().nullish(),
});
/** The `message` of an `assistant` record. */
export const AssistantMessage = z.looseObject({ id: OptStr, model: OptStr, content: Content, usage: Usage.nullish() });
/** A `tool_use` / `server_tool_use` block. */
export const ToolUseBlock = z.looseObject({ type: z.string(), id: z.string(), name: z.string(), input: z.unknown().optional() });
/** A `tool_result` block of a user record. */
export const ToolResultBlock = z.looseObject({
  type: z.string(),
  tool_use_id: z.string(),
  content: z.union([z.string(), z.array(z.unknown())]).nullish(),
  is_error: OptBool,
});
/** The fields of a `system` record read. */
export const SystemRecord = z.looseObject({ subtype: OptStr, content: z.unknown().optional(), level: OptStr });

/** Record types that are bookkeeping, not turns (see the module docs). */
export const NON_TURN_TYPES: ReadonlySet<string> = new Set([
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
export const SUBAGENT_TOOLS: ReadonlySet<string> = new Set(['Task', 'Agent']);

/** A session file's name (without `.jsonl`) when it is a session id. */
export const UUID_NAME = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
/** A subagent transcript's file name, and its meta file's (`agent-<agentId>.meta.json`). */
export const AGENT_FILE = /^agent-(.+)\.jsonl$/;
export const AGENT_META = /^agent-(.+)\.meta\.json$/;

// ---------------------------------------------------------------------------------------------
// Detection

/** A `user` / `assistant` record with a uuid, a sessionId and a message (what detection looks for). */
export function isMessageRecord(v: unknown): boolean {
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
export function isClaudeBookkeeping(v: unknown): boolean {
  if (!isObject(v) || typeof v.type !== 'string' || !NON_TURN_TYPES.has(v.type)) return false;
  if (v.type === 'summary') return typeof v.summary === 'string' && typeof v.leafUuid === 'string';
  if (v.type.startsWith('file-history-')) return typeof v.messageId === 'string';
  return typeof v.sessionId === 'string';
}
