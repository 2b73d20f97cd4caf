/**
 * The records of a Codex CLI rollout as the Codex CLI loader (codexCli.ts) reads them: zod schemas of
 * the fields read (loose about other keys), the record, response item and event types it knows,
 * and the first-record test of detection. Sources: the module docs of codexCli.ts.
 *
 * This module never imports `vscode`.
 */
import { z } from 'zod';
import { isObject } from './util';

/** Codex's rollout file names (`rollout-2025-09-19T09-02-12-<uuid>.jsonl`). */
export const ROLLOUT_NAME = /(^|[\\/])rollout-[^\\/]*\.jsonl$/;

// ---------------------------------------------------------------------------------------------
// Schemas (the fields this loader reads; unknown keys are allowed)

/** A `RolloutLine` `{timestamp, type, payload}`. */
export const LineSchema = z.looseObject({ timestamp: z.string().nullish(), type: z.string(), payload: z.unknown() });

const GitSchema = z.looseObject({ commit_hash: z.string().nullish(), branch: z.string().nullish(), repository_url: z.string().nullish() });

/** `SessionMetaLine` (also the bare header of early Rust writers). */
export const SessionMetaSchema = z.looseObject({
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
/** The session meta fields read. */
export type SessionMeta = z.infer<typeof SessionMetaSchema>;

/** `TurnContextItem`. */
export const TurnContextSchema = z.looseObject({
  cwd: z.string().nullish(),
  model: z.string().nullish(),
  approval_policy: z.unknown().optional(),
  sandbox_policy: z.unknown().optional(),
  effort: z.unknown().optional(),
  turn_id: z.string().nullish(),
});

/** Response items (`ResponseItem` of models.rs) and events (`EventMsg`) read: the fields used. */
export const MessageSchema = z.looseObject({ role: z.string(), content: z.union([z.string(), z.array(z.unknown())]).nullish(), id: z.string().nullish() });
const TextPartsSchema = z.array(z.looseObject({ text: z.string().nullish() })).nullish();
export const ReasoningSchema = z.looseObject({ summary: TextPartsSchema, content: TextPartsSchema, encrypted_content: z.string().nullish(), id: z.string().nullish() });
export const FunctionCallSchema = z.looseObject({
  name: z.string(),
  arguments: z.union([z.string(), z.record(z.string(), z.unknown())]).nullish(),
  call_id: z.string().nullish(),
  id: z.string().nullish(),
});
export const CustomToolCallSchema = z.looseObject({ name: z.string(), input: z.string().nullish(), call_id: z.string().nullish(), id: z.string().nullish() });
export const OutputSchema = z.looseObject({ call_id: z.string(), output: z.unknown() });
export const LocalShellCallSchema = z.looseObject({
  call_id: z.string().nullish(),
  id: z.string().nullish(),
  action: z.looseObject({ type: z.string().nullish(), command: z.array(z.string()).nullish(), working_directory: z.string().nullish() }),
});
export const WebSearchCallSchema = z.looseObject({ id: z.string().nullish(), status: z.string().nullish(), action: z.unknown().optional() });
export const CompactionItemSchema = z.looseObject({ encrypted_content: z.string().nullish() });

export const UsageSchema = z.looseObject({
  input_tokens: z.number().nullish(),
  cached_input_tokens: z.number().nullish(),
  output_tokens: z.number().nullish(),
  reasoning_output_tokens: z.number().nullish(),
  total_tokens: z.number().nullish(),
});
export const TokenCountSchema = z.looseObject({
  info: z.looseObject({ total_token_usage: UsageSchema.nullish(), last_token_usage: UsageSchema.nullish(), model_context_window: z.number().nullish() }).nullish(),
  // Early Rust writers: the usage itself, flat in the payload.
  input_tokens: z.number().nullish(),
  output_tokens: z.number().nullish(),
  cached_input_tokens: z.number().nullish(),
});
export const TextEventSchema = z.looseObject({ message: z.string() });
export const ReasoningEventSchema = z.looseObject({ text: z.string() });
export const TurnAbortedSchema = z.looseObject({ reason: z.string().nullish() });
export const PatchApplyEndSchema = z.looseObject({ call_id: z.string(), stdout: z.string().nullish(), stderr: z.string().nullish(), success: z.boolean().nullish() });
export const ExecCommandEndSchema = z.looseObject({
  call_id: z.string(),
  exit_code: z.number().int().nullish(),
  aggregated_output: z.string().nullish(),
  formatted_output: z.string().nullish(),
  stdout: z.string().nullish(),
  stderr: z.string().nullish(),
  command: z.array(z.string()).nullish(),
  source: z.string().nullish(),
});
export const CompactedSchema = z.looseObject({ message: z.string(), replacement_history: z.array(z.unknown()).nullish() });
/** A TypeScript-CLI session document `{session, items}`. */
export const TsSessionSchema = z.looseObject({
  session: z.looseObject({ id: z.string().nullish(), timestamp: z.string().nullish(), instructions: z.string().nullish() }),
  items: z.array(z.unknown()),
});

/** `RolloutItem` types (the `type` of a `RolloutLine`). */
export const LINE_TYPES = new Set(['session_meta', 'response_item', 'event_msg', 'turn_context', 'compacted']);
/** `ResponseItem` types this loader maps. */
export const ITEM_TYPES = new Set([
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
export const BOOKKEEPING_EVENTS = new Set([
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
// Detection

/**
 * The first line of an early Rust rollout: `{id, timestamp, instructions?, git?, cwd?, …}` without
 * `type`. Unless `loose` (a file already known to be a rollout), one of `instructions`, `git`,
 * `cli_version`, `originator` must be there.
 */
export function isLegacyHeader(v: Record<string, unknown>, loose = false): boolean {
  if (typeof v.id !== 'string' || typeof v.timestamp !== 'string') return false;
  if ('type' in v || 'kind' in v || 'source' in v || 'role' in v || 'messages' in v || 'payload' in v) return false;
  return loose || 'instructions' in v || 'git' in v || 'cli_version' in v || 'originator' in v;
}

/** Why a value is not the first record of a Codex rollout (file `path`), or null when it is one. */
export function firstRecordDecline(v: unknown, path: string): string | null {
  if (!isObject(v)) return 'the first JSONL line is not a JSON object';
  if (typeof v.type === 'string' && isObject(v.payload)) {
    if (v.type === 'session_meta' || LINE_TYPES.has(v.type)) return null;
    return `the first line's type "${v.type}" is not a Codex rollout record type`;
  }
  if (isLegacyHeader(v, ROLLOUT_NAME.test(path))) return null;
  return 'the first JSONL line is neither a `{timestamp, type, payload}` rollout record nor an early Codex session header';
}
