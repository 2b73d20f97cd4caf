/**
 * The one wording of a replayed step's verdict: the terminal's verdict line, the
 * diff editor's title, the raw file's end-of-line decoration and the diff documents' header all
 * say the same thing in the same words, e.g. `differs: exit code 0 → 127`, `same · exit code 0`,
 * `differs: ran past the step timeout (stopped) · exit code 137`. Also which terminals of failed
 * replays to close when a new replay of the same file starts. Pure (no `vscode`); unit-tested in
 * test/unit/replay/wording.test.ts.
 */
import type { StepComparison } from '../../core/replay/compare';

const STATUS_WORDS: Record<StepComparison['status'], string> = {
  same: 'same',
  differs: 'differs',
  'not-replayable': 'not replayable',
};

/** An exit code as every replay surface writes it: `exit code 127`. */
export function exitCodeText(code: number): string {
  return `exit code ${code}`;
}

/**
 * A step's verdict in words: the status, the comparison's summary (when it says more than the
 * status) and the replayed exit code (when the summary does not already give it), then
 * `(state may differ)` after the first divergence.
 */
export function verdictText(c: Pick<StepComparison, 'status' | 'summary' | 'stateMayDiffer' | 'replayed'>): string {
  const status = STATUS_WORDS[c.status] ?? c.status;
  const summary = c.summary && c.summary !== c.status && c.summary !== status ? c.summary : '';
  const code = c.replayed?.exitCode;
  const exit = code !== null && code !== undefined && !/\bexit\b/.test(summary) ? exitCodeText(code) : '';
  return `${status}${summary ? `: ${summary}` : ''}${exit ? ` · ${exit}` : ''}${c.stateMayDiffer ? ' (state may differ)' : ''}`;
}

/** The diff editor's title for step `stepIndex` (0-based): `Step #3: recorded ↔ replayed — differs: exit code 0 → 1`. */
export function diffTitle(stepIndex: number, c: Pick<StepComparison, 'status' | 'summary' | 'stateMayDiffer' | 'replayed'>): string {
  return `Step #${stepIndex + 1}: recorded ↔ replayed — ${verdictText(c)}`;
}

/** The header lines of one side of the diff documents: `[exit code N]`, `[cwd D]` (each only when known). */
export function diffHeader(exitCode: number | null, cwd: string | null): string {
  return `${exitCode === null ? '' : `[${exitCodeText(exitCode)}]\n`}${cwd === null ? '' : `[cwd ${cwd}]\n`}`;
}

/**
 * Terminals of replays that failed to start, kept open so their error can be read, per rollout
 * file: starting a new replay of that file disposes them (they used to pile up beside the new one).
 */
export class FailedTerminals<T extends { dispose(): void }> {
  private readonly byFile = new Map<string, T[]>();

  /** Keeps the terminal of a failed replay of `file`. */
  keep(file: string, t: T): void {
    this.byFile.set(file, [...(this.byFile.get(file) ?? []), t]);
  }

  /** Disposes the kept terminals of `file` (a new replay of it starts); returns how many. */
  closeFor(file: string): number {
    const ts = this.byFile.get(file) ?? [];
    this.byFile.delete(file);
    for (const t of ts) t.dispose();
    return ts.length;
  }

  /** Forgets a terminal the user closed. */
  forget(t: T): void {
    for (const [f, ts] of this.byFile) {
      const rest = ts.filter((x) => x !== t);
      if (rest.length) this.byFile.set(f, rest);
      else this.byFile.delete(f);
    }
  }
}
