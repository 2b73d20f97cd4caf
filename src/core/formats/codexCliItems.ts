/**
 * What the contents of Codex response items mean, for the Codex CLI loader (codexCli.ts): tool
 * calls → actions (apply_patch through a function, a custom tool or the shell → file edits),
 * tool outputs → observations (exit codes recorded or read from text, durations), and user
 * messages → the user's request or context the harness added. Sources: the module docs of
 * codexCli.ts.
 *
 * This module never imports `vscode`.
 */
import type { Action, FileEdit, Observation } from '../model';
import { editPath, parseArguments, shellCommand, toolCallAction } from './toolCalls';
import { contentText, isObject, num, str } from './util';

// ---------------------------------------------------------------------------------------------
// Tool calls → actions

/** Shell tools whose arguments hold a command (beyond toolCalls.ts SHELL_TOOLS, which has the others). */
const CONTAINER_EXEC = 'container.exec';
/** Tool names of apply_patch (as a function, a custom tool or the argv[0] of a shell call). */
export const APPLY_PATCH_NAMES = new Set(['apply_patch', 'applypatch']);
/** `apply_patch <<'EOF' … EOF` (optionally after `cd DIR &&`), as models send it through the shell tool. */
const HEREDOC_PATCH = /^\s*(?:cd\s+\S+\s*&&\s*)?(?:apply_patch|applypatch)\s*<<-?\s*(['"]?)([\w-]+)\1[^\n]*\n([\s\S]*?)\n\2\s*$/;

/** The patch text of a shell call that runs apply_patch (argv or heredoc), else null. */
export function shellPatch(args: Record<string, unknown>): string | null {
  const c = args.command;
  if (Array.isArray(c) && c.length === 2 && typeof c[0] === 'string' && typeof c[1] === 'string' && APPLY_PATCH_NAMES.has(c[0].split('/').pop() ?? '')) {
    return c[1];
  }
  const script = shellCommand(args);
  const m = script ? HEREDOC_PATCH.exec(script) : null;
  return m ? m[3] : null;
}

/** A `file_edit` action for an apply_patch call; a text that is no `*** Begin Patch` patch is kept as `edit {op:'other'}`. */
export function patchAction(tool: string, args: unknown, callId: string | null, patch: string): Action {
  const isPatch = /^\s*\*\*\* Begin Patch\b/.test(patch);
  const path = isPatch ? editPath({ input: patch }) : null;
  const edit: FileEdit = isPatch
    ? { op: 'patch', path, patch, dialect: 'codex' }
    : { op: 'other', path: null, reason: 'the apply_patch input is not a "*** Begin Patch" patch (redacted or malformed)' };
  const action: Action = { kind: 'file_edit', command: null, tool, arguments: args, callId, path, edit };
  if (args === undefined) delete action.arguments;
  return action;
}

/**
 * One Codex function call → Action: apply_patch (as a function or through the shell) → file edit,
 * `container.exec` → shell, `write_stdin` → keystrokes, the rest by toolCalls.ts `toolCallAction`.
 */
export function codexAction(name: string, rawArgs: unknown, callId: string | null): Action {
  const args = parseArguments(rawArgs);
  const obj = isObject(args) ? args : {};
  const lower = name.toLowerCase();
  if (APPLY_PATCH_NAMES.has(lower)) {
    const patch = str(obj.input) ?? str(obj.patch) ?? (typeof args === 'string' ? args : null);
    if (patch !== null) return patchAction(name, args, callId, patch);
  }
  const action = toolCallAction(name, rawArgs, callId);
  if (action.kind === 'shell' || lower === CONTAINER_EXEC) {
    const patch = shellPatch(obj);
    if (patch !== null) return patchAction(name, args, callId, patch);
    if (lower === CONTAINER_EXEC && action.kind !== 'shell') {
      const command = shellCommand(obj);
      if (command !== null) return { ...action, kind: 'shell', command };
    }
  }
  if (lower === 'write_stdin' && typeof obj.chars === 'string') return { ...action, kind: 'keystrokes', command: obj.chars };
  return action;
}

// ---------------------------------------------------------------------------------------------
// Outputs → observations

/** Codex's truncation markers in model-visible tool output. */
const TRUNCATION_MARKERS = [/\[\.\.\. omitted \d+ of \d+ lines \.\.\.\]/, /…\d+ tokens truncated…/, /\[\.\.\. \d+ (?:bytes|characters|tokens) truncated \.\.\.\]/];

/** What a tool output says: its text, exit code (and where it came from), duration, error flag. */
export interface CodexOutput {
  text: string;
  exitCode: number | null;
  exitCodeFrom: 'recorded' | 'text' | null;
  durationSec: number | null;
  isError: boolean;
}

/**
 * Reads a `function_call_output` / `custom_tool_call_output` value: the shell tool's JSON
 * `{output, metadata:{exit_code, duration_seconds}}` (recorded exit code), a text whose header
 * (the lines before `Output:`, or its first line) says `Exit code: N` / `Process exited with code
 * N` (exit code from text; `Wall time: S seconds` the duration), content items, or `{content,
 * success}`.
 */
export function readOutput(output: unknown): CodexOutput {
  const res: CodexOutput = { text: '', exitCode: null, exitCodeFrom: null, durationSec: null, isError: false };
  if (typeof output === 'string') {
    const t = output.trimStart();
    if (t.startsWith('{') && output.length < 50_000_000) {
      const v = parseArguments(output);
      if (isObject(v) && typeof v.output === 'string' && isObject(v.metadata)) {
        res.text = v.output;
        const code = num(v.metadata.exit_code);
        if (code !== null && Number.isInteger(code)) {
          res.exitCode = code;
          res.exitCodeFrom = 'recorded';
        }
        res.durationSec = num(v.metadata.duration_seconds);
        return res;
      }
    }
    res.text = output;
    // Early writers stored content items as a JSON string (`[{"text": …, "type": "text"}]`).
    if (t.startsWith('[{') && output.length < 50_000_000) {
      const items = parseArguments(output);
      if (Array.isArray(items) && items.every((i) => isObject(i) && typeof i.text === 'string')) res.text = contentText(items);
    }
  } else if (Array.isArray(output)) {
    res.text = contentText(output);
  } else if (isObject(output)) {
    res.text = typeof output.content === 'string' ? output.content : contentText(output.content ?? output);
    if (output.success === false) res.isError = true;
  } else if (output !== null && output !== undefined) {
    res.text = String(output);
  }
  const lines = res.text.split('\n', 40);
  const end = lines.findIndex((l) => l.trim() === 'Output:');
  for (const l of end >= 0 ? lines.slice(0, end) : lines.slice(0, 1)) {
    const m = /^(?:Exit code:|Process exited with code)\s*(-?\d+)\s*$/.exec(l.trim());
    if (m) {
      res.exitCode = Number(m[1]);
      res.exitCodeFrom = 'text';
    }
    const w = /^Wall time:\s*([\d.]+)\s*seconds?\s*$/.exec(l.trim());
    if (w) res.durationSec = Number(w[1]);
  }
  return res;
}

/** The Observation of call `callId` from what its output says (truncation markers → truncated). */
export function observationOf(callId: string | null, o: CodexOutput): Observation {
  const obs: Observation = { callId, output: o.text, exitCode: o.exitCode, truncated: TRUNCATION_MARKERS.some((re) => re.test(o.text)) };
  if (o.exitCodeFrom === 'text') obs.exitCodeFrom = 'text';
  if (o.isError) obs.isError = true;
  return obs;
}

// ---------------------------------------------------------------------------------------------
// User messages

const USER_REQUEST_MARKER = '## My request for Codex:';

/** The label of a user message that is context rather than the user's request, else null. */
export function userContextLabel(text: string): string | null {
  const t = text.trimStart();
  if (t.startsWith('<environment_context>')) return 'Environment context';
  if (t.startsWith('<user_instructions>') || t.startsWith('# AGENTS.md instructions for')) return 'User instructions (AGENTS.md)';
  if (t.startsWith('# Context from my IDE setup:') && !t.includes(USER_REQUEST_MARKER)) return 'IDE context';
  return null;
}

/** The user's request in a message: the text after `## My request for Codex:` when the IDE block wraps it, else the text. */
export function userRequestText(text: string): string {
  const i = text.indexOf(USER_REQUEST_MARKER);
  return i >= 0 ? text.slice(i + USER_REQUEST_MARKER.length).trim() : text;
}

/** `<cwd>…</cwd>` of an `<environment_context>` message, or null. */
export function contextCwd(text: string): string | null {
  const m = /<cwd>([^<]+)<\/cwd>/.exec(text);
  return m ? m[1].trim() : null;
}
