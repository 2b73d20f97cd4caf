/**
 * What the contents of Claude Code records mean, for the Claude Code loader (claudeCode.ts): the
 * text of tool results and user messages, what a user text is (a request, a slash command, a
 * notice, an interruption, a compaction summary), tool calls → actions (with the FileEdit of the
 * editor tools), usage → token counts, and the exit code a Bash result's text states. Sources: the
 * module docs of claudeCode.ts.
 *
 * This module never imports `vscode`.
 */
import type { z } from 'zod';
import type { Action, FileEdit, Role, StepEvent, TokenCounts } from '../model';
import type { RecordEnvelope, Usage } from './claudeCodeRecords';
import { toolCallAction } from './toolCalls';
import { isObject, num, str } from './util';

/** Text of a tool result's content: a string, or blocks (`text`; `image` → `[image]`; others `[type]`). */
export function resultText(content: unknown): string {
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
export function userText(content: string | unknown[]): string {
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

/** What a user text is: the step's role, message and event. */
export interface TurnKind {
  role: Role;
  message: string;
  event: StepEvent | null;
}

/** What a user (or `local_command` system) text is: a request, or a command echo, a notice, an interruption. */
export function classifyUserText(text: string, rec: RecordEnvelope): TurnKind {
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

/** Token counts of a usage: prompt = input + cache creation + cache read, completion = output, cached = cache read; null when it has none. */
export function usageTokens(u: z.infer<typeof Usage> | null | undefined): TokenCounts | null {
  if (!u) return null;
  const input = num(u.input_tokens);
  const output = num(u.output_tokens);
  const created = num(u.cache_creation_input_tokens);
  const read = num(u.cache_read_input_tokens);
  if (input === null && output === null && created === null && read === null) return null;
  return { prompt: input === null ? null : input + (created ?? 0) + (read ?? 0), completion: output, cached: read };
}

/** "Exit code N" at the start of a Bash result's text (the CLI writes it for a non-zero exit). */
export function exitCodeFromText(text: string): number | null {
  const m = /^(?:Error: )?Exit code (-?\d+)\b/.exec(text.trimStart());
  return m ? Number(m[1]) : null;
}
