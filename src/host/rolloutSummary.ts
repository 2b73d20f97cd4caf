/**
 * What the Rollouts tree and the timeline's picker say about a rollout: its outcome in words, the
 * `<n> steps · reward · outcome` description, the values a loader derived, and the picker's
 * summary. Nothing here imports `vscode` (test/unit/host/present.test.ts, outcome.test.ts).
 */
import { countedSteps, type Rollout } from '../core/model';
import { outcomeText } from '../shared/outcome';
import type { RolloutSummary } from '../shared/protocol';
import { formatReward } from '../shared/text';

/** `resolved`, `failed`, the recorded exit status, or `—` (unknown): `outcomeText` of src/shared/outcome.ts, the text every view uses. */
export function resolvedText(resolved: boolean | null, status: string | null = null): string {
  return outcomeText({ resolved, status });
}

/** `<n> steps · reward 0.0 · resolved` (reward left out when unknown; the outcome as `outcomeText` words it). */
export function describeRollout(r: Pick<Rollout, 'steps' | 'outcome'>): string {
  return describeCounts(countedSteps(r), r.outcome.reward, r.outcome.resolved, [], r.outcome.status);
}

/** The same description from the numbers alone (the tree keeps no steps); `status`: the recorded exit status (`submitted`). */
export function describeCounts(steps: number, reward: number | null, resolved: boolean | null, derived: readonly string[] = [], status: string | null = null): string {
  const parts = [`${steps} ${steps === 1 ? 'step' : 'steps'}`];
  if (reward !== null) parts.push(`reward ${formatReward(reward)}${derived.includes('outcome.reward') ? ' (derived)' : ''}`);
  parts.push(`${resolvedText(resolved, status)}${resolved !== null && derived.includes('outcome.resolved') ? ' (derived)' : ''}`);
  return parts.join(' · ');
}

/** The tooltip line naming the values a loader derived rather than read (core `Rollout.derived`), or ''. */
export function derivedText(derived: readonly string[] | undefined): string {
  return derived?.length ? `Derived by the loader, not recorded in the file: ${derived.join(', ')}` : '';
}

/** A summary of one rollout for the webview's picker and the tree. */
export function summarize(r: Rollout, index: number): RolloutSummary {
  return {
    index,
    id: r.id,
    taskId: r.task.id,
    // Steps an ATIF continuation copies from its earlier context are not new steps.
    steps: countedSteps(r),
    reward: r.outcome.reward,
    resolved: r.outcome.resolved,
    status: r.outcome.status,
    line: r.source.line,
  };
}
