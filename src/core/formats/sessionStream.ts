/**
 * Shared machinery of the coding-agent session loaders that read a file of records one JSON value
 * per line and implement `FormatLoader.stream` (types.ts `RecordStream`): the Codex CLI and Gemini
 * CLI loaders.
 *
 * - `parseSessionLine` parses one pushed line; a line that does not parse (a truncated last line of
 *   a session being written, a corrupt line) becomes a located issue, never an exception.
 * - `StepPublisher` turns a loader's mutable step drafts into `Step` values for `snapshot()`: only
 *   the drafts changed since the previous snapshot are built again (`changedFrom`), the earlier ones
 *   are handed out as the same values.
 * - `loadViaStream` is `load()` written as the contract asks: every line pushed, `end()`,
 *   `snapshot()`; the stream's issues go to `input.issues` and, formatted, to the rollout's
 *   `metadata.warnings`.
 *
 * This module never imports `vscode`.
 */
import { formatIssue, RolloutLoadError, type LocatedIssue } from '../errors';
import type { JsonDoc, JsonlLine } from '../json';
import type { Rollout, SourceRange, Step } from '../model';
import type { LoadInput, RecordStream, StreamedRollout, StreamStart } from './types';

/**
 * Parses one line of a session file. Returns null (and pushes the located issue) when the line is
 * not valid JSON; a blank line is null without an issue.
 */
export function parseSessionLine(start: Pick<StreamStart, 'parseLine'>, line: JsonlLine, issues: LocatedIssue[]): JsonDoc | null {
  if (line.text.trim() === '') return null;
  try {
    return start.parseLine(line);
  } catch (e) {
    if (e instanceof RolloutLoadError) {
      issues.push(...e.issues);
      return null;
    }
    throw e;
  }
}

/** The text range of a JSONL line in its file (UTF-16 offsets, end exclusive). */
export function lineRange(line: JsonlLine): SourceRange {
  return { start: line.offset, end: line.offset + line.text.length };
}

/** The smallest range covering both (either may be null). */
export function unionRange(a: SourceRange | null, b: SourceRange | null): SourceRange | null {
  if (!a) return b;
  if (!b) return a;
  return { start: Math.min(a.start, b.start), end: Math.max(a.end, b.end) };
}

/**
 * Builds `Step` values from a loader's drafts for successive snapshots. A loader marks a draft as
 * changed with `touch(index)` (or by appending one); `publish` builds the drafts from the lowest
 * touched index on and reports that index as `changedFrom`. Steps before it keep their identity.
 */
export class StepPublisher<D> {
  private published: Step[] = [];
  private dirty = 0;

  constructor(private readonly build: (draft: D, index: number) => Step) {}

  /** Marks draft `index` (and so every later one in the next snapshot) as changed. */
  touch(index: number): void {
    if (index < this.dirty) this.dirty = index;
  }

  /**
   * The steps of `drafts` as of now and the first index that differs from the previous call (the
   * drafts list may have grown or shrunk).
   */
  publish(drafts: readonly D[]): { steps: Step[]; changedFrom: number } {
    const from = Math.min(this.dirty, this.published.length, drafts.length);
    this.published.length = Math.min(this.published.length, drafts.length);
    for (let i = from; i < drafts.length; i++) this.published[i] = this.build(drafts[i], i);
    this.dirty = drafts.length;
    return { steps: this.published.slice(), changedFrom: from };
  }
}

/** A loader's incremental reader that can also say it read nothing of its format (no rollout). */
export interface SessionStream extends RecordStream {
  /** True when at least one record of the format was read (else `snapshot()` is empty). */
  readonly recognised: boolean;
}

/**
 * `load()` of a session loader: feeds every line of the input to a fresh stream, ends it and
 * returns its snapshot. The stream's issues are added to `input.issues` and, formatted, to each
 * rollout's `metadata.warnings`.
 * @throws RolloutLoadError listing the issues when no record of the format could be read
 */
export function loadViaStream(input: LoadInput, label: string, open: (start: StreamStart) => SessionStream): Rollout[] {
  const stream = open({ path: input.path, files: input.files, parseLine: input.parseLine });
  stream.push(input.lines ?? []);
  stream.end?.();
  const snap: StreamedRollout[] = stream.snapshot();
  const issues = [...stream.issues];
  if (!stream.recognised || snap.length === 0) {
    throw new RolloutLoadError(
      input.path,
      label,
      issues.length ? issues : [{ file: input.path, line: null, column: null, pointer: null, expected: `at least one ${label} record`, found: 'none' }],
    );
  }
  const rollouts = snap.map((s) => s.rollout);
  if (issues.length) {
    (input.issues ??= []).push(...issues);
    const warnings = issues.map(formatIssue);
    for (const r of rollouts) r.metadata.warnings = [...((r.metadata.warnings as string[] | undefined) ?? []), ...warnings];
  }
  return rollouts;
}

/** Shortens a text to `max` characters for a label (an ellipsis marks the cut). */
export function shortLabel(text: string, max = 80): string {
  const one = text.replace(/\s+/g, ' ').trim();
  return one.length > max ? `${one.slice(0, max - 1)}…` : one;
}
