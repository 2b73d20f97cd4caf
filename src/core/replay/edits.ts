/**
 * Re-applying a recorded file edit (model `FileEdit`) during a replay, so the commands after it see
 * the files the agent saw:
 * - `write`: the whole content (parent folders created, an existing file replaced);
 * - `replace`: each old → new replacement in order, on the text the previous one left; every old
 *   text must be found, exactly once unless `replaceAll` (Claude Code `Edit` / `MultiEdit`, editor
 *   `str_replace`, Gemini CLI `replace`); all or nothing: when one fails the file is left as it
 *   was. An empty old text creates a file that does not exist yet (Claude Code's convention). A
 *   CRLF file is matched with its line ends read as LF and written back with CRLF;
 * - `patch`: a Codex `*** Begin Patch` patch (applyPatch.ts) or a unified diff (the `diff`
 *   package; every file of the diff, hunks at their line or nearby, no fuzz);
 * - `other`: not replayable, with the loader's reason.
 * An edit that no longer applies is reported with its reason ("old text not found in /app/x.py",
 * "old text found 3 times in …", "patch hunk 2 does not match …", "file does not exist: …").
 *
 * Also: what the recording says about an edit (applied / failed / unknown), read from its
 * observation, so the comparison is about the edit's success, not its message text.
 */
import * as posix from 'node:path/posix';
import { applyPatch as applyUnifiedHunks, parsePatch as parseUnified, type StructuredPatch } from 'diff';
import type { FileEdit, Observation } from '../model';
import { applyCodexPatch, PatchApplyError, PatchParseError, type EditFs, type FileChange, type FileState } from './applyPatch';

/** What re-applying one edit did. */
export interface EditOutcome {
  /** The edit applied (or, in a dry run, would apply). */
  applied: boolean;
  /** One line for people: "replaced 1 occurrence in /app/x.py", "wrote /app/new.py (3 lines)". */
  summary: string;
  /** Why it does not apply (when `applied` is false): "old text not found in /app/x.py". */
  reason: string | null;
  /** The files it changed (or would change in a dry run), with their content before and after. */
  changes: FileChange[];
}

/** Options of `applyFileEdit`. */
export interface ApplyEditOptions {
  /** Absolute folder relative paths resolve against (the session's cwd, or the call's workdir). */
  cwd: string;
  /** Compute the outcome but write nothing (the recording says the edit failed). */
  dryRun?: boolean;
}

/** True when `p` is a Windows path (`C:\…`, `\\server\…`): not replayable in a Linux container. */
export function isWindowsPath(p: string): boolean {
  return /^[A-Za-z]:[\\/]/.test(p) || p.startsWith('\\\\');
}

/** The absolute container path of a recorded path. */
export function resolveEditPath(p: string, cwd: string): string {
  return posix.resolve(cwd, p);
}

/** Why an edit cannot be re-applied from its record, or null when it can. */
export function editNotReplayable(edit: FileEdit): string | null {
  if (edit.op === 'other') return edit.reason;
  if (edit.path && isWindowsPath(edit.path)) return `${edit.path} is a Windows path (replay runs in a Linux container)`;
  return null;
}

/** A short label of an edit for the terminal and the confirmation: "✎ edit /app/x.py (replace)". */
export function editLabel(edit: FileEdit): string {
  const what = edit.op === 'patch' ? `${edit.dialect === 'codex' ? 'apply_patch' : 'unified diff'}` : edit.op;
  return `✎ edit ${edit.path ?? '(patch)'} (${what})`;
}

function lineCount(s: string): number {
  return s === '' ? 0 : s.split('\n').length - (s.endsWith('\n') ? 1 : 0);
}

const lines = (s: string) => {
  const n = lineCount(s);
  return `${n} line${n === 1 ? '' : 's'}`;
};

function countOf(hay: string, needle: string): number {
  let n = 0;
  for (let i = hay.indexOf(needle); i >= 0; i = hay.indexOf(needle, i + needle.length)) n++;
  return n;
}

const failed = (reason: string, changes: FileChange[] = []): EditOutcome => ({ applied: false, summary: reason, reason, changes });

function stateProblem(s: FileState, path: string): string | null {
  if (s.kind === 'missing') return `file does not exist: ${path}`;
  if (s.kind === 'directory') return `${path} is a directory`;
  if (s.kind === 'unreadable') return `cannot read ${path}: ${s.reason}`;
  return null;
}

async function writeOrFail(fs: EditFs, path: string, text: string, o: ApplyEditOptions): Promise<string | null> {
  if (o.dryRun) return null;
  try {
    await fs.write(path, text);
    return null;
  } catch (e) {
    const m = (e as Error).message;
    return `cannot write ${path}: ${m.startsWith(`${path}: `) ? m.slice(path.length + 2) : m}`;
  }
}

async function applyWrite(fs: EditFs, edit: Extract<FileEdit, { op: 'write' }>, o: ApplyEditOptions): Promise<EditOutcome> {
  const path = resolveEditPath(edit.path, o.cwd);
  const s = await fs.read(path);
  if (s.kind === 'directory') return failed(`${path} is a directory`);
  const err = await writeOrFail(fs, path, edit.content, o);
  if (err) return failed(err);
  return {
    applied: true,
    summary: `${s.kind === 'file' ? 'overwrote' : 'created'} ${path} (${lines(edit.content)})`,
    reason: null,
    changes: [{ path, before: s.kind === 'file' ? s.text : null, after: edit.content }],
  };
}

async function applyReplace(fs: EditFs, edit: Extract<FileEdit, { op: 'replace' }>, o: ApplyEditOptions): Promise<EditOutcome> {
  const path = resolveEditPath(edit.path, o.cwd);
  const s = await fs.read(path);
  if (!edit.edits.length) return failed(`no replacement recorded for ${path}`);
  // An empty old text on a file that does not exist creates it (Claude Code Edit).
  if (s.kind === 'missing' && edit.edits.length === 1 && edit.edits[0].oldText === '') {
    const text = edit.edits[0].newText;
    const err = await writeOrFail(fs, path, text, o);
    if (err) return failed(err);
    return { applied: true, summary: `created ${path} (${lines(text)})`, reason: null, changes: [{ path, before: null, after: text }] };
  }
  const problem = stateProblem(s, path);
  if (problem || s.kind !== 'file') return failed(problem ?? `cannot read ${path}`);
  const crlf = /\r\n/.test(s.text) && !/(^|[^\r])\n/.test(s.text);
  let text = s.text;
  let total = 0;
  const many = edit.edits.length > 1;
  for (let k = 0; k < edit.edits.length; k++) {
    const e = edit.edits[k];
    const which = many ? `replacement ${k + 1} of ${edit.edits.length}: ` : '';
    if (e.oldText === '') return failed(`${which}the old text is empty but ${path} exists`);
    let oldText = e.oldText;
    let newText = e.newText;
    let n = countOf(text, oldText);
    if (n === 0 && crlf && !oldText.includes('\r')) {
      // Matched as the agent's tool read the file: CRLF seen as LF.
      oldText = oldText.replace(/\n/g, '\r\n');
      newText = newText.replace(/\r?\n/g, '\r\n');
      n = countOf(text, oldText);
    }
    if (n === 0) return failed(`${which}old text not found in ${path}`);
    if (n > 1 && !e.replaceAll) return failed(`${which}old text found ${n} times in ${path} (it must be unique unless replace-all)`);
    text = e.replaceAll ? text.split(oldText).join(newText) : text.replace(oldText, () => newText);
    total += e.replaceAll ? n : 1;
  }
  const err = await writeOrFail(fs, path, text, o);
  if (err) return failed(err);
  return {
    applied: true,
    summary: `replaced ${total} occurrence${total === 1 ? '' : 's'}${many ? ` (${edit.edits.length} edits)` : ''} in ${path}`,
    reason: null,
    changes: [{ path, before: s.text, after: text }],
  };
}

/** The file a unified diff entry names: `b/x` → `x`; `/dev/null` → null. */
function diffPath(name: string | undefined): string | null {
  if (!name || name === '/dev/null') return null;
  const n = name.split('\t')[0];
  return /^[ab]\//.test(n) ? n.slice(2) : n;
}

/** The first hunk of `p` whose removed and context lines are nowhere in `text` (for the reason). */
function firstFailingHunk(text: string, p: StructuredPatch): number {
  for (let h = 0; h < p.hunks.length; h++) {
    const ok = applyUnifiedHunks(text, { ...p, hunks: [{ ...p.hunks[h], oldStart: 1, newStart: 1 }] });
    if (ok === false) return h;
  }
  return 0;
}

async function applyUnified(fs: EditFs, edit: Extract<FileEdit, { op: 'patch' }>, o: ApplyEditOptions): Promise<EditOutcome> {
  let patches: StructuredPatch[];
  try {
    patches = parseUnified(edit.patch);
  } catch (e) {
    return failed(`invalid unified diff: ${(e as Error).message}`);
  }
  patches = patches.filter((p) => p.hunks.length);
  if (!patches.length) return failed('the unified diff has no hunks');
  // Verify every file first; write only when all apply.
  const planned: FileChange[] = [];
  for (const p of patches) {
    let oldName = diffPath(p.oldFileName);
    let newName = diffPath(p.newFileName);
    if (p.oldFileName === undefined && p.newFileName === undefined) {
      // A diff without file headers (Codex's patch_apply_end `unified_diff`): the edit's own file,
      // created when it is missing and the hunks only add.
      if (!edit.path) return failed('the unified diff names no file');
      const adds = p.hunks.every((h) => h.oldLines === 0);
      const s = await fs.read(resolveEditPath(edit.path, o.cwd));
      oldName = adds && s.kind === 'missing' ? null : edit.path;
      newName = edit.path;
    }
    const rel = newName ?? oldName;
    if (!rel) return failed('the unified diff names no file');
    const target = resolveEditPath(rel, o.cwd);
    const source = oldName ? resolveEditPath(oldName, o.cwd) : null;
    let before: string | null = null;
    if (source) {
      const s = await fs.read(source);
      const problem = stateProblem(s, source);
      if (problem || s.kind !== 'file') return failed(problem ?? `cannot read ${source}`);
      before = s.text;
    }
    const after = applyUnifiedHunks(before ?? '', p);
    if (after === false) {
      const h = firstFailingHunk(before ?? '', p);
      const hk = p.hunks[h];
      return failed(`patch hunk ${h + 1} (@@ -${hk.oldStart},${hk.oldLines} +${hk.newStart},${hk.newLines} @@) does not match ${source ?? target}`);
    }
    if (source && source !== target) planned.push({ path: source, before, after: null });
    planned.push({ path: target, before: source === target ? before : null, after: newName ? after : null });
  }
  if (!o.dryRun) {
    for (const c of planned) {
      try {
        if (c.after === null) await fs.remove(c.path);
        else await fs.write(c.path, c.after);
      } catch (e) {
        return failed(`cannot ${c.after === null ? 'delete' : 'write'} ${c.path}: ${(e as Error).message}`, planned);
      }
    }
  }
  const files = planned.map((c) => `${c.before === null ? 'A' : c.after === null ? 'D' : 'M'} ${c.path}`);
  return { applied: true, summary: `patched ${files.join(', ')}`, reason: null, changes: planned };
}

/**
 * Re-applies one recorded edit through `fs`. Never throws for an edit that does not apply: the
 * outcome says why (`applied` false). Throws only when `fs` itself fails unexpectedly on a read.
 */
export async function applyFileEdit(fs: EditFs, edit: FileEdit, o: ApplyEditOptions): Promise<EditOutcome> {
  const why = editNotReplayable(edit);
  if (why) return failed(why);
  switch (edit.op) {
    case 'write':
      return applyWrite(fs, edit, o);
    case 'replace':
      return applyReplace(fs, edit, o);
    case 'patch':
      if (edit.dialect === 'unified') return applyUnified(fs, edit, o);
      try {
        const r = await applyCodexPatch(fs, edit.patch, o.cwd, o.dryRun);
        return { applied: true, summary: `patched ${r.summary.join(', ')}`, reason: null, changes: r.changes };
      } catch (e) {
        if (e instanceof PatchParseError || e instanceof PatchApplyError) return failed(e.message);
        throw e;
      }
    case 'other':
      return failed(edit.reason);
  }
}

/**
 * What the recording says an edit did: `applied`; `failed` (the tool could not apply it: text not
 * found, a bad patch, …); `rejected` (the user declined it or interrupted the call: never tried,
 * so not a fact about the files); `unknown` (no observation).
 */
export type RecordedEditOutcome = 'applied' | 'failed' | 'rejected' | 'unknown';

/** A call the user declined or interrupted (Claude Code's permission prompt, an interrupt). */
const EDIT_REJECTED = [/The user doesn't want to proceed with this tool use/, /tool use was rejected/, /\[Request interrupted by user/, /^User rejected/m, /The user denied this operation/];

/**
 * Failure texts of editor tools, for recordings that mark no error flag: Claude Code's
 * `<tool_use_error>` and its Edit messages, Codex's apply_patch verification errors, editor errors.
 */
const EDIT_FAILURE = [
  /<tool_use_error>/,
  /^\s*(?:error|Error|ERROR)\b/,
  /apply_patch verification failed/,
  /^patch rejected/m,
  /^(?:Exit code:|Process exited with code) -?[1-9]\d*$/m,
  /Failed to (?:find expected lines|find context|read file to update|apply patch|write file|delete file)/,
  /^Invalid patch/m,
  /String to replace not found/,
  /Found \d+ matches of the string to replace/,
  /No changes to make: old_string and new_string are exactly the same/,
  /File has not been read yet/,
  /has been (?:modified|unexpectedly modified) since (?:it was )?read/,
  /No replacement was performed/,
];

/**
 * Whether the recording says an edit applied: `rejected` when the call was interrupted or its
 * text says the user declined it; `failed` when its observation is flagged as an error, has a
 * non-zero exit code, or reads as an editor tool's failure message; `applied` when it has an
 * observation that does none of these; `unknown` without an observation.
 */
export function recordedEditOutcome(obs: Observation | undefined): RecordedEditOutcome {
  if (!obs) return 'unknown';
  const head = obs.output.slice(0, 2000);
  if (obs.interrupted === true || EDIT_REJECTED.some((re) => re.test(head))) return 'rejected';
  if (obs.isError === true) return 'failed';
  if (obs.exitCode !== null && obs.exitCode !== 0) return 'failed';
  return EDIT_FAILURE.some((re) => re.test(head)) ? 'failed' : 'applied';
}
