/**
 * A rollout the timeline reads by windows of steps (a big ATIF through SteppedSource,
 * steppedSource.ts): its Rollout carries no steps (`steps: []`) and says how many it has in
 * `metadata[STEPS_BY_WINDOWS]`, so what reads a rollout whole (scores, replay, Go to Step, step
 * links) can tell it from a rollout that has no steps, and say so instead of being silently wrong.
 * Nothing here imports `vscode`.
 */
import type { Rollout } from '../core/model';

/** The metadata key holding the step count of a rollout read by windows (never written to a file). */
export const STEPS_BY_WINDOWS = 'trajectoryInspector.stepsByWindows';

/** Steps of `r` when it is read by windows (its `steps` are empty), else null. */
export function stepsByWindows(r: Pick<Rollout, 'metadata'>): number | null {
  const n = r.metadata[STEPS_BY_WINDOWS];
  return typeof n === 'number' && Number.isInteger(n) && n >= 0 ? n : null;
}

/** Steps of `r`: its step count when read by windows, else `steps.length`. */
export function stepCount(r: Pick<Rollout, 'metadata' | 'steps'>): number {
  return stepsByWindows(r) ?? r.steps.length;
}

/** One line for the user: `what` is off for a rollout of `steps` steps read by windows (e.g. "Scoring"). */
export function byWindowsNotice(what: string, steps: number, why: string): string {
  return `${what} is off for this rollout: its ${steps} steps are read from the file by windows (the file is too big to hold whole), and ${why}.`;
}
