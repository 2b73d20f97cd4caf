/**
 * The outcome text of a rollout, the one function the Rollouts view, the timeline header and the
 * CLI use, so a rollout reads the same everywhere (a SWE-agent rollout that only records
 * `exit_status: submitted` is "submitted" in each, never "—" in one and "submitted" in another).
 * Pure; no imports (the webview, the host and the CLI all use it).
 */

/** The fields of core `Outcome` the text is made of. */
export interface OutcomeFields {
  /** Pass/fail when known (recorded, or derived from a 1/0 reward). */
  resolved: boolean | null;
  /** Exit status / failure mode as recorded (SWE-agent `exit_status`, Harbor exception), or null. */
  status: string | null;
}

/** `resolved` / `failed` when known. */
export function resolvedWord(resolved: boolean | null): string | null {
  return resolved === true ? 'resolved' : resolved === false ? 'failed' : null;
}

/**
 * `resolved`, `failed`, the recorded exit status (`submitted`), or both (`failed · exit_cost`);
 * `unknown` (default `—`) when the rollout records neither. A status equal to the pass/fail word is
 * not repeated.
 */
export function outcomeText(o: OutcomeFields, unknown = '—'): string {
  const word = resolvedWord(o.resolved);
  const status = o.status?.trim() || null;
  const parts = [word, status && status.toLowerCase() !== word ? status : null].filter((x): x is string => x !== null);
  return parts.length ? parts.join(' · ') : unknown;
}
