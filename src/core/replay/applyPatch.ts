/**
 * OpenAI Codex's `apply_patch` format: parser and applier, for replaying Codex sessions.
 *
 * Definition: openai/codex `codex-rs/apply-patch/` — `src/parser.rs` (the grammar and its lenient
 * parsing), `src/seek_sequence.rs` (how old lines are found), `src/lib.rs` (how an `Update File`
 * is computed, how a shell command is recognised as an apply_patch invocation) and
 * `apply_patch_tool_instructions.md`. The grammar:
 *
 *     start: begin_patch hunk+ end_patch
 *     begin_patch: "*** Begin Patch" LF
 *     end_patch: "*** End Patch" LF?
 *     hunk: add_hunk | delete_hunk | update_hunk
 *     add_hunk: "*** Add File: " filename LF add_line+
 *     delete_hunk: "*** Delete File: " filename LF
 *     update_hunk: "*** Update File: " filename LF change_move? change?
 *     change_move: "*** Move to: " filename LF
 *     change: (change_context | change_line)+ eof_line?
 *     change_context: ("@@" | "@@ " /(.+)/) LF
 *     change_line: ("+" | "-" | " ") /(.+)/ LF
 *     eof_line: "*** End of File" LF
 *
 * Followed as Codex does it (lenient mode): markers may carry surrounding whitespace; the whole
 * patch may be wrapped in a `<<'EOF'` … `EOF` heredoc; the first chunk of an update may omit
 * its `@@`; an empty line inside a chunk is an empty context line. Old lines are found at or
 * after the previous chunk with decreasing strictness: exact, then ignoring trailing whitespace,
 * then ignoring surrounding whitespace, then with typographic dashes / quotes / spaces read as
 * ASCII; an `*** End of File` chunk is looked for at the end first; a chunk without old lines
 * appends at the end of the file; an updated file always ends with a newline.
 *
 * As in Codex CLI (codex-core verifies a patch before it runs it), every hunk is checked against
 * the files first; a patch with a hunk that does not apply changes nothing. Then the hunks run in
 * order (Add overwrites, Delete removes, Update rewrites or moves). One difference: a file that
 * consistently used CRLF keeps CRLF line ends (Codex on Linux would mix them).
 *
 * Nothing here touches Docker: files are read and written through `EditFs`.
 */
import * as posix from 'node:path/posix';

/** The state of one file as an `EditFs` reads it. */
export type FileState =
  | { kind: 'file'; text: string }
  | { kind: 'missing' }
  | { kind: 'directory' }
  | { kind: 'unreadable'; reason: string };

/**
 * File access for applying edits (the replay container, or memory in tests). Paths are absolute
 * (POSIX). `write` creates missing parent folders; `write` and `remove` throw an Error whose
 * message says why (permission denied, …).
 */
export interface EditFs {
  read(path: string): Promise<FileState>;
  write(path: string, text: string): Promise<void>;
  remove(path: string): Promise<void>;
}

/** One `@@` section of an `*** Update File:` hunk. */
export interface UpdateChunk {
  /** The line after `@@ ` that narrows where the chunk applies (a function or class line), or null. */
  context: string | null;
  oldLines: string[];
  newLines: string[];
  /** `*** End of File` followed: the old lines are at the end of the file. */
  endOfFile: boolean;
  /** 1-based line of the chunk in the patch text. */
  line: number;
}

/** One file operation of a patch. Paths as written in the patch (relative to the cwd, or absolute). */
export type PatchHunk =
  | { type: 'add'; path: string; contents: string; line: number }
  | { type: 'delete'; path: string; line: number }
  | { type: 'update'; path: string; movePath: string | null; chunks: UpdateChunk[]; line: number };

/** A patch text that is not valid apply_patch syntax; `line` is 1-based in the patch when known. */
export class PatchParseError extends Error {
  constructor(message: string, readonly line: number | null = null) {
    super(line === null ? `invalid patch: ${message}` : `invalid patch hunk at line ${line}: ${message}`);
    this.name = 'PatchParseError';
  }
}

const BEGIN = '*** Begin Patch';
const END = '*** End Patch';
const ADD = '*** Add File: ';
const DELETE = '*** Delete File: ';
const UPDATE = '*** Update File: ';
const MOVE = '*** Move to: ';
const EOF_MARKER = '*** End of File';

/** Rust's `str::lines()`: split at `\n`, drop one trailing `\r` per line, no last empty line. */
function rustLines(s: string): string[] {
  if (s === '') return [];
  const lines = s.split('\n');
  if (lines[lines.length - 1] === '') lines.pop();
  return lines.map((l) => (l.endsWith('\r') ? l.slice(0, -1) : l));
}

/** Rust's `str::trim()` (Unicode whitespace). */
const trim = (s: string) => s.trim();

function boundaries(lines: string[]): string[] {
  const first = lines.length ? trim(lines[0]) : undefined;
  const last = lines.length ? trim(lines[lines.length - 1]) : undefined;
  if (first === BEGIN && last === END && lines.length >= 2) return lines.slice(1, -1);
  if (first !== BEGIN) throw new PatchParseError("The first line of the patch must be '*** Begin Patch'");
  throw new PatchParseError("The last line of the patch must be '*** End Patch'");
}

/**
 * Parses a patch into hunks (parser.rs, lenient mode).
 * @throws PatchParseError with Codex's message and the patch line it is about
 */
export function parsePatch(patch: string): PatchHunk[] {
  const all = rustLines(trim(patch));
  let body: string[];
  let offset = 0;
  try {
    body = boundaries(all);
  } catch (e) {
    // Lenient: the patch wrapped in a heredoc, `<<'EOF'` … `EOF` (gpt-4.1 writes it so).
    const [first, last] = [all[0], all[all.length - 1]];
    if (all.length >= 4 && (first === '<<EOF' || first === "<<'EOF'" || first === '<<"EOF"') && last.endsWith('EOF')) {
      body = boundaries(all.slice(1, -1));
      offset = 1;
    } else {
      throw e;
    }
  }
  const hunks: PatchHunk[] = [];
  let i = 0;
  let lineNumber = 2 + offset;
  while (i < body.length) {
    const [hunk, used] = parseHunk(body, i, lineNumber);
    hunks.push(hunk);
    i += used;
    lineNumber += used;
  }
  return hunks;
}

function parseHunk(lines: string[], at: number, lineNumber: number): [PatchHunk, number] {
  const first = trim(lines[at]);
  if (first.startsWith(ADD)) {
    let contents = '';
    let used = 1;
    for (let k = at + 1; k < lines.length && lines[k].startsWith('+'); k++, used++) contents += lines[k].slice(1) + '\n';
    return [{ type: 'add', path: first.slice(ADD.length), contents, line: lineNumber }, used];
  }
  if (first.startsWith(DELETE)) return [{ type: 'delete', path: first.slice(DELETE.length), line: lineNumber }, 1];
  if (first.startsWith(UPDATE)) {
    const path = first.slice(UPDATE.length);
    let k = at + 1;
    let used = 1;
    let movePath: string | null = null;
    if (k < lines.length && lines[k].startsWith(MOVE)) {
      movePath = lines[k].slice(MOVE.length);
      k++;
      used++;
    }
    const chunks: UpdateChunk[] = [];
    while (k < lines.length) {
      if (trim(lines[k]) === '') {
        k++;
        used++;
        continue;
      }
      if (lines[k].startsWith('*')) break;
      const [chunk, n] = parseChunk(lines, k, lineNumber + used, chunks.length === 0);
      chunks.push(chunk);
      k += n;
      used += n;
    }
    if (!chunks.length) throw new PatchParseError(`Update file hunk for path '${path}' is empty`, lineNumber);
    return [{ type: 'update', path, movePath, chunks, line: lineNumber }, used];
  }
  throw new PatchParseError(
    `'${first}' is not a valid hunk header. Valid hunk headers: '*** Add File: {path}', '*** Delete File: {path}', '*** Update File: {path}'`,
    lineNumber,
  );
}

function parseChunk(lines: string[], at: number, lineNumber: number, allowMissingContext: boolean): [UpdateChunk, number] {
  let context: string | null = null;
  let start = 0;
  if (lines[at] === '@@') start = 1;
  else if (lines[at].startsWith('@@ ')) {
    context = lines[at].slice(3);
    start = 1;
  } else if (!allowMissingContext) {
    throw new PatchParseError(`Expected update hunk to start with a @@ context marker, got: '${lines[at]}'`, lineNumber);
  }
  if (at + start >= lines.length) throw new PatchParseError('Update hunk does not contain any lines', lineNumber + 1);
  const chunk: UpdateChunk = { context, oldLines: [], newLines: [], endOfFile: false, line: lineNumber };
  let parsed = 0;
  for (let k = at + start; k < lines.length; k++) {
    const line = lines[k];
    if (line === EOF_MARKER) {
      if (parsed === 0) throw new PatchParseError('Update hunk does not contain any lines', lineNumber + 1);
      chunk.endOfFile = true;
      parsed++;
      break;
    }
    const c = line[0];
    if (c === undefined) {
      chunk.oldLines.push('');
      chunk.newLines.push('');
    } else if (c === ' ') {
      chunk.oldLines.push(line.slice(1));
      chunk.newLines.push(line.slice(1));
    } else if (c === '+') {
      chunk.newLines.push(line.slice(1));
    } else if (c === '-') {
      chunk.oldLines.push(line.slice(1));
    } else {
      if (parsed === 0) {
        throw new PatchParseError(
          `Unexpected line found in update hunk: '${line}'. Every line should start with ' ' (context line), '+' (added line), or '-' (removed line)`,
          lineNumber + 1,
        );
      }
      break; // the start of the next chunk
    }
    parsed++;
  }
  return [chunk, parsed + start];
}

// ---------------------------------------------------------------- recognising an invocation

/** An apply_patch call found in a shell command: the patch body and the `cd` before it, if any. */
export interface PatchInvocation {
  patch: string;
  /** The folder of `cd DIR && apply_patch <<'EOF' …` (relative to the command's cwd, or absolute). */
  workdir: string | null;
}

const APPLY_PATCH_COMMANDS = new Set(['apply_patch', 'applypatch']);

/** `bash -lc SCRIPT` (and `sh`/`zsh`, `-c`): the script, else null (lib.rs parse_shell_script). */
function shellScript(argv: readonly string[]): string | null {
  if (argv.length !== 3) return null;
  const name = posix.basename(argv[0]).replace(/\.exe$/i, '').toLowerCase();
  return ['bash', 'zsh', 'sh'].includes(name) && (argv[1] === '-lc' || argv[1] === '-c') ? argv[2] : null;
}

function unquoteWord(w: string): string | null {
  if (/^'[^']*'$/.test(w)) return w.slice(1, -1);
  if (/^"[^"\\$`]*"$/.test(w)) return w.slice(1, -1);
  if (/^[^\s'"\\$`;&|<>()]+$/.test(w)) return w;
  return null;
}

/**
 * The heredoc forms Codex accepts as a whole script (lib.rs extract_apply_patch_from_bash):
 * `apply_patch <<'EOF'\n…\nEOF` and `cd DIR && apply_patch <<'EOF'\n…\nEOF`, nothing before or
 * after; the delimiter may be quoted or not, `applypatch` is accepted too.
 */
export function heredocInvocation(script: string): PatchInvocation | null {
  const m = /^\s*(?:cd\s+('[^']*'|"[^"\\$`]*"|[^\s'"\\$`;&|<>()]+)\s*&&\s*)?(apply_patch|applypatch)\s*<<-?\s*(['"]?)([A-Za-z_][\w-]*)\3[ \t]*\n/.exec(script);
  if (!m) return null;
  const delim = m[4];
  const rest = script.slice(m[0].length);
  const lines = rest.split('\n');
  const end = lines.findIndex((l) => l === delim);
  if (end < 0) return null;
  // Only whitespace may follow the heredoc's end line.
  if (lines.slice(end + 1).join('\n').trim() !== '') return null;
  const body = lines.slice(0, end).join('\n').replace(/\n+$/, '');
  const workdir = m[1] !== undefined ? unquoteWord(m[1]) : null;
  if (m[1] !== undefined && workdir === null) return null;
  return { patch: body, workdir };
}

/**
 * Whether a command is an apply_patch invocation, as Codex decides it (lib.rs
 * maybe_parse_apply_patch): `["apply_patch", PATCH]`, `["bash", "-lc", "apply_patch <<'EOF' …"]`,
 * or a command string that is itself such a script. Returns the patch text (not yet parsed) or null.
 */
export function findPatchInvocation(command: string | readonly string[]): PatchInvocation | null {
  if (typeof command !== 'string') {
    if (command.length === 2 && APPLY_PATCH_COMMANDS.has(command[0])) return { patch: command[1], workdir: null };
    const script = shellScript(command);
    return script === null ? null : heredocInvocation(script);
  }
  return heredocInvocation(command);
}

// ---------------------------------------------------------------- applying

/** Typographic punctuation read as ASCII for the last matching pass (seek_sequence.rs). */
function normalisePunctuation(s: string): string {
  return s
    .trim()
    .replace(/[\u2010-\u2015\u2212]/g, '-')
    .replace(/[\u2018\u2019\u201A\u201B]/g, "'")
    .replace(/[\u201C\u201D\u201E\u201F]/g, '"')
    .replace(/[\u00A0\u2002-\u200A\u202F\u205F\u3000]/g, ' ');
}

const PASSES: Array<(s: string) => string> = [(s) => s, (s) => s.trimEnd(), (s) => s.trim(), normalisePunctuation];

/**
 * Finds `pattern` in `lines` at or after `start` (seek_sequence.rs): exact, then trailing
 * whitespace ignored, then surrounding whitespace ignored, then punctuation normalised. With
 * `eof`, the search starts where the pattern would end the file. Returns the index or -1.
 */
export function seekSequence(lines: readonly string[], pattern: readonly string[], start: number, eof: boolean): number {
  if (!pattern.length) return start;
  if (pattern.length > lines.length) return -1;
  const from = eof ? lines.length - pattern.length : start;
  for (const f of PASSES) {
    for (let i = from; i <= lines.length - pattern.length; i++) {
      let ok = true;
      for (let p = 0; p < pattern.length && ok; p++) ok = f(lines[i + p]) === f(pattern[p]);
      if (ok) return i;
    }
  }
  return -1;
}

/** A patch (or one of its hunks) that no longer applies to the files: `message` says where and why. */
export class PatchApplyError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'PatchApplyError';
  }
}

function quoteLines(lines: readonly string[], max = 3): string {
  const shown = lines.slice(0, max).map((l) => JSON.stringify(l));
  return shown.join(', ') + (lines.length > max ? `, … (${lines.length} lines)` : '');
}

/**
 * The new content of a file after an update hunk's chunks (lib.rs derive_new_contents_from_chunks).
 * @param hunkBase number of the hunk's first chunk among all chunks of the patch (for messages)
 * @throws PatchApplyError "patch hunk N (@@ ctx) does not match PATH: …"
 */
export function updatedContent(original: string, path: string, chunks: readonly UpdateChunk[], hunkBase = 1): string {
  const crlf = /\r\n/.test(original) && !/(^|[^\r])\n/.test(original);
  const text = crlf ? original.replace(/\r\n/g, '\n') : original;
  const lines = text.split('\n');
  if (lines[lines.length - 1] === '') lines.pop();
  const replacements: Array<[number, number, string[]]> = [];
  let at = 0;
  chunks.forEach((chunk, n) => {
    const name = `patch hunk ${hunkBase + n}${chunk.context !== null ? ` (@@ ${chunk.context})` : ''}`;
    if (chunk.context !== null) {
      const idx = seekSequence(lines, [chunk.context], at, false);
      if (idx < 0) throw new PatchApplyError(`${name} does not match ${path}: context line ${JSON.stringify(chunk.context)} not found`);
      at = idx + 1;
    }
    if (!chunk.oldLines.length) {
      // Pure addition: at the end of the file (before a final empty line, if any).
      const end = lines.length && lines[lines.length - 1] === '' ? lines.length - 1 : lines.length;
      replacements.push([end, 0, chunk.newLines]);
      return;
    }
    let pattern = chunk.oldLines;
    let replacement = chunk.newLines;
    let found = seekSequence(lines, pattern, at, chunk.endOfFile);
    if (found < 0 && pattern[pattern.length - 1] === '') {
      // The trailing empty line stands for the file's final newline: retry without it.
      pattern = pattern.slice(0, -1);
      if (replacement[replacement.length - 1] === '') replacement = replacement.slice(0, -1);
      found = seekSequence(lines, pattern, at, chunk.endOfFile);
    }
    if (found < 0) {
      const where = chunk.endOfFile ? ' at the end of the file' : at > 0 ? ` after line ${at}` : '';
      throw new PatchApplyError(`${name} does not match ${path}: expected lines not found${where}: ${quoteLines(chunk.oldLines)}`);
    }
    replacements.push([found, pattern.length, replacement]);
    at = found + pattern.length;
  });
  replacements.sort((a, b) => a[0] - b[0]);
  for (let r = replacements.length - 1; r >= 0; r--) {
    const [start, len, add] = replacements[r];
    lines.splice(start, len, ...add);
  }
  if (lines[lines.length - 1] !== '') lines.push('');
  const out = lines.join('\n');
  return crlf ? out.replace(/\n/g, '\r\n') : out;
}

/** What applying a patch did, per file: `before` null = created, `after` null = deleted. */
export interface FileChange {
  path: string;
  before: string | null;
  after: string | null;
  /** For a moved file: where it came from. */
  movedFrom?: string;
}

/** The result of `applyCodexPatch`. */
export interface PatchResult {
  changes: FileChange[];
  /** Codex's summary: "A path", "M path", "D path" lines. */
  summary: string[];
}

function describe(state: FileState, path: string, what: string): string {
  switch (state.kind) {
    case 'missing':
      return `${what}: file does not exist: ${path}`;
    case 'directory':
      return `${what}: ${path} is a directory`;
    case 'unreadable':
      return `${what}: cannot read ${path}: ${state.reason}`;
    default:
      return what;
  }
}

/**
 * Applies a Codex patch to `fs`: every hunk is verified against the files first (nothing is
 * written when one fails), then the hunks run in order.
 * @param cwd absolute folder that relative paths in the patch resolve against
 * @param dryRun verify and compute only, write nothing
 * @throws PatchParseError (bad syntax), PatchApplyError (a hunk no longer applies: the file is
 *   missing, the old lines are not there, …; or writing failed, with what was written before)
 */
export async function applyCodexPatch(fs: EditFs, patch: string, cwd: string, dryRun = false): Promise<PatchResult> {
  const hunks = parsePatch(patch);
  if (!hunks.length) throw new PatchApplyError('the patch changes nothing (no hunks): Codex answers "No files were modified."');
  const abs = (p: string) => posix.resolve(cwd, p);
  // Verify (codex-core maybe_parse_apply_patch_verified): each hunk against the files as they are.
  let base = 1;
  for (const h of hunks) {
    const path = abs(h.path);
    if (h.type === 'delete') {
      const s = await fs.read(path);
      if (s.kind !== 'file') throw new PatchApplyError(describe(s, path, 'Delete File'));
    } else if (h.type === 'update') {
      const s = await fs.read(path);
      if (s.kind !== 'file') throw new PatchApplyError(describe(s, path, 'Update File'));
      updatedContent(s.text, path, h.chunks, base);
      base += h.chunks.length;
    }
  }
  // Apply in order (apply_hunks_to_files).
  const changes: FileChange[] = [];
  const summary: string[] = [];
  const step = async <T>(f: () => Promise<T>, what: string): Promise<T> => {
    try {
      return await f();
    } catch (e) {
      const done = summary.length ? ` (already applied: ${summary.join(', ')})` : '';
      throw new PatchApplyError(`${what}: ${(e as Error).message}${done}`);
    }
  };
  base = 1;
  for (const h of hunks) {
    const path = abs(h.path);
    if (h.type === 'add') {
      const s = await fs.read(path);
      if (s.kind === 'directory') throw new PatchApplyError(`Add File: ${path} is a directory`);
      if (!dryRun) await step(() => fs.write(path, h.contents), `Add File ${path}`);
      changes.push({ path, before: s.kind === 'file' ? s.text : null, after: h.contents });
      summary.push(`A ${path}`);
    } else if (h.type === 'delete') {
      const s = await fs.read(path);
      if (s.kind !== 'file') throw new PatchApplyError(describe(s, path, 'Delete File'));
      if (!dryRun) await step(() => fs.remove(path), `Delete File ${path}`);
      changes.push({ path, before: s.text, after: null });
      summary.push(`D ${path}`);
    } else {
      const s = await fs.read(path);
      if (s.kind !== 'file') throw new PatchApplyError(describe(s, path, 'Update File'));
      const after = updatedContent(s.text, path, h.chunks, base);
      base += h.chunks.length;
      if (h.movePath !== null) {
        const dest = abs(h.movePath);
        if (!dryRun) {
          await step(() => fs.write(dest, after), `Move to ${dest}`);
          await step(() => fs.remove(path), `Move from ${path}`);
        }
        changes.push({ path: dest, before: s.text, after, movedFrom: path });
        summary.push(`M ${dest}`);
      } else {
        if (!dryRun) await step(() => fs.write(path, after), `Update File ${path}`);
        changes.push({ path, before: s.text, after });
        summary.push(`M ${path}`);
      }
    }
  }
  return { changes, summary };
}
