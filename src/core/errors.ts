/**
 * Errors that say where and what: every problem a loader finds names the file, a position
 * (1-based line/column and, for structural problems, a JSON pointer), what was expected and what
 * was found. Nothing here throws anything but these classes, so callers can show them as-is.
 */

/** One located problem in a rollout file. */
export interface LocatedIssue {
  /** Absolute path of the file. */
  file: string;
  /** 1-based line in the file, or null when the problem has no single place (e.g. an empty folder). */
  line: number | null;
  /** 1-based column (UTF-16 code units), or null. */
  column: number | null;
  /** RFC 6901 JSON pointer of the offending value (`/steps/3/source`), or null for syntax errors. */
  pointer: string | null;
  /** What the format requires there, in words (`one of "system" | "user" | "agent"`). */
  expected: string;
  /** What the file holds there, shortened (`"robot"`, `missing`, `number 3`). */
  found: string;
  /**
   * `warning`: the loader showed everything and the issue is only worth knowing (a linked file that is
   * missing, a record type shown raw, a tool result without its call, the incomplete last line of a
   * session still being written); absent or `error`: a part of the file was left out or is invalid.
   * `validate` and `show` fail only on errors.
   */
  severity?: 'error' | 'warning';
}

/** The issue as a warning (it left nothing out: see LocatedIssue.severity). */
export function asWarning(issue: LocatedIssue): LocatedIssue {
  return { ...issue, severity: 'warning' };
}

/** True for an issue that is only a warning (see LocatedIssue.severity). */
export function isWarning(issue: LocatedIssue): boolean {
  return issue.severity === 'warning';
}

/** Formats a located issue as `file:line:col pointer: expected X, found Y` (the CLI and the UI use this). */
export function formatIssue(issue: LocatedIssue): string {
  const where = issue.line === null ? issue.file : `${issue.file}:${issue.line}:${issue.column ?? 1}`;
  const ptr = issue.pointer !== null ? ` at ${issue.pointer === '' ? '/' : issue.pointer}` : '';
  return `${where}${ptr}: expected ${issue.expected}, found ${issue.found}`;
}

/** A file was recognised as a format but does not conform to it (or is not valid JSON). */
export class RolloutLoadError extends Error {
  /**
   * @param file absolute path
   * @param format the format the file was read as, or null for a JSON syntax error before detection
   * @param issues at least one located issue
   */
  constructor(
    readonly file: string,
    readonly format: string | null,
    readonly issues: LocatedIssue[],
  ) {
    super(
      `${format ? `Invalid ${format} rollout` : 'Unreadable rollout file'} ${file}:\n` +
        issues.slice(0, 20).map((i) => `  ${formatIssue(i)}`).join('\n') +
        (issues.length > 20 ? `\n  … and ${issues.length - 20} more` : ''),
    );
    this.name = 'RolloutLoadError';
  }
}

/** Why one loader declined a file; `reason` ends with the position of the field that decided when it has one (`(line 1, column 3, at /schema_version)`). */
export interface Declined {
  format: string;
  reason: string;
  /** 1-based line / column and JSON pointer of the field that decided (absent for files that are not JSON). */
  line?: number;
  column?: number;
  pointer?: string;
}

/** No loader accepted the file: lists every format tried and why each declined. */
export class UnknownFormatError extends Error {
  constructor(
    readonly file: string,
    readonly declined: Declined[],
  ) {
    super(
      `No rollout format matches ${file}. Formats tried:\n` +
        declined.map((d) => `  - ${d.format}: ${d.reason}`).join('\n'),
    );
    this.name = 'UnknownFormatError';
  }
}

/** Describes a JSON value briefly for `found` texts: `string "abc…"`, `number 3`, `array(4)`, `object {a, b, …}`. */
export function describeValue(value: unknown): string {
  if (value === undefined) return 'missing';
  if (value === null) return 'null';
  if (typeof value === 'string') {
    const s = value.length > 40 ? `${value.slice(0, 40)}…` : value;
    return `string ${JSON.stringify(s)}`;
  }
  if (typeof value === 'number' || typeof value === 'boolean') return `${typeof value} ${String(value)}`;
  if (Array.isArray(value)) return `array(${value.length})`;
  if (typeof value === 'object') {
    const keys = Object.keys(value as object);
    return `object {${keys.slice(0, 5).join(', ')}${keys.length > 5 ? ', …' : ''}}`;
  }
  return typeof value;
}
