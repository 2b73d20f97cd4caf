/**
 * Checks every loader's rollouts for values that load but are not what they claim to be, and says so with located warnings (`LocatedIssue.severity` `warning`): the rollout is
 * shown as recorded.
 *
 * - a step `timestamp` that is not an ISO-8601 time (`formats/util.ts` `timestampProblem`), located
 *   at the step's place in the file (its `range`). (Steps dated before the step before them are not
 *   flagged: sessions with subagents interleave them legitimately.)
 *
 * At most MAX_PER_KIND warnings of each kind per file are located one by one; the rest are counted
 * in one more warning. Format-specific oddities (ATIF step ids, asciicast event times and codes) are
 * found by their loaders with JSON pointers.
 */
import { asWarning, describeValue, type LocatedIssue } from './errors';
import { timestampProblem } from './formats/util';
import { LineIndex } from './json';
import type { Rollout } from './model';

/** Warnings of one kind located one by one per file; the rest are counted. */
export const MAX_PER_KIND = 20;

/** Collects warnings of several kinds, capping each (see MAX_PER_KIND). */
export class IssueCap {
  private counts = new Map<string, { shown: number; more: number; first: LocatedIssue }>();
  readonly issues: LocatedIssue[] = [];

  /** Adds `issue` (made a warning) under `kind` unless MAX_PER_KIND of that kind were added already. */
  add(kind: string, issue: LocatedIssue): void {
    const c = this.counts.get(kind);
    if (!c) this.counts.set(kind, { shown: 1, more: 0, first: issue });
    else if (c.shown < MAX_PER_KIND) c.shown++;
    else {
      c.more++;
      return;
    }
    this.issues.push(asWarning(issue));
  }

  /** The warnings, with one summary warning per kind that had more than MAX_PER_KIND. */
  done(): LocatedIssue[] {
    const out = [...this.issues];
    for (const c of this.counts.values()) {
      if (c.more) out.push(asWarning({ ...c.first, line: null, column: null, pointer: null, found: `${c.more} more like it in this file (the first ${MAX_PER_KIND} are listed)` }));
    }
    return out;
  }
}

/**
 * Located warnings for the oddities listed in the module docs, over the rollouts of `file`.
 * @param text the file's text (positions of steps' `range` are offsets into it); '' for an archive
 */
export function rolloutOddities(file: string, text: string, rollouts: readonly Rollout[]): LocatedIssue[] {
  const cap = new IssueCap();
  let index: LineIndex | null = null;
  const where = (r: Rollout, i: number): Pick<LocatedIssue, 'file' | 'line' | 'column'> => {
    const s = r.steps[i];
    const f = s.file ?? file;
    if (f !== file || !s.range || !text) return { file: f, line: null, column: null };
    index ??= new LineIndex(text);
    return { file, ...index.position(s.range.start) };
  };
  for (const r of rollouts) {
    for (let i = 0; i < r.steps.length; i++) {
      const t = r.steps[i].timestamp;
      if (t === null || t === undefined) continue;
      const why = typeof t === 'string' ? timestampProblem(t) : 'not a string';
      if (why) {
        cap.add('timestamp', { ...where(r, i), pointer: null, expected: `a step timestamp (ISO-8601 time) for step ${i}; ${why}`, found: describeValue(t) });
      }
    }
  }
  return cap.done();
}
