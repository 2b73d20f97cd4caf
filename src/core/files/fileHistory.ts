/**
 * A file's text before and after each recorded change of it, reconstructed from the changes
 * (stepFiles.ts `RecordedChange`) and the file as it is now, and which step last changed each line
 * of it now (the gutter marks: a blame over the rollout's steps).
 *
 * Reconstruction, for changes c1 … cn of one file in order:
 * - backwards from the file now, taken as the text after cn: a replacement is undone by putting
 *   the old text back where the new text is (found exactly once, every occurrence for
 *   replace-all), a Codex update hunk by applying it with old and new lines swapped, a unified
 *   diff by applying its reverse (the `diff` package); a created file had no text before;
 * - forwards from a known text: a write gives its content whatever was there, a replacement, an
 *   update hunk or a diff applied as the tool did (replay's rules: old text found exactly once);
 * - a change the record does not spell out (`opaque`), a delete's before and a write's before
 *   stay unknown, and so does every text that cannot be derived. Failed or rejected edits are not
 *   passed in (they changed nothing).
 * Where the file now differs from what the last change left (edited since), undoing still works
 * as long as each new text is still found.
 *
 * This module never imports `vscode`.
 */
import { applyPatch as applyUnified, diffLines, reversePatch } from 'diff';
import { updatedContent } from '../replay/applyPatch';
import type { RecordedChange } from './stepFiles';

/** One change of the file, with the step that made it. */
export interface FileChangeAt {
  stepIndex: number;
  change: RecordedChange;
}

/** The file's text around one change: undefined = not known; '' for a file that did not exist (or no longer does). */
export interface FileVersion {
  stepIndex: number;
  before: string | undefined;
  after: string | undefined;
}

function countOf(hay: string, needle: string): number {
  let n = 0;
  for (let i = hay.indexOf(needle); i >= 0; i = hay.indexOf(needle, i + needle.length)) n++;
  return n;
}

/** `text` with each `from` replaced by `to` (all or the single one), or undefined when not found so. */
function swap(text: string, from: string, to: string, all: boolean): string | undefined {
  if (from === '') return undefined;
  const n = countOf(text, from);
  if (n === 0 || (n > 1 && !all)) return undefined;
  return all ? text.split(from).join(to) : text.replace(from, () => to);
}

function forward(c: RecordedChange, before: string | undefined): string | undefined {
  switch (c.op) {
    case 'write':
      return c.content;
    case 'delete':
      return '';
    case 'opaque':
      return undefined;
    default:
      break;
  }
  if (before === undefined) return undefined;
  if (c.op === 'replace') {
    let text: string | undefined = before;
    for (const e of c.edits) {
      if (text === undefined) return undefined;
      // Claude Code creates a missing file with an empty old text.
      if (e.oldText === '' && text === '' && c.edits.length === 1) return e.newText;
      text = swap(text, e.oldText, e.newText, e.replaceAll);
    }
    return text;
  }
  if (c.op === 'codex-update') {
    try {
      return updatedContent(before, 'file', c.chunks);
    } catch {
      return undefined;
    }
  }
  const r = applyUnified(before, c.patch);
  return r === false ? undefined : r;
}

function backward(c: RecordedChange, after: string | undefined): string | undefined {
  if (c.op === 'write') return c.created ? '' : undefined;
  if (c.op === 'delete' || c.op === 'opaque' || after === undefined) return undefined;
  if (c.op === 'replace') {
    let text: string | undefined = after;
    for (let k = c.edits.length - 1; k >= 0; k--) {
      const e = c.edits[k];
      if (text === undefined) return undefined;
      if (e.oldText === '' && c.edits.length === 1 && text === e.newText) return '';
      text = swap(text, e.newText, e.oldText, e.replaceAll);
    }
    return text;
  }
  if (c.op === 'codex-update') {
    try {
      const swapped = c.chunks.map((ch) => ({ ...ch, oldLines: ch.newLines, newLines: ch.oldLines }));
      // A pure addition cannot be undone by position: its lines are found like any others.
      if (swapped.some((ch) => ch.oldLines.length === 0)) return undefined;
      return updatedContent(after, 'file', swapped);
    } catch {
      return undefined;
    }
  }
  const r = applyUnified(after, reversePatch(c.patch));
  return r === false ? undefined : r;
}

/**
 * The text before and after each change (rules in the module docs). `current` is the file now
 * (null: not known, e.g. not in this workspace; then only forward reconstruction from writes).
 */
export function fileVersions(changes: readonly FileChangeAt[], current: string | null): FileVersion[] {
  const n = changes.length;
  const v: FileVersion[] = changes.map((c) => ({ stepIndex: c.stepIndex, before: undefined, after: undefined }));
  if (!n) return v;
  if (current !== null) {
    v[n - 1].after = current;
    for (let k = n - 1; k >= 0; k--) {
      v[k].before = backward(changes[k].change, v[k].after);
      if (k > 0) v[k - 1].after = v[k].before;
      if (v[k].before === undefined) break;
    }
  }
  for (let k = 0; k < n; k++) {
    if (v[k].before === undefined && k > 0) v[k].before = v[k - 1].after;
    if (v[k].after === undefined) v[k].after = forward(changes[k].change, v[k].before);
  }
  return v;
}

/** Lines of a text as `diffLines` counts them (a final newline ends the last line). */
function lineCount(s: string): number {
  if (s === '') return 0;
  return s.split('\n').length - (s.endsWith('\n') ? 1 : 0);
}

/** Carries line attributions from `from` to `to`: kept lines keep theirs, added lines get `mark`. */
function carry(from: string, attr: readonly (number | null)[], to: string, mark: number | null): (number | null)[] {
  const out: (number | null)[] = [];
  let i = 0;
  for (const part of diffLines(from, to)) {
    const count = part.count ?? lineCount(part.value);
    if (part.added) for (let k = 0; k < count; k++) out.push(mark);
    else if (part.removed) i += count;
    else {
      for (let k = 0; k < count; k++) out.push(attr[i + k] ?? null);
      i += count;
    }
  }
  return out;
}

/** A run of lines of the file now that one step changed last: 0-based, `end` inclusive. */
export interface StepLines {
  stepIndex: number;
  start: number;
  end: number;
  /** True when the lines were found by the step's new text alone (the file's history is not known). */
  approximate: boolean;
}

/** 0-based line of an offset. */
function lineAt(text: string, offset: number): number {
  let n = 0;
  for (let i = text.indexOf('\n'); i >= 0 && i < offset; i = text.indexOf('\n', i + 1)) n++;
  return n;
}

/**
 * Which step last changed each line of the file now, as runs of lines (in line order). Lines are
 * followed through the known versions (a line diff per change, then from the last known text to
 * `current`); a change whose before or after is unknown is placed by finding its new text in
 * `current` (replacements and writes whose text is there exactly once), marked `approximate`,
 * on lines no later step claims.
 */
export function lineSteps(changes: readonly FileChangeAt[], versions: readonly FileVersion[], current: string): StepLines[] {
  let text: string | null = null;
  let attr: (number | null)[] = [];
  const approximate: FileChangeAt[] = [];
  versions.forEach((ver, k) => {
    if (ver.after === undefined || ver.before === undefined) {
      approximate.push(changes[k]);
      if (ver.after !== undefined) {
        // Known from here on: a write's lines are all its own; of another change, which lines it made is not known.
        text = ver.after;
        attr = new Array(lineCount(ver.after)).fill(changes[k].change.op === 'write' ? ver.stepIndex : null);
      } else {
        text = null;
      }
      return;
    }
    const baseAttr = text === null ? new Array(lineCount(ver.before)).fill(null) : text === ver.before ? attr : carry(text, attr, ver.before, null);
    attr = carry(ver.before, baseAttr, ver.after, ver.stepIndex);
    text = ver.after;
  });
  const line: (number | null)[] = text === null ? new Array(lineCount(current)).fill(null) : carry(text, attr, current, null);
  const approx = new Set<number>();
  // Changes with an unknown history, latest first: where their new text is in the file now.
  for (const c of [...approximate].reverse()) {
    const texts = c.change.op === 'replace' ? c.change.edits.map((e) => e.newText) : c.change.op === 'write' ? [c.change.content] : [];
    for (const t of texts) {
      if (t.trim() === '' || countOf(current, t) !== 1) continue;
      const at = current.indexOf(t);
      const first = lineAt(current, at);
      const last = lineAt(current, at + t.length - (t.endsWith('\n') ? 1 : 0));
      for (let l = first; l <= last && l < line.length; l++) {
        if (line[l] === null) {
          line[l] = c.stepIndex;
          approx.add(l);
        }
      }
    }
  }
  const runs: StepLines[] = [];
  line.forEach((s, l) => {
    if (s === null) return;
    const prev = runs[runs.length - 1];
    if (prev && prev.stepIndex === s && prev.end === l - 1 && prev.approximate === approx.has(l)) prev.end = l;
    else runs.push({ stepIndex: s, start: l, end: l, approximate: approx.has(l) });
  });
  return runs;
}

/**
 * The two texts to show for one change as a diff: the reconstructed file before and after it
 * (`whole`: true), or, when those are not known, the change's own texts (the replaced and the
 * new text, the patch's removed and added lines; `whole`: false). Null when the record holds no
 * text of the change (`opaque`).
 */
export function changeDiffTexts(change: RecordedChange, version: FileVersion): { before: string; after: string; whole: boolean } | null {
  if (version.before !== undefined && version.after !== undefined) return { before: version.before, after: version.after, whole: true };
  switch (change.op) {
    case 'write':
      return { before: version.before ?? '', after: change.content, whole: version.before !== undefined };
    case 'replace':
      return { before: change.edits.map((e) => e.oldText).join('\n⋯\n'), after: change.edits.map((e) => e.newText).join('\n⋯\n'), whole: false };
    case 'codex-update':
      return { before: change.chunks.map((c) => c.oldLines.join('\n')).join('\n⋯\n'), after: change.chunks.map((c) => c.newLines.join('\n')).join('\n⋯\n'), whole: false };
    case 'unified': {
      const side = (keep: string) => change.patch.hunks.map((h) => h.lines.filter((l) => l[0] === ' ' || l[0] === keep).map((l) => l.slice(1)).join('\n')).join('\n⋯\n');
      return { before: side('-'), after: side('+'), whole: false };
    }
    case 'delete':
      return version.before !== undefined ? { before: version.before, after: '', whole: true } : null;
    case 'opaque':
      return null;
  }
}
