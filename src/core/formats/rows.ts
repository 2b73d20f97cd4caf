/**
 * Files of rows: one record per JSONL line (or concatenated JSON value), per item of a top-level
 * JSON array, or the whole document as one record; and the bad-row policy the row loaders share
 * (RL dumps, process-label datasets, OpenHands evaluation output.jsonl):
 *
 * - every row is read; a row whose reading throws RolloutLoadError (it does not parse, or does not
 *   conform) is left out and its located issues are kept;
 * - when no row is valid the file fails: RolloutLoadError listing the issues of every row (or, for
 *   a file without rows, one issue "at least one <row> / none");
 * - otherwise the valid rows are loaded, and the left-out rows' issues go to `input.issues` (→
 *   `LoadedFile.issues`: `validate` fails on them) and, formatted, to every loaded rollout's
 *   `metadata.warnings` (for views of one rollout);
 * - ids are made unique: a repeated id gets `#line<N>` (its JSONL line) or `#<n>` appended (see
 *   DuplicateIds; rows that start on one line, as in a JSON array written on one line, get their
 *   position in the file).
 *
 * This module never imports `vscode`.
 */
import { formatIssue, RolloutLoadError, type LocatedIssue } from '../errors';
import type { JsonDoc, JsonlLine, JsonPath } from '../json';
import type { Rollout, SourceRange } from '../model';
import type { LoadInput } from './types';

/** Where one row lives: its document, the path of the row inside it, its JSONL line, its ordinal. */
export interface RowRef {
  doc: JsonDoc;
  /** Path of the row inside `doc` (`[]` for a line or a single-object file, `[i]` for an array item). */
  at: JsonPath;
  line: JsonlLine | null;
  /** 0-based ordinal of the row in the file. */
  index: number;
}

/** The value detection looks at: the first JSONL/concatenated value, the first array item, or the object. */
export function firstRow(input: LoadInput): { value: unknown; where: string } {
  if (input.lines) return { value: input.firstLineValue, where: input.linesKind === 'concatenated' ? 'first JSON value' : 'first JSONL line' };
  const v = input.doc?.value;
  if (Array.isArray(v)) return { value: v[0], where: 'first array item' };
  return { value: v, where: 'JSON document' };
}

/** All rows of the input, each read (a JSONL line parsed) only when its function is called. */
export function rowRefs(input: LoadInput): (() => RowRef)[] {
  if (input.lines) return input.lines.map((line, index) => () => ({ doc: input.parseLine(line), at: [], line, index }));
  const doc = input.doc;
  if (!doc) return [];
  const item = input.item;
  if (item !== undefined && Array.isArray(doc.value)) return [() => ({ doc, at: [item], line: null, index: item })];
  if (Array.isArray(doc.value)) return doc.value.map((_, index) => () => ({ doc, at: [index], line: null, index }));
  return [() => ({ doc, at: [], line: null, index: 0 })];
}

/** 1-based line of a row (its JSONL line, or where its value starts in the document). */
export function rowLine(ref: RowRef): number {
  return ref.line ? ref.line.line : ref.doc.locate(ref.at).line;
}

/** Source range of a row in the file (its line, or its value in the document), or null for a whole-file row. */
export function rowRange(ref: RowRef): SourceRange | null {
  if (ref.line) return { start: ref.line.offset, end: ref.line.offset + ref.line.text.length };
  return ref.at.length ? ref.doc.rangeOf(ref.at) : null;
}

/** `Rollout.source` of a row: its range and line; both null for a whole-file row. */
export function rowSource(input: LoadInput, ref: RowRef): Rollout['source'] {
  return { path: input.path, range: rowRange(ref), line: ref.line || ref.at.length ? rowLine(ref) : null };
}

/** Collects every issue of several readings so one error (or one list of left-out rows) holds them all. */
export class IssueCollector {
  readonly issues: LocatedIssue[] = [];
  /** Runs `fn`; a RolloutLoadError's issues are kept and `undefined` returned; other errors propagate. */
  run<T>(fn: () => T): T | undefined {
    try {
      return fn();
    } catch (e) {
      if (e instanceof RolloutLoadError) {
        this.issues.push(...e.issues);
        return undefined;
      }
      throw e;
    }
  }
}

/**
 * The end of the bad-row policy (module docs): throws when `rollouts` is empty, else reports the
 * left-out rows' issues in `input.issues` (created when the input has none) and each rollout's
 * `metadata.warnings` (after any warnings it has).
 * @param rowName what one row is called in the "at least one … / none" issue of a file without rows
 * @throws RolloutLoadError when no row is valid
 */
export function finishRows(input: LoadInput, label: string, rollouts: Rollout[], bad: LocatedIssue[], rowName = `${label} row`): Rollout[] {
  if (rollouts.length === 0) {
    throw new RolloutLoadError(
      input.path,
      label,
      bad.length ? bad : [{ file: input.path, line: null, column: null, pointer: null, expected: `at least one ${rowName}`, found: 'none' }],
    );
  }
  if (bad.length) {
    (input.issues ??= []).push(...bad);
    const warnings = bad.map(formatIssue);
    for (const r of rollouts) r.metadata.warnings = [...((r.metadata.warnings as string[] | undefined) ?? []), ...warnings];
  }
  return rollouts;
}

/**
 * How a repeated id is told apart (the first keeps its id): `line` appends `#line<N>` (the row's
 * line) when no earlier row starts on that line, else `#<p>` (p = the row's 1-based position in the
 * file: rows of a JSON array written on one line, as Python's `json.dump(rows)` writes it), and
 * `#<n>` when it has no line; `ordinal` appends `#<n>` (n = 2, 3, … for the id's repeats).
 */
export type DuplicateIds = 'line' | 'ordinal';

/**
 * Makes repeated ids unique in place (see DuplicateIds).
 * @param positions 0-based position in the file of each rollout's row (the rows left out count);
 *   default: the rollout's index in `rollouts`
 */
export function uniqueIds(rollouts: Rollout[], style: DuplicateIds = 'line', positions?: readonly number[]): void {
  const seen = new Map<string, number>();
  const lines = new Set<number>();
  for (const [i, r] of rollouts.entries()) {
    const n = (seen.get(r.id) ?? 0) + 1;
    seen.set(r.id, n);
    const line = r.source.line;
    const sharesLine = line !== null && lines.has(line);
    if (line !== null) lines.add(line);
    if (n === 1) continue;
    if (style === 'ordinal' || line === null) r.id = `${r.id}#${n}`;
    else r.id = `${r.id}#${sharesLine ? (positions?.[i] ?? i) + 1 : `line${line}`}`;
  }
}

export interface LoadRowsOptions {
  /** What one row is called in the error of a file without rows (default `<label> row`). */
  rowName?: string;
  /** How repeated ids are told apart (default `line`). */
  duplicateIds?: DuplicateIds;
}

/**
 * Reads every row of the input with `build` (one rollout per row) under the bad-row policy of the
 * module docs: good rows are loaded, bad ones reported as located issues in `input.issues` and
 * `metadata.warnings`, ids made unique.
 * @throws RolloutLoadError when no row is valid
 */
export function loadRows(input: LoadInput, label: string, build: (ref: RowRef) => Rollout, options: LoadRowsOptions = {}): Rollout[] {
  const rollouts: Rollout[] = [];
  const positions: number[] = [];
  const issues = new IssueCollector();
  for (const [index, make] of rowRefs(input).entries()) {
    const r = issues.run(() => build(make()));
    if (r) {
      rollouts.push(r);
      positions.push(index);
    }
  }
  uniqueIds(rollouts, options.duplicateIds, positions);
  return finishRows(input, label, rollouts, issues.issues, options.rowName);
}
