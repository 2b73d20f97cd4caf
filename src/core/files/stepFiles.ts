/**
 * Which files each step of a rollout read or changed, and how precisely the record says what
 * changed: the base of the gutter marks on workspace files, *Show Steps That Touched This File*,
 * a step's edit as a diff and the timeline's file chips.
 *
 * Read from a step's actions:
 * - a recorded `Action.edit` (the loaders' `FileEdit`: Claude Code `Edit`/`MultiEdit`/`Write`,
 *   Gemini CLI `write_file`/`replace`, Codex `apply_patch`, Copilot CLI, Cline): a precise change;
 *   a Codex patch gives one touch per file it adds, updates, moves or deletes, a unified diff one
 *   per file it names;
 * - editor tools recorded only by their arguments (Anthropic's `str_replace_editor` /
 *   `str_replace_based_edit_tool` as SWE-agent and OpenHands run it, OpenHands `file_editor`,
 *   SWE-agent's `edit {search, replace, replace-all}`): `create` (`file_text`) is a write,
 *   `str_replace` (`old_str`/`new_str`) a replacement, `view` a read, the rest (`insert`,
 *   `undo_edit`, an LLM edit) a change the record does not spell out;
 * - reading tools: Claude Code `Read`, Gemini CLI `read_file`, `view`/`open`/`cat` tools with a path;
 * - shell commands, where the intent is plain: `cat > f <<'EOF' … EOF` (a write with the heredoc's
 *   text), redirections `> f` / `>> f`, `tee f`, `sed -i … f`, `rm f`, `touch f` (changes the
 *   record does not spell out), and `cat`/`head`/`tail`/`nl`/`less`/`sed -n` of files (reads).
 *   Anything fancier (variables, globs, subshells) is not guessed at.
 *
 * Paths are returned absolute (POSIX), a relative path resolved against the rollout's recorded
 * working directory (`environment.workdir`); a relative path without one, a Windows path, and
 * `/dev/…` are left out. `mapPath` maps them into a workspace (the user's path map).
 *
 * Whether an edit applied comes from its observation (replay/edits.ts `recordedEditOutcome`).
 *
 * This module never imports `vscode`.
 */
import * as posix from 'node:path/posix';
import { parsePatch as parseUnified, type StructuredPatch } from 'diff';
import type { Action, Rollout, Step } from '../model';
import { parsePatch as parseCodexPatch, type UpdateChunk } from '../replay/applyPatch';
import { recordedEditOutcome, type RecordedEditOutcome } from '../replay/edits';

/**
 * A change to one file as the record holds it:
 * - `write`: the whole new content (`created` when the record says the file was new: a Codex
 *   `Add File`, an editor `create`, a heredoc written with `>`);
 * - `replace`: old → new texts in order (`replaceAll`: every occurrence);
 * - `codex-update`: the chunks of a Codex `*** Update File:` hunk;
 * - `unified`: one file's part of a unified diff;
 * - `delete`: the file was removed;
 * - `opaque`: changed, but the record does not say how (`sed -i`, `>> f`, an editor `insert`).
 */
export type RecordedChange =
  | { op: 'write'; content: string; created: boolean }
  | { op: 'replace'; edits: { oldText: string; newText: string; replaceAll: boolean }[] }
  | { op: 'codex-update'; chunks: UpdateChunk[] }
  | { op: 'unified'; patch: StructuredPatch }
  | { op: 'delete' }
  | { op: 'opaque'; reason: string };

/** One file a step read or changed. */
export interface StepFileTouch {
  stepIndex: number;
  /** Position of the action in `Step.actions`. */
  actionIndex: number;
  /** Absolute POSIX path as the agent saw it (relative paths resolved against the rollout's workdir). */
  path: string;
  kind: 'read' | 'edit';
  /** For `edit`: what changed, as precisely as the record says. Null for reads. */
  change: RecordedChange | null;
  /** What did it, for people: the tool name, or `shell: sed -i`. */
  via: string;
  /** For `edit`: whether the record says it applied (failed and rejected edits changed nothing). */
  outcome: RecordedEditOutcome;
}

const READ_TOOLS = new Set(['read', 'read_file', 'view', 'open', 'cat', 'read_many_files', 'view_file', 'open_file']);
const EDITOR_TOOLS = new Set(['str_replace_editor', 'str_replace_based_edit_tool', 'file_editor']);

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const str = (v: unknown): string | null => (typeof v === 'string' && v !== '' ? v : null);

/** The absolute path of a recorded path, or null when it cannot be placed (relative without a workdir, Windows, a device). */
export function absolutePath(p: string, workdir: string | null): string | null {
  const t = p.trim();
  if (!t || /^[A-Za-z]:[\\/]/.test(t) || t.startsWith('\\\\')) return null;
  const abs = t.startsWith('/') ? posix.normalize(t) : workdir && workdir.startsWith('/') ? posix.resolve(workdir, t) : null;
  if (!abs || abs.startsWith('/dev/') || abs === '/dev' || abs === '/proc' || abs.startsWith('/proc/')) return null;
  return abs.length > 1 ? abs.replace(/\/+$/, '') : abs;
}

/** One entry of a path map: recorded paths under `from` are read as under `to` (both absolute). */
export interface PathMapping {
  from: string;
  to: string;
}

/**
 * Maps an absolute recorded path through `maps`: the longest `from` that is the path or a folder
 * above it (at a `/` boundary) is replaced by its `to`; a path no entry covers is returned as is.
 */
export function mapPath(p: string, maps: readonly PathMapping[]): string {
  let best: PathMapping | null = null;
  for (const m of maps) {
    const from = m.from.length > 1 ? m.from.replace(/\/+$/, '') : m.from;
    if ((p === from || p.startsWith(from === '/' ? '/' : `${from}/`)) && (!best || from.length > best.from.length)) best = { from, to: m.to };
  }
  if (!best) return p;
  const rest = p.slice(best.from.length).replace(/^\/+/, '');
  return rest ? posix.join(best.to, rest) : best.to;
}

// ---------------------------------------------------------------- shell commands

/** Splits a shell line into words (quotes removed), or null when it holds what we do not read ($, `, globs, subshells). */
function shellWords(line: string): string[] | null {
  const words: string[] = [];
  let cur = '';
  let has = false;
  for (let i = 0; i < line.length; i++) {
    const c = line[i];
    if (c === "'") {
      const j = line.indexOf("'", i + 1);
      if (j < 0) return null;
      cur += line.slice(i + 1, j);
      has = true;
      i = j;
    } else if (c === '"') {
      const j = line.indexOf('"', i + 1);
      if (j < 0) return null;
      const inner = line.slice(i + 1, j);
      if (/[$`\\]/.test(inner)) return null;
      cur += inner;
      has = true;
      i = j;
    } else if (/\s/.test(c)) {
      if (has) words.push(cur);
      cur = '';
      has = false;
    } else if (c === '&' && line[i + 1] === '>') {
      if (has) words.push(cur);
      cur = '&';
      has = true;
    } else if (c === '$' || c === '`' || c === '(' || c === ')' || c === '*' || c === '?' || c === '\\' || c === '{' || c === '}') {
      return null;
    } else if (c === '>' || c === '<') {
      // `2>`, `&>`: the fd belongs to the operator; `>&1`: so does the fd it duplicates.
      let op = c;
      if (has && /^(\d+|&)$/.test(cur)) op = cur + c;
      else if (has) words.push(cur);
      while (line[i + 1] === '>' || line[i + 1] === '&' || line[i + 1] === '<') op += line[++i];
      if (op.endsWith('&')) while (/\d|-/.test(line[i + 1] ?? '')) op += line[++i];
      words.push(op);
      cur = '';
      has = false;
    } else {
      cur += c;
      has = true;
    }
  }
  if (has) words.push(cur);
  return words;
}

interface ShellTouch {
  path: string;
  kind: 'read' | 'edit';
  change: RecordedChange | null;
  via: string;
}

/** `cat > f <<'EOF'` … `EOF` (also `cat <<EOF > f`, `tee f <<EOF`): the file and the heredoc's text. */
const HEREDOC_WRITE = /^\s*(?:cat|tee)\s+(?:(>>?)\s*(['"]?)([^\s'"<>|;&]+)\2\s*<<-?\s*(['"]?)([\w-]+)\4|<<-?\s*(['"]?)([\w-]+)\6\s*(>>?)\s*(['"]?)([^\s'"<>|;&]+)\9)[ \t]*\n/;

function heredocWrite(script: string): { touch: ShellTouch; rest: string } | null {
  const m = HEREDOC_WRITE.exec(script);
  if (!m) return null;
  const append = (m[1] ?? m[8]) === '>>';
  const file = m[3] ?? m[10];
  const delim = m[5] ?? m[7];
  const body = script.slice(m[0].length);
  const lines = body.split('\n');
  const end = lines.findIndex((l) => l === delim);
  if (end < 0) return null;
  const content = lines.slice(0, end).join('\n') + '\n';
  // An unquoted delimiter lets the shell expand $… and `…` in the text: then it is not the content.
  const expands = (m[4] ?? m[6]) === '' && /[$`\\]/.test(content);
  const change: RecordedChange = append
    ? { op: 'opaque', reason: 'appended by a heredoc' }
    : expands
      ? { op: 'opaque', reason: 'written by a heredoc the shell expands' }
      : { op: 'write', content, created: false };
  return { touch: { path: file, kind: 'edit', change, via: `shell: cat ${append ? '>>' : '>'}` }, rest: lines.slice(end + 1).join('\n') };
}

const READERS = new Set(['cat', 'head', 'tail', 'nl', 'less', 'more', 'bat', 'wc']);

function commandTouches(words: string[]): ShellTouch[] {
  const out: ShellTouch[] = [];
  // Redirections write their target (2> and &> too, unless to a device).
  const args: string[] = [];
  for (let i = 0; i < words.length; i++) {
    const w = words[i];
    if (/^\d*>>?$|^&>>?$/.test(w) && i + 1 < words.length) {
      const target = words[++i];
      if (!w.startsWith('2')) out.push({ path: target, kind: 'edit', change: { op: 'opaque', reason: `written by a shell redirection (${w.replace(/^\d/, '')})` }, via: `shell: ${w.replace(/^\d/, '')}` });
    } else if (/^\d*>&\d*$|^<$|^<<$/.test(w)) {
      if (w === '<' && i + 1 < words.length) out.push({ path: words[++i], kind: 'read', change: null, via: 'shell: <' });
      else if (w === '<<') i++;
    } else args.push(w);
  }
  if (!args.length) return out;
  const [cmd, ...rest] = args;
  const name = posix.basename(cmd);
  const files = (from: string[]) => from.filter((a) => !a.startsWith('-'));
  if (READERS.has(name)) {
    // head -n 5 f / tail -n +3 f: the value of -n is not a file.
    const fs: string[] = [];
    for (let i = 0; i < rest.length; i++) {
      if (/^-[nc]$/.test(rest[i])) i++;
      else if (!rest[i].startsWith('-') && !/^\+?\d+$/.test(rest[i])) fs.push(rest[i]);
    }
    for (const f of fs) out.push({ path: f, kind: 'read', change: null, via: `shell: ${name}` });
  } else if (name === 'sed') {
    const inPlace = rest.some((a) => /^-[a-zA-Z]*i/.test(a) || a.startsWith('--in-place'));
    // Options (and the script of -e / -f) first; without -e the first other word is the script.
    const others: string[] = [];
    let scripted = false;
    for (let i = 0; i < rest.length; i++) {
      if (rest[i] === '-e' || rest[i] === '-f' || rest[i] === '--expression' || rest[i] === '--file') {
        i++;
        scripted = true;
      } else if (!rest[i].startsWith('-')) others.push(rest[i]);
    }
    for (const f of scripted ? others : others.slice(1)) {
      out.push(inPlace ? { path: f, kind: 'edit', change: { op: 'opaque', reason: 'edited by sed -i' }, via: 'shell: sed -i' } : { path: f, kind: 'read', change: null, via: 'shell: sed' });
    }
  } else if (name === 'tee') {
    for (const f of files(rest)) out.push({ path: f, kind: 'edit', change: { op: 'opaque', reason: 'written by tee' }, via: 'shell: tee' });
  } else if (name === 'rm') {
    for (const f of files(rest)) out.push({ path: f, kind: 'edit', change: { op: 'delete' }, via: 'shell: rm' });
  } else if (name === 'touch') {
    for (const f of files(rest)) out.push({ path: f, kind: 'edit', change: { op: 'opaque', reason: 'touched (created when missing)' }, via: 'shell: touch' });
  }
  return out;
}

/**
 * The files a shell command plainly reads or writes (rules in the module docs), paths as written.
 * Lines are split at `&&`, `||`, `;` and `|`; a part holding what is not read here
 * (`$VAR`, backquotes, globs, subshells) is skipped.
 */
export function shellFileTouches(command: string): ShellTouch[] {
  const out: ShellTouch[] = [];
  let script = command;
  for (;;) {
    const h = heredocWrite(script);
    if (!h) break;
    out.push(h.touch);
    script = h.rest;
  }
  // Heredoc bodies further on are not commands: drop them.
  script = script.replace(/<<-?\s*(['"]?)([\w-]+)\1[^\n]*\n[\s\S]*?\n\2(?=\n|$)/g, '');
  for (const line of script.split('\n')) {
    for (const part of line.split(/&&|\|\||;|\|/)) {
      const words = shellWords(part);
      if (words && words.length) out.push(...commandTouches(words));
    }
  }
  return out;
}

// ---------------------------------------------------------------- actions

interface RawTouch {
  path: string;
  kind: 'read' | 'edit';
  change: RecordedChange | null;
  via: string;
}

function patchTouches(a: Action, patch: string, dialect: 'codex' | 'unified', via: string): RawTouch[] {
  if (dialect === 'codex') {
    let hunks;
    try {
      hunks = parseCodexPatch(patch);
    } catch {
      return a.edit?.path ? [{ path: a.edit.path, kind: 'edit', change: { op: 'opaque', reason: 'a patch that does not parse' }, via }] : [];
    }
    const out: RawTouch[] = [];
    for (const h of hunks) {
      if (h.type === 'add') out.push({ path: h.path, kind: 'edit', change: { op: 'write', content: h.contents, created: true }, via });
      else if (h.type === 'delete') out.push({ path: h.path, kind: 'edit', change: { op: 'delete' }, via });
      else if (h.movePath) {
        out.push({ path: h.path, kind: 'edit', change: { op: 'delete' }, via });
        out.push({ path: h.movePath, kind: 'edit', change: { op: 'opaque', reason: `moved from ${h.path} and updated` }, via });
      } else out.push({ path: h.path, kind: 'edit', change: { op: 'codex-update', chunks: h.chunks }, via });
    }
    return out;
  }
  let patches: StructuredPatch[];
  try {
    patches = parseUnified(patch).filter((p) => p.hunks.length);
  } catch {
    patches = [];
  }
  const name = (n: string | undefined) => (!n || n === '/dev/null' ? null : n.split('\t')[0].replace(/^[ab]\//, ''));
  const out: RawTouch[] = [];
  for (const p of patches) {
    const file = name(p.newFileName) ?? name(p.oldFileName) ?? a.edit?.path ?? null;
    if (!file) continue;
    out.push({ path: file, kind: 'edit', change: name(p.newFileName) === null && p.newFileName === '/dev/null' ? { op: 'delete' } : { op: 'unified', patch: p }, via });
  }
  return out;
}

function actionTouches(a: Action): RawTouch[] {
  const via = a.tool ?? a.kind;
  const e = a.edit;
  if (e) {
    if (e.op === 'write') return [{ path: e.path, kind: 'edit', change: { op: 'write', content: e.content, created: false }, via }];
    if (e.op === 'replace') return [{ path: e.path, kind: 'edit', change: { op: 'replace', edits: e.edits }, via }];
    if (e.op === 'patch') {
      const t = patchTouches(a, e.patch, e.dialect, via);
      return t.length || !e.path ? t : [{ path: e.path, kind: 'edit', change: { op: 'opaque', reason: 'a patch that does not parse' }, via }];
    }
    const p = e.path ?? a.path ?? null;
    return p ? [{ path: p, kind: 'edit', change: { op: 'opaque', reason: e.reason }, via }] : [];
  }
  const args = isObject(a.arguments) ? a.arguments : {};
  const lower = (a.tool ?? '').toLowerCase();
  const argPath = str(args.path) ?? str(args.file_path) ?? str(args.absolute_path) ?? str(args.filePath) ?? str(args.target_file);
  if (EDITOR_TOOLS.has(lower)) {
    const p = argPath ?? a.path ?? null;
    if (!p) return [];
    const sub = str(args.command);
    if (sub === 'view') return [{ path: p, kind: 'read', change: null, via: `${a.tool} view` }];
    if (sub === 'create' && typeof args.file_text === 'string') return [{ path: p, kind: 'edit', change: { op: 'write', content: args.file_text, created: true }, via: `${a.tool} create` }];
    if (sub === 'str_replace' && typeof args.old_str === 'string') {
      return [{ path: p, kind: 'edit', change: { op: 'replace', edits: [{ oldText: args.old_str, newText: typeof args.new_str === 'string' ? args.new_str : '', replaceAll: false }] }, via: `${a.tool} str_replace` }];
    }
    return [{ path: p, kind: 'edit', change: { op: 'opaque', reason: `${a.tool} ${sub ?? 'edit'}: the record does not spell out the change` }, via: `${a.tool}${sub ? ` ${sub}` : ''}` }];
  }
  if (a.kind === 'file_edit') {
    const p = a.path ?? argPath;
    if (!p) return [];
    // SWE-agent's edit_anthropic `edit {search, replace, replace-all}`.
    if (typeof args.search === 'string' && typeof args.replace === 'string') {
      return [{ path: p, kind: 'edit', change: { op: 'replace', edits: [{ oldText: args.search, newText: args.replace, replaceAll: args['replace-all'] === true }] }, via }];
    }
    return [{ path: p, kind: 'edit', change: { op: 'opaque', reason: `${via}: the record does not spell out the change` }, via }];
  }
  // A reading tool with a path argument (also SWE-agent's `open`, recorded as a shell command).
  if (READ_TOOLS.has(lower) && (a.kind !== 'shell' || argPath)) {
    const p = argPath ?? str(args.file) ?? a.path ?? null;
    return p ? [{ path: p, kind: 'read', change: null, via }] : [];
  }
  if (a.kind === 'shell' && a.command) return shellFileTouches(a.command);
  return [];
}

/** The observation answering action `i` of a step (by call id, else by position). */
function observationOf(step: Step, a: Action, i: number) {
  if (a.callId) return step.observations.find((o) => o.callId === a.callId);
  return step.observations[i] ?? (step.actions.length === 1 ? step.observations[0] : undefined);
}

/**
 * Every file each step of `rollout` read or changed, in step and action order (a file read and
 * changed by one action gives the change only). Steps copied from an earlier context are skipped.
 */
export function stepFileTouches(rollout: Pick<Rollout, 'steps' | 'environment'>): StepFileTouch[] {
  const out: StepFileTouch[] = [];
  const workdir = rollout.environment.workdir;
  for (const step of rollout.steps) {
    if (step.copiedContext) continue;
    step.actions.forEach((a, actionIndex) => {
      const seen = new Set<string>();
      for (const t of actionTouches(a)) {
        const path = absolutePath(t.path, workdir);
        if (!path) continue;
        const key = `${t.kind}:${path}`;
        if (seen.has(key) || (t.kind === 'read' && seen.has(`edit:${path}`))) continue;
        seen.add(key);
        const outcome: RecordedEditOutcome = t.kind === 'edit' ? recordedEditOutcome(observationOf(step, a, actionIndex)) : 'unknown';
        out.push({ stepIndex: step.index, actionIndex, path, kind: t.kind, change: t.change, via: t.via, outcome });
      }
    });
  }
  return out;
}

/** The touches of `touches` on one file (absolute path, after mapping), in order. */
export function touchesOf<T extends { path: string }>(touches: readonly T[], path: string): T[] {
  return touches.filter((t) => t.path === path);
}
